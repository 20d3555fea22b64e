"""Gemini CLI ``/chat save`` checkpoints (``checkpoint-<tag>.json``), read straight from the file
(independently of the reader).

The file is a list of Content objects, or ``{"history": [Content…], "authType": …}``; each
Content is one record, numbered by its 1-based place in the list. Parts:

- the user's words: ``text`` parts of ``user`` contents (not the environment context Gemini CLI
  opens a chat with: ``This is the Gemini CLI. We are setting up the context…``);
- the model's prose: ``text`` parts of ``model`` contents that are not ``thought``;
- call ids: ``functionCall.id``; result ids: ``functionResponse.id`` (older versions give none).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, json_document

_CONTEXT = "This is the Gemini CLI. We are setting up the context for our chat."


def records(path: Path) -> Iterator[Record]:
    data = json_document(path)
    history = data.get("history") if isinstance(data, dict) else data
    for index, content in enumerate(history if isinstance(history, list) else [], 1):
        if isinstance(content, dict):
            yield _record(path, index, content)


def _record(path: Path, index: int, content: dict[str, Any]) -> Record:
    role = content.get("role")
    out = Record(path, index, str(role))
    parts = content.get("parts")
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict):
            continue
        text = part.get("text")
        if isinstance(text, str) and text.strip() and part.get("thought") is not True:
            if role == "model":
                out.assistant_texts.append(text.strip())
            elif not text.startswith(_CONTEXT):
                out.user_texts.append(text.strip())
        call = part.get("functionCall")
        if isinstance(call, dict) and isinstance(call.get("id"), str):
            out.calls.append(call["id"])
        answer = part.get("functionResponse")
        if isinstance(answer, dict) and isinstance(answer.get("id"), str):
            out.results.append(answer["id"])
    return out
