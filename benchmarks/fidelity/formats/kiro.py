"""Kiro CLI conversations, read straight from the files (independently of the reader).

A conversation is ``{conversation_id, history: [...], next_message, …}``: a JSON file (a
``/save``, or a checkpoint tool's copy), or the ``value`` of each row of ``data.sqlite3``'s
``conversations_v2`` (then the older ``conversations``), rows in table order, the database
opened read-only and immutable. One record per history entry (and one for a queued
``next_message``), numbered 1… through the file: a database numbers on across its
conversations.

Each entry is ``{user, assistant, request_metadata}`` or an older ``[user, assistant]`` pair.
What a faithful page must show: the prompt the user typed (``user.content.Prompt.prompt``,
``CancelledToolUses.prompt``); the model's prose (``assistant.Response.content`` and
``ToolUse.content``); calls (``ToolUse.tool_uses[].id``) and the results that answer them
(``ToolUseResults.tool_use_results[].tool_use_id``). Empty ids pair nothing.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from ..records import Record, json_document


def records(path: Path) -> Iterator[Record]:
    if path.suffix.lower() == ".json":
        value = json_document(path)
        if isinstance(value, dict):
            yield from _conversation(path, value, 1)
        return
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    except sqlite3.Error:
        return
    values: list[Any] = []
    with closing(conn):
        for table in ("conversations_v2", "conversations"):
            try:
                values += [row[0] for row in conn.execute(f"SELECT value FROM {table} ORDER BY rowid")]
            except sqlite3.Error:
                continue
    first = 1
    for raw in values:
        try:
            value = json.loads(raw)
        except (TypeError, ValueError):
            continue
        if isinstance(value, dict):
            found = list(_conversation(path, value, first))
            yield from found
            first += len(found)


def _conversation(path: Path, value: dict[str, Any], first: int) -> Iterator[Record]:
    history = value.get("history")
    items = list(history) if isinstance(history, list) else []
    if isinstance(value.get("next_message"), dict):
        items.append({"user": value["next_message"]})
    for index, entry in enumerate(items, first):
        if isinstance(entry, list) and len(entry) == 2:
            entry = {"user": entry[0], "assistant": entry[1]}
        out = Record(path, index, "entry")
        if isinstance(entry, dict):
            _user(out, entry.get("user"))
            _assistant(out, entry.get("assistant"))
        yield out


def _user(out: Record, user: Any) -> None:
    content = user.get("content") if isinstance(user, dict) else None
    if not isinstance(content, dict):
        return
    for kind, body in content.items():
        if not isinstance(body, dict):
            continue
        prompt = body.get("prompt")
        if kind in ("Prompt", "CancelledToolUses") and isinstance(prompt, str) and prompt.strip():
            out.user_texts.append(prompt.strip())
        for result in body.get("tool_use_results") or []:
            call_id = result.get("tool_use_id") if isinstance(result, dict) else None
            if isinstance(call_id, str) and call_id:
                out.results.append(call_id)


def _assistant(out: Record, assistant: Any) -> None:
    if not isinstance(assistant, dict):
        return
    for body in assistant.values():
        if not isinstance(body, dict):
            continue
        text = body.get("content")
        if isinstance(text, str) and text.strip():
            out.assistant_texts.append(text.strip())
        for use in body.get("tool_uses") or []:
            call_id = use.get("id") if isinstance(use, dict) else None
            if isinstance(call_id, str) and call_id:
                out.calls.append(call_id)
