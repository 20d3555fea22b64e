"""The bookkeeping every reader does while it turns records into one Session.

Each format walks its own records its own way, but all of them hand out event ids
unique in the session, keep events in order, count the records they leave out (with
the reason, shown on the session page), report bad input as problems at
``path:line``, collect the models in first-use order and finally fill a Session
whose start and end fall back on the events' own stamps. A reader makes one
``SessionBuilder`` per session (or subclasses it to keep its format's state) and
calls ``finish`` at the end.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from sessite.model import Event, Kind, Problems, Session, SourceRef, make_session_id, walk
from sessite.readers import ledger
from sessite.readers._util import Ids, project_of

# Events a model produced: where a response's token usage is shown.
MODEL_KINDS = frozenset({Kind.ASSISTANT, Kind.THINKING, Kind.TOOL_CALL})


class SessionBuilder:
    """Collects one session's events, skips, problems and models; ``finish`` makes the Session."""

    def __init__(
        self,
        fmt: str,
        path: Path,
        problems: Problems,
        *,
        agent: str | None = None,
        label: str | None = None,
        id_sep: str = "-",
    ) -> None:
        self.format = fmt  # reader name: the session id's prefix and the source's format
        self.agent = agent or fmt
        self.path = path  # where problems point (a reader may move it to the file it reads now)
        self.problems = problems
        self.label = label  # prefix of problem messages ("opencode: …"), if the format uses one
        self.ids = Ids(id_sep)
        self.events: list[Event] = []
        self.skipped: Counter[str] = Counter()
        self.models: dict[str, None] = {}  # in first-use order

    # ---- events

    def emit(self, base: str, **fields: Any) -> Event:
        """Append an event whose id is ``base`` made unique in this session."""
        return self.add(Event(id=self.ids.take(base), **fields))

    def add(self, event: Event) -> Event:
        """Append an event built elsewhere (its id already taken from ``self.ids``)."""
        self.events.append(event)
        ledger.shown(self.path, event.line)
        return event

    def unreadable(self, line: int | None, where: str, record: Any, exc: Exception) -> None:
        """A record the reader could not make sense of (a value of a type nobody expected there):
        one problem, and the record shown as raw JSON; the rest of the file is read on."""
        self.report(line, f"could not interpret {where} ({type(exc).__name__}: {exc}); shown as raw JSON")
        self.emit("unreadable", kind=Kind.UNKNOWN, title=f"unreadable {where}", raw=record, line=line)

    def skip(self, reason: str, count: int = 1, *, line: int | None = None) -> None:
        """Count records left out on purpose; the session page lists the reasons.
        ``line`` names the record for the fidelity ledger (a count of several has none)."""
        self.skipped[reason] += count
        ledger.not_shown(self.path, line, reason)

    def merged(self, line: int | None, reason: str) -> None:
        """A record whose content another event shows (a copy, a completion notice):
        not counted on the page, but accounted for in the fidelity ledger."""
        ledger.merged(self.path, line, reason)

    def report(self, line: int | None, message: str, path: Path | None = None) -> None:
        """A problem with the input at ``path:line`` (the builder's path by default)."""
        text = f"{self.label}: {message}" if self.label else message
        self.problems.add(path or self.path, line, text)

    def model(self, name: str | None) -> None:
        """Note a model the session used (empty names are ignored)."""
        if name:
            self.models.setdefault(name, None)

    # ---- the session

    def span(
        self, events: Iterable[Event] | None = None, nested: bool = False
    ) -> tuple[datetime | None, datetime | None]:
        """(first, last) event stamp: of the top-level events, or of every event when ``nested``."""
        chosen = tuple(self.events if events is None else events)
        stamps = [e.timestamp for e in (walk(chosen) if nested else chosen) if e.timestamp]
        return (min(stamps), max(stamps)) if stamps else (None, None)

    def finish(
        self,
        raw_id: str,
        *,
        events: Sequence[Event] | None = None,
        source: Path | str | None = None,
        started: datetime | None = None,
        ended: datetime | None = None,
        models: Iterable[str] | None = None,
        cwd: str | None = None,
        project: str | None = None,
        **fields: Any,
    ) -> Session:
        """The Session: ``events`` default to the emitted ones, ``started``/``ended`` to the
        first and last event stamps, ``models`` to those noted, ``project`` to the cwd's
        last folder; ``fields`` (title, meta, git, usage) are passed on as they are."""
        events = tuple(self.events if events is None else events)
        first, last = self.span(events)
        return Session(
            id=make_session_id(self.format, raw_id),
            source=SourceRef(str(self.path if source is None else source), self.format),
            agent=self.agent,
            events=events,
            started=started or first,
            ended=ended or last,
            cwd=cwd,
            project=project if project is not None else project_of(cwd),
            models=tuple(self.models if models is None else models),
            skipped=dict(self.skipped),
            **fields,
        )


def last_index(events: Sequence[Event], match: Callable[[Event], bool], since: int = 0) -> int | None:
    """The index of the last event at or after ``since`` that ``match`` accepts (where usage goes)."""
    for index in range(len(events) - 1, since - 1, -1):
        if match(events[index]):
            return index
    return None
