"""One Cursor bubble turned into events: a user turn, or the model's thinking, text, tool call and tokens."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from sessite.model import Block, Event, Kind, Problems, Usage
from sessite.readers._util import Ids, obj, text_of, to_int
from sessite.readers.base import as_text, parse_time
from sessite.readers.formats.cursor.calls import tool_events

EMPTY_THINKING = "empty thinking block"
_USER_TYPES = (1, "user", "1")
_ASSISTANT_TYPES = (2, "ai", "assistant", "2")
# timingInfo fields that may hold the bubble's epoch time, in order of preference.
_TIMING_KEYS = ("clientStartTime", "clientRpcSendTime", "clientSettleTime", "clientEndTime", "startTime")


def bubble_time(bubble: dict[str, Any]) -> datetime | None:
    """``createdAt``, else the first timing field that is an epoch time."""
    ts = parse_time(bubble.get("createdAt"))
    if ts:
        return ts
    timing = obj(bubble.get("timingInfo"))
    for key in _TIMING_KEYS:
        value = timing.get(key)
        # Some timing fields are performance.now() offsets, not epoch times.
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 1e12:
            return parse_time(value)
    return None


def bubble_sort_key(bubble: Any) -> tuple[float, str]:
    """Time order for bubbles no header lists (untimed ones last, then by id)."""
    ts = bubble_time(obj(bubble))
    return (ts.timestamp() if ts else float("inf"), str(obj(bubble).get("bubbleId") or ""))


def bubble_events(
    bid: str,
    bubble: dict[str, Any],
    ids: Ids,
    default_model: str | None,
    problems: Problems,
    source: Path,
    where: str,
    skipped: Counter[str] | None = None,
) -> list[Event]:
    """The events of a user (type 1) or assistant (type 2) bubble; any other type is shown as raw JSON.
    An empty thinking block is counted in ``skipped``."""
    btype = bubble.get("type")
    ts = bubble_time(bubble)
    model = text_of(bubble.get("modelType")) or text_of(obj(bubble.get("modelInfo")).get("modelName"))
    text = as_text(bubble.get("text")) if bubble.get("text") is not None else as_text(bubble.get("rawText"))
    if btype in _USER_TYPES:
        blocks = _user_blocks(bubble)
        if text.strip() or blocks:
            return [Event(id=ids.take(bid), kind=Kind.USER, timestamp=ts, text=text, blocks=blocks)]
        return []
    if btype not in _ASSISTANT_TYPES:
        problems.add(source, None, f"cursor: {where} has unknown type {btype!r}; shown as raw JSON")
        return [
            Event(
                id=ids.take(bid), kind=Kind.UNKNOWN, timestamp=ts, title=f"Cursor bubble of type {btype!r}", raw=bubble
            )
        ]
    events = _assistant_events(bid, bubble, text, ts, model or default_model, ids)
    # (a bubble with nothing else is counted whole by the caller)
    if events and skipped is not None and has_empty_thinking(bubble, events):
        skipped[EMPTY_THINKING] += 1
    return events


def has_empty_thinking(bubble: dict[str, Any], events: list[Event]) -> bool:
    """The bubble has a thinking block with no text (no thinking event came of it)."""
    return bubble.get("thinking") not in (None, "", {}) and not any(e.kind == Kind.THINKING for e in events)


def _assistant_events(
    bid: str, bubble: dict[str, Any], text: str, ts: datetime | None, model: str | None, ids: Ids
) -> list[Event]:
    events: list[Event] = []
    thinking = _thinking_event(bid, bubble, ts, model, ids)
    if thinking is not None:
        events.append(thinking)
    if text.strip():
        events.append(Event(id=ids.take(bid), kind=Kind.ASSISTANT, timestamp=ts, text=text, model=model))
    tool = bubble.get("toolFormerData")
    if isinstance(tool, dict) and tool:
        events.extend(tool_events(bid, tool, ts, model, ids))
    elif tool not in (None, {}, ""):
        events.append(
            Event(id=ids.take(f"{bid}-tool"), kind=Kind.UNKNOWN, timestamp=ts, title="Cursor tool data", raw=tool)
        )
    tokens = obj(bubble.get("tokenCount"))
    usage = Usage(input_tokens=to_int(tokens.get("inputTokens")), output_tokens=to_int(tokens.get("outputTokens")))
    if usage:
        _add_usage(events, usage, bid, ts, model, ids)
    return events


def _thinking_event(bid: str, bubble: dict[str, Any], ts: datetime | None, model: str | None, ids: Ids) -> Event | None:
    thinking = bubble.get("thinking")
    if isinstance(thinking, dict):
        thinking_text = as_text(obj(thinking).get("text"))
    elif isinstance(thinking, str):
        thinking_text = as_text(thinking)
    else:
        thinking_text = ""
    if not thinking_text.strip():
        return None
    duration = bubble.get("thinkingDurationMs")
    meta = {"duration ms": duration} if isinstance(duration, (int, float)) else {}
    return Event(
        id=ids.take(f"{bid}-thinking"), kind=Kind.THINKING, timestamp=ts, text=thinking_text, model=model, meta=meta
    )


def _add_usage(events: list[Event], usage: Usage, bid: str, ts: datetime | None, model: str | None, ids: Ids) -> None:
    """The bubble's tokens on its last event that is not a tool result (an event of its own when it has none)."""
    if not events:
        events.append(Event(id=ids.take(bid), kind=Kind.ASSISTANT, timestamp=ts, usage=usage, model=model))
        return
    last = next((i for i in range(len(events) - 1, -1, -1) if events[i].kind != Kind.TOOL_RESULT), len(events) - 1)
    events[last] = replace(events[last], usage=usage, model=events[last].model or model)


def _user_blocks(bubble: dict[str, Any]) -> tuple[Block, ...]:
    """Files the user put in context, and pasted images."""
    blocks: list[Block] = []
    context = obj(bubble.get("context"))
    for item in context.get("fileSelections") or [] if isinstance(context.get("fileSelections"), list) else []:
        uri = obj(obj(item).get("uri"))
        path = text_of(uri.get("fsPath")) or text_of(uri.get("path"))
        if path:
            blocks.append(Block("reference", uri=path, title="file in context"))
    for image in bubble.get("images") or [] if isinstance(bubble.get("images"), list) else []:
        blocks.append(Block("image", title=text_of(obj(image).get("path")) or "image"))
    return tuple(blocks)
