"""Zed's ``threads.db``: one row per agent thread, its JSON kept plain (``data_type = 'json'``) or zstd-compressed.

Records are numbered 1-based per database: the messages of every thread, rows in rowid
order and each thread's messages in their order; a thread whose data cannot be read (a
damaged frame, no zstd decoder here, JSON that is not a thread) is one record. The
fidelity enumerator numbers them the same way.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessite.model import Problems
from sessite.readers._util import as_str, iter_rows
from sessite.readers.files import decode_bytes
from sessite.readers.limits import MAX_RECORDS
from sessite.readers.safejson import TooManyObjects, loads
from sessite.readers.sqlite_wal import open_database
from sessite.readers.zstd import Quota, unzstd_why

NAME = "zed"


@dataclass
class Thread:
    id: str
    summary: str
    updated_at: str | None
    created_at: str | None
    parent: str | None
    folders: list[str]
    data: dict[str, Any] | None  # the thread's JSON (None: it could not be read)
    first_line: int
    messages: list[Any] = field(default_factory=list)


def read(path: Path, problems: Problems) -> list[Thread]:
    conn = open_database(path, problems, NAME)
    try:
        return _read(conn, path, problems)
    finally:
        conn.close()


def _read(conn: sqlite3.Connection, path: Path, problems: Problems) -> list[Thread]:
    tables = {as_str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "threads" not in tables:
        problems.add(path, None, "zed: the database has no threads table; nothing to read")
        return []
    out: list[Thread] = []
    number = 0
    quota = Quota()
    for row in iter_rows(conn, "SELECT * FROM threads ORDER BY rowid"):
        line = number + 1
        data = _data(row, path, line, problems, quota)
        messages = data.get("messages") if data is not None else None
        if data is not None and not isinstance(messages, list):
            problems.add(path, line, "zed: a thread without a messages list; not shown")
            data = None
        elif isinstance(messages, list) and len(messages) > MAX_RECORDS:
            problems.add(
                path,
                line + MAX_RECORDS,
                f"zed: a thread of {len(messages):,} messages; those after the first {MAX_RECORDS:,} "
                "(the cap on messages per thread) are not shown",
            )
            del messages[MAX_RECORDS:]
        thread = Thread(
            id=as_str(row.get("id")) or f"thread-{line}",
            summary=as_str(row.get("summary")),
            updated_at=as_str(row.get("updated_at")) or None,
            created_at=as_str(row.get("created_at")) or None,
            parent=as_str(row.get("parent_id")) or None,
            folders=[p for p in as_str(row.get("folder_paths")).split("\n") if p.strip()],
            data=data,
            first_line=line,
            messages=messages if data is not None and isinstance(messages, list) else [],
        )
        number += len(thread.messages) if data is not None else 1
        out.append(thread)
    return out


def _data(row: dict[str, Any], path: Path, line: int, problems: Problems, quota: Quota) -> dict[str, Any] | None:
    """The thread's JSON: decompressed when ``data_type`` says ``zstd``; one problem when unreadable."""
    kind = as_str(row.get("data_type"))
    raw = row.get("data")
    blob = bytes(raw) if isinstance(raw, (bytes, bytearray)) else as_str(raw).encode()
    if kind == "zstd":
        unpacked, why = unzstd_why(blob, quota)
        if unpacked is None:
            problems.add(path, line, f"zed: a zstd thread that cannot be decompressed here ({why}); not shown")
            return None
        blob = unpacked
        del unpacked
    elif kind != "json":
        problems.add(path, line, f"zed: a thread of data type {kind!r}; not shown")
        return None
    text = decode_bytes(blob)[0]
    del blob, raw  # the decoded text alone is held while it is parsed
    notes: list[str] = []
    try:
        value = loads(text, notes)
    except TooManyObjects as exc:
        problems.add(path, line, f"zed: a thread with {exc}")
        return None
    except ValueError as exc:
        problems.add(path, line, f"zed: a thread that is not JSON ({exc}); not shown")
        return None
    for note in notes:
        problems.add(path, line, f"zed: {note}")
    if not isinstance(value, dict):
        problems.add(path, line, f"zed: a thread that is a JSON {type(value).__name__}; not shown")
        return None
    return value


def has_threads_table(conn_sql: dict[str, str]) -> bool:
    sql = conn_sql.get("threads", "")
    return "data_type" in sql and "summary" in sql
