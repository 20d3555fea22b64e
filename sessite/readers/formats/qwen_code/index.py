"""What a first look over a whole chat tells before any record is turned into events.

Qwen Code writes the facts about one thing in several records, some later than the record
that shows it: a call's telemetry (its duration, whether it was approved) and its result
follow the call; a slash command's output follows the command; a sub-agent's work is known
only from telemetry lines that name it (``prompt_id`` ``<session>#<agent>-<suffix>#<round>``),
and the call that started it only from its result, written after. A rewind re-roots the
``parentUuid`` chain, leaving the records since the turn it rewound to on a dead branch.
One pass collects these links so the second can put every record where it belongs, in order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessite.model import Problems
from sessite.readers._util import obj, text_of
from sessite.readers.files import iter_jsonl
from sessite.readers.formats.qwen_code.vocabulary import AGENT_TOOLS, TELEMETRY_PREFIX

_RUN = re.compile(r"#([^#]+)#\d+$")


@dataclass
class Run:
    """A sub-agent run known from its telemetry: where it starts, and the call that started it."""

    key: str
    first_line: int
    call_id: str | None = None


@dataclass
class Call:
    """A call the main agent asked for: where, its tool, its input."""

    line: int
    name: str
    args: Any


@dataclass
class FileIndex:
    """One chat's records and the links between them."""

    records: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    session_id: str | None = None
    dead: set[int] = field(default_factory=set)  # lines on a branch a rewind discarded
    rewound: dict[int, int] = field(default_factory=dict)  # rewind line -> records it discarded
    calls: dict[str, Call] = field(default_factory=dict)  # call id -> the call
    result_lines: dict[str, int] = field(default_factory=dict)  # call id -> line of its result
    displays: dict[str, Any] = field(default_factory=dict)  # call id -> its result's ``resultDisplay``
    call_telemetry: dict[str, dict[str, Any]] = field(default_factory=dict)  # call id -> its tool_call event
    merged_telemetry: set[int] = field(default_factory=set)  # telemetry lines shown with a call or message
    response_of: dict[int, dict[str, Any]] = field(default_factory=dict)  # assistant line -> its api_response
    runs: dict[str, Run] = field(default_factory=dict)  # run key -> the sub-agent run
    command_output: dict[int, tuple[int, dict[str, Any]]] = field(default_factory=dict)  # invocation -> result
    title: str | None = None


def telemetry_event(record: dict[str, Any]) -> dict[str, Any] | None:
    """The ``uiEvent`` of a ``ui_telemetry`` record, None for any other record."""
    if record.get("type") != "system" or record.get("subtype") != "ui_telemetry":
        return None
    event = obj(record.get("systemPayload")).get("uiEvent")
    return event if isinstance(event, dict) else None


def event_name(event: dict[str, Any]) -> str:
    name = text_of(event.get("event.name")) or ""
    return name[len(TELEMETRY_PREFIX) :] if name.startswith(TELEMETRY_PREFIX) else name


def run_of(event: dict[str, Any]) -> str | None:
    """The sub-agent run a telemetry event belongs to (from its ``prompt_id``), None for the main agent."""
    match = _RUN.search(text_of(event.get("prompt_id")) or "")
    return match.group(1) if match else None


def is_side_request(event: dict[str, Any]) -> bool:
    """A request outside the conversation (``prompt_id`` ``prompt_suggestion``): no message answers it."""
    prompt = text_of(event.get("prompt_id"))
    return prompt is not None and "#" not in prompt


def index_file(path: Path, problems: Problems) -> FileIndex:
    """Every good record of ``path`` (a bad line is one problem and is skipped) and their links."""
    index = FileIndex()
    walk = _Walk(index)
    for line, record in iter_jsonl(path, problems):
        index.records.append((line, record))
        try:
            walk.note(line, record)
        except Exception as exc:  # noqa: BLE001 - an odd record links nothing; the second pass reports it
            problems.add(path, line, f"qwen_code: could not index the record ({type(exc).__name__}: {exc})")
    walk.finish()
    return index


class _Walk:
    """The state of the first pass."""

    def __init__(self, index: FileIndex) -> None:
        self.index = index
        self.uuid_line: dict[str, int] = {}
        self.pending_calls: list[str] = []  # call ids whose telemetry has not come yet
        self.pending_response: dict[str, Any] | None = None
        self.response_line = 0
        self.invocations: dict[str, int] = {}  # uuid -> line of a slash command invocation
        self.open_commands: dict[str, int] = {}  # raw command -> line of its latest unanswered invocation
        self.titles: list[tuple[int, str, str]] = []  # (line, title, source)

    def note(self, line: int, record: dict[str, Any]) -> None:
        index = self.index
        index.session_id = index.session_id or text_of(record.get("sessionId"))
        kind = record.get("type")
        subtype = record.get("subtype")
        uuid = text_of(record.get("uuid"))
        if kind == "system" and subtype == "rewind":
            self._rewind(line, record)
        if uuid:
            self.uuid_line[uuid] = line
        if kind == "assistant":
            self._assistant(line, record)
        elif kind == "tool_result":
            self._result(line, record)
        elif kind == "system" and subtype == "ui_telemetry":
            self._telemetry(line, obj(obj(record.get("systemPayload")).get("uiEvent")))
        elif kind == "system" and subtype == "slash_command":
            self._command(line, record, uuid)
        elif kind == "system" and subtype == "custom_title":
            payload = obj(record.get("systemPayload"))
            title = text_of(payload.get("customTitle"))
            if title and title.strip():
                self.titles.append((line, title.strip(), text_of(payload.get("titleSource")) or "manual"))

    def _rewind(self, line: int, record: dict[str, Any]) -> None:
        """Records written since the rewind's parent (the turn it went back to) are on a dead branch."""
        parent = text_of(record.get("parentUuid"))
        start = self.uuid_line.get(parent) if parent else 0
        if start is None:
            return  # a parent this file does not hold: nothing can be said to be discarded
        discarded = [n for n, _ in self.index.records if start < n < line]
        self.index.dead.update(discarded)
        self.index.rewound[line] = len(discarded)

    def _assistant(self, line: int, record: dict[str, Any]) -> None:
        if self.pending_response is not None and not _sidechain(record):
            self.index.response_of[line] = self.pending_response
            self.index.merged_telemetry.add(self.response_line)
            self.pending_response = None
        parts = obj(record.get("message")).get("parts")
        for part in parts if isinstance(parts, list) else ():
            call = obj(obj(part).get("functionCall"))
            call_id = text_of(call.get("id"))
            if call_id and call_id not in self.index.calls:
                self.index.calls[call_id] = Call(line, text_of(call.get("name")) or "", call.get("args"))
                if not _sidechain(record):
                    self.pending_calls.append(call_id)

    def _result(self, line: int, record: dict[str, Any]) -> None:
        parts = obj(record.get("message")).get("parts")
        display = obj(record.get("toolCallResult")).get("resultDisplay")
        for part in parts if isinstance(parts, list) else ():
            call_id = text_of(obj(obj(part).get("functionResponse")).get("id"))
            if call_id:
                self.index.result_lines.setdefault(call_id, line)
                if display is not None:
                    self.index.displays.setdefault(call_id, display)

    def _telemetry(self, line: int, event: dict[str, Any]) -> None:
        name = event_name(event)
        run = run_of(event)
        if run is not None:
            self.index.runs.setdefault(run, Run(run, line))
            return
        if is_side_request(event):
            return
        if name == "api_response":
            self.pending_response = event
            self.response_line = line
        elif name == "tool_call":
            call_id = self._call_of(event)
            if call_id is not None:
                self.index.call_telemetry[call_id] = event
                self.index.merged_telemetry.add(line)

    def _call_of(self, event: dict[str, Any]) -> str | None:
        """The earliest call still waiting for its telemetry with this tool (and input, if one matches)."""
        name = text_of(event.get("function_name"))
        same = [c for c in self.pending_calls if self.index.calls[c].name == name]
        exact = [c for c in same if self.index.calls[c].args == event.get("function_args")]
        chosen = exact or same
        if not chosen:
            return None
        self.pending_calls.remove(chosen[0])
        return chosen[0]

    def _command(self, line: int, record: dict[str, Any], uuid: str | None) -> None:
        payload = obj(record.get("systemPayload"))
        command = text_of(payload.get("rawCommand")) or ""
        if payload.get("phase") == "invocation":
            if uuid:
                self.invocations[uuid] = line
            self.open_commands[command] = line
            return
        invocation = self.invocations.get(text_of(record.get("parentUuid")) or "")
        if invocation is None or invocation in self.index.command_output:
            invocation = self.open_commands.get(command)
        if invocation is not None and invocation not in self.index.command_output:
            self.index.command_output[invocation] = (line, payload)
            self.open_commands.pop(command, None)

    def finish(self) -> None:
        index = self.index
        live = [(line, title, source) for line, title, source in self.titles if line not in index.dead]
        manual = [title for _, title, source in live if source != "auto"]
        titles = manual or [title for _, title, _ in live]
        index.title = titles[-1] if titles else None
        for run in index.runs.values():
            run.call_id = self._starter(run)

    def _starter(self, run: Run) -> str | None:
        """The agent call that started a run: one asked for before the run and answered after it,
        whose result names this sub-agent if one does (else the latest such call)."""
        index = self.index
        open_calls = [
            call_id
            for call_id, call in index.calls.items()
            if call.name in AGENT_TOOLS
            and call.line < run.first_line
            and index.result_lines.get(call_id, run.first_line + 1) > run.first_line
        ]
        named = [c for c in open_calls if _names(index.displays.get(c), run.key)]
        chosen = named or open_calls
        return chosen[-1] if chosen else None


def _names(display: Any, run: str) -> bool:
    """Whether a task result's display names the sub-agent of a run (``<name>-<suffix>``)."""
    name = text_of(obj(display).get("subagentName"))
    return bool(name) and (run == name or run.startswith(f"{name}-"))


def _sidechain(record: dict[str, Any]) -> bool:
    return record.get("isSidechain") is True or bool(text_of(record.get("agentId")))
