"""A Gemini chat's events assembled into the Session: id, project, time span, title, leftover usage."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime
from typing import Any

from sessite.model import Event, Kind, Session, SourceRef, Usage, make_session_id
from sessite.readers._util import shorten, text_of
from sessite.readers.base import parse_time
from sessite.readers.formats.gemini.events import MODEL_KINDS, EventWriter
from sessite.readers.formats.gemini.records import NAME, Chat

AGENT = "gemini-cli"
# Header keys read into Session fields; the other non-empty ones go to meta.
_HEADER_FIELDS = ("sessionId", "projectHash", "startTime", "lastUpdated")


def build_session(chat: Chat) -> Session | None:
    """The chat's Session, or None (with a problem) when it has no messages."""
    writer = EventWriter(chat)
    for position, entry in enumerate(chat.entries):
        writer.add_entry(entry, position)
    if not writer.events:
        chat.problems.add(chat.path, None, "no Gemini chat messages; skipped")
        return None
    header = chat.header
    sid = header.get("sessionId")
    if not isinstance(sid, str) or not sid.strip():
        chat.problems.add(chat.path, None, "no sessionId; using the file name")
        sid = chat.path.stem
    project = text_of(header.get("projectHash"))
    if project is None:
        chat.problems.add(chat.path, None, "no projectHash")
    started, ended = _time_span(header, writer.events)
    usage = _place_leftover_usage(writer)
    return Session(
        id=make_session_id(NAME, sid),
        source=SourceRef(str(chat.path), NAME),
        agent=AGENT,
        events=tuple(writer.events),
        title=_title(header, writer.events),
        started=started,
        ended=ended,
        project=project,
        models=tuple(writer.models),
        usage=usage,
        meta=_session_meta(chat, sid, project),
        skipped=dict(chat.skipped),
    )


def _session_meta(chat: Chat, sid: str, project: str | None) -> dict[str, Any]:
    meta: dict[str, Any] = {"session_id": sid}
    if project:
        meta["projectHash"] = project
    for key, value in chat.header.items():
        if key not in _HEADER_FIELDS and value not in (None, "", [], {}):
            meta[key] = value
    if chat.path.parent.name not in ("chats", "") and chat.header.get("kind") == "subagent":
        meta["parent_session_id"] = chat.path.parent.name
    return meta


def _walk(events: list[Event]) -> Iterator[Event]:
    for event in events:
        yield event
        yield from _walk(list(event.children))


def _time_span(header: dict[str, Any], events: list[Event]) -> tuple[datetime | None, datetime | None]:
    """startTime / lastUpdated, widened to the events' own times."""
    stamps = [e.timestamp for e in _walk(events) if e.timestamp]
    started = parse_time(header.get("startTime")) or (min(stamps) if stamps else None)
    ended = parse_time(header.get("lastUpdated")) or (max(stamps) if stamps else None)
    if stamps and (ended is None or max(stamps) > ended):
        ended = max(stamps)
    if stamps and (started is None or min(stamps) < started):
        started = min(stamps)
    return started, ended


def _place_leftover_usage(writer: EventWriter) -> Usage | None:
    """Usage no model event took goes on the last model event; with none, on the session."""
    leftover = writer.leftover_usage
    if leftover is None:
        return None
    events = writer.events
    targets = [i for i, e in enumerate(events) if e.kind in MODEL_KINDS]
    if not targets:
        return leftover
    event = events[targets[-1]]
    events[targets[-1]] = replace(event, usage=(event.usage + leftover) if event.usage else leftover)
    return None


def _title(header: dict[str, Any], events: list[Event]) -> str | None:
    """The chat's summary, else its first user prompt."""
    summary = text_of(header.get("summary"))
    if summary:
        return shorten(summary)
    return next((shorten(e.text) for e in events if e.kind == Kind.USER and e.text.strip()), None)
