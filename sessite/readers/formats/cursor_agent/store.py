"""``store.db``: the chat's metadata and its messages, in conversation order.

Table ``meta`` holds one row (key ``"0"``): hex-encoded JSON ``{agentId, name, mode,
createdAt, lastUsedModel, latestRootBlobId}``. Table ``blobs`` is content-addressed
(``id`` = SHA-256 of ``data``): each message is a JSON blob (AI SDK shape: ``role`` and
``content``), and the conversation is a binary (protobuf) root blob. Only the fields of the
root whose meaning the files show plainly are read: field 1, repeated, the ids of the
messages in order; 4, a message not yet appended (a turn in progress); 5, the context
window gauge (tokens used, window size); 9, the workspace URI; 15, the files the agent
wrote. The other binary blobs (the CLI's own per-turn and per-step records, earlier roots
and the contents of files it wrote) restate these messages for its UI and are not read.

The messages are numbered 1… in root order (``Event.line``); JSON messages the root does
not list (an earlier or abandoned branch) follow, in table order.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from sessite.model import Problems
from sessite.readers._util import as_str, iter_rows, opt_int
from sessite.readers.files import decode_bytes
from sessite.readers.formats.cursor_agent.vocabulary import NAME
from sessite.readers.safejson import loads
from sessite.readers.sqlite_wal import open_database


@dataclass
class Message:
    """One message blob: its 1-based number, id, and JSON (None when it is not an object)."""

    line: int
    blob: str
    value: Any
    listed: bool = True  # in the latest root's list (False: stored, but off the conversation)
    pending: bool = False  # the root's turn in progress


@dataclass
class Store:
    """What one ``store.db`` holds."""

    meta: dict[str, Any] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)
    workspace: str | None = None
    context: tuple[int, int] | None = None  # tokens in the context window, its size
    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what could not be read, for problem lines


def read_store(path: Path, problems: Problems) -> Store:
    """The store's meta, root facts and messages, its ``-wal`` applied in memory (raises
    sqlite3.Error when it is not a database)."""
    with closing(open_database(path, problems, NAME)) as conn:
        store = Store(meta=_meta(conn))
        blobs = {as_str(r["id"]): r["data"] for r in iter_rows(conn, "SELECT id, data FROM blobs ORDER BY rowid")}
    root_id = store.meta.get("latestRootBlobId")
    root = blobs.get(root_id) if isinstance(root_id, str) else None
    order: list[str] = []
    pending: bytes | None = None
    if isinstance(root, bytes):
        try:
            order, pending = _read_root(root, store)
        except ValueError as exc:
            store.notes.append(f"the conversation's root blob cannot be decoded ({exc}); messages in stored order")
    elif root_id is not None:
        store.notes.append("the conversation's root blob is missing; messages in stored order")
    listed = set(order)
    for blob in order:
        store.messages.append(Message(len(store.messages) + 1, blob, _json(blobs.get(blob))))
    if pending is not None:
        store.messages.append(Message(len(store.messages) + 1, "pending", _json(pending), pending=True))
    for blob, data in blobs.items():
        if blob in listed or not _looks_json(data):
            continue
        store.messages.append(Message(len(store.messages) + 1, blob, _json(data), listed=not order))
    return store


def _meta(conn: sqlite3.Connection) -> dict[str, Any]:
    for row in iter_rows(conn, "SELECT key, value FROM meta"):
        if as_str(row["key"]) != "0":
            continue
        text = as_str(row["value"]).strip()
        try:
            value = loads(decode_bytes(bytes.fromhex(text))[0]) if text[:1] != "{" else loads(text)
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}
    return {}


def _json(data: Any) -> Any:
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if not isinstance(data, bytes):
        return None
    try:
        return loads(decode_bytes(data)[0])
    except ValueError:
        return None


def _looks_json(data: Any) -> bool:
    return isinstance(data, (bytes, str)) and (data[:1] in (b"{", "{"))


def _read_root(root: bytes, store: Store) -> tuple[list[str], bytes | None]:
    order: list[str] = []
    pending: bytes | None = None
    for number, value in fields(root):
        if number == 1 and isinstance(value, bytes) and len(value) == 32:
            order.append(value.hex())
        elif number == 4 and isinstance(value, bytes) and value[:1] == b"{":
            pending = value
        elif number == 5 and isinstance(value, bytes):
            gauge = dict(fields(value))
            used, size = opt_int(gauge.get(1)), opt_int(gauge.get(2))
            if used is not None and size:
                store.context = (used, size)
        elif number == 9 and isinstance(value, bytes):
            store.workspace = _workspace(decode_bytes(value)[0])
        elif number == 15 and isinstance(value, bytes):
            written = dict(fields(value)).get(1)
            if isinstance(written, bytes):
                store.files.append(decode_bytes(written)[0])
    return order, pending


def _workspace(uri: str) -> str | None:
    if uri.startswith("file://"):
        parts = urlsplit(uri)
        path = unquote(parts.path)
        return path[1:] if len(path) > 2 and path[0] == "/" and path[2] == ":" else path  # file:///C:/x
    return uri or None


def fields(data: bytes) -> Iterator[tuple[int, int | bytes]]:
    """The fields of a protobuf message: (number, varint or bytes); raises ValueError when it is not one."""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
            yield number, value
        elif wire == 2:
            length, pos = _varint(data, pos)
            if pos + length > len(data):
                raise ValueError("field runs past the end")
            yield number, data[pos : pos + length]
            pos += length
        elif wire in (1, 5):
            width = 8 if wire == 1 else 4
            yield number, data[pos : pos + width]
            pos += width
        else:
            raise ValueError(f"wire type {wire}")
        if number == 0:
            raise ValueError("field number 0")


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while pos < len(data) and shift < 70:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
    raise ValueError("truncated varint")
