"""Hermes Agent sessions, read straight from the files (independently of the reader).

``<id>.jsonl``: one record per JSON object line, numbered by its line; line 1 is
``{"role": "session_meta", "tools": […], "model", "platform", "timestamp"}``, the rest are
OpenAI chat messages. ``session_<id>.json``: an object whose ``messages`` list holds the same
kind of messages, each a record numbered by its 1-based place in the list.

- the user's words: ``user`` ``content`` (a string, or its ``text`` parts);
- the model's prose: ``assistant`` ``content``;
- call ids: ``assistant`` ``tool_calls[].id``; result ids: ``tool`` ``tool_call_id``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, json_document, json_lines


def records(path: Path) -> Iterator[Record]:
    if path.suffix == ".jsonl":
        for line, message in json_lines(path):
            yield _record(path, line, message)
        return
    data = json_document(path)
    messages = data.get("messages") if isinstance(data, dict) else None
    for index, message in enumerate(messages if isinstance(messages, list) else [], 1):
        if isinstance(message, dict):
            yield _record(path, index, message)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return "\n\n".join(t for t in parts if isinstance(t, str) and t).strip()
    return ""


def _record(path: Path, line: int, message: dict[str, Any]) -> Record:
    role = message.get("role")
    out = Record(path, line, str(role))
    body = _text(message.get("content"))
    if role == "user" and body:
        out.user_texts.append(body)
    elif role == "assistant":
        if body:
            out.assistant_texts.append(body)
        calls = message.get("tool_calls")
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                out.calls.append(call["id"])
    elif role == "tool" and isinstance(message.get("tool_call_id"), str):
        out.results.append(message["tool_call_id"])
    return out
