"""Goose (Block): ``sessions.db`` (SQLite), the older ``<id>.jsonl`` session files, and ``projects.json``.

The database has ``sessions`` (name, working folder, times, token totals, model, kind)
and ``messages`` (``role``, ``content_json``: Goose's message content items,
``created_timestamp``, ``metadata_json``: who sees the message), and since Goose 1.2x
``threads`` and ``thread_messages``. Modules by job: ``calls`` (tool calls and results),
``content`` (one message's items as events), ``database`` (rows, numbered as records),
``sessions`` (sessions from a database or a ``.jsonl`` file), ``reader``. The database's
write-ahead log is applied in memory by ``sessite.readers.sqlite_wal``.
"""

from __future__ import annotations

from sessite.readers.formats.goose.reader import READER, GooseReader

__all__ = ["READER", "GooseReader"]
