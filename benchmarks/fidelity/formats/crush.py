"""Crush databases (``.crush/crush.db``), read straight from the file (independently of the reader).

A database's records, numbered 1-based per file: every ``messages`` row in rowid order,
then every ``files`` row (snapshots of edited files) in rowid order. The ``-wal``,
``-shm`` and ``-journal`` files and the ``init`` marker have none.

Crush keeps its database in WAL mode, and a copied ``.crush`` folder often holds most
rows in ``crush.db-wal``: the database and its log are copied to a temporary folder and
opened there, so SQLite itself applies the log (the source folder is never written).

What a faithful page must show: the text parts (``{"type": "text", "data": {"text"}}``)
of ``user`` messages (what the user typed) and of ``assistant`` messages (the model's
prose), except in a ``title-<id>`` session (the request that names a session); call ids:
``tool_call`` parts' ``data.id``; result ids: ``tool_result`` parts' ``data.tool_call_id``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, json_value, sqlite_rows

_NOT_RECORDS = ("-wal", "-shm", "-journal")


def records(path: Path) -> Iterator[Record]:
    """Every record of one Crush database."""
    if path.name.endswith(_NOT_RECORDS) or path.name == "init" or not path.is_file():
        return
    messages, files = sqlite_rows(path, _rows, ([], []))
    line = 0
    for session_id, role, parts in messages:
        line += 1
        yield _message(path, line, str(session_id), str(role), parts)
    for _ in files:
        line += 1
        yield Record(path, line, "file")


def _message(path: Path, line: int, session_id: str, role: str, raw: Any) -> Record:
    out = Record(path, line, f"message/{role}")
    parts = json_value(raw)
    if not isinstance(parts, list):
        return out
    for part in parts:
        if not isinstance(part, dict) or not isinstance(part.get("data"), dict):
            continue
        kind, data = part.get("type"), part["data"]
        if kind == "text" and not session_id.startswith("title-"):
            text = data.get("text")
            if isinstance(text, str) and text.strip():
                if role == "user":
                    out.user_texts.append(text.strip())
                elif role == "assistant":
                    out.assistant_texts.append(text.strip())
        elif kind == "tool_call" and isinstance(data.get("id"), str) and data["id"]:
            out.calls.append(data["id"])
        elif kind == "tool_result" and isinstance(data.get("tool_call_id"), str) and data["tool_call_id"]:
            out.results.append(data["tool_call_id"])
    return out


def _rows(conn: sqlite3.Connection) -> tuple[list[Any], list[Any]]:
    messages = conn.execute("SELECT session_id, role, parts FROM messages ORDER BY rowid").fetchall()
    return messages, conn.execute("SELECT rowid FROM files ORDER BY rowid").fetchall()
