"""One session's reading: its events, where each goes (the timeline or a sub-agent), its facts.

A sub-agent's events reach the log nested in the main one (Kimi CLI's ``SubagentEvent``,
naming the ``Task`` call that started it) or in a log of its own (Kimi Code's
``agents/<id>/wire.jsonl``). Either way they gather in one SUBAGENT event, drawn inside
the call that started it. A step's token counts arrive after its content; they go on
the last thing the model produced in that step.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from sessite.model import Event, Kind, Problems, ToolCategory, Usage
from sessite.readers import ledger
from sessite.readers.builder import MODEL_KINDS, SessionBuilder
from sessite.readers.formats.kimi_cli.vocabulary import AGENT, NAME


@dataclass
class Agent:
    """A sub-agent's place on the timeline and what it did."""

    event: Event
    children: list[Event] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class Call:
    """What a result needs to know of its call."""

    name: str
    category: ToolCategory
    path: str | None
    has_diff: bool
    agent: str | None


@dataclass
class Facts:
    """The session's facts gathered from its records."""

    cwd: str | None = None
    title: str | None = None
    prompt: str | None = None  # the user's first words, for the title
    meta: dict[str, Any] = field(default_factory=dict)


class KimiFile(SessionBuilder):
    """The events of one Kimi session, on the timeline or in a sub-agent's transcript."""

    def __init__(self, path: Path, problems: Problems) -> None:
        super().__init__(NAME, path, problems, agent=AGENT, label=NAME)
        self.facts = Facts()
        self.agents: dict[str, Agent] = {}
        self.calls: dict[str, Call] = {}
        self.step: dict[str | None, list[Event]] = {}  # agent -> the events of its current step
        self.noted: set[str] = set()

    @contextmanager
    def reading(self, path: Path) -> Iterator[None]:
        """Events, skips, merges and problems name ``path`` (another file of the session) while
        it is read; then the log again."""
        log = self.path
        self.path = path
        try:
            yield
        finally:
            self.path = log

    def put(self, base: str, agent: str | None, **fields: Any) -> Event:
        """An event with an id made from ``base``, on the timeline or in sub-agent ``agent``'s transcript."""
        event = Event(id=self.ids.take(base), **fields)
        if agent is None:
            self.add(event)
        else:
            self.agents[agent].children.append(event)
            ledger.shown(self.path, event.line)
        self.step.setdefault(agent, []).append(event)
        return event

    def new_step(self, agent: str | None) -> None:
        self.step[agent] = []

    def step_usage(self, agent: str | None, usage: Usage | None, meta: dict[str, Any]) -> bool:
        """Put a step's tokens (and facts) on the last model event of the step; False when it has none."""
        made = [e for e in self.step.get(agent, []) if e.kind in MODEL_KINDS]
        if not made or (usage is None and not meta):
            return False
        target = made[-1]
        events = self.events if agent is None else self.agents[agent].children
        for at in range(len(events) - 1, -1, -1):
            if events[at] is target:
                changed = replace(target, usage=usage or target.usage, meta={**target.meta, **meta})
                events[at] = changed
                steps = self.step[agent]
                steps[steps.index(target)] = changed
                return True
        return False

    def amend_call(self, call_id: str, meta: dict[str, Any]) -> bool:
        """Add ``meta`` to the call ``call_id`` already placed; False when it is not (yet) there."""
        call = self.calls.get(call_id)
        if call is None:
            return False
        events = self.events if call.agent is None else self.agents[call.agent].children
        for at in range(len(events) - 1, -1, -1):
            event = events[at]
            if event.kind == Kind.TOOL_CALL and event.call_id == call_id:
                events[at] = replace(event, meta={**event.meta, **meta})
                steps = self.step.get(call.agent, [])
                self.step[call.agent] = [events[at] if e is event else e for e in steps]
                return True
        return False

    def call_input(self, call_id: str | None) -> dict[str, Any]:
        """The input of a call already placed on the timeline (empty when there is none)."""
        for event in self.events:
            if call_id and event.kind == Kind.TOOL_CALL and event.call_id == call_id:
                return event.tool_input if isinstance(event.tool_input, dict) else {}
        return {}

    def place_after(self, call_id: str | None, event: Event) -> None:
        """Put ``event`` on the timeline after the result of ``call_id`` (or its call; else at the end)."""
        at = len(self.events)
        for index, known in enumerate(self.events):
            if call_id and known.call_id == call_id and known.kind in (Kind.TOOL_CALL, Kind.TOOL_RESULT):
                at = index + 1
        self.events.insert(at, event)
        ledger.shown(self.path, event.line)

    def subagent(self, key: str, line: int | None, ts: datetime | None, title: str, call_id: str | None) -> Agent:
        """Sub-agent ``key``, its SUBAGENT event placed on the timeline where first met."""
        known = self.agents.get(key)
        if known is not None:
            return known
        event = Event(
            id=self.ids.take(f"agent-{key}"), kind=Kind.SUBAGENT, timestamp=ts, title=title, call_id=call_id, line=line
        )
        self.add(event)
        agent = self.agents[key] = Agent(event)
        return agent

    def transcript(self) -> tuple[Event, ...]:
        """The timeline with every sub-agent's transcript and facts filled in."""
        filled = {id(a.event): a for a in self.agents.values()}
        out = []
        for event in self.events:
            agent = filled.get(id(event))
            if agent is not None:
                event = replace(event, children=tuple(agent.children), meta={**event.meta, **agent.meta})
            out.append(event)
        return tuple(out)

    def other(self, line: int | None, kind: str) -> None:
        """A record kind this reader does not know: one problem per kind (the record is still shown)."""
        if kind not in self.noted:
            self.noted.add(kind)
            self.report(line, f"record type {kind!r} is not known; shown as a system note")
