"""One chat's reading: its events, where each goes (the main timeline or a sub-agent), its facts.

A sub-agent's work reaches the main log in two ways: as telemetry lines naming its run
(``prompt_id``), and, in newer versions, as records marked with an ``agentId``. Either way
its events gather in one SUBAGENT event on the timeline (at its first record), drawn
inside the call that started it when the log tells which call that was. An event from a
branch a rewind discarded is kept, and says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from sessite.model import Event, Kind, Problems, Usage
from sessite.readers import ledger
from sessite.readers.builder import SessionBuilder
from sessite.readers.formats.qwen_code.index import FileIndex
from sessite.readers.formats.qwen_code.vocabulary import AGENT, NAME

REWOUND = "on a branch a rewind discarded"


@dataclass
class Agent:
    """A sub-agent's place on the timeline and what it did."""

    event: Event
    children: list[Event] = field(default_factory=list)
    responses: dict[str, Usage] = field(default_factory=dict)  # model responses not yet shown on a call
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def usage(self) -> Usage:
        """Tokens of the responses that made no call (the others are on their calls)."""
        return sum(self.responses.values(), Usage())


@dataclass
class Facts:
    """The session's facts gathered from its records, for ``Session`` fields and details."""

    session_id: str | None = None
    cwd: str | None = None
    folders: dict[str, None] = field(default_factory=dict)
    branches: dict[str, None] = field(default_factory=dict)
    versions: dict[str, None] = field(default_factory=dict)
    prompt: str | None = None  # the first words the user typed (the title when no title record names one)
    meta: dict[str, Any] = field(default_factory=dict)


class QwenFile(SessionBuilder):
    """The events of one Qwen Code chat, placed on the timeline or in a sub-agent's transcript."""

    def __init__(self, path: Path, problems: Problems, index: FileIndex) -> None:
        super().__init__(NAME, path, problems, agent=AGENT, label=NAME)
        self.index = index
        self.facts = Facts()
        self.agents: dict[str, Agent] = {}  # run key or agent id -> its sub-agent
        self.noted: set[str] = set()  # record kinds this reader does not know, reported once each

    def put(self, base: str, agent: str | None, **fields: Any) -> Event:
        """An event with an id made from ``base``, on the timeline or in sub-agent ``agent``'s transcript."""
        line = fields.get("line")
        if line is not None and line in self.index.dead:
            fields["meta"] = {**fields.get("meta", {}), "branch": REWOUND}
        event = Event(id=self.ids.take(base), **fields)
        if agent is None:
            return self.add(event)
        self.agents[agent].children.append(event)
        ledger.shown(self.path, event.line)
        return event

    def last(self, agent: str | None) -> Event:
        """The event placed last on the timeline or in sub-agent ``agent``'s transcript."""
        return (self.events if agent is None else self.agents[agent].children)[-1]

    def amend(self, event: Event, agent: str | None, **changes: Any) -> None:
        """Replace ``event`` (placed on the timeline or in ``agent``'s transcript) with ``changes`` made."""
        events = self.events if agent is None else self.agents[agent].children
        for at in range(len(events) - 1, -1, -1):
            if events[at] is event:
                events[at] = replace(event, **changes)
                return

    def subagent(self, key: str, line: int, ts: datetime | None, title: str, call_id: str | None) -> Agent:
        """Sub-agent ``key``, its SUBAGENT event placed on the timeline where first met."""
        known = self.agents.get(key)
        if known is not None:
            return known
        event = self.add(
            Event(
                id=self.ids.take(f"agent-{key}"),
                kind=Kind.SUBAGENT,
                timestamp=ts,
                title=title,
                call_id=call_id,
                line=line,
            )
        )
        agent = self.agents[key] = Agent(event)
        return agent

    def transcript(self) -> tuple[Event, ...]:
        """The timeline with every sub-agent's transcript, usage and facts filled in."""
        filled = {id(a.event): a for a in self.agents.values()}
        out = []
        for event in self.events:
            agent = filled.get(id(event))
            if agent is not None:
                event = replace(
                    event,
                    children=tuple(agent.children),
                    usage=agent.usage or None,
                    meta={**event.meta, **agent.meta},
                )
            out.append(event)
        return tuple(out)

    def other(self, line: int, kind: str) -> None:
        """A record kind this reader does not know: one problem per kind (the record is still shown)."""
        if kind not in self.noted:
            self.noted.add(kind)
            self.report(line, f"record kind {kind!r} is not known; shown as a system note")
