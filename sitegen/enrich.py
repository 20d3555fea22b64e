"""Pure functions from a Session to what pages need: tool calls paired with
their results and sub-agents, permalink anchors, and per-session figures.

No I/O and no HTML here.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property
from typing import TYPE_CHECKING, Iterator

from .model import Event, GitRefs, Kind, Session, Usage

if TYPE_CHECKING:
    from .parts import Part

_ANCHOR_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
_MESSAGE_KINDS = {Kind.USER, Kind.ASSISTANT}


def walk(events: tuple[Event, ...]) -> Iterator[Event]:
    """Every event, sub-agent transcripts included, depth first in order."""
    for event in events:
        yield event
        if event.children:
            yield from walk(event.children)


@dataclass(frozen=True, slots=True)
class Stats:
    events: int = 0
    user_messages: int = 0
    assistant_messages: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    subagents: int = 0
    usage: Usage = Usage()
    tools: tuple[tuple[str, int], ...] = ()  # most used first
    skipped: int = 0

    @property
    def messages(self) -> int:
        return self.user_messages + self.assistant_messages


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """What aggregate pages (index, refs, search) keep of a session: small, no events."""

    id: str
    url: str
    title: str
    agent: str
    format: str
    source: str
    project: str | None
    cwd: str | None
    models: tuple[str, ...]
    started: datetime | None
    ended: datetime | None
    stats: Stats
    git: GitRefs

    @property
    def duration(self) -> timedelta | None:
        if self.started and self.ended and self.ended >= self.started:
            return self.ended - self.started
        return None


@dataclass
class SessionView:
    """A session ready to render: the session plus the links between its events."""

    session: Session
    summary: SessionSummary
    anchors: dict[str, str]  # event id -> HTML id
    results: dict[str, list[Event]] = field(default_factory=dict)  # call_id -> results
    subagents: dict[str, list[Event]] = field(default_factory=dict)  # call_id -> SUBAGENT events
    inline: set[str] = field(default_factory=set)  # ids of events shown inside their call, not on their own
    parts: tuple["Part", ...] = ()  # the pages of a split session (sitegen/parts.py); () = one page
    event_part: dict[str, int] = field(default_factory=dict)  # split sessions: event id -> index into parts

    def results_for(self, event: Event) -> list[Event]:
        return self.results.get(event.call_id, []) if event.call_id and event.kind == Kind.TOOL_CALL else []

    def subagents_for(self, event: Event) -> list[Event]:
        return self.subagents.get(event.call_id, []) if event.call_id and event.kind == Kind.TOOL_CALL else []

    @cached_property
    def timeline(self) -> list[Event]:
        """The top-level events the page lists (results and sub-agents are drawn inside their call)."""
        return [e for e in self.session.events if e.id not in self.inline]

    def part_events(self, part: "Part | None") -> list[Event]:
        """The top-level events one part lists; all of them for an unsplit session."""
        return self.timeline if part is None else self.timeline[part.start : part.end]

    def page_of(self, event_id: str) -> str:
        """The site-relative URL of the page that draws an event: its part's (part 1's if unknown)."""
        return self.parts[self.event_part.get(event_id, 0)].url if self.parts else self.summary.url

    def event_url(self, event_id: str) -> str:
        """Where an event is, from the site root: its part's URL and its anchor (the session's URL if unknown).

        Every link to an event goes through here, so it lands on the part that draws it.
        """
        anchor = self.anchors.get(event_id)
        return f"{self.page_of(event_id)}#{anchor}" if anchor else self.summary.url

    def event_link(self, event_id: str) -> str | None:
        """A link to an event from the session's first page: ``#anchor`` when it is there,
        else its part's site-relative URL (prefix the page's root). None when unknown."""
        anchor = self.anchors.get(event_id)
        if anchor is None:
            return None
        return f"#{anchor}" if self.event_part.get(event_id, 0) == 0 else self.event_url(event_id)


def session_title(session: Session, limit: int = 100) -> str:
    """The session's own title, else its first user message, else its id."""
    if session.title and session.title.strip():
        return _one_line(session.title, limit)
    for event in walk(session.events):
        if event.kind == Kind.USER and event.text.strip():
            return _one_line(event.text, limit)
    return session.id


def _one_line(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def anchor_ids(events: tuple[Event, ...]) -> dict[str, str]:
    """A unique, HTML-safe anchor for every event (ids from a format may repeat or be odd)."""
    anchors: dict[str, str] = {}
    used: set[str] = set()
    for event in walk(events):
        if event.id in anchors:
            continue
        base = "e-" + (_ANCHOR_UNSAFE.sub("-", event.id).strip("-")[:64] or "x")
        anchor, n = base, 1
        while anchor in used:
            n += 1
            anchor = f"{base}-{n}"
        used.add(anchor)
        anchors[event.id] = anchor
    return anchors


def compute_stats(session: Session) -> Stats:
    counts: Counter[Kind] = Counter()
    tools: Counter[str] = Counter()
    errors = 0
    usage = Usage()
    total = 0
    for event in walk(session.events):
        total += 1
        counts[event.kind] += 1
        if event.kind == Kind.TOOL_CALL and event.tool_name:
            tools[event.tool_name] += 1
        if event.is_error:
            errors += 1
        if event.usage:
            usage = usage + event.usage
    if not usage and session.usage:
        usage = session.usage
    return Stats(
        events=total,
        user_messages=counts[Kind.USER],
        assistant_messages=counts[Kind.ASSISTANT],
        tool_calls=counts[Kind.TOOL_CALL],
        tool_errors=errors,
        subagents=counts[Kind.SUBAGENT],
        usage=usage,
        tools=tuple(tools.most_common()),
        skipped=sum(session.skipped.values()),
    )


def session_url(session_id: str) -> str:
    return f"sessions/{session_id}.html"


def summarize(session: Session) -> SessionSummary:
    times = [e.timestamp for e in walk(session.events) if e.timestamp]
    started = session.started or (min(times) if times else None)
    ended = session.ended or (max(times) if times else None)
    if started and times:
        ended = max(ended or started, max(times))
    models = session.models or tuple(dict.fromkeys(e.model for e in walk(session.events) if e.model))
    return SessionSummary(
        id=session.id,
        url=session_url(session.id),
        title=session_title(session),
        agent=session.agent,
        format=session.source.format,
        source=session.source.path,
        project=session.project,
        cwd=session.cwd,
        models=models,
        started=started,
        ended=ended,
        stats=compute_stats(session),
        git=session.git,
    )


def build_view(session: Session, part_bytes: int | None = None) -> SessionView:
    """Pair each tool call with its results and sub-agents, and plan the parts of a big session.

    A result or sub-agent whose call exists is shown inside that call; one
    whose call is missing stays where it is, so nothing disappears. A session
    whose estimated HTML passes ``part_bytes`` (default ``parts.PART_BYTES``)
    is split into pages (``sitegen/parts.py``).
    """
    from .parts import PART_BYTES, plan_parts

    calls = {e.call_id for e in walk(session.events) if e.kind == Kind.TOOL_CALL and e.call_id}
    view = SessionView(session=session, summary=summarize(session), anchors=anchor_ids(session.events))
    for event in walk(session.events):
        if event.call_id and event.call_id in calls:
            if event.kind == Kind.TOOL_RESULT:
                view.results.setdefault(event.call_id, []).append(event)
                view.inline.add(event.id)
            elif event.kind == Kind.SUBAGENT:
                view.subagents.setdefault(event.call_id, []).append(event)
                view.inline.add(event.id)
    view.parts, view.event_part = plan_parts(view, PART_BYTES if part_bytes is None else part_bytes)
    return view
