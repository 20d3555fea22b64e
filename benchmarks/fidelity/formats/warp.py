"""Warp's ``warp.sqlite`` AI conversations, read straight from the file (independently of the reader).

Only the AI tables hold conversation records (the rest is terminal state). Records,
numbered 1-based per file: every message of every ``agent_tasks`` row (rows in rowid
order; a task is a ``warp.multi_agent.v1.Task`` protobuf whose field 5 repeats its
messages; a task whose bytes do not parse is one record), then every ``ai_queries``
row, then every ``ai_blocks`` row, in rowid order. The database and its ``-wal`` are
copied to a temporary folder and opened there, so SQLite applies the log.

What a faithful page must show, by the published schema (``task.proto``): a message's
``user_query`` (field 2) ``query`` (1) and ``invoke_skill`` (23) query; ``agent_output``
(3) ``text`` (1); a ``tool_call`` (4) id (its field 1) unless the tool is ``server`` (4,
opaque); a ``tool_call_result`` (5) id unless its result is ``server`` (4). An
``ai_queries`` row's ``input`` ``[{"Query": {"text"}}]`` is what the user typed; an
``ai_blocks`` row's ``{"Received": {"output": [{"Text"}]}}`` the answer.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, json_value, sqlite_rows

_NOT_RECORDS = ("-wal", "-shm", "-journal")


def records(path: Path) -> Iterator[Record]:
    """Every record of one Warp database."""
    if path.name.endswith(_NOT_RECORDS) or not path.is_file():
        return
    rows = sqlite_rows(path, _rows, {"agent_tasks": [], "ai_queries": [], "ai_blocks": []})
    line = 0
    for task in rows["agent_tasks"]:
        messages = _messages(task)
        if messages is None:
            line += 1
            yield Record(path, line, "agent_task (unreadable)")
            continue
        for message in messages:
            line += 1
            yield _message(Record(path, line, "task message"), message)
    for (raw,) in rows["ai_queries"]:
        line += 1
        yield _query(Record(path, line, "ai_query"), raw)
    for (raw,) in rows["ai_blocks"]:
        line += 1
        yield _block(Record(path, line, "ai_block"), raw)


def _rows(conn: sqlite3.Connection) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {"agent_tasks": [], "ai_queries": [], "ai_blocks": []}
    tables = {n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "agent_tasks" in tables:
        out["agent_tasks"] = [r[0] for r in conn.execute("SELECT task FROM agent_tasks ORDER BY rowid")]
    if "ai_queries" in tables:
        out["ai_queries"] = conn.execute("SELECT input FROM ai_queries ORDER BY rowid").fetchall()
    if "ai_blocks" in tables:
        out["ai_blocks"] = conn.execute("SELECT output FROM ai_blocks ORDER BY rowid").fetchall()
    return out


def _fields(data: bytes) -> list[tuple[int, Any]] | None:
    """(field number, value) of a protobuf message; None when the bytes are not one."""
    out, pos = [], 0
    try:
        while pos < len(data):
            key, pos = _varint(data, pos)
            number, wire = key >> 3, key & 7
            if number == 0:
                return None
            if wire == 0:
                value, pos = _varint(data, pos)
            elif wire == 2:
                size, pos = _varint(data, pos)
                value, pos = data[pos : pos + size], pos + size
            elif wire in (1, 5):
                size = 8 if wire == 1 else 4
                value, pos = data[pos : pos + size], pos + size
            else:
                return None
            if pos > len(data):
                return None
            out.append((number, value))
    except IndexError:
        return None
    return out


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def _messages(task: Any) -> list[list[tuple[int, Any]]] | None:
    if not isinstance(task, bytes):
        return None
    fields = _fields(task)
    if fields is None:
        return None
    return [_fields(v) or [] for n, v in fields if n == 5 and isinstance(v, bytes)]


def _get(fields: list[tuple[int, Any]], number: int) -> Any:
    found = [v for n, v in fields if n == number]
    return found[-1] if found else None


def _text(value: Any) -> str:
    return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else ""


def _message(out: Record, message: list[tuple[int, Any]]) -> Record:
    for number, value in message:
        if not isinstance(value, bytes):
            continue
        body = _fields(value) or []
        if number == 2:
            _user(out, _text(_get(body, 1)))
        elif number == 23:
            query = _get(body, 2)
            _user(out, _text(_get(_fields(query) or [], 1)) if isinstance(query, bytes) else "")
        elif number == 3:
            text = _text(_get(body, 1)).strip()
            if text:
                out.assistant_texts.append(text)
        elif number in (4, 5) and _get(body, 4) is None:
            call_id = _text(_get(body, 1))
            if call_id:
                (out.calls if number == 4 else out.results).append(call_id)
    return out


def _user(out: Record, text: str) -> None:
    if text.strip():
        out.user_texts.append(text.strip())


def _query(out: Record, raw: Any) -> Record:
    items = json_value(raw)
    for item in items if isinstance(items, list) else []:
        query = item.get("Query") if isinstance(item, dict) else None
        if isinstance(query, dict) and isinstance(query.get("text"), str):
            _user(out, query["text"])
    return out


def _block(out: Record, raw: Any) -> Record:
    output = json_value(raw)
    received = output.get("Received") if isinstance(output, dict) else None
    parts = received.get("output") if isinstance(received, dict) else None
    texts = [p["Text"] for p in parts or [] if isinstance(p, dict) and isinstance(p.get("Text"), str)]
    if "".join(texts).strip():
        out.assistant_texts.append("\n\n".join(texts).strip())
    return out
