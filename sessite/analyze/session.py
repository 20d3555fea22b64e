"""What every output needs to know of a session without its events: figures, a summary,
and which events are drawn inside which call. Pure functions on the model; no I/O, no HTML.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property

from sessite.analyze.time_spans import active_time
from sessite.model import Event, GitRefs, Kind, Session, Usage, session_title, walk


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
    active: timedelta | None = None  # the time worked, pauses left out (analyze.time_spans states the rule)
    subagent_log: bool = False  # only sub-agents' logs (model.Session.subagent_log)

    @property
    def duration(self) -> timedelta | None:
        """The wall-clock span, first to last event (shown beside ``active`` where they differ)."""
        if self.started and self.ended and self.ended >= self.started:
            return self.ended - self.started
        return None

    @property
    def listed_apart(self) -> str | None:
        """Why the index lists this session apart from its rows (counted, linked, not a row), or None."""
        if self.subagent_log:
            return "sub-agent log"
        if not self.stats.messages:
            return "no messages"
        return None


def one_line(s: SessionSummary) -> str:
    """A session's facts on one line (agent · models · project · counts): the feed's entry summary,
    llms.txt's note and the link card's description say the same thing."""
    facts = [s.agent, ", ".join(s.models)] + ([s.project] if s.project else [])
    facts.append(f"{s.stats.messages} messages, {s.stats.tool_calls} tool calls")
    return " · ".join(f for f in facts if f)


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


def summarize(session: Session) -> SessionSummary:
    """The summary of a session (where its page goes is the site's business: ``site.urls.session_url``)."""
    times = [e.timestamp for e in walk(session.events) if e.timestamp]
    started = session.started or (min(times) if times else None)
    ended = session.ended or (max(times) if times else None)
    if started and times:
        ended = max(ended or started, max(times))
    models = session.models or tuple(dict.fromkeys(e.model for e in walk(session.events) if e.model))
    return SessionSummary(
        id=session.id,
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
        active=active_time(session),
        subagent_log=session.subagent_log,
    )


@dataclass
class PairedSession:
    """A session with each tool call linked to its results and sub-agents.

    A result or sub-agent whose call exists is drawn inside that call (``inline``);
    one whose call is missing stays where it is, so nothing disappears.
    """

    session: Session
    summary: SessionSummary
    results: dict[str, list[Event]] = field(default_factory=dict)  # call_id -> results
    subagents: dict[str, list[Event]] = field(default_factory=dict)  # call_id -> SUBAGENT events
    inline: set[str] = field(default_factory=set)  # ids of events shown inside their call, not on their own

    def results_for(self, event: Event) -> list[Event]:
        return self.results.get(event.call_id, []) if event.call_id and event.kind == Kind.TOOL_CALL else []

    def subagents_for(self, event: Event) -> list[Event]:
        return self.subagents.get(event.call_id, []) if event.call_id and event.kind == Kind.TOOL_CALL else []

    @cached_property
    def timeline(self) -> list[Event]:
        """The top-level events a page lists (results and sub-agents are drawn inside their call)."""
        return [e for e in self.session.events if e.id not in self.inline]

    def pair(self) -> None:
        """Fill ``results``, ``subagents`` and ``inline`` from the session's events."""
        drawn_in = _DrawnIn(self.session.events)
        calls = drawn_in.calls
        for event in walk(self.session.events):
            if event.call_id and event.call_id in calls:
                if event.kind == Kind.TOOL_RESULT:
                    self.results.setdefault(event.call_id, []).append(event)
                    self.inline.add(event.id)
                elif event.kind == Kind.SUBAGENT and drawn_in.attach(event):
                    self.subagents.setdefault(event.call_id, []).append(event)
                    self.inline.add(event.id)


class _DrawnIn:
    """Which sub-agents each event is drawn inside, so that drawing a sub-agent under its call
    never puts it inside itself: a log whose sub-agent holds its own call (or two sub-agents
    that hold each other's) would otherwise nest without end."""

    def __init__(self, events: tuple[Event, ...]) -> None:
        self.holders: dict[int, list[Event]] = {}  # id(event) -> the sub-agents it is drawn in (none: absent)
        self.calls: dict[str, list[Event]] = {}  # call id -> the tool calls with it
        stack: list[tuple[tuple[Event, ...], Event | None]] = [(events, None)]
        while stack:
            level, holder = stack.pop()
            for event in level:
                if holder is not None:
                    self.holders[id(event)] = [holder]
                if event.kind == Kind.TOOL_CALL and event.call_id:
                    self.calls.setdefault(event.call_id, []).append(event)
                if event.children:
                    stack.append((event.children, event if event.kind == Kind.SUBAGENT else holder))

    def attach(self, subagent: Event) -> bool:
        """Draw ``subagent`` under every call with its id, unless that would draw it inside itself."""
        calls = self.calls.get(subagent.call_id or "", [])
        holders = [h for call in calls for h in self.holders.get(id(call), [])]
        if self._reaches(holders, subagent):
            return False
        self.holders.setdefault(id(subagent), []).extend(holders)
        return True

    def _reaches(self, start: list[Event], subagent: Event) -> bool:
        seen: set[int] = set()
        todo = list(start)
        while todo:
            holder = todo.pop()
            if holder is subagent:
                return True
            if id(holder) not in seen:
                seen.add(id(holder))
                todo.extend(self.holders.get(id(holder), []))
        return False
