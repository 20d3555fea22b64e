"""The state of one rollout being read, and the Session it assembles into.

The record handlers (``records``, ``items``, ``notices``, ``completions``,
``messages``, ``hosted``, ``agents``, ``context``) build on this class: it hands
out event ids, pairs tool calls with their results by ``call_id``, remembers
text already shown so the copy Codex writes to its other stream is not shown
twice, and notes each record's fate in the fidelity ledger (``readers.ledger``).

Event ids come from the record (``layout.record_key``: its time, type and own
ids), never from its line number alone, so two snapshots of one append-only
rollout give the same record the same id and can be merged event by event.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from sessite.model import Event, GitRefs, Kind, Problems, Session, SourceRef, make_session_id
from sessite.readers import ledger
from sessite.readers._util import Ids, project_of, text_of
from sessite.readers.base import parse_time
from sessite.readers.formats.codex.layout import AGENT, NAME, UUID, agent_label, subagent_info
from sessite.readers.formats.codex.shell import ToolOutput
from sessite.readers.formats.codex.usage import MODEL_KINDS, UsageLedger


class Echoes:
    """Text written twice, once as an ``event_msg`` and once as a ``response_item`` (in either order).

    The first copy is shown; its echo from the other stream is recognised here.
    """

    def __init__(self) -> None:
        # (stream that showed it, role, text) -> copies not yet echoed
        self.copies: Counter[tuple[str, str, str]] = Counter()

    def is_echo(self, stream: str, role: str, text: str) -> bool:
        """True when ``text`` was already shown from the other stream (and consumes that copy)."""
        key = ("item" if stream == "event" else "event", role, text.strip())
        if self.copies[key] > 0:
            self.copies[key] -= 1
            return True
        return False

    def shown(self, stream: str, role: str, text: str) -> None:
        self.copies[(stream, role, text.strip())] += 1

    def new_turn(self) -> None:
        """A new prompt: echoes only ever follow within a turn, so forget older copies."""
        self.copies.clear()


class Assembly:
    """Accumulates one rollout, record by record, and assembles the Session."""

    def __init__(self, path: Path, problems: Problems, id_prefix: str = "") -> None:
        self.path = path
        self.problems = problems
        self.events: list[Event] = []
        self.ids = Ids()  # event ids unique within the session
        self.id_prefix = id_prefix  # a sub-agent's events are told apart from its parent's
        self.keys: dict[int, str] = {}  # line -> id base derived from its record (unique per record)
        self.record_keys = Ids()  # records alike in time, type and ids: told apart by their order
        self.fated: set[int] = set()  # lines whose fate is noted (shown, merged or not shown)
        self.records = 0
        self.skipped: Counter[str] = Counter()
        self.meta: dict[str, Any] = {}
        self.session_meta: dict[str, Any] | None = None
        self.legacy = False
        self.models: dict[str, None] = {}
        self.model: str | None = None
        self.cwds: dict[str, None] = {}
        self.env_cwd: str | None = None
        self.branches: dict[str, None] = {}
        self.commits: dict[str, None] = {}
        self.repos: dict[str, None] = {}
        self.started: datetime | None = None
        self.ended: datetime | None = None
        self.title: str | None = None
        self.turn_context_seen = False
        self.calls: dict[str, int] = {}  # call id -> index of the call event
        self.results: dict[str, int] = {}  # call id -> index of the result event
        self.echoes = Echoes()
        self.usage = UsageLedger()
        self.last_assistant_text: str | None = None

    # ---- events

    def emit(self, lineno: int, ts: Any, suffix: str = "", **fields: Any) -> int:
        """Append an event (id from its record); returns its index."""
        base = self.keys.get(lineno) or f"l{lineno}"
        event = Event(id=self.ids.take(f"{self.id_prefix}{base}{suffix}"), line=lineno, timestamp=ts, **fields)
        self.events.append(event)
        self.fated.add(lineno)
        ledger.shown(self.path, lineno)
        index = len(self.events) - 1
        if event.kind in MODEL_KINDS:
            self.usage.model_event(self.events, index)
        return index

    # ---- what became of records that are not an event of their own

    def skip(self, reason: str, lineno: int | None) -> None:
        """A record left out on purpose: counted (the page lists the reason) and noted as not shown."""
        self.skipped[reason] += 1
        self.note(lineno, ledger.Fate.NOT_SHOWN, reason)

    def fold(self, reason: str, lineno: int | None) -> None:
        """A copy or a completion notice whose content another event shows: counted on the page
        as this reader always has, and noted as merged."""
        self.skipped[reason] += 1
        self.note(lineno, ledger.Fate.MERGED, reason)

    def merged(self, lineno: int | None, reason: str) -> None:
        """A record whose content is shown as part of another event (not counted on the page)."""
        self.note(lineno, ledger.Fate.MERGED, reason)

    def note(self, lineno: int | None, fate: ledger.Fate, reason: str) -> None:
        if lineno is not None:
            self.fated.add(lineno)
        ledger.note(self.path, lineno, fate, reason)

    def unknown(self, lineno: int, ts: Any, rec: Any, title: str) -> None:
        self.emit(lineno, ts, kind=Kind.UNKNOWN, title=title, raw=rec)

    # ---- calls and results, paired by call_id

    def call_name(self, call_id: str | None) -> str | None:
        index = self.calls.get(call_id or "")
        return self.events[index].tool_name if index is not None else None

    def merge_result(self, call_id: str, fields: ToolOutput) -> None:
        """A second output for a call whose result is shown: it fills what the result lacks."""
        index = self.results[call_id]
        event = self.events[index]
        exit_code = event.exit_code if event.exit_code is not None else fields["exit_code"]
        self.events[index] = replace(
            event,
            text=event.text or fields["text"],
            blocks=event.blocks or fields["blocks"],
            exit_code=exit_code,
            is_error=event.is_error or fields["is_error"],
            meta={**fields["meta"], **event.meta},
        )

    def result_from_notice(self, lineno: int, ts: Any, call_id: str | None, what: str, **fields: Any) -> bool:
        """A completion notice for a call: merged into its result, or shown as the result.

        Returns False when the call itself is unknown (the caller then shows the call too).
        """
        if call_id and call_id in self.results:
            index = self.results[call_id]
            event = self.events[index]
            self.events[index] = replace(
                event,
                exit_code=event.exit_code if event.exit_code is not None else fields.get("exit_code"),
                is_error=event.is_error or bool(fields.get("is_error")),
                diff=event.diff or fields.get("diff"),
                text=event.text or fields.get("text", ""),
                meta={**fields.get("meta", {}), **event.meta},
            )
            self.fold(f"{what} (merged into the tool result)", lineno)
            return True
        if call_id and call_id in self.calls:
            index = self.emit(
                lineno, ts, kind=Kind.TOOL_RESULT, call_id=call_id, tool_name=self.call_name(call_id), **fields
            )
            self.results[call_id] = index
            return True
        return False

    # ---- the session

    def finish(self) -> Session | None:
        """The Session, or None (and a problem when the file had records) when nothing was shown."""
        if not self.events:
            if self.records:
                self.problems.add(self.path, None, "no Codex conversation events found; skipped")
            return None
        leftover = self.usage.settle(self.events)
        meta_obj = self.session_meta or {}
        raw_id = self._session_id(meta_obj)
        cwd = text_of(meta_obj.get("cwd")) or next(iter(self.cwds), None) or self.env_cwd
        started = parse_time(meta_obj.get("timestamp"))
        if started is None or (self.started is not None and self.started < started):
            started = self.started or started
        return Session(
            id=make_session_id(NAME, raw_id),
            source=SourceRef(str(self.path), NAME),
            agent=AGENT,
            events=tuple(self.events),
            title=self._title(meta_obj),
            started=started,
            ended=self.ended or started,
            cwd=cwd,
            project=project_of(cwd),
            models=tuple(self.models),
            git=GitRefs(branches=tuple(self.branches), commits=tuple(self.commits), repos=tuple(self.repos)),
            usage=leftover,
            meta=self._session_meta_fields(raw_id),
            skipped=dict(self.skipped),
            subagent_log=bool(subagent_info(meta_obj)),  # a thread another session spawned
        )

    def _title(self, meta_obj: dict[str, Any]) -> str | None:
        """The user's first words; a sub-agent's session says it is one (and whose task it ran)."""
        info = subagent_info(meta_obj)
        if not info:
            return self.title
        label = agent_label(info)
        title = f"Sub-agent {label}" if label else "Sub-agent"
        return f"{title}: {self.title}" if self.title else title

    def _session_id(self, meta_obj: dict[str, Any]) -> str:
        raw_id = text_of(meta_obj.get("id"))
        if raw_id is None:
            found = UUID.search(self.path.name)
            raw_id = found.group(0) if found else self.path.stem
            self.problems.add(self.path, None, "no session_meta line; session id taken from the file name")
        return raw_id

    def _session_meta_fields(self, raw_id: str) -> dict[str, Any]:
        meta: dict[str, Any] = {"session_id": raw_id}
        if self.legacy:
            meta["format"] = "legacy record-style rollout"
        meta.update(self.meta)
        if self.usage.final_total is not None:
            meta["token_total"] = self.usage.final_total
        if len(self.cwds) > 1:
            meta["cwds"] = list(self.cwds)
        info = subagent_info(self.session_meta or {})
        if info:
            meta["sub_agent"] = info
        return meta
