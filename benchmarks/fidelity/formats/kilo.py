"""Kilo CLI's ``kilo.db`` (OpenCode's database under Kilo's name), read straight from the file
(independently of the reader), its ``-wal`` applied by SQLite on a copy (``sqlite_rows``).

One record per ``message`` row, numbered 1-based in ``time_created`` order; its ``part`` rows
(JSON ``data``) give what a page must show:

- the user's words: ``text`` parts of ``user`` messages that are not ``synthetic``;
- the model's prose: ``text`` parts of ``assistant`` messages;
- call ids: ``tool`` parts' ``callID``; result ids: the same, when the part's ``state.status``
  is ``completed`` or ``error``.

OpenCode's database events carry no line, so the ledger cannot match these records: the
figures that count are the texts on a page and the calls paired with their results.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, sqlite_rows

_NOT_RECORDS = ("-wal", "-shm", "-journal")


def records(path: Path) -> Iterator[Record]:
    if path.name.endswith(_NOT_RECORDS) or not path.is_file():
        return
    for line, (role, parts) in enumerate(sqlite_rows(path, _rows, []), 1):
        out = Record(path, line, f"message/{role}")
        for part in parts:
            _part(out, role, part)
        yield out


def _rows(conn: sqlite3.Connection) -> list[tuple[str, list[dict[str, Any]]]]:
    parts: dict[str, list[dict[str, Any]]] = {}
    for mid, data in conn.execute("SELECT message_id, data FROM part ORDER BY time_created, id"):
        value = _json(data)
        if value is not None:
            parts.setdefault(str(mid), []).append(value)
    out = []
    for mid, data in conn.execute("SELECT id, data FROM message ORDER BY time_created, id"):
        value = _json(data) or {}
        out.append((str(value.get("role")), parts.get(str(mid), [])))
    return out


def _json(raw: Any) -> dict[str, Any] | None:
    try:
        value = json.loads(raw)
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _part(out: Record, role: str, part: dict[str, Any]) -> None:
    kind = part.get("type")
    if kind == "text" and isinstance(part.get("text"), str) and part["text"].strip():
        if role == "user" and not part.get("synthetic"):
            out.user_texts.append(part["text"].strip())
        elif role == "assistant":
            out.assistant_texts.append(part["text"].strip())
    elif kind == "tool" and isinstance(part.get("callID"), str):
        out.calls.append(part["callID"])
        state = part.get("state") if isinstance(part.get("state"), dict) else {}
        if state.get("status") in ("completed", "error"):
            out.results.append(part["callID"])
