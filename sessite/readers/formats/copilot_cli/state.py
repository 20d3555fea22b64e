"""One file's reading: its events, where each goes (the main timeline or a sub-agent), its facts.

Copilot CLI writes a sub-agent's records into the session's own log, interleaved with
the main agent's, each naming the ``task`` call that started it (``parentToolCallId``).
Events are placed as they come: top-level ones on the timeline, a sub-agent's ones in
its transcript, which sits on the timeline as one SUBAGENT event (at its
``subagent.started`` record) drawn inside the call that spawned it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from sessite.model import Event, Kind, Problems, ToolCategory, Usage
from sessite.readers import ledger
from sessite.readers._util import obj, text_of
from sessite.readers.builder import SessionBuilder
from sessite.readers.formats.copilot_cli.index import FileIndex
from sessite.readers.formats.copilot_cli.vocabulary import AGENT, NAME


@dataclass
class Call:
    """What a result needs to know of its call."""

    name: str
    category: ToolCategory
    has_diff: bool
    parent: str | None
    path: str | None = None


@dataclass
class Facts:
    """The session's facts gathered from its records, for ``Session`` fields and details."""

    session_id: str | None = None
    cwd: str | None = None
    branches: dict[str, None] = field(default_factory=dict)
    commits: dict[str, None] = field(default_factory=dict)
    repos: dict[str, None] = field(default_factory=dict)
    started: datetime | None = None
    title: str | None = None
    usage: Usage | None = None
    meta: dict[str, Any] = field(default_factory=dict)


class CopilotFile(SessionBuilder):
    """The events of one Copilot CLI log, placed on the timeline or in a sub-agent's transcript."""

    def __init__(self, path: Path, problems: Problems, index: FileIndex) -> None:
        super().__init__(NAME, path, problems, agent=AGENT, label=NAME)
        self.index = index
        self.facts = Facts()
        self.calls: dict[str, Call] = {}
        self.children: dict[str, list[Event]] = {}  # sub-agent call id -> its transcript
        self.agents: dict[str, Event] = {}  # sub-agent call id -> its SUBAGENT event (children filled at the end)
        self.agent_records: dict[str, dict[str, Any]] = {}  # sub-agent call id -> its ``subagent.started`` data
        self.noted_types: set[str] = set()  # record types this reader does not know, reported once each

    # ---- placing events

    def place(self, event: Event, parent: str | None) -> Event:
        """Put ``event`` on the timeline, or in the transcript of the sub-agent ``parent``."""
        if not parent:
            return self.add(event)
        self.subagent(parent, None, event.timestamp)
        self.children[parent].append(event)
        ledger.shown(self.path, event.line)
        return event

    def put(self, base: str, parent: str | None, **fields: Any) -> Event:
        """``place`` an event built here, its id ``base`` made unique in the session."""
        return self.place(Event(id=self.ids.take(base), **fields), parent)

    def subagent(self, call_id: str, line: int | None, timestamp: Any) -> Event:
        """The SUBAGENT event of the sub-agent that ``call_id`` started, made where first needed."""
        known = self.agents.get(call_id)
        if known is not None:
            return known
        line = line or self.index.agent_started.get(call_id)
        event = Event(
            id=self.ids.take(f"agent-{call_id}"), kind=Kind.SUBAGENT, timestamp=timestamp, call_id=call_id, line=line
        )
        self.agents[call_id] = event
        self.children[call_id] = []
        self.place(event, self._outer(call_id))
        return event

    def _outer(self, call_id: str) -> str | None:
        """The sub-agent the call that started ``call_id``'s sub-agent ran in; None (the main
        timeline) when it ran in the main agent, or when the chain of parents loops back."""
        parent = self.index.parent_of_call.get(call_id)
        step, seen = parent, {call_id}
        while step is not None:
            if step in seen:
                return None
            seen.add(step)
            step = self.index.parent_of_call.get(step)
        return parent

    def parent_of(self, data: dict[str, Any]) -> str | None:
        """The sub-agent a record belongs to (its ``parentToolCallId``), None for the main agent."""
        return text_of(data.get("parentToolCallId"))

    def prompted(self, data: dict[str, Any]) -> str | None:
        """The sub-agent a prompt from an agent was given to: the one whose records carry the
        prompt's interaction id (a prompt names no ``parentToolCallId``)."""
        return self.parent_of(data) or self.index.agent_of_interaction.get(text_of(data.get("interactionId")) or "")

    # ---- the end

    def transcript(self) -> tuple[Event, ...]:
        """The timeline with every sub-agent's transcript filled in."""
        return self._filled(tuple(self.events), set())

    def _filled(self, events: tuple[Event, ...], seen: set[str]) -> tuple[Event, ...]:
        out = []
        for event in events:
            call_id = event.call_id
            if event.kind == Kind.SUBAGENT and call_id in self.agents and call_id not in seen:
                children = self._filled(tuple(self.children.get(call_id, ())), seen | {call_id})
                event = replace(event, children=children, **self._agent_fields(call_id))
            out.append(event)
        return tuple(out)

    def _agent_fields(self, call_id: str) -> dict[str, Any]:
        started = self.agent_records.get(call_id, {})
        ended = self.index.agent_ended.get(call_id, {})
        title = text_of(started.get("agentDisplayName")) or text_of(started.get("agentName")) or "sub-agent"
        meta: dict[str, Any] = {}
        for key, label in _AGENT_FACTS:
            value = ended.get(key, started.get(key))
            if isinstance(value, (str, int, float)) and not isinstance(value, bool) and value != "":
                meta[label] = value
        if ended.get("type") == "subagent.failed":
            meta["failed"] = True
            error = ended.get("error")
            if error:
                meta["error"] = text_of(obj(error).get("message")) or str(error)
        return {"title": title, "model": text_of(ended.get("model")) or text_of(started.get("model")), "meta": meta}


_AGENT_FACTS = (
    ("agentName", "agent"),
    ("agentDescription", "description"),
    ("totalToolCalls", "tool calls"),
    ("totalTokens", "tokens"),
    ("durationMs", "duration ms"),
)


def record_id(record: dict[str, Any], kind: str) -> str:
    """The record's own id; for a record without one, an id derived from its content (so a
    record read from two snapshots of one log is one event, whatever line it is on)."""
    rid = text_of(record.get("id"))
    if rid:
        return rid
    canonical = json.dumps(record, sort_keys=True, ensure_ascii=True, default=str)
    return f"{kind or 'record'}-{hashlib.sha1(canonical.encode('ascii')).hexdigest()[:12]}"
