"""Where a session's time went: consecutive spans between its timed events, by kind.

The one rule for a session's *active time*, used by every page (the session's header and time
strip, the index's Duration column and card, "Longest sessions"): the time between consecutive
timed top-level events, except that a gap longer than ``GAP`` while the agent works or waits for
the user is a pause and does not count. Its *span* (first to last event, wall clock) is shown
beside it where the two differ.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from sessite.model import Event, Kind, Session, ToolCategory

GAP = timedelta(minutes=15)  # a pause longer than this is drawn as a break, not to scale

# segment kinds, in legend order
TIME_KINDS = (
    ("model", "Agent working"),
    ("shell", "Shell"),
    ("edit", "Edits"),
    ("read", "Reading"),
    ("search", "Search"),
    ("web", "Web"),
    ("task", "Sub-agents"),
    ("tool", "Other tools"),
    ("waiting", "Waiting for the user"),
    ("idle", "Pauses"),
)
_TOOL_KINDS_SET = {"shell", "edit", "read", "search", "web", "task", "tool"}
_TOOL_KIND = {
    ToolCategory.SHELL: "shell",
    ToolCategory.EDIT: "edit",
    ToolCategory.READ: "read",
    ToolCategory.SEARCH: "search",
    ToolCategory.WEB: "web",
    ToolCategory.TASK: "task",
}


@dataclass(frozen=True, slots=True)
class TimeSpan:
    kind: str  # one of TIME_KINDS
    start: datetime
    end: datetime
    event_id: str  # the event that opened it (link target)
    label: str  # tool name, or the kind's label
    events: int = 1  # spans merged into this one

    @property
    def seconds(self) -> float:
        return (self.end - self.start).total_seconds()


def _span_kind(event: Event, following: Event) -> tuple[str, str]:
    if event.kind == Kind.TOOL_CALL:
        kind = _TOOL_KIND.get(event.category, "tool") if event.category else "tool"
        return kind, event.tool_name or "tool"
    if event.kind == Kind.ASSISTANT and following.kind == Kind.USER:
        return "waiting", "Waiting for the user"
    if event.kind == Kind.SUBAGENT:
        return "task", event.title or "sub-agent"
    return "model", "Agent working"


def timeline(session: Session) -> list[TimeSpan]:
    """Consecutive spans between the session's timed top-level events.

    A span belongs to the event that opened it: a tool call's span lasts until
    the next event (usually its result), an assistant message followed by a
    user message is the user's turn, anything else is the agent at work. A
    span longer than GAP is a pause. Neighbouring spans of one kind merge.
    """
    timed = [(aware(e.timestamp), e) for e in session.events if e.timestamp is not None]
    timed.sort(key=lambda pair: pair[0])  # stable: file order breaks ties
    runs: list[_Run] = []
    for (start, event), (end, following) in zip(timed, timed[1:]):
        if end <= start:
            continue
        kind, label = _span_kind(event, following)
        if end - start > GAP and kind in ("model", "waiting"):
            kind, label = "idle", "Pause"
        last = runs[-1] if runs else None
        if last and last.kind == kind and last.end == start and (kind not in _TOOL_KINDS_SET or last.label == label):
            last.end = end
            last.events += 1
        else:
            runs.append(_Run(kind, start, end, event.id, label))
    return [TimeSpan(r.kind, r.start, r.end, r.event_id, r.label, r.events) for r in runs]


@dataclass(slots=True)
class _Run:
    """A span while neighbours of its kind merge into it (a TimeSpan is frozen: one made per merge cost more)."""

    kind: str
    start: datetime
    end: datetime
    event_id: str
    label: str
    events: int = 1


def active_seconds(spans: list[TimeSpan]) -> float:
    """The active time of a session's spans: all but the pauses (the module's rule)."""
    return sum(span.seconds for span in spans if span.kind != "idle")


def active_time(session: Session) -> timedelta | None:
    """A session's active time, or None when fewer than two of its events have a time."""
    spans = timeline(session)
    return timedelta(seconds=active_seconds(spans)) if spans else None


def time_by_kind(spans: list[TimeSpan]) -> list[tuple[str, str, float]]:
    """[(kind, label, seconds)] in legend order, kinds with no time left out."""
    seconds: dict[str, float] = {}
    for span in spans:
        seconds[span.kind] = seconds.get(span.kind, 0) + span.seconds
    return [(k, label, seconds[k]) for k, label in TIME_KINDS if seconds.get(k, 0) > 0]


def aware(value: datetime) -> datetime:
    """A timestamp with a zone (one without is taken as UTC), so any two compare."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def utc_day(value: datetime) -> date:
    """The UTC day of a timestamp (charts count sessions per UTC day)."""
    return aware(value).astimezone(UTC).date()
