"""Zed sessions: one per thread, a sub-agent's thread nested under the thread that started it.

A thread's row gives its title (``summary``), times and folders; its JSON gives the
messages, the model, token totals and the detailed summary. A thread with a ``parent_id``
that is in the database (a sub-agent Zed's agent spawned) becomes a SUBAGENT event of its
parent, after the call that started it when its ``subagent_context`` names the call.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sessite.model import Event, Kind, Problems, Session, Usage
from sessite.readers._util import obj, opt_int, text_of
from sessite.readers.base import parse_time
from sessite.readers.builder import SessionBuilder
from sessite.readers.formats.zed.database import NAME, Thread
from sessite.readers.formats.zed.messages import MessageReader

AGENT = "zed"
_MAX_DEPTH = 20


def sessions(threads: list[Thread], path: Path, problems: Problems) -> Iterator[Session]:
    by_id = {t.id: t for t in threads}
    children: dict[str, list[Thread]] = {}
    for thread in threads:
        if thread.parent and thread.parent in by_id and thread.parent != thread.id:
            children.setdefault(thread.parent, []).append(thread)
    nested = {t.id for kids in children.values() for t in kids}
    for thread in threads:
        if thread.id in nested and not _cycle(thread, by_id):
            continue
        b = SessionBuilder(NAME, path, problems, agent=AGENT, label=NAME)
        b.events = _events(thread, b, children, 0)
        if b.events:
            yield _session(thread, b)


def _cycle(thread: Thread, by_id: dict[str, Thread]) -> bool:
    seen = {thread.id}
    current = thread.parent
    while current and current in by_id:
        if current in seen:
            return True
        seen.add(current)
        current = by_id[current].parent
    return False


def _model(data: dict[str, Any] | None) -> str | None:
    return text_of(obj(obj(data).get("model")).get("model"))


def _events(thread: Thread, b: SessionBuilder, children: dict[str, list[Thread]], depth: int) -> list[Event]:
    own = SessionBuilder(NAME, b.path, b.problems, agent=AGENT, label=NAME)
    own.ids = b.ids
    if thread.data is None:
        own.skip("thread whose data could not be read", line=thread.first_line)
    reader = MessageReader(own, _model(thread.data))
    own.model(reader.model)
    for index, message in enumerate(thread.messages):
        line = thread.first_line + index
        try:
            reader.message(line, message)
        except Exception as exc:  # noqa: BLE001 - one odd message costs that message only
            own.unreadable(line, "thread message", message, exc)
    for reason, count in own.skipped.items():
        b.skipped[reason] += count
    for model in own.models:
        b.model(model)
    events = list(own.events)
    for child in children.get(thread.id, []) if depth < _MAX_DEPTH else []:
        inner = _events(child, b, children, depth + 1)
        if not inner:
            continue  # an unreadable thread: counted, with its problem
        context = obj(obj(child.data).get("subagent_context"))
        call_id = text_of(context.get("tool_use_id")) or text_of(context.get("parent_tool_use_id"))
        at = next((i + 1 for i, e in enumerate(events) if call_id and e.call_id == call_id), len(events))
        while at < len(events) and events[at].kind == Kind.TOOL_RESULT and events[at].call_id == call_id:
            at += 1
        events.insert(
            at,
            Event(
                id=b.ids.take(f"sub-{child.id}"),
                kind=Kind.SUBAGENT,
                timestamp=parse_time(child.created_at),
                title=child.summary or text_of(obj(child.data).get("title")) or f"Sub-agent thread {child.id}",
                children=tuple(inner),
                call_id=call_id if call_id and any(e.call_id == call_id for e in events) else None,
                model=_model(child.data),
                meta={"thread": child.id},
            ),
        )
    return events


def _session(thread: Thread, b: SessionBuilder) -> Session:
    data = obj(thread.data)
    usage = obj(data.get("cumulative_token_usage"))
    totals = Usage(
        input_tokens=max(opt_int(usage.get("input_tokens")) or 0, 0),
        output_tokens=max(opt_int(usage.get("output_tokens")) or 0, 0),
        cache_read_tokens=max(opt_int(usage.get("cache_read_input_tokens")) or 0, 0),
        cache_write_tokens=max(opt_int(usage.get("cache_creation_input_tokens")) or 0, 0),
    )
    meta: dict[str, Any] = {}
    model = obj(data.get("model"))
    if text_of(model.get("provider")):
        meta["provider"] = model["provider"]
    for key in ("profile", "completion_mode", "version"):
        if isinstance(data.get(key), str) and data[key]:
            meta[key.replace("_", " ")] = data[key]
    summary = data.get("detailed_summary")
    if isinstance(summary, str) and summary.strip():
        meta["detailed summary"] = summary
    if len(thread.folders) > 1:
        meta["folders"] = thread.folders
    if data.get("imported") is True:
        meta["imported"] = True
    title = thread.summary or text_of(data.get("title")) or text_of(data.get("summary"))
    return b.finish(
        thread.id,
        title=title,
        started=parse_time(thread.created_at),
        ended=parse_time(thread.updated_at) or parse_time(data.get("updated_at")),
        cwd=thread.folders[0] if thread.folders else None,
        usage=totals or None,
        meta=meta,
    )
