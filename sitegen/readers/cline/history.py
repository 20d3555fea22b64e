"""``api_conversation_history.json``: the Anthropic-style messages Cline sent to the model.

Assistant messages may carry ``metrics:{tokens:{prompt, completion, cached}, cost}``
and ``modelInfo``; otherwise the usage of a response comes from the panel's
``api_req_started`` messages, and its time from the panel message written
right after it (``conversationHistoryIndex``).
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from typing import Any

from sitegen.model import Kind, Usage
from sitegen.readers._util import obj, text_of, to_float, to_int
from sitegen.readers.base import as_text, parse_time
from sitegen.readers.builder import MODEL_KINDS, last_index
from sitegen.readers.cline.task import Task, image
from sitegen.readers.cline.tool_calls import XML_CALL, tool_call, xml_params
from sitegen.readers.cline.ui import Request, Ui, request_usage
from sitegen.readers.cline.user import user_blocks

_THINKING = re.compile(r"<thinking>(.*?)(?:</thinking>|$)", re.DOTALL)
ModelUse = list[tuple[datetime | None, str | None]]  # (from when, model id), in time order


def history_events(api: list[tuple[int, dict[str, Any]]], ui: Ui, metadata: dict[str, Any], task: Task) -> None:
    """The events of every history message, timed and with their usage from the panel."""
    model_usage = _model_usage(metadata)
    requests = list(ui.requests)
    indexed = any(request.history_index is not None for request in requests)
    assistant_seen = 0
    last_ts = None
    for position, (line, message) in enumerate(api):
        try:
            role = message.get("role")
            # A panel message with history index i was written when the history held i + 1 messages.
            ts = ui.start.get(position - 1) or parse_time(message.get("ts"))
            if ts is None and not indexed and role == "user" and position // 2 < len(requests):
                ts = requests[position // 2].ts
            ts = ts or last_ts
            last_ts = ts
            content = message.get("content")
            if isinstance(content, str):
                content = [{"type": "text", "text": content}]
            if not isinstance(content, list):
                task.report(line, f"message {position} has no content list; shown as raw JSON")
                task.emit(
                    f"m{position}", kind=Kind.UNKNOWN, timestamp=ts, title="Cline message", raw=message, line=line
                )
            elif role == "assistant":
                model = text_of(obj(message.get("modelInfo")).get("modelId")) or _model_at(model_usage, ts)
                task.model(model)
                usage, extra = _assistant_usage(message, position, assistant_seen, requests, indexed)
                assistant_seen += 1
                before = len(task.events)
                _assistant_blocks(content, position, line, ts, model, task)
                if usage or extra:
                    _attach_usage(task, before, usage, extra, model, ts, position)
            elif role == "user":
                user_blocks(content, position, line, ts, task)
            else:
                task.report(line, f"message {position} has role {role!r}; shown as raw JSON")
                title = f"Cline message with role {role!r}"
                task.emit(f"m{position}", kind=Kind.UNKNOWN, timestamp=ts, title=title, raw=message, line=line)
        except Exception as exc:  # noqa: BLE001 - one odd message must not stop the task
            task.unreadable(line, f"message {position}", message, exc)


def _model_usage(metadata: dict[str, Any]) -> ModelUse:
    """task_metadata.json's ``model_usage``: which model was in use from when."""
    entries = metadata.get("model_usage")
    if not isinstance(entries, list):
        return []
    found = ((parse_time(obj(e).get("ts")), text_of(obj(e).get("model_id"))) for e in entries if isinstance(e, dict))
    return sorted(found, key=lambda pair: pair[0].timestamp() if pair[0] else 0)


def _model_at(model_usage: ModelUse, ts: datetime | None) -> str | None:
    model = None
    for when, name in model_usage:
        if ts is not None and when is not None and when > ts:
            break
        model = name or model
    return model


def _assistant_usage(
    message: dict[str, Any], position: int, nth: int, requests: list[Request], indexed: bool
) -> tuple[Usage | None, dict[str, Any]]:
    """The message's own metrics, else the panel request that produced it (consumed from ``requests``)."""
    metrics = obj(message.get("metrics"))
    tokens = obj(metrics.get("tokens"))
    if tokens:
        usage = Usage(
            input_tokens=to_int(tokens.get("prompt")),
            output_tokens=to_int(tokens.get("completion")),
            cache_read_tokens=to_int(tokens.get("cached")),
        )
        extra: dict[str, Any] = {}
        if isinstance(metrics.get("cost"), (int, float)) and metrics.get("cost"):
            extra["cost"] = metrics["cost"]
        return usage or None, extra
    # From the panel: the last request started before this message was added.
    info: dict[str, Any] = {}
    if indexed:
        chosen = None
        for index, request in enumerate(requests):
            if request.history_index is not None and request.history_index < position:
                chosen = index
        if chosen is not None:
            info = requests.pop(chosen).info
            # earlier requests (failed retries) can no longer match a later message
            del requests[:chosen]
    elif nth < len(requests):
        info = requests[nth].info
    requested, noted = request_usage(info)
    for key in ("cancelReason", "streamingFailedMessage"):
        if info.get(key):
            noted[key] = info[key]
    return requested, noted


def _attach_usage(
    task: Task,
    before: int,
    usage: Usage | None,
    extra: dict[str, Any],
    model: str | None,
    ts: datetime | None,
    position: int,
) -> None:
    """A response's usage on its last model event, or on an event of its own when it wrote nothing."""
    task.cost += to_float(extra.get("cost")) or 0.0
    index = last_index(task.events, lambda e: e.kind in MODEL_KINDS, since=before)
    if index is not None:
        event = task.events[index]
        meta = {**event.meta, **extra}
        task.events[index] = replace(event, usage=usage, model=event.model or model, meta=meta)
        return
    meta = {**extra, "note": "model response with no content"}
    task.emit(f"m{position}-usage", kind=Kind.ASSISTANT, timestamp=ts, usage=usage, model=model, meta=meta)


def _assistant_blocks(
    content: list[Any], position: int, line: int, ts: datetime | None, model: str | None, task: Task
) -> None:
    # A new assistant turn: calls left without a result belong to an earlier turn.
    task.open_calls.clear()
    for index, block in enumerate(content):
        bid = f"m{position}-{index}"
        btype = block.get("type") if isinstance(block, dict) else None
        if not isinstance(block, dict):
            task.emit(bid, kind=Kind.UNKNOWN, timestamp=ts, title="Cline content block", raw=block, line=line)
        elif btype == "text":
            _assistant_text(as_text(block.get("text")), bid, line, ts, model, task)
        elif btype in ("thinking", "reasoning", "redacted_thinking"):
            if btype == "redacted_thinking":
                text = "(redacted thinking)"
            else:
                text = as_text(block.get("thinking") or block.get("text"))
            task.emit(bid, kind=Kind.THINKING, timestamp=ts, text=text, model=model, line=line)
        elif btype == "tool_use":
            name = text_of(block.get("name")) or "tool"
            call_id = text_of(block.get("id")) or bid
            tool_call(name, block.get("input"), call_id, bid, line, ts, model, task)
        elif btype == "image":
            task.emit(bid, kind=Kind.ASSISTANT, timestamp=ts, blocks=(image(block),), model=model, line=line)
        else:
            task.report(line, f"message {position}: unknown block type {btype!r}; shown as raw JSON")
            task.emit(bid, kind=Kind.UNKNOWN, timestamp=ts, title=f"Cline block {btype!r}", raw=block, line=line)


def _assistant_text(text: str, bid: str, line: int, ts: datetime | None, model: str | None, task: Task) -> None:
    """Assistant text, with ``<thinking>`` and XML-style tool calls split out."""
    pos = 0
    piece = 0
    for match in XML_CALL.finditer(text):
        _prose(text[pos : match.start()], f"{bid}.{piece}", line, ts, model, task)
        piece += 1
        name, body = match.group(1), match.group(2)
        tool_call(name, xml_params(body), None, f"{bid}-{name}", line, ts, model, task, xml=True)
        pos = match.end()
    _prose(text[pos:], f"{bid}.{piece}" if piece else bid, line, ts, model, task)


def _prose(text: str, bid: str, line: int, ts: datetime | None, model: str | None, task: Task) -> None:
    pos = 0
    for n, match in enumerate(_THINKING.finditer(text)):
        before = text[pos : match.start()].strip()
        if before:
            task.emit(f"{bid}-t{n}", kind=Kind.ASSISTANT, timestamp=ts, text=before, model=model, line=line)
        thought = match.group(1).strip()
        task.emit(f"{bid}-think{n}", kind=Kind.THINKING, timestamp=ts, text=thought, model=model, line=line)
        pos = match.end()
    rest = text[pos:].strip()
    if rest:
        task.emit(bid, kind=Kind.ASSISTANT, timestamp=ts, text=rest, model=model, line=line)
