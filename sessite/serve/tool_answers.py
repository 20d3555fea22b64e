"""The JSON shapes the agents' tools answer with: a session's summary and one event, clipped to fit a context."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from sessite.analyze.session import SessionSummary
from sessite.model import Event
from sessite.site.urls import session_url


def summary_json(s: SessionSummary) -> dict[str, Any]:
    return {
        "id": s.id,
        "title": s.title,
        "agent": s.agent,
        "format": s.format,
        "project": s.project,
        "cwd": s.cwd,
        "models": list(s.models),
        "started": iso(s.started),
        "ended": iso(s.ended),
        "duration_s": int(s.duration.total_seconds()) if s.duration else None,
        "events": s.stats.events,
        "messages": s.stats.messages,
        "tool_calls": s.stats.tool_calls,
        "tool_errors": s.stats.tool_errors,
        "tokens": {
            "input": s.stats.usage.input_tokens,
            "output": s.stats.usage.output_tokens,
            "cache_read": s.stats.usage.cache_read_tokens,
            "cache_write": s.stats.usage.cache_write_tokens,
        },
        "url": session_url(s.id),
        "source": s.source,
    }


def iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _clip(text: str, limit: int) -> tuple[str, bool]:
    return (text, False) if len(text) <= limit else (text[:limit] + "…", True)


def event_json(event: Event, depth: int, limit: int) -> dict[str, Any]:
    out: dict[str, Any] = {"id": event.id, "kind": str(event.kind), "time": iso(event.timestamp)}
    if depth:
        out["depth"] = depth
    if event.text:
        out["text"], clipped = _clip(event.text, limit)
        if clipped:
            out["text_truncated_from"] = len(event.text)
    for name in ("tool_name", "command", "path", "call_id", "title", "model", "exit_code"):
        value = getattr(event, name)
        if value is not None:
            out[name] = value
    if event.category:
        out["category"] = str(event.category)
    if event.is_error:
        out["is_error"] = True
    if event.tool_input is not None:
        out["input"], _ = _clip(
            event.tool_input
            if isinstance(event.tool_input, str)
            else json.dumps(event.tool_input, ensure_ascii=False, default=str),
            limit,
        )
    if event.diff:
        out["diff"], _ = _clip(event.diff, limit)
    if event.usage:
        out["usage"] = {"input": event.usage.input_tokens, "output": event.usage.output_tokens}
    if event.children:
        out["children"] = len(event.children)
    return out


def flatten(events: tuple[Event, ...], depth: int = 0) -> Iterator[tuple[Event, int]]:
    for event in events:
        yield event, depth
        if event.children:
            yield from flatten(event.children, depth + 1)
