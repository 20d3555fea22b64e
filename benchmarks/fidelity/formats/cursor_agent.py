"""Cursor Agent chats, read straight from the files (independently of the reader).

Three shapes:

- the CLI's ``store.db`` (SQLite, WAL mode). The database is copied with its ``-wal`` into a
  temporary folder and opened there by SQLite itself, so the WAL is applied the way SQLite
  applies it (the reader applies it on its own, in memory). ``meta`` key ``"0"`` is hex
  JSON naming ``latestRootBlobId``; that blob (protobuf) lists, in field 1, the 32-byte ids
  of the conversation's message blobs. One record per message, numbered 1… in that order;
  then the root's turn in progress (field 4, a JSON message), then every other JSON blob
  in table order (messages off the conversation: no texts). ``-wal``/``-shm`` have none.
- ``agent-transcripts/<id>.jsonl``: one record per line ``{role, message: {content}}``.
- ``agent-transcripts/<id>.txt``: blocks under ``user:`` / ``assistant:`` lines (outside
  code fences); one record per user block (its ``user:`` line), per ``<think>`` block, per
  run of prose, per ``[Tool call] Name`` and per ``[Tool result] Name`` line. Calls have no
  ids: a call is ``txt-<its line>``, and a result answers the oldest open call of its name.

What a faithful page must show: the user's words (the inside of ``<user_query>``; a turn
without one is the user's text as it is, minus the blocks Cursor adds), the model's prose
(``text`` parts; prose runs of a ``.txt``), and the calls with their results.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, blocks, json_lines, json_value, sqlite_rows

_QUERY = re.compile(r"<user_query>\n?(.*?)\n?</user_query>", re.S)
_ADDED = (
    "user_info",
    "project_layout",
    "git_status",
    "rules",
    "external_links",
    "attached_files",
    "system_reminder",
    "open_and_recently_viewed_files",
    "agent_skills",
    "agent_requestable_workspace_rules",
    "always_applied_workspace_rules",
    "timestamp",
)
_BLOCK = re.compile(r"^<(" + "|".join(_ADDED) + r")>.*?(?:</\1>|\Z)", re.S | re.M)


def records(path: Path) -> Iterator[Record]:
    if path.name.endswith(("-wal", "-shm")) or not path.is_file():
        return
    suffix = path.suffix.lower()
    if suffix == ".db":
        yield from _store(path)
    elif suffix == ".txt":
        yield from _text(path)
    else:
        for line, obj in json_lines(path):
            yield _line(path, line, obj)


def user_words(text: str) -> list[str]:
    queries = [q.strip() for q in _QUERY.findall(text)]
    if queries or "<user_query>" in text:
        return [q for q in queries if q]
    rest = _BLOCK.sub("", text).strip()
    return [rest] if rest else []


# ------------------------------------------------------------------ store.db


def _store_rows(conn: sqlite3.Connection) -> tuple[list[Any], list[Any]]:
    conn.text_factory = str
    meta = conn.execute("SELECT key, value FROM meta").fetchall()
    return meta, conn.execute("SELECT id, data FROM blobs ORDER BY rowid").fetchall()


def _store(path: Path) -> Iterator[Record]:
    meta_rows, blobs = sqlite_rows(path, _store_rows, ([], []))
    meta: dict[str, Any] = {}
    for key, value in meta_rows:
        if key == "0":
            meta = json.loads(bytes.fromhex(value).decode("utf-8", "replace"))
    by_id = {blob_id: data for blob_id, data in blobs}
    root = by_id.get(meta.get("latestRootBlobId"))
    order: list[str] = []
    pending: bytes | None = None
    if isinstance(root, bytes):
        for number, value in _protobuf(root):
            if number == 1 and len(value) == 32:
                order.append(value.hex())
            elif number == 4 and value[:1] == b"{":
                pending = value
    numbered: list[tuple[Any, bool]] = [(by_id.get(blob_id), True) for blob_id in order]
    if pending is not None:
        numbered.append((pending, True))
    listed = set(order)
    numbered += [(data, not order) for blob_id, data in blobs if blob_id not in listed and _is_json(data)]
    for index, (data, on_path) in enumerate(numbered, 1):
        yield _message(path, index, _parse(data) if on_path else None)


def _is_json(data: Any) -> bool:
    return isinstance(data, (bytes, str)) and data[:1] in (b"{", "{")


def _parse(data: Any) -> Any:
    return json_value(data.decode("utf-8", "replace") if isinstance(data, bytes) else data)


def _protobuf(data: bytes) -> Iterator[tuple[int, bytes]]:
    """Length-delimited fields only (the others skipped)."""
    pos = 0

    def varint() -> int:
        nonlocal pos
        out = shift = 0
        while True:
            byte = data[pos]
            pos += 1
            out |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return out

    while pos < len(data):
        key = varint()
        wire = key & 7
        if wire == 2:
            size = varint()
            yield key >> 3, data[pos : pos + size]
            pos += size
        elif wire == 0:
            varint()
        else:
            pos += 8 if wire == 1 else 4


def _message(path: Path, index: int, message: Any) -> Record:
    if not isinstance(message, dict):
        return Record(path, index, "(off the conversation)" if message is None else "(not an object)")
    role = message.get("role")
    return _content(Record(path, index, str(role)), role, message.get("content"), _STORE_PARTS)


# The block types and id keys of a call and of a result: (call type, its id key, result type, its id key).
_STORE_PARTS = ("tool-call", "toolCallId", "tool-result", "toolCallId")
_LINE_PARTS = ("tool_use", "id", "tool_result", "tool_use_id")


def _content(out: Record, role: Any, content: Any, kinds: tuple[str, str, str, str]) -> Record:
    """The user's words, the model's prose, the calls and the results of a message's content."""
    call, call_key, result, result_key = kinds
    for part in blocks(content):
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str):
            if role == "user":
                out.user_texts.extend(user_words(part["text"]))
            elif role == "assistant" and part["text"].strip():
                out.assistant_texts.append(part["text"].strip())
        elif kind == call and isinstance(part.get(call_key), str):
            out.calls.append(part[call_key])
        elif kind == result and isinstance(part.get(result_key), str):
            out.results.append(part[result_key])
    return out


# ------------------------------------------------------------------ JSONL transcripts


def _line(path: Path, line: int, obj: dict[str, Any]) -> Record:
    role = obj.get("role")
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return _content(Record(path, line, str(role)), role, content, _LINE_PARTS)


# ------------------------------------------------------------------ .txt transcripts

_ROLE = re.compile(r"^(user|assistant):\s*$")
_TOOL = re.compile(r"^\[Tool (call|result)\] (.+?)\s*$")


def _text(path: Path) -> Iterator[Record]:
    rows = path.read_bytes().decode("utf-8", "replace").lstrip("\ufeff").split("\n")
    role = None
    fence = False
    state = None  # the item being read: "user", "think", "text", "tool"
    items: list[list[Any]] = []  # [line, kind, name, rows]
    for number, row in enumerate(rows, 1):
        role_line = None if fence else _ROLE.match(row)
        if role_line:
            role = role_line.group(1)
            state = "user" if role == "user" else None
            if role == "user":
                items.append([number, "user", "", []])
            continue
        if role == "assistant" and not fence:
            tool = _TOOL.match(row)
            if tool:
                items.append([number, tool.group(1), tool.group(2), []])
                state = "tool"
                continue
            if row.startswith("<think>"):
                items.append([number, "think", "", []])
                state = None if "</think>" in row else "think"
                continue
            if state == "think":
                if "</think>" in row:
                    state = None
                continue
            if state == "tool" and (row.startswith("  ") or not row.strip()):
                continue
            if state in (None, "tool"):
                if not row.strip():
                    continue
                items.append([number, "text", "", []])
                state = "text"
        if state in ("user", "text") and items:
            items[-1][3].append(row)
        if row.lstrip(" ")[:3] in ("```", "~~~") and len(row) - len(row.lstrip(" ")) <= 3:
            fence = not fence
    open_calls: list[tuple[str, str]] = []
    for number, kind, name, body in items:
        out = Record(path, number, kind)
        text = "\n".join(body).strip()
        if kind == "user":
            out.user_texts.extend(user_words(text))
        elif kind == "text" and text:
            out.assistant_texts.append(text)
        elif kind == "call":
            out.calls.append(f"txt-{number}")
            open_calls.append((f"txt-{number}", name))
        elif kind == "result":
            match = next((c for c in open_calls if c[1] == name), None)
            if match:
                open_calls.remove(match)
                out.results.append(match[0])
        yield out
