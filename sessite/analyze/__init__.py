"""Pure functions on the model: redaction, git refs, per-session figures and insights."""
