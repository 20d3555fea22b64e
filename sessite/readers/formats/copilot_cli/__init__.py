"""GitHub Copilot CLI: ``~/.copilot/session-state/<sessionId>/events.jsonl`` and the older ``<uuid>.jsonl``.

Modules by job: ``vocabulary`` (tool categories, what is left out and why, note titles),
``index`` (the first pass: records and the links between them), ``state`` (one file's
reading: events placed on the timeline or in a sub-agent's transcript, session facts),
``messages`` (user and assistant messages), ``calls`` (tool calls and results), ``hooks``
(hooks and permissions), ``notes`` (session records), ``reader`` (the Reader).
"""

from __future__ import annotations

from sessite.readers.formats.copilot_cli.reader import KNOWN_TYPES, READER, CopilotCliReader

__all__ = ["KNOWN_TYPES", "READER", "CopilotCliReader"]
