"""The older chats: ``~/.qwen/tmp/<project hash>/chats/session-<time>-<id>.json``.

Qwen Code began as a fork of Gemini CLI and kept its chat document: ``{sessionId,
projectHash, startTime, lastUpdated, messages}``, each message ``{id, timestamp, type,
content}`` with ``type`` ``user`` or ``qwen`` (the model; ``info``, ``warning`` and ``error``
are the CLI's notes). A model message adds its ``thoughts`` (subject and description),
``toolCalls`` (each with its ``result`` parts, ``status`` and ``resultDisplay``), ``tokens``
and ``model``. A message's record number is its 1-based place in ``messages``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sessite.model import Kind, Problems, Session, Usage, user_words
from sessite.readers._util import named, obj, shorten, text_of, to_int
from sessite.readers.base import as_text, parse_time
from sessite.readers.files import load_json
from sessite.readers.formats.qwen_code.calls import tool_call, tool_result
from sessite.readers.formats.qwen_code.index import Call, FileIndex
from sessite.readers.formats.qwen_code.messages import typed_words
from sessite.readers.formats.qwen_code.parts import split
from sessite.readers.formats.qwen_code.state import QwenFile

_MODEL_TYPES = ("qwen", "gemini", "model", "assistant")
_NOTES = {"info": "Info", "warning": "Warning", "error": "Error"}


def read_document(path: Path, problems: Problems) -> Iterator[Session]:
    doc = load_json(path, problems)
    if doc is None:
        return
    if not isinstance(doc, dict):
        problems.add(path, None, f"qwen_code: the chat is a {type(doc).__name__}, expected an object")
        return
    messages = doc.get("messages")
    if not isinstance(messages, list):
        problems.add(path, None, "qwen_code: 'messages' is missing or not an array")
        messages = []
    f = QwenFile(path, problems, _index(messages))
    for number, message in enumerate(messages, 1):
        if not isinstance(message, dict):
            f.report(None, f"messages[{number - 1}] is {type(message).__name__}, not an object; skipped")
            f.skip("message that is not an object", line=number)
            continue
        try:
            _message(f, number, message)
        except Exception as exc:  # noqa: BLE001 - one odd message costs that message, never the file
            f.unreadable(number, "message", message, exc)
    meta: dict[str, Any] = {}
    if text_of(doc.get("projectHash")):
        meta["project hash"] = doc["projectHash"]
    yield f.finish(
        text_of(doc.get("sessionId")) or path.stem,
        started=parse_time(doc.get("startTime")),
        ended=parse_time(doc.get("lastUpdated")),
        title=f.facts.prompt,
        meta=meta,
    )


def _index(messages: list[Any]) -> FileIndex:
    """The calls and what their results showed, so a call can show the diff its result recorded."""
    index = FileIndex()
    for number, message in enumerate(messages, 1):
        calls = obj(message).get("toolCalls")
        for call in calls if isinstance(calls, list) else ():
            call_id = text_of(obj(call).get("id"))
            if call_id:
                index.calls.setdefault(call_id, Call(number, text_of(call.get("name")) or "", call.get("args")))
                if call.get("resultDisplay") is not None:
                    index.displays.setdefault(call_id, call["resultDisplay"])
    return index


def _message(f: QwenFile, number: int, message: dict[str, Any]) -> None:
    kind = message.get("type")
    ts = parse_time(message.get("timestamp"))
    base = text_of(message.get("id")) or f"m{number}"
    if kind == "user":
        parts = split(message.get("content"))
        text, blocks = typed_words({}, parts.text)
        blocks += parts.blocks
        if not text.strip() and not blocks:
            f.skip("empty user message", line=number)
            return
        if f.facts.prompt is None and user_words(text):
            f.facts.prompt = shorten(user_words(text), 200)
        f.put(base, None, kind=Kind.USER, timestamp=ts, text=text, blocks=tuple(blocks), line=number)
    elif named(kind, _MODEL_TYPES):
        _model(f, number, message, base, ts)
    elif kind in _NOTES:
        parts = split(message.get("content"))
        f.put(
            base,
            None,
            kind=Kind.SYSTEM,
            timestamp=ts,
            title=_NOTES[kind],
            text=parts.text,
            blocks=tuple(parts.blocks),
            is_error=kind == "error",
            line=number,
        )
    else:
        f.other(number, f"message type {kind!r}")
        f.put(
            base,
            None,
            kind=Kind.SYSTEM,
            timestamp=ts,
            title=shorten(as_text(kind), 60) or "message",
            text=split(message.get("content")).text,
            line=number,
        )


def _model(f: QwenFile, number: int, message: dict[str, Any], base: str, ts: Any) -> None:
    model = text_of(message.get("model"))
    f.model(model)
    start = len(f.events)
    thoughts = message.get("thoughts")
    for at, thought in enumerate(thoughts if isinstance(thoughts, list) else ()):
        subject, description = text_of(obj(thought).get("subject")), text_of(obj(thought).get("description"))
        text = "\n\n".join(p for p in (f"**{subject}**" if subject else None, description) if p)
        if text:
            f.put(
                f"{base}-thought-{at}",
                None,
                kind=Kind.THINKING,
                timestamp=parse_time(obj(thought).get("timestamp")) or ts,
                text=text,
                model=model,
                line=number,
            )
    parts = split(message.get("content"))
    if parts.text.strip() or parts.blocks:
        f.put(
            base,
            None,
            kind=Kind.ASSISTANT,
            timestamp=ts,
            text=parts.text,
            blocks=tuple(parts.blocks),
            model=model,
            line=number,
        )
    calls = message.get("toolCalls")
    for call in calls if isinstance(calls, list) else ():
        if isinstance(call, dict):
            _call(f, number, call, ts, model)
    if len(f.events) == start:
        f.skip("model message without content", line=number)
        return
    usage = _usage(message.get("tokens"))
    if usage:
        target = next((e for e in reversed(f.events[start:]) if e.kind != Kind.TOOL_RESULT), f.events[-1])
        f.amend(target, None, usage=usage)


def _call(f: QwenFile, number: int, call: dict[str, Any], ts: Any, model: str | None) -> None:
    call_ts = parse_time(call.get("timestamp")) or ts
    tool_call(f, call, number, call_ts, model, None)
    result, status = call.get("result"), call.get("status")
    if result is None and status in ("executing", "scheduled", "validating", "awaiting_approval"):
        return  # not answered yet
    details = {"status": status, "resultDisplay": call.get("resultDisplay")}
    responses = split(result).responses
    call_id = text_of(call.get("id"))
    if not responses:
        responses = [{"id": call_id, "name": call.get("name"), "response": {"output": split(result).text}}]
    for response in responses:
        tool_result(f, {**response, "id": text_of(response.get("id")) or call_id}, details, number, call_ts, None)


def _usage(tokens: Any) -> Usage | None:
    """``tokens``: ``input`` includes the cached part; ``tool`` (tool-use prompt) is more input."""
    if not isinstance(tokens, dict):
        return None
    cached = to_int(tokens.get("cached"))
    usage = Usage(
        input_tokens=max(to_int(tokens.get("input")) - cached, 0) + to_int(tokens.get("tool")),
        output_tokens=to_int(tokens.get("output")),
        cache_read_tokens=cached,
        reasoning_tokens=to_int(tokens.get("thoughts")),
    )
    return usage or None
