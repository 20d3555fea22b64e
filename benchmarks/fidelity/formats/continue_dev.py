"""Continue's files, read straight from the JSON (independently of the reader).

- A session file (``sessions/<id>.json``, an object with ``history``): one record per
  history item, numbered 1, 2 … The user's words are a ``user`` message's content (a
  string, or its ``text`` parts); the model's prose an ``assistant`` message's content.
  Calls are an assistant message's ``toolCalls[].id``; a ``tool`` message answers its
  ``toolCallId``, and a call no tool message answers is answered by the item whose
  ``toolCallStates`` hold its ``output``.
- The index (``sessions.json``, an array): one record per entry, no text of its own.
- Dev data (``dev_data/<version>/*.jsonl``): one record per line; telemetry that copies
  the session's words, so no text of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, json_document, json_lines


def records(path: Path) -> Iterator[Record]:
    if path.suffix == ".jsonl":
        yield from (Record(path, line, str(obj.get("eventName"))) for line, obj in json_lines(path))
        return
    data = json_document(path)
    if isinstance(data, list):
        yield from (Record(path, n, "index entry") for n in range(1, len(data) + 1))
    elif isinstance(data, dict) and isinstance(data.get("history"), list):
        yield from _history(path, data["history"])


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content.strip()
    parts = content if isinstance(content, list) else []
    return "\n\n".join(p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)).strip()


def _history(path: Path, history: list[Any]) -> Iterator[Record]:
    answered = {_obj(_obj(item).get("message")).get("toolCallId") for item in history}
    for number, item in enumerate(history, 1):
        message = _obj(_obj(item).get("message"))
        role = message.get("role")
        out = Record(path, number, str(role))
        text = _text(message.get("content"))
        if role == "user" and text:
            out.user_texts.append(text)
        elif role == "assistant":
            if text:
                out.assistant_texts.append(text)
            for call in message.get("toolCalls") or []:
                if isinstance(call, dict) and isinstance(call.get("id"), str):
                    out.calls.append(call["id"])
            for state in _obj(item).get("toolCallStates") or []:
                state = _obj(state)
                call_id = state.get("toolCallId")
                if isinstance(call_id, str) and call_id not in answered and state.get("output"):
                    out.results.append(call_id)
        elif role == "tool" and isinstance(message.get("toolCallId"), str):
            out.results.append(message["toolCallId"])
        yield out
