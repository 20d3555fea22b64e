"""OpenClaw's run traces: ``~/.openclaw/agents/<agent>/sessions/<id>.trajectory.jsonl`` beside the
session transcript ``<id>.jsonl`` (a pi-format file, read by the pi reader).

A trace records each run of the agent (``session.started`` … ``session.ended``): the prompt
submitted, the model's replies, usage, fallbacks and errors. Beside its transcript it repeats
what the transcript shows, so it is said to hold no conversation of its own; a trace whose
transcript is gone (deleted, or never copied) is read as the session. Modules by job:
``events`` (one trace record as events), ``reader``.
"""

from __future__ import annotations

from sessite.readers.formats.openclaw_trajectory.reader import READER, OpenClawTrajectoryReader

__all__ = ["READER", "OpenClawTrajectoryReader"]
