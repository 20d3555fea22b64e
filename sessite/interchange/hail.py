"""A session as HAIL 1.0 JSONL, in opensession's exact serialization, a line at a time.

The header, one line per event (sub-agents merged inline: TaskStart … events
with its task_id … TaskEnd, as opensession writes them), then the stats line
recomputed from the events written. Each event takes the HAIL event type a
HAIL reader expects (ShellCommand, FileEdit, ToolCall …); what HAIL has no
field for rides in ``attributes.sessite``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sessite.interchange.extension import (
    EXT,
    GIT_FIELDS,
    HAIL_USAGE_ATTRS,
    block_desc,
    dumps,
    encode,
    event_ext,
    jsonable,
    rfc3339,
    session_ext,
)
from sessite.model import Block, Event, Kind, Session, ToolCategory, walk

HAIL_VERSION = "hail-1.0.0"

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MESSAGE_TYPES = {
    Kind.USER: "UserMessage",
    Kind.ASSISTANT: "AgentMessage",
    Kind.SYSTEM: "SystemMessage",
    Kind.THINKING: "Thinking",
}
# Event fields every HAIL event holds in its own keys, attributes or blocks.
_NATIVE_FIELDS = frozenset({"id", "timestamp", "model", "usage", "text", "diff", "raw"})
# (substring of the models and agent, provider): the first that matches names the provider.
_PROVIDERS = (
    ("claude", "anthropic"),
    ("anthropic", "anthropic"),
    ("gpt", "openai"),
    ("codex", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("openai", "openai"),
    ("gemini", "google"),
    ("google", "google"),
)


def to_hail(session: Session) -> str:
    """One session as HAIL 1.0 JSONL: header, events, stats (opensession's exact serialization)."""
    return "".join(line + "\n" for line in hail_lines(session))


def hail_bytes(session: Session) -> bytes:
    return b"".join(hail_chunks(session))


def hail_chunks(session: Session) -> Iterator[bytes]:
    """The HAIL file line by line, as UTF-8 (each line ends in a newline)."""
    for line, value in hail_records(session):
        yield encode(line, value) + b"\n"


def hail_lines(session: Session) -> Iterator[str]:
    for line, _ in hail_records(session):
        yield line


def hail_records(session: Session) -> Iterator[tuple[str, Any]]:
    """Each line of the file (without its newline) with the value it serializes."""
    stamps = [e.timestamp for e in walk(session.events) if e.timestamp]
    started = session.started or (min(stamps) if stamps else None)
    ended = session.ended or (max(stamps) if stamps else None) or started
    header = _hail_header(session, started, ended)
    yield dumps(header), header

    calls = {e.call_id: e for e in walk(session.events) if e.kind == Kind.TOOL_CALL and e.call_id}
    stats = _HailStats()
    clock = _Clock(started or _EPOCH)
    for record in _hail_events(session.events, None, calls, clock):
        stats.add(record)
        yield dumps(record), record
    record = stats.line(started, ended)
    yield dumps(record), record


def _hail_header(session: Session, started: datetime | None, ended: datetime | None) -> dict[str, Any]:
    context: dict[str, Any] = {}
    if session.title is not None:
        context["title"] = session.title
    context["tags"] = [session.agent]
    context["created_at"] = rfc3339(started or _EPOCH)
    context["updated_at"] = rfc3339(ended or _EPOCH)
    attributes: dict[str, Any] = {}
    if session.cwd:
        attributes["cwd"] = session.cwd
    git = {
        key: values[0]
        for key, values in (
            ("branch", session.git.branches[:1]),
            ("commit_hash", session.git.commits[:1]),
            ("repository_url", session.git.repos[:1]),
        )
        if values
    }
    if git:
        attributes["git"] = git
    ext = session_ext(session)
    if session.git:
        ext["git"] = {name: list(getattr(session.git, name)) for name in GIT_FIELDS if getattr(session.git, name)}
    attributes[EXT] = ext
    context["attributes"] = attributes
    return {
        "type": "header",
        "version": HAIL_VERSION,
        "session_id": session.id,
        "agent": {
            "provider": _provider(session),
            "model": session.models[0] if session.models else "unknown",
            "tool": session.agent,
        },
        "context": context,
    }


def _provider(session: Session) -> str:
    text = " ".join([*session.models, session.agent]).lower()
    return next((provider for needle, provider in _PROVIDERS if needle in text), "unknown")


@dataclass
class _Clock:
    """The last timestamp written: HAIL requires one on every event, so an event without
    its own takes the one before it."""

    last: datetime


def _hail_events(
    events: Iterable[Event], parent: Event | None, calls: dict[str, Event], clock: _Clock
) -> Iterator[dict[str, Any]]:
    for event in events:
        yield _hail_event(event, parent, calls, clock)
        if event.children:
            yield from _hail_events(event.children, event, calls, clock)
            if event.kind == Kind.SUBAGENT:
                # HAIL's merged sub-agent: TaskStart … events with its task_id … TaskEnd.
                yield {
                    "type": "event",
                    "event_id": f"{event.id}/end",
                    "timestamp": rfc3339(clock.last),
                    "event_type": {"type": "TaskEnd", "data": {}},
                    "task_id": event.id,
                    "content": {"blocks": []},
                    "attributes": {EXT: {"end": True}},
                }


@dataclass
class _EventBody:
    """What one event becomes: its HAIL type and data, its content blocks and, for each block,
    what it holds (for the way back), and the event fields the format holds natively."""

    etype: str = "Custom"
    data: dict[str, Any] | None = None
    blocks: list[dict[str, Any]] = field(default_factory=list)
    roles: list[Any] = field(default_factory=list)
    native: set[str] = field(default_factory=lambda: set(_NATIVE_FIELDS))

    def text_block(self, event: Event) -> None:
        if event.text:
            self.blocks.append({"type": "Text", "text": event.text})
            self.roles.append("text")


def _hail_event(event: Event, parent: Event | None, calls: dict[str, Event], clock: _Clock) -> dict[str, Any]:
    body = _event_body(event, calls)
    if event.diff is not None and body.etype != "FileEdit":
        body.blocks.append({"type": "Code", "code": event.diff, "language": "diff"})
        body.roles.append("diff")
    if event.raw is not None:
        body.blocks.append({"type": "Json", "data": jsonable(event.raw)})
        body.roles.append("raw")
    for block in event.blocks:
        hail_block, held = _hail_block(block)
        body.blocks.append(hail_block)
        body.roles.append(block_desc(block, held))

    attributes = _hail_attributes(event)
    attributes[EXT] = _hail_event_ext(event, parent, body)
    if event.timestamp is not None:
        clock.last = event.timestamp
    record: dict[str, Any] = {
        "type": "event",
        "event_id": event.id,
        "timestamp": rfc3339(event.timestamp or clock.last),
    }
    record["event_type"] = {"type": body.etype} if body.data is None else {"type": body.etype, "data": body.data}
    task_id = event.id if event.kind == Kind.SUBAGENT else parent.id if parent is not None else None
    if task_id is not None:
        record["task_id"] = task_id
    record["content"] = {"blocks": body.blocks}
    record["attributes"] = attributes
    return record


def _event_body(event: Event, calls: dict[str, Event]) -> _EventBody:
    """The HAIL event type and data for the event's kind, and its text (and tool input) blocks."""
    kind = event.kind
    body = _EventBody()
    if kind in _MESSAGE_TYPES:
        body.etype = _MESSAGE_TYPES[kind]
    elif kind == Kind.TOOL_CALL:
        _tool_call_type(event, body)
    elif kind == Kind.TOOL_RESULT:
        call = calls.get(event.call_id) if event.call_id else None
        body.etype = "ToolResult"
        body.data = {
            "name": event.tool_name or (call.tool_name if call else None) or "tool",
            "is_error": event.is_error,
        }
        if event.call_id is not None:
            body.data["call_id"] = call.id if call is not None else event.call_id
        body.native.add("is_error")
    elif kind in (Kind.TASK_START, Kind.SUBAGENT):
        body.etype, body.data = "TaskStart", ({"title": event.title} if event.title is not None else {})
        body.native.add("title")
    elif kind == Kind.TASK_END:
        body.etype, body.data = "TaskEnd", {}
    else:  # compaction, unknown, anything new
        body.etype, body.data = "Custom", {"kind": kind.value}
    body.text_block(event)
    if kind == Kind.TOOL_CALL and event.tool_input is not None:
        body.blocks.append({"type": "Json", "data": jsonable(event.tool_input)})
        body.roles.append("input")
        body.native.add("tool_input")
    return body


def _tool_call_type(event: Event, body: _EventBody) -> None:
    """A shell command, file edit or read when HAIL has a type for it; else a plain ToolCall."""
    command_native = event.category == ToolCategory.SHELL and event.command is not None
    path_native = event.category in (ToolCategory.EDIT, ToolCategory.READ) and event.path is not None
    if command_native:
        body.etype, body.data = "ShellCommand", {"command": event.command}
        if event.exit_code is not None:
            body.data["exit_code"] = event.exit_code
            body.native.add("exit_code")
        body.native.add("command")
    elif path_native and event.category == ToolCategory.EDIT:
        body.etype, body.data = "FileEdit", {"path": event.path}
        if event.diff is not None:
            body.data["diff"] = event.diff
        body.native.add("path")
    elif path_native:
        body.etype, body.data = "FileRead", {"path": event.path}
        body.native.add("path")
    else:
        body.etype, body.data = "ToolCall", {"name": event.tool_name or "tool"}
        body.native.add("tool_name")


def _hail_attributes(event: Event) -> dict[str, Any]:
    """The event's model, token counts and call id, under opensession's attribute names."""
    attributes: dict[str, Any] = {}
    if event.model is not None:
        attributes["model"] = event.model
    if event.usage:
        for name, key in HAIL_USAGE_ATTRS:
            value = getattr(event.usage, name)
            if value:
                attributes[key] = value
    if event.call_id is not None:
        attributes["semantic.call_id"] = event.call_id
    return attributes


def _hail_event_ext(event: Event, parent: Event | None, body: _EventBody) -> dict[str, Any]:
    ext = event_ext(event, body.native)
    if event.kind == Kind.TOOL_RESULT and event.tool_name is None:
        ext["tool_name"] = None
    if event.kind == Kind.TOOL_CALL and body.data is not None and "name" in body.data and event.tool_name is None:
        ext["tool_name"] = None
    if event.call_id is not None:
        ext["call_id"] = event.call_id
    if event.timestamp is None:
        ext["timestamp"] = None
    ext["p"] = body.roles
    if parent is not None:
        ext["parent"] = parent.id
    return ext


def _hail_block(block: Block) -> tuple[dict[str, Any], str]:
    """A HAIL content block for a model block, and which block field it holds in full."""
    if block.type == "code":
        out: dict[str, Any] = {"type": "Code", "code": block.text}
        if block.language:
            out["language"] = block.language
        return out, "text"
    if block.type in ("image", "video", "audio") and block.uri is not None:
        out = {"type": block.type.capitalize(), "url": block.uri}
        if block.type == "image" and block.title:
            out["alt"] = block.title
        out["mime"] = block.mime or ""
        return out, "uri"
    if block.type == "file":
        out = {"type": "File", "path": block.uri or block.title or ""}
        if block.text:
            out["content"] = block.text
        return out, "text"
    if block.type == "json":
        return {"type": "Json", "data": jsonable(block.data)}, "data"
    if block.type == "reference" and block.uri is not None:
        return {"type": "Reference", "uri": block.uri, "media_type": block.mime or ""}, "uri"
    return {"type": "Text", "text": block.text}, "text"


class _HailStats:
    """opensession's stats line, recomputed from the events written."""

    def __init__(self) -> None:
        self.events = self.messages = self.users = self.tools = 0
        self.tasks: set[str] = set()
        self.files: set[str] = set()
        self.added = self.removed = self.input = self.output = 0

    def add(self, record: dict[str, Any]) -> None:
        self.events += 1
        etype = record["event_type"]["type"]
        if etype == "UserMessage":
            self.messages += 1
            self.users += 1
        elif etype == "AgentMessage":
            self.messages += 1
        elif etype == "ToolCall":
            self.tools += 1
        elif etype == "FileEdit":
            self._count_edit(record["event_type"]["data"])
        if record.get("task_id"):
            self.tasks.add(record["task_id"])
        attrs = record.get("attributes") or {}
        self.input += int(attrs.get("input_tokens") or 0)
        self.output += int(attrs.get("output_tokens") or 0)

    def _count_edit(self, data: dict[str, Any]) -> None:
        self.files.add(data.get("path", ""))
        for line in (data.get("diff") or "").splitlines():
            if line.startswith("+") and not line.startswith("+++"):
                self.added += 1
            elif line.startswith("-") and not line.startswith("---"):
                self.removed += 1

    def line(self, started: datetime | None, ended: datetime | None) -> dict[str, Any]:
        duration = int((ended - started).total_seconds()) if started and ended and ended >= started else 0
        return {
            "type": "stats",
            "event_count": self.events,
            "message_count": self.messages,
            "tool_call_count": self.tools,
            "task_count": len(self.tasks),
            "duration_seconds": duration,
            "total_input_tokens": self.input,
            "total_output_tokens": self.output,
            "user_message_count": self.users,
            "files_changed": len(self.files),
            "lines_added": self.added,
            "lines_removed": self.removed,
        }
