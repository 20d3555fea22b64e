"""Crush (charmbracelet): the per-project ``.crush/crush.db`` SQLite database.

Tables ``sessions`` (title, parent, token totals, cost), ``messages`` (role, ``parts``
JSON array, model, provider, times) and ``files`` (snapshots of the files edits
changed). Modules by job: ``store`` (rows, type-checked and numbered as records; the
write-ahead log applied in memory by ``sqlite_wal``), ``decode`` (the ``parts`` column as
an array, zstd-compressed ones through ``readers.zstd``), ``parts`` (one message's parts
as events), ``calls`` (tool calls and results), ``sessions`` (sessions and their nested
sub-agents), ``reader``.
"""

from __future__ import annotations

from sessite.readers.formats.crush.reader import READER, CrushReader

__all__ = ["READER", "CrushReader"]
