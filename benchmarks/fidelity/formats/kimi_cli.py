"""Kimi CLI and Kimi Code session files, read straight from the file (independently of the reader).

One record per non-blank line that parses as a JSON object, numbered by its 1-based line;
``state.json`` is one record (number 1).

- Kimi CLI ``wire.jsonl``: a ``{"type": "metadata"}`` header, then ``{timestamp, message:
  {type, payload}}``. The user's words: ``TurnBegin``/``SteerInput`` ``user_input`` (a string
  or parts; the text parts). The model's prose: ``ContentPart`` of type ``text``. Calls:
  ``ToolCall.id``; results: ``ToolResult.tool_call_id``. ``SubagentEvent`` wraps a
  sub-agent's event (its prose, calls and results count; its prompt is not the user's).
- Kimi CLI ``context.jsonl``: ``{role, content, tool_calls?, tool_call_id?}`` and markers
  (``_checkpoint``, ``_usage``, ``_system_prompt``). The user's words: a ``user`` message's
  text (not the ``<system>CHECKPOINT n</system>`` the CLI adds); prose: an ``assistant``
  message's text parts; calls: ``tool_calls[].id``; results: a ``tool`` message's
  ``tool_call_id``. ``context_<n>.jsonl`` (older copies) and ``context_sub_<n>.jsonl`` (a
  sub-agent's) repeat what the wire log holds: records, without texts of their own.
- Kimi Code ``wire.jsonl``: a header, then top-level typed records. The user's words:
  ``turn.prompt``/``turn.steer`` ``input`` text when ``origin.kind`` is ``user``. Prose:
  ``context.append_loop_event`` ``content.part`` of type ``text``. Calls: its ``tool.call``
  ``toolCallId``; results: ``tool.result`` ``toolCallId``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, json_lines, text_parts


def records(path: Path) -> Iterator[Record]:
    """Every record of one Kimi file."""
    if path.suffix.lower() == ".json":
        yield Record(path, 1, "state")
        return
    older = path.name.startswith("context_")
    for lineno, obj in json_lines(path):
        if "role" in obj and "message" not in obj:
            yield _context(path, lineno, obj, older)
        elif isinstance(obj.get("message"), dict):
            out = Record(path, lineno, str(obj["message"].get("type")))
            _wire(out, obj["message"], sub=False)
            yield out
        else:
            yield _code(path, lineno, obj)


def _text(value: Any) -> str:
    return "\n".join(text_parts(value))


def _wire(out: Record, message: dict[str, Any], sub: bool) -> None:
    kind = message.get("type")
    payload = message.get("payload") if isinstance(message.get("payload"), dict) else {}
    if kind in ("TurnBegin", "SteerInput") and not sub:
        text = _text(payload.get("user_input")).strip()
        if text:
            out.user_texts.append(text)
    elif kind == "ContentPart" and payload.get("type") == "text" and isinstance(payload.get("text"), str):
        if payload["text"].strip():
            out.assistant_texts.append(payload["text"].strip())
    elif kind == "ToolCall" and isinstance(payload.get("id"), str):
        out.calls.append(payload["id"])
    elif kind == "ToolResult" and isinstance(payload.get("tool_call_id"), str):
        out.results.append(payload["tool_call_id"])
    elif kind == "SubagentEvent" and isinstance(payload.get("event"), dict):
        _wire(out, payload["event"], sub=True)


def _context(path: Path, line: int, obj: dict[str, Any], older: bool) -> Record:
    role = obj.get("role")
    out = Record(path, line, f"context/{role}")
    if older:
        return out
    if role == "user":
        text = _text(obj.get("content")).strip()
        if text and not (text.startswith("<system>CHECKPOINT ") and text.endswith("</system>")):
            out.user_texts.append(text)
    elif role == "assistant":
        for piece in text_parts(obj.get("content")):
            if piece.strip():
                out.assistant_texts.append(piece.strip())
        calls = obj.get("tool_calls")
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                out.calls.append(call["id"])
    elif role == "tool" and isinstance(obj.get("tool_call_id"), str):
        out.results.append(obj["tool_call_id"])
    return out


def _code(path: Path, line: int, obj: dict[str, Any]) -> Record:
    kind = obj.get("type")
    event = obj.get("event") if isinstance(obj.get("event"), dict) else {}
    out = Record(path, line, f"{kind}/{event.get('type')}" if event else str(kind))
    origin = obj.get("origin") if isinstance(obj.get("origin"), dict) else {}
    if kind in ("turn.prompt", "turn.steer") and origin.get("kind") in (None, "user"):
        text = _text(obj.get("input")).strip()
        if text:
            out.user_texts.append(text)
    elif kind == "context.append_loop_event":
        part = event.get("part") if isinstance(event.get("part"), dict) else {}
        if event.get("type") == "content.part" and part.get("type") == "text" and isinstance(part.get("text"), str):
            if part["text"].strip():
                out.assistant_texts.append(part["text"].strip())
        elif event.get("type") == "tool.call" and isinstance(event.get("toolCallId"), str):
            out.calls.append(event["toolCallId"])
        elif event.get("type") == "tool.result" and isinstance(event.get("toolCallId"), str):
            out.results.append(event["toolCallId"])
    return out
