"""What reading one JSONL stream keeps: its events and the indexes that link them afterwards.

A stream is a main file, a sub-agent file, or a sub-agent rebuilt from the
``agent_progress`` records that embed its messages. The record modules fill a
``Transcript``; ``subagents`` links transcripts together; ``session`` makes the Session.
"""

from __future__ import annotations

import hashlib
import json
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from sessite.model import Event, Kind, Problems, Usage
from sessite.readers import ledger
from sessite.readers._util import Ids, shorten
from sessite.readers.formats.claude_code.vocabulary import TITLE_PREFERENCE

# The keyword arguments of one Event (everything but its id and line); built up field by field.
EventSpec = dict[str, Any]
# (position of the block in its record, spec): one record can hold several blocks.
Specs = list[tuple[int, EventSpec]]


class Call(NamedTuple):
    """A tool call seen in a transcript, so its result can find its tool name and input."""

    position: int  # index of the TOOL_CALL event in Transcript.events
    name: str
    args: Any


def unknown_spec(title: str, raw: Any) -> EventSpec:
    """An UNKNOWN event that shows the record as JSON."""
    return {"kind": Kind.UNKNOWN, "title": title, "raw": raw}


def content_id(rec: dict[str, Any]) -> str:
    """An id for a record without a uuid, from what it holds."""
    try:
        data = json.dumps(rec, sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        data = repr(rec)
    digest = hashlib.sha1(data.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{rec.get('type') if isinstance(rec.get('type'), str) else 'record'}-{digest}"


class Transcript:
    """The events of one JSONL stream, plus what linking sub-agents and usage needs."""

    def __init__(
        self,
        path: Path,
        problems: Problems,
        ids: Ids,
        *,
        prefix: str = "",
        agent_id: str | None = None,
        agent_files: Iterable[str] = (),
    ) -> None:
        self.path = path
        self.problems = problems
        self.ids = ids
        self.prefix = prefix  # prepended to event ids so a sub-agent's ids do not collide with its parent's
        self.agent_id = agent_id
        self.is_agent = agent_id is not None
        self.agent_files = set(agent_files)  # agent ids that have their own file (no rebuild from progress)
        self.events: list[Event] = []
        self.records = 0
        # message id -> (index of its last event or None, usage of its last record)
        self.messages: dict[str, tuple[int | None, Usage | None]] = {}
        self.calls: dict[str, Call] = {}  # call id -> the call
        self.results: dict[str, int] = {}  # call id -> index of its (first) result event
        self.agent_links: dict[str, str] = {}  # agent id -> call id that spawned it
        self.task_prompts: dict[str, str] = {}  # Task prompt text -> call id
        self.progress: dict[str, list[tuple[int, dict[str, Any]]]] = {}  # agent id -> embedded messages
        self.progress_seen: set[str] = set()  # "<agent id>:<message uuid>" already kept
        self.skipped: Counter[str] = Counter()
        self.fates = 0  # fates given so far (a record that got none is accounted for by ``records.feed``)
        self.queue: list[Any] = []  # ``queue.Queued`` prompts typed while the agent worked, settled at the end
        # Insertion-ordered sets of what the records' envelopes said.
        self.models: dict[str, None] = {}
        self.session_ids: dict[str, None] = {}
        self.cwds: dict[str, None] = {}
        self.branches: dict[str, None] = {}
        self.versions: dict[str, None] = {}
        self.slug: str | None = None
        self.first_prompt: str | None = None  # raw text of the first real prompt (links sub-agents)
        self.prompt_title: str | None = None
        self.titles: dict[str, str] = {}
        # A ``summary`` record names the conversation its ``leafUuid`` ends: often another session's
        # (Claude Code copies the summaries of earlier sessions into a resumed one's file).
        self.summary_leaves: dict[str, str] = {}  # leafUuid -> summary
        self.uuids: set[str] = set()  # of this file's records
        self.meta: dict[str, Any] = {}
        self.pull_requests: dict[str, None] = {}
        self.repos: dict[str, None] = {}
        self.issues: dict[str, None] = {}
        self.started: datetime | None = None
        self.ended: datetime | None = None
        self._last: dict[str, Any] = {}  # envelope field -> its value on the previous record

    def note_time(self, ts: datetime | None) -> None:
        if ts is None:
            return
        if self.started is None or ts < self.started:
            self.started = ts
        if self.ended is None or ts > self.ended:
            self.ended = ts

    def note_envelope(self, rec: dict[str, Any]) -> None:
        """The fields every record repeats: cwd, session id, branch, version, slug, agent id."""
        self._collect(rec, "cwd", self.cwds)
        self._collect(rec, "sessionId", self.session_ids)
        self._collect(rec, "gitBranch", self.branches, ignore="HEAD")
        self._collect(rec, "version", self.versions)
        if self.slug is None and isinstance(rec.get("slug"), str):
            self.slug = rec["slug"]
        if self.agent_id is None and self.is_agent and isinstance(rec.get("agentId"), str):
            self.agent_id = rec["agentId"]

    def _collect(self, rec: dict[str, Any], key: str, into: dict[str, None], ignore: str = "") -> None:
        # Values rarely change from one record to the next: compare with the last one first.
        value = rec.get(key)
        if value != self._last.get(key):
            self._last[key] = value
            if isinstance(value, str) and value and value != ignore:
                into.setdefault(value)

    def skip(self, reason: str, lineno: int | None) -> None:
        """A record (or a part of one) left out on purpose: counted for the page, noted in the ledger."""
        self.skipped[reason] += 1
        self.fates += 1
        ledger.not_shown(self.path, lineno, reason)

    def merge(self, lineno: int | None, reason: str) -> None:
        """A record whose content another event shows (a repeat, a notice folded into its call)."""
        self.fates += 1
        ledger.merged(self.path, lineno, reason)

    def pending(self) -> None:
        """The record's fate comes later (a sub-agent message rebuilt once every record is read)."""
        self.fates += 1

    def emit(self, lineno: int, rec: dict[str, Any], ts: datetime | None, specs: Specs) -> None:
        """Turn one record's event specs into events with stable, unique ids (from the record's
        uuid, else its content: never its position alone, so two snapshots of a log agree)."""
        if not specs:
            return
        self.fates += 1
        ledger.shown(self.path, lineno)
        uuid = rec.get("uuid")
        base = uuid if isinstance(uuid, str) and uuid else content_id(rec)
        sidechain = bool(rec.get("isSidechain")) and not self.is_agent
        for index, spec in specs:
            event_id = self.ids.take(f"{self.prefix}{base}" if len(specs) == 1 else f"{self.prefix}{base}-{index}")
            if sidechain:
                spec["meta"] = {**spec.get("meta", {}), "sidechain": True}
            spec.setdefault("timestamp", ts)
            self.events.append(Event(id=event_id, line=lineno, **spec))

    def emit_one(self, lineno: int, rec: dict[str, Any], ts: datetime | None, spec: EventSpec) -> None:
        self.emit(lineno, rec, ts, [(0, spec)])

    def insert(self, items: list[tuple[int, Event]]) -> None:
        """Put events in before the events now at the given positions, keeping every index
        into ``events`` (calls, results, messages) pointing at the same event."""
        if not items:
            return
        items = sorted(items, key=lambda item: item[0])
        at = [position for position, _ in items]

        def moved(index: int) -> int:
            return index + bisect_right(at, index)

        events: list[Event] = []
        queue = iter(items)
        upcoming = next(queue, None)
        for index, event in enumerate(self.events):
            while upcoming is not None and upcoming[0] <= index:
                events.append(upcoming[1])
                upcoming = next(queue, None)
            events.append(event)
        while upcoming is not None:
            events.append(upcoming[1])
            upcoming = next(queue, None)
        self.events = events
        self.calls = {k: call._replace(position=moved(call.position)) for k, call in self.calls.items()}
        self.results = {k: moved(index) for k, index in self.results.items()}
        self.messages = {k: (None if i is None else moved(i), u) for k, (i, u) in self.messages.items()}

    def finish(self) -> None:
        """Attach each message's usage (its last record's) to its last event."""
        for index, usage in self.messages.values():
            if index is not None and usage:
                self.events[index] = replace(self.events[index], usage=usage)
        self.messages.clear()

    @property
    def title(self) -> str | None:
        for key in TITLE_PREFERENCE:
            if key == "summary":
                # the last summary of a conversation this file holds (the others are other sessions')
                own = [text for leaf, text in self.summary_leaves.items() if leaf in self.uuids]
                if own:
                    return shorten(own[-1], 200)
            if self.titles.get(key):
                return shorten(self.titles[key], 200)
        return self.prompt_title or self.slug
