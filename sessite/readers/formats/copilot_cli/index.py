"""What a first look over a whole file tells before any record is turned into events.

Copilot CLI writes the facts about one thing in several records, some of them later
than the record that shows it: a call's start, permission and hooks follow its request;
a sub-agent's prompt comes before the first record that names the sub-agent's call.
One pass over the file collects these links so that the second pass can put every
record where it belongs in file order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessite.model import Problems
from sessite.readers._util import obj, text_of
from sessite.readers.files import iter_jsonl


@dataclass
class Permission:
    """A permission the CLI asked for a call, and how it was answered."""

    line: int
    request: dict[str, Any]
    answer: dict[str, Any] | None = None
    answer_line: int | None = None


@dataclass
class FileIndex:
    """One file's records and the links between them."""

    records: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    requested: set[str] = field(default_factory=set)  # call ids an assistant message asked for
    starts: dict[str, dict[str, Any]] = field(default_factory=dict)  # call id -> its execution start
    permissions: dict[str, list[Permission]] = field(default_factory=dict)  # call id -> its permissions
    by_request: dict[str, Permission] = field(default_factory=dict)  # permission request id -> it
    hook_starts: dict[str, dict[str, Any]] = field(default_factory=dict)  # invocation id -> start data
    hook_ends: dict[str, dict[str, Any]] = field(default_factory=dict)  # invocation id -> end data
    agent_of_interaction: dict[str, str] = field(default_factory=dict)  # interaction id -> sub-agent call id
    main_interactions: set[str] = field(default_factory=set)  # interaction ids the main agent's records carry
    parent_of_call: dict[str, str] = field(default_factory=dict)  # call id -> the sub-agent call it ran in
    agent_started: dict[str, int] = field(default_factory=dict)  # sub-agent call id -> line of its start
    agent_ended: dict[str, dict[str, Any]] = field(default_factory=dict)  # sub-agent call id -> its end
    compactions: list[int] = field(default_factory=list)  # lines of completed compactions
    shutdown_tokens: bool = False  # a shutdown record carries the session's token totals


def index_file(path: Path, problems: Problems) -> FileIndex:
    """Every good record of ``path`` (a bad line is one problem and is skipped) and their links."""
    index = FileIndex()
    for line, record in iter_jsonl(path, problems):
        index.records.append((line, record))
        try:
            _note(index, line, record)
        except Exception as exc:  # noqa: BLE001 - an odd record links nothing; the second pass reports it
            problems.add(path, line, f"copilot_cli: could not index the record ({type(exc).__name__}: {exc})")
    _answer_permissions(index)
    for interaction in index.main_interactions:  # shared with the main agent: says nothing of a sub-agent
        index.agent_of_interaction.pop(interaction, None)
    return index


def _note(index: FileIndex, line: int, record: dict[str, Any]) -> None:
    kind = record.get("type")
    data = obj(record.get("data"))
    parent = text_of(data.get("parentToolCallId"))
    interaction = text_of(data.get("interactionId"))
    if interaction and kind != "user.message":
        if parent:
            index.agent_of_interaction.setdefault(interaction, parent)
        else:
            index.main_interactions.add(interaction)
    if kind == "assistant.message":
        requests = data.get("toolRequests")
        for request in requests if isinstance(requests, list) else ():
            call_id = text_of(obj(request).get("toolCallId"))
            if call_id:
                index.requested.add(call_id)
                if parent:
                    index.parent_of_call.setdefault(call_id, parent)
    elif kind == "tool.execution_start":
        call_id = text_of(data.get("toolCallId"))
        if call_id:
            index.starts.setdefault(call_id, data)
            if parent:
                index.parent_of_call.setdefault(call_id, parent)
    elif kind in ("hook.start", "hook.end"):
        invocation = text_of(data.get("hookInvocationId"))
        if invocation:
            (index.hook_starts if kind == "hook.start" else index.hook_ends).setdefault(invocation, data)
    elif kind == "permission.requested":
        request = obj(data.get("permissionRequest"))
        permission = Permission(line, request)
        call_id = text_of(request.get("toolCallId")) or text_of(obj(data.get("promptRequest")).get("toolCallId"))
        if call_id:
            index.permissions.setdefault(call_id, []).append(permission)
        request_id = text_of(data.get("requestId"))
        if request_id:
            index.by_request.setdefault(request_id, permission)
    else:
        _note_session(index, line, kind, data)


def _note_session(index: FileIndex, line: int, kind: Any, data: dict[str, Any]) -> None:
    call_id = text_of(data.get("toolCallId"))
    if kind == "subagent.started" and call_id:
        index.agent_started.setdefault(call_id, line)
    elif kind in ("subagent.completed", "subagent.failed") and call_id:
        index.agent_ended.setdefault(call_id, {"type": kind, **data})
    elif kind == "session.compaction_complete":
        index.compactions.append(line)
    elif kind == "session.shutdown" and (obj(data.get("tokenDetails")) or obj(data.get("modelMetrics"))):
        index.shutdown_tokens = True


def _answer_permissions(index: FileIndex) -> None:
    """Each ``permission.completed`` onto the request it answers (by request id)."""
    for line, record in index.records:
        if record.get("type") != "permission.completed":
            continue
        data = obj(record.get("data"))
        permission = index.by_request.get(text_of(data.get("requestId")) or "")
        if permission is not None and permission.answer is None:
            permission.answer = data
            permission.answer_line = line
