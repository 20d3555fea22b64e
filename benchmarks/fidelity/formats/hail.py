"""HAIL (hwisu/opensession), read straight from the file (independently of the reader).

JSONL: one record per non-blank line that parses as a JSON object, numbered by its 1-based
line: the ``header``, each ``event``, the ``stats`` line. HAIL JSON (one object with an
``events`` array): one record per event, numbered by its 1-based index in ``events``.
opensession's ACP-shaped storage (``session.new``, ``session.update``, ``session.end`` lines):
one record per line, an update read as the HAIL event it carries (``_meta.opensession.event``).

What a faithful page must show, as the format says it:

- the user's words: the Text blocks of ``UserMessage`` events;
- the model's prose: the Text blocks of ``AgentMessage`` events;
- tool calls: the ``event_id`` of every call-like event (ToolCall, ShellCommand, file,
  search, web and media operations); results: a ``ToolResult``'s ``data.call_id``, else
  the call whose correlation attribute (``semantic.call_id``, ``tool_use_id``, ``call_id``)
  the result repeats.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, json_lines, read_text

_CALL_TYPES = frozenset(
    {
        "ToolCall",
        "ShellCommand",
        "FileRead",
        "FileEdit",
        "FileCreate",
        "FileDelete",
        "CodeSearch",
        "FileSearch",
        "WebSearch",
        "WebFetch",
        "ImageGenerate",
        "VideoGenerate",
        "AudioGenerate",
    }
)
_CORRELATION = ("semantic.call_id", "tool_use_id", "call_id")


def records(path: Path) -> Iterator[Record]:
    """Every record of one HAIL file (JSONL lines, or the events of a HAIL JSON document)."""
    text = read_text(path)
    if text is None:
        return
    calls: dict[str, str] = {}  # correlation attribute value -> the call's event_id
    document = _document(text)
    if document is not None:
        events = document.get("events")
        for index, event in enumerate(events if isinstance(events, list) else [], 1):
            yield _record(path, index, event, calls)
        return
    for lineno, obj in json_lines(path):
        yield _record(path, lineno, obj, calls)


def _document(text: str) -> dict[str, Any] | None:
    """The HAIL JSON object, when the file is one (not JSONL)."""
    first = text.lstrip().split("\n", 1)[0]
    try:
        obj = json.loads(first)
    except ValueError:
        obj = None
    if isinstance(obj, dict):  # a JSONL line, or a document on one line
        return obj if "type" not in obj and "events" in obj else None
    try:
        whole = json.loads(text)
    except ValueError:
        return None
    return whole if isinstance(whole, dict) and "events" in whole else None


def _record(path: Path, line: int, obj: Any, calls: dict[str, str]) -> Record:
    if not isinstance(obj, dict):
        return Record(path, line, "(not an object)")
    if obj.get("type") in ("header", "stats", "session.new", "session.end"):
        return Record(path, line, str(obj["type"]))
    if obj.get("type") == "session.update":
        return _update(path, line, obj, calls)
    event_type = obj.get("event_type")
    hail_type = event_type.get("type") if isinstance(event_type, dict) else event_type
    raw_data = event_type.get("data") if isinstance(event_type, dict) else None
    data: dict[str, Any] = raw_data if isinstance(raw_data, dict) else {}
    name = f"event/{hail_type}"
    if hail_type == "Custom" and isinstance(data.get("kind"), str):
        name += f"/{data['kind']}"
    out = Record(path, line, name)
    texts = _texts(obj.get("content"))
    raw_attrs = obj.get("attributes")
    attrs: dict[str, Any] = raw_attrs if isinstance(raw_attrs, dict) else {}
    event_id = obj.get("event_id")
    if hail_type == "UserMessage":
        out.user_texts.extend(texts)
    elif hail_type == "AgentMessage":
        out.assistant_texts.extend(texts)
    elif hail_type in _CALL_TYPES and isinstance(event_id, (str, int)) and not isinstance(event_id, bool):
        out.calls.append(str(event_id))
        for key in _CORRELATION:
            if isinstance(attrs.get(key), str):
                calls.setdefault(attrs[key], str(event_id))
    elif hail_type == "ToolResult":
        answered = data.get("call_id") if isinstance(data.get("call_id"), str) else None
        for key in _CORRELATION:
            if answered is None and isinstance(attrs.get(key), str):
                answered = calls.get(attrs[key])
        if answered:
            out.results.append(answered)
    return out


def _update(path: Path, line: int, obj: dict[str, Any], calls: dict[str, str]) -> Record:
    """A line of opensession's ACP-shaped storage: the HAIL event it carries, else the plain ACP update."""
    meta = obj.get("_meta")
    opensession = meta.get("opensession") if isinstance(meta, dict) else None
    event = opensession.get("event") if isinstance(opensession, dict) else None
    if isinstance(event, dict):
        if event.get("chunkIndex") not in (None, 0):
            return Record(path, line, "session.update/later chunk")
        original = {
            "event_id": event.get("eventId"),
            "event_type": event.get("originalEventType"),
            "content": event.get("originalContent"),
            "attributes": event.get("attributes"),
        }
        out = _record(path, line, original, calls)
        out.type = f"session.update/{out.type}"
        return out
    raw_update = obj.get("update")
    update: dict[str, Any] = raw_update if isinstance(raw_update, dict) else {}
    kind = update.get("sessionUpdate")
    out = Record(path, line, f"session.update/{kind}")
    content = update.get("content")
    text = content.get("text") if isinstance(content, dict) else None
    if isinstance(text, str) and text.strip():
        if kind == "user_message_chunk":
            out.user_texts.append(text.strip())
        elif kind == "agent_message_chunk":
            out.assistant_texts.append(text.strip())
    return out


def _texts(content: Any) -> list[str]:
    """The non-empty Text blocks of an event's content (a bare string counts as one)."""
    if isinstance(content, str):
        return [content.strip()] if content.strip() else []
    blocks = content.get("blocks") if isinstance(content, dict) else None
    out: list[str] = []
    for block in blocks if isinstance(blocks, list) else []:
        text = block.get("text") if isinstance(block, dict) and block.get("type") == "Text" else None
        if isinstance(text, str) and text.strip():
            out.append(text.strip())
    return out
