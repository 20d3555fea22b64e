"""Qwen Code chats, read straight from the file (independently of the reader).

Two shapes:

- ``<sessionId>.jsonl`` (``~/.qwen/projects/<folder>/chats/``): one record per non-blank
  line that parses as a JSON object, numbered by its 1-based line. Records are
  ``{uuid, parentUuid, sessionId, timestamp, type, cwd, version, gitBranch, …}`` with
  ``type`` ``user``, ``assistant``, ``tool_result`` or ``system`` (``subtype`` names the kind).
  Content is Gemini's: ``message.parts`` of ``{text}`` (``thought: true`` for reasoning),
  ``{functionCall: {id, name, args}}`` and ``{functionResponse: {id, name, response}}``.
- ``session-*.json`` (the older ``~/.qwen/tmp/<hash>/chats/``): one JSON document whose
  ``messages`` are the records, numbered by their 1-based place; ``type`` ``user`` or
  ``qwen``, ``content`` a string or parts, a model message's ``toolCalls`` each with its
  ``id`` and (once answered) its ``result``.

What a faithful page must show:

- the user's typed words: a ``user`` record without a subtype (or ``mid_turn_user_message``):
  ``systemPayload.displayText`` when the CLI kept it, else the text parts without the
  blocks the CLI adds (``<system-reminder>…``, ``<qwen:…>…``); a notification or a
  scheduled prompt is not the user's. A slash command (``system``/``slash_command``,
  phase ``invocation``) is typed too: its ``rawCommand``. In the older document, a
  ``user`` message's content without its ``<system-reminder>``;
- the model's prose: an assistant record's text parts that are not thoughts (each run of
  them between other parts); the older ``qwen`` message's ``content``;
- call ids: ``functionCall.id`` (older: ``toolCalls[].id``); result ids:
  ``functionResponse.id`` of a ``tool_result`` record (older: a tool call with a ``result``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, json_document, json_lines

_ADDED = re.compile(r"<system-reminder>.*?</system-reminder>|<qwen:[\w-]+>.*?</qwen:[\w-]+>", re.S)
_TYPED_SUBTYPES = (None, "mid_turn_user_message")


def records(path: Path) -> Iterator[Record]:
    """Every record of one Qwen Code chat."""
    if path.suffix.lower() == ".json":
        yield from _document(path)
        return
    for lineno, obj in json_lines(path):
        yield _record(path, lineno, obj)


def _record(path: Path, line: int, obj: dict[str, Any]) -> Record:
    kind = obj.get("type") if isinstance(obj.get("type"), str) else "(untyped)"
    subtype = obj.get("subtype")
    out = Record(path, line, f"{kind}/{subtype}" if isinstance(subtype, str) else kind)
    payload = obj["systemPayload"] if isinstance(obj.get("systemPayload"), dict) else {}
    parts = _parts(obj.get("message"))
    if kind == "user" and subtype in _TYPED_SUBTYPES:
        shown = payload.get("displayText")
        text = shown if isinstance(shown, str) else _ADDED.sub("", "".join(_texts(parts)))
        if text.strip():
            out.user_texts.append(text.strip())
    elif kind == "system" and subtype == "slash_command" and payload.get("phase") == "invocation":
        command = payload.get("rawCommand")
        if isinstance(command, str) and command.strip():
            out.user_texts.append(command.strip())
    elif kind == "assistant":
        out.assistant_texts.extend(t.strip() for t in _runs(parts) if t.strip())
        out.calls.extend(_ids(parts, "functionCall"))
    elif kind == "tool_result":
        out.results.extend(_ids(parts, "functionResponse"))
    return out


def _parts(message: Any) -> list[Any]:
    parts = message.get("parts") if isinstance(message, dict) else None
    return parts if isinstance(parts, list) else []


def _texts(parts: list[Any]) -> list[str]:
    return [
        p["text"]
        for p in parts
        if isinstance(p, dict) and isinstance(p.get("text"), str) and p.get("thought") is not True
    ]


def _runs(parts: list[Any]) -> list[str]:
    """The prose: consecutive non-thought text parts joined, runs split by any other part."""
    runs: list[str] = []
    current: list[str] | None = None
    for part in parts:
        is_text = isinstance(part, dict) and isinstance(part.get("text"), str) and part.get("thought") is not True
        if is_text:
            if current is None:
                current = []
                runs.append("")
            current.append(part["text"])
            runs[-1] = "".join(current)
        else:
            current = None
    return runs


def _ids(parts: list[Any], key: str) -> list[str]:
    out = []
    for part in parts:
        inner = part.get(key) if isinstance(part, dict) else None
        call_id = inner.get("id") if isinstance(inner, dict) else None
        if isinstance(call_id, str) and call_id:
            out.append(call_id)
    return out


def _document(path: Path) -> Iterator[Record]:
    doc = json_document(path)
    messages = doc.get("messages") if isinstance(doc, dict) else None
    for number, message in enumerate(messages if isinstance(messages, list) else [], 1):
        if not isinstance(message, dict):
            continue
        kind = message.get("type")
        out = Record(path, number, kind if isinstance(kind, str) else "(untyped)")
        content = message.get("content")
        text = content if isinstance(content, str) else "".join(_texts(content if isinstance(content, list) else []))
        if kind == "user":
            typed = _ADDED.sub("", text).strip()
            if typed:
                out.user_texts.append(typed)
        elif kind in ("qwen", "gemini", "model"):
            if text.strip():
                out.assistant_texts.append(text.strip())
            calls = message.get("toolCalls")
            for call in calls if isinstance(calls, list) else []:
                call_id = call.get("id") if isinstance(call, dict) else None
                if isinstance(call_id, str) and call_id:
                    out.calls.append(call_id)
                    if call.get("result") is not None:
                        out.results.append(call_id)
        yield out
