"""Goose sessions (``sessions.db``, older ``<id>.jsonl``), read straight from the file (independently of the reader).

A ``.jsonl`` file: one record per non-blank line that parses as a JSON object (its
1-based line): the first is the session header, each other a message. A database: every
``messages`` row in rowid order, then every ``thread_messages`` row in rowid order,
numbered 1-based per file (the database and its ``-wal`` are copied to a temporary
folder and opened there, so SQLite applies the log). ``projects.json`` and the ``-wal``,
``-shm``, ``-journal`` files have none.

What a faithful page must show, from a message ``{role, content: [...], metadata}``:
the ``text`` items of ``user`` messages (what the user typed) and of ``assistant``
messages (the model's prose), unless the message is hidden from the user
(``metadata.userVisible`` false); call ids: ``toolRequest``/``frontendToolRequest``
items' ``id``; result ids: ``toolResponse`` items' ``id``. A thread message with the
``message_id`` of a session message is that message again: its texts are not counted twice.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, json_lines, json_value, sqlite_rows

_NOT_RECORDS = ("-wal", "-shm", "-journal")


def records(path: Path) -> Iterator[Record]:
    """Every record of one Goose file."""
    if path.name.endswith(_NOT_RECORDS) or path.suffix.lower() == ".json" or not path.is_file():
        return
    if path.suffix.lower() == ".jsonl":
        first = True
        for line, obj in json_lines(path):
            if first and "role" not in obj and "content" not in obj:
                first = False
                yield Record(path, line, "header")
                continue
            first = False
            yield _message(Record(path, line, "message"), obj.get("role"), obj.get("content"), obj.get("metadata"))
        return
    rows = sqlite_rows(path, _rows, [])
    copies = {row[1] for row in rows if row[0] == "messages" and row[1] is not None}
    for line, (table, message_id, role, content, metadata) in enumerate(rows, 1):
        record = Record(path, line, f"{table}/{role}")
        if table == "thread_messages" and message_id in copies:
            yield record  # the thread's copy of a session message
            continue
        yield _message(record, role, json_value(content), json_value(metadata))


def _rows(conn: sqlite3.Connection) -> list[tuple[str, Any, Any, Any, Any]]:
    rows: list[tuple[str, Any, Any, Any, Any]] = []
    tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for table in ("messages", "thread_messages"):
        if table in tables:
            columns = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
            mid = "message_id" if "message_id" in columns else "NULL"
            meta = "metadata_json" if "metadata_json" in columns else "NULL"
            sql = f"SELECT {mid}, role, content_json, {meta} FROM {table} ORDER BY rowid"
            rows += [(table, *row) for row in conn.execute(sql)]
    return rows


def _message(out: Record, role: Any, content: Any, metadata: Any) -> Record:
    hidden = isinstance(metadata, dict) and metadata.get("userVisible") is False
    for item in content if isinstance(content, list) else []:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == "text" and not hidden:
            text = item.get("text")
            if isinstance(text, str) and text.strip():
                if role == "user":
                    out.user_texts.append(text.strip())
                elif role == "assistant":
                    out.assistant_texts.append(text.strip())
        elif kind in ("toolRequest", "frontendToolRequest") and isinstance(item.get("id"), str) and item["id"]:
            out.calls.append(item["id"])
        elif kind == "toolResponse" and isinstance(item.get("id"), str) and item["id"]:
            out.results.append(item["id"])
    return out
