"""Cursor Agent: the CLI's ``~/.cursor/chats/<hash>/<id>/store.db`` and the agent transcripts
``~/.cursor/projects/<slug>/agent-transcripts/<id>.jsonl`` / ``.txt``.

Modules by job: ``vocabulary`` (tool categories, diffs, what is left out and why), ``wal``
(the schema of a store kept only in its write-ahead log, for ``detect``), ``store`` (a
store's meta and messages in order, its log applied by ``sqlite_wal``), ``turns`` (a user
turn's words and context), ``session`` (the builder: turns, calls, results), ``sdk`` (the
store's AI SDK messages), ``transcript`` (the JSONL transcripts and sub-agents), ``text``
(the ``.txt`` transcripts), ``reader`` (the Reader).
"""

from __future__ import annotations

from sessite.readers.formats.cursor_agent.reader import READER, CursorAgentReader

__all__ = ["READER", "CursorAgentReader"]
