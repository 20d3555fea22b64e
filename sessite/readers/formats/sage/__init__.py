"""sage (Emacs, aygp-dr/sage.el): project folders and REPL session files.

* A project folder ``~/.emacs.d/sage/projects/<encoded-path>/`` holds
  ``conversation.jsonl`` (the current conversation, append-only),
  ``metadata.json`` (``project_dir`` …) and ``history/<YYYYMMDD-HHMMSS>.jsonl``
  (archived conversations). Each JSONL file is one session. A line is
  ``{uuid?, role, content, timestamp, session_id?, tool_calls?, tokens?}``;
  timestamps are ``%Y-%m-%dT%H:%M:%S%z`` (offset without a colon).
* A REPL session file ``~/.emacs.d/sage/sessions/<name>.json`` is
  ``{name, model, provider, messages:[{role, content, timestamp}], created_at,
  updated_at, message_count, total_tokens, workspace}``: one session.

A bare ``conversation.jsonl`` or ``history/*.jsonl`` outside a project folder
is read as one session too. The spec's validation rules (role is user,
assistant or system; content is a non-empty string) are reported as problems;
the line is kept when it can be.

Modules by job: ``detect`` (the sniff), ``messages`` (a message into events),
``sessions`` (project conversations and session files into sessions),
``reader`` (the Reader).
"""

from __future__ import annotations

from sessite.readers.formats.sage.reader import READER, SageReader

__all__ = ["READER", "SageReader"]
