"""pi coding agent sessions (``~/.pi/agent/sessions/--<folder>--/<time>_<id>.jsonl``), read straight
from the file (independently of the reader).

One record per non-blank line that parses as a JSON object, numbered by its 1-based line.
Line 1 is the ``session`` header; the rest are entries ``{type, id, parentId, timestamp}``.
In ``message`` entries (``message: {role, content, …}``):

- the user's words: ``user`` content (a string, or its ``text`` parts), and a shell command
  the user ran (``bashExecution`` ``command``);
- the model's prose: ``assistant`` ``text`` parts;
- call ids: ``assistant`` ``toolCall`` parts' ``id``; result ids: ``toolResult`` ``toolCallId``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, json_lines, text_parts


def records(path: Path) -> Iterator[Record]:
    """Every record of one pi session."""
    for lineno, obj in json_lines(path):
        yield _record(path, lineno, obj)


def _record(path: Path, line: int, obj: dict[str, Any]) -> Record:
    kind = obj.get("type") if isinstance(obj.get("type"), str) else "(untyped)"
    message = obj.get("message") if isinstance(obj.get("message"), dict) else {}
    role = message.get("role")
    out = Record(path, line, f"message/{role}" if kind == "message" else kind)
    if kind != "message":
        return out
    content = message.get("content")
    parts = content if isinstance(content, list) else []
    if role == "user":
        text = "\n".join(text_parts(content))
        if text.strip():
            out.user_texts.append(text.strip())
    elif role == "bashExecution" and isinstance(message.get("command"), str) and message["command"].strip():
        out.user_texts.append(message["command"].strip())
    elif role == "assistant":
        for part in parts:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "text" and isinstance(part.get("text"), str) and part["text"].strip():
                out.assistant_texts.append(part["text"].strip())
            elif part.get("type") == "toolCall" and isinstance(part.get("id"), str):
                out.calls.append(part["id"])
    elif role == "toolResult" and isinstance(message.get("toolCallId"), str):
        out.results.append(message["toolCallId"])
    return out
