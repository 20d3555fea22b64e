"""Tool calls and their results.

An assistant message asks for calls (``message.toolCalls``); the history item keeps each
one's state beside it (``toolCallStates``: its parsed arguments, its status, the tool's
title, its output); a ``tool`` message with the same ``toolCallId`` is the result the
model was given. A call whose result has no message of its own (an older Continue, or a
call the user canceled) is answered from its state's output, or says its status.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sessite.model import Block, Kind
from sessite.readers._util import array, maybe_json, obj, opt_int, text_of
from sessite.readers.base import as_text
from sessite.readers.formats.continue_dev.state import Call, SessionFile
from sessite.readers.formats.continue_dev.vocabulary import (
    CATEGORIES,
    COMMAND_KEYS,
    COMPLETED,
    DIFFS,
    FAILED,
    PATH_KEYS,
)
from sessite.readers.tools import tool_category, tool_input

_UNFINISHED = ("canceled", "errored", "generating", "generated", "calling")


def tool_calls(f: SessionFile, item: dict[str, Any], line: int, ts: datetime | None, model: str | None) -> None:
    """Every call an assistant message asks for, each with its state's facts."""
    states = {text_of(obj(s).get("toolCallId")): obj(s) for s in array(item.get("toolCallStates"))}
    requested = array(obj(item.get("message")).get("toolCalls"))
    seen: set[str] = set()
    for request in requested:
        call = obj(request)
        call_id = text_of(call.get("id"))
        _call(f, call, states.get(call_id, {}), line, ts, model)
        seen.add(call_id or "")
    for call_id, state in states.items():  # a state whose call the message does not list
        if call_id and call_id not in seen:
            _call(f, obj(state.get("toolCall")) or {"id": call_id}, state, line, ts, model)


def _call(
    f: SessionFile, call: dict[str, Any], state: dict[str, Any], line: int, ts: datetime | None, model: str | None
) -> None:
    function = obj(call.get("function"))
    call_id = text_of(call.get("id")) or text_of(state.get("toolCallId"))
    stated = obj(obj(state.get("toolCall")).get("function"))
    name = text_of(function.get("name")) or text_of(stated.get("name")) or "tool"
    parsed = state.get("parsedArgs")
    args = parsed if isinstance(parsed, dict) else maybe_json(function.get("arguments"))
    category = tool_category(name, CATEGORIES)
    found = tool_input(args, category, DIFFS.get(name), path_keys=PATH_KEYS, command_keys=COMMAND_KEYS)
    tool = obj(state.get("tool"))
    meta: dict[str, Any] = {}
    if text_of(tool.get("group")) and tool["group"] != "Built-In":
        meta["group"] = tool["group"]
    status = text_of(state.get("status"))
    if status in _UNFINISHED:
        meta["status"] = status
    resolved = obj(obj(state.get("processedArgs")).get("resolvedPath"))
    path = found.path
    if text_of(resolved.get("uri")) and path:
        meta["file"] = resolved["uri"]
    base = call_id or f"call-{line}-{name}"
    f.calls[base] = Call(name, state)
    f.emit(
        base,
        kind=Kind.TOOL_CALL,
        timestamp=ts,
        tool_name=name,
        tool_input=args,
        category=category,
        command=found.command,
        path=path,
        diff=found.diff,
        call_id=call_id,
        model=model,
        line=line,
        meta=meta,
    )
    if call_id and call_id not in f.answered and array(state.get("output")):
        _result(f, call_id, None, state, line, ts)


def tool_message(f: SessionFile, message: dict[str, Any], line: int) -> None:
    """A ``tool`` message: the result the model was given for one call."""
    call_id = text_of(message.get("toolCallId"))
    call = f.calls.get(call_id or "")
    text = _content(message.get("content"))
    _result(f, call_id, text, call.state if call else {}, line, None)


def _content(value: Any) -> str:
    if isinstance(value, list):
        return "\n\n".join(text_of(obj(p).get("text")) or "" for p in value).strip()
    return as_text(value) if value is not None else ""


def _result(
    f: SessionFile, call_id: str | None, text: str | None, state: dict[str, Any], line: int, ts: datetime | None
) -> None:
    """A result: the tool message's text (else the state's output), its exit status, its files."""
    call = f.calls.get(call_id or "")
    outputs = [obj(o) for o in array(state.get("output"))]
    if text is None:
        text = "\n\n".join(as_text(o.get("content")) for o in outputs if o.get("content") is not None)
    statuses = [as_text(o.get("status")) for o in outputs if text_of(o.get("status"))]
    exit_code = None
    for status in statuses:
        failed = FAILED.search(status)
        exit_code = opt_int(failed.group(1)) if failed else (0 if COMPLETED.match(status) else exit_code)
    blocks = [
        Block("reference", uri=text_of(obj(o.get("uri")).get("value")), title=text_of(o.get("name")))
        for o in outputs
        if text_of(obj(o.get("uri")).get("value"))
    ]
    meta: dict[str, Any] = {"status": " / ".join(s.strip() for s in statuses)} if statuses else {}
    errored = text_of(state.get("status")) == "errored"
    f.emit(
        f"{call_id or 'result'}-result",
        kind=Kind.TOOL_RESULT,
        timestamp=ts,
        text=text,
        blocks=tuple(blocks),
        call_id=call_id,
        tool_name=call.name if call else None,
        exit_code=exit_code,
        is_error=errored or (exit_code is not None and exit_code != 0),
        line=line,
        meta=meta,
    )
