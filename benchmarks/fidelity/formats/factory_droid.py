"""Factory Droid sessions, read straight from the file (independently of the reader).

One record per non-blank line that parses as a JSON object, numbered by its 1-based line;
a ``<id>.settings.json`` beside a session is one record (number 1).

- The session store (line 1 ``{"type": "session_start"}``): ``message`` records hold
  ``message: {role, content: [blocks], visibility?}``. The user's words: a ``user``
  message's ``text`` blocks without the ``<system-reminder>`` Droid adds, unless the
  message is ``visibility: "user_only"`` (a notice to the user). Prose: an ``assistant``
  message's ``text`` blocks. Calls: ``tool_use`` ``id``; results: ``tool_result`` ``tool_use_id``.
- ``droid exec --output-format stream-json``: ``message`` records with a flat ``role`` and
  ``text`` (the user's without reminders; the assistant's prose), ``completion`` ``finalText``
  (prose), ``tool_call`` and ``tool_result`` naming the call by ``toolCallId`` (or ``id``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, blocks, json_lines, text_parts

_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)


def records(path: Path) -> Iterator[Record]:
    if path.suffix.lower() == ".json":
        yield Record(path, 1, "settings")
        return
    for lineno, obj in json_lines(path):
        yield _record(path, lineno, obj)


def _typed(text: str) -> str:
    return _REMINDER.sub("", text).strip()


def _record(path: Path, line: int, obj: dict[str, Any]) -> Record:
    kind = obj.get("type") if isinstance(obj.get("type"), str) else "(untyped)"
    out = Record(path, line, kind)
    body = obj.get("message")
    if kind == "message" and isinstance(body, dict):
        out.type = f"message/{body.get('role')}"
        content = body.get("content")
        texts = text_parts(content)
        if body.get("role") == "user" and body.get("visibility") != "user_only":
            typed = "\n\n".join(t for t in (_typed(t) for t in texts) if t)
            if typed:
                out.user_texts.append(typed)
        elif body.get("role") == "assistant":
            out.assistant_texts.extend(t.strip() for t in texts if t.strip())
        for block in blocks(content):
            if isinstance(block, dict) and block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                out.calls.append(block["id"])
            elif (
                isinstance(block, dict)
                and block.get("type") == "tool_result"
                and isinstance(block.get("tool_use_id"), str)
            ):
                out.results.append(block["tool_use_id"])
    elif kind == "message" and isinstance(obj.get("text"), str):
        text = _typed(obj["text"]) if obj.get("role") == "user" else obj["text"].strip()
        if text:
            (out.user_texts if obj.get("role") == "user" else out.assistant_texts).append(text)
    elif kind == "completion" and isinstance(obj.get("finalText"), str) and obj["finalText"].strip():
        out.assistant_texts.append(obj["finalText"].strip())
    elif kind in ("tool_call", "tool_result"):
        call_id = obj.get("toolCallId") or obj.get("id")
        if isinstance(call_id, str) and call_id:
            (out.calls if kind == "tool_call" else out.results).append(call_id)
    return out
