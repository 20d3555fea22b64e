"""Zed's agent threads: ``threads/threads.db`` in Zed's data folder (SQLite).

Table ``threads(id, summary, updated_at, data_type, data, parent_id, folder_paths, …)``:
each row one thread, its JSON plain (``json``, the first agent panel's shape) or
zstd-compressed (``zstd``, Zed's agent thread version 0.3.0). Modules by job:
``database`` (rows, decompressed, numbered as records), ``calls`` (tool calls and
results), ``messages`` (one message of either shape as events), ``sessions`` (a session
per thread, sub-agent threads nested), ``reader``. zstd is decompressed by
``sessite.readers.zstd`` and the write-ahead log applied by ``sessite.readers.sqlite_wal``.
Written from Zed's source and other projects' fixtures: no real thread store was at hand.
"""

from __future__ import annotations

from sessite.readers.formats.zed.reader import READER, ZedReader

__all__ = ["READER", "ZedReader"]
