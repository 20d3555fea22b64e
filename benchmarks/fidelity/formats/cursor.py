"""Cursor stores (``state.vscdb`` SQLite databases, or JSON dumps of one), read straight from the file.

A store holds key/value pairs, not lines: its records are the bubbles (chat messages),
numbered 1-based per file in this order:

1. every ``bubbleId:<composer>:<bubble>`` key (a database: the distinct keys of
   ``cursorDiskKV`` then ``ItemTable``, each table in key order; a JSON dump: in document order);
2. the bubbles a composer keeps inline (``composerData:<id>`` → ``conversation[]``), composer
   after composer in the same key order;
3. (a database's ``ItemTable``) the composers the ``composer.composerData`` index keeps whole
   (``allComposers[i].conversation[]``), then the old chat tabs
   (``workbench.panel.aichat.view.aichat.chatdata`` → ``tabs[i].bubbles[]``).

A JSON file holding one ``composerData`` object has records of part 2 only. Journal files
(``-wal``, ``-shm``, ``-journal``), ``workspace.json`` and a backup copy beside its database
have none.

What a faithful page must show (a stored bubble its composer's headers leave out, an
earlier branch of the conversation, and a bubble of a composer the file does not hold are
part of no conversation): the text of user bubbles (type 1, or ``"user"`` in chat
tabs) and of assistant bubbles (type 2, or ``"ai"``); tool calls: ``toolFormerData`` (its
``toolCallId``, else ``<bubbleId>-call``), answered when it records a result, an error, or a
status of error or cancelled.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from ..records import Record, json_document

_TABLES = ("cursorDiskKV", "ItemTable")
_BUBBLE = "bubbleId:"
_COMPOSER = "composerData:"
_INDEX = "composer.composerData"
_TABS = "workbench.panel.aichat.view.aichat.chatdata"
_USER = (1, "1", "user")
_ASSISTANT = (2, "2", "ai", "assistant")


def records(path: Path) -> Iterator[Record]:
    """Every bubble of one store file."""
    name = path.name
    if name.endswith(("-wal", "-shm", "-journal")) or name == "workspace.json" or not path.is_file():
        return
    if name.endswith(".backup") and path.with_name(name[: -len(".backup")]).is_file():
        return
    if path.suffix.lower() == ".json":
        yield from _json_records(path)
    else:
        yield from _db_records(path)


def _parse(value: Any) -> Any:
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


def _db_records(path: Path) -> Iterator[Record]:
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    except sqlite3.Error:
        return
    with closing(conn):
        try:
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            chosen = [t for t in _TABLES if t in tables]
            bubbles = _distinct(conn, chosen, _BUBBLE)
            composers = _distinct(conn, chosen, _COMPOSER)
            items = {key: _item(conn, key) for key in (_INDEX, _TABS)} if "ItemTable" in tables else {}
        except sqlite3.Error:
            return
    yield from _store(path, bubbles, composers, items)


def _distinct(conn: sqlite3.Connection, tables: list[str], prefix: str) -> dict[str, Any]:
    """key -> value of the keys with ``prefix``: table by table in key order, the first table's value."""
    found: dict[str, Any] = {}
    upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    for table in tables:
        rows = conn.execute(
            f'SELECT key, value FROM "{table}" WHERE key >= ? AND key < ? ORDER BY key', (prefix, upper)
        )
        for key, value in rows:
            key = key.decode("utf-8", errors="replace") if isinstance(key, bytes) else str(key)
            found.setdefault(key, value)
    return found


def _item(conn: sqlite3.Connection, key: str) -> Any:
    row = conn.execute('SELECT value FROM "ItemTable" WHERE key = ?', (key,)).fetchone()
    return _parse(row[0]) if row else None


def _json_records(path: Path) -> Iterator[Record]:
    doc = json_document(path)
    if not isinstance(doc, dict):
        return
    if isinstance(doc.get("composerId"), str) and not any(k.startswith((_BUBBLE, _COMPOSER)) for k in doc):
        yield from _store(path, {}, {_COMPOSER + doc["composerId"]: doc}, {})
        return
    bubbles = {k: v for k, v in doc.items() if k.startswith(_BUBBLE)}
    composers = {k: v for k, v in doc.items() if k.startswith(_COMPOSER)}
    yield from _store(path, bubbles, composers, {})


def _store(path: Path, bubbles: dict[str, Any], composers: dict[str, Any], items: dict[str, Any]) -> Iterator[Record]:
    parsed = {key[len(_COMPOSER) :]: _parse(value) for key, value in composers.items()}
    listed: dict[str, set[str]] = {}
    for cid, value in parsed.items():
        ids = _listed(value)
        if ids is not None:
            listed[cid] = ids
    number = 0
    for key, value in bubbles.items():
        number += 1
        _, cid, bid = (key.split(":", 2) + ["", ""])[:3]
        if cid in listed and bid not in listed[cid]:
            # a bubble its composer's conversation leaves out (an earlier branch): not part of it
            yield Record(path, number, "bubble/unlisted")
        elif cid not in parsed:
            # a bubble of a composer the file does not hold: no conversation shows it
            yield Record(path, number, "bubble/orphan")
        else:
            yield _bubble(path, number, _parse(value), bid, "bubble")
    lists: list[list[Any]] = [_conversation(value) for value in parsed.values()]
    index = items.get(_INDEX)
    entries = index.get("allComposers") if isinstance(index, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        lists.append(_conversation(entry))
    tabs = items.get(_TABS)
    tab_list = tabs.get("tabs") if isinstance(tabs, dict) else None
    for tab in tab_list if isinstance(tab_list, list) else []:
        inner = tab.get("bubbles") if isinstance(tab, dict) else None
        lists.append([("tab", b) for b in inner] if isinstance(inner, list) else [])
    for conversation in lists:
        for item in conversation:
            number += 1
            kind, value = item if isinstance(item, tuple) else ("inline", item)
            own = value.get("bubbleId") or value.get("id") if isinstance(value, dict) else None
            yield _bubble(path, number, value, str(own or f"n{number}"), kind)


def _listed(value: Any) -> set[str] | None:
    """The bubble ids a composer's headers list (its conversation), None when it has no headers."""
    headers = value.get("fullConversationHeadersOnly") if isinstance(value, dict) else None
    if not isinstance(headers, list) or not headers:
        return None
    return {h["bubbleId"] for h in headers if isinstance(h, dict) and isinstance(h.get("bubbleId"), str)}


def _conversation(value: Any) -> list[Any]:
    inline = value.get("conversation") if isinstance(value, dict) else None
    return inline if isinstance(inline, list) else []


def _bubble(path: Path, number: int, value: Any, bid: str, where: str) -> Record:
    if not isinstance(value, dict):
        return Record(path, number, f"{where}/(not an object)")
    btype = value.get("type")
    out = Record(path, number, f"{where}/{btype}")
    text = value.get("text") if value.get("text") is not None else value.get("rawText")
    if isinstance(text, str) and text.strip():
        if btype in _USER:
            out.user_texts.append(text.strip())
        elif btype in _ASSISTANT:
            out.assistant_texts.append(text.strip())
    tool = value.get("toolFormerData")
    if isinstance(tool, dict) and tool:
        call_id = tool.get("toolCallId") if isinstance(tool.get("toolCallId"), str) and tool["toolCallId"] else None
        call_id = call_id or f"{bid}-call"
        out.calls.append(call_id)
        answered = tool.get("result") not in (None, "") or tool.get("error") not in (None, "")
        if answered or tool.get("status") in ("error", "cancelled"):
            out.results.append(call_id)
    return out
