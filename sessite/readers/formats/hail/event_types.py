"""HAIL's 21 event types onto the model: messages, tool calls of every kind (shell, file,
search, web, media), tool results linked to their call, task markers, Custom.

Each type's data fields become the event's fields (a ShellCommand's command, a
FileEdit's path and diff …); a Text or Code block that only repeats the subject
is dropped, the other Text blocks become the event's text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sessite.model import Block, Kind, ToolCategory
from sessite.readers._util import opt_int, text_of
from sessite.readers.base import as_text
from sessite.readers.formats.hail.blocks import drop_echo, looks_like_patch, split_text
from sessite.readers.formats.hail.state import ReadState
from sessite.readers.formats.hail.vocabulary import (
    CALL_ID_ATTRS,
    EXIT_CODE,
    FILE_OPS,
    MESSAGE_KINDS,
    QUERY_OPS,
    call_category,
)


@dataclass
class EventData:
    """What an event's type says, with what it needs to report and keep the rest."""

    state: ReadState
    warn: Callable[[str], None]  # reports a problem with this event
    hail_type: str
    data: dict[str, Any]
    parts: list[Block]  # the content blocks, Text ones included
    attrs: dict[str, Any]
    meta: dict[str, Any]
    event_id: str

    def field(self, name: str) -> str | None:
        """A string field of the type's data (anything else is reported and shown as text)."""
        value = self.data.get(name)
        if value is None:
            return None
        if not isinstance(value, str):
            self.warn(f"{self.hail_type}.{name} is not a string")
            return as_text(value)
        return value


def typed_fields(event: EventData) -> dict[str, Any]:
    """The event's kind and the fields its HAIL type gives (text, blocks, tool name, command, …)."""
    hail_type = event.hail_type
    if hail_type in MESSAGE_KINDS:
        text, blocks = split_text(event.parts, "\n\n")
        return dict(kind=MESSAGE_KINDS[hail_type], text=text, blocks=blocks)
    if hail_type == "ToolCall":
        return _tool_call(event)
    if hail_type == "ShellCommand":
        return _shell_command(event)
    if hail_type in FILE_OPS:
        return _file_op(event)
    if hail_type in QUERY_OPS:
        category, key = QUERY_OPS[hail_type]
        value = event.field(key) or ""
        text, blocks = split_text(drop_echo(event.parts, value), "\n\n")
        return _call(event) | dict(category=category, tool_input={key: value}, text=text, blocks=blocks)
    if hail_type == "ToolResult":
        return _tool_result(event)
    if hail_type == "TaskStart":
        text, blocks = split_text(event.parts, "\n\n")
        return dict(kind=Kind.TASK_START, title=event.field("title"), text=text, blocks=blocks)
    if hail_type == "TaskEnd":
        return _task_end(event)
    # Custom{kind}
    kind = event.field("kind") or "custom"
    text, blocks = split_text(event.parts, "\n\n")
    event.meta["custom.kind"] = kind
    if kind == "context_compacted":  # Codex compacted its context here
        return dict(kind=Kind.COMPACTION, title="context compacted", text=text, blocks=blocks)
    return dict(kind=Kind.SYSTEM, title=f"custom: {kind}", text=text, blocks=blocks)


def _call(event: EventData) -> dict[str, Any]:
    """The fields every tool call has: its id, and its tool's name (the agent's, else the HAIL type)."""
    tool_name = text_of(event.attrs.get("tool_use_name")) or event.hail_type
    return dict(kind=Kind.TOOL_CALL, call_id=event.event_id, tool_name=tool_name)


def _tool_call(event: EventData) -> dict[str, Any]:
    call = _call(event)
    name = event.field("name") or "tool"
    category = call_category(name, event.attrs.get("semantic.tool_kind"))
    call.update(tool_name=name, category=category)
    parts = event.parts
    jsons = [b for b in parts if b.type == "json" and b.title is None]
    if len(jsons) == 1:
        call["tool_input"] = jsons[0].data
        parts = [b for b in parts if b is not jsons[0]]
    text, blocks = split_text(parts, "\n\n")
    call.update(text=text, blocks=blocks)
    tool_input = call.get("tool_input")
    if isinstance(tool_input, dict):
        command = tool_input.get("command", tool_input.get("cmd"))
        if category == ToolCategory.SHELL and command:
            call["command"] = " ".join(map(str, command)) if isinstance(command, list) else as_text(command)
        file_path = tool_input.get("file_path", tool_input.get("path"))
        if category in (ToolCategory.EDIT, ToolCategory.READ) and isinstance(file_path, str):
            call["path"] = file_path
    return call


def _shell_command(event: EventData) -> dict[str, Any]:
    command = event.field("command") or ""
    exit_code = event.data.get("exit_code")
    if exit_code is not None and (isinstance(exit_code, bool) or not isinstance(exit_code, int)):
        event.warn("ShellCommand.exit_code is not an integer")
        event.meta["exit_code"] = exit_code
        exit_code = None
    text, blocks = split_text(drop_echo(event.parts, command), "\n\n")
    return _call(event) | dict(
        category=ToolCategory.SHELL, command=command, exit_code=exit_code, text=text, blocks=blocks
    )


def _file_op(event: EventData) -> dict[str, Any]:
    hail_type = event.hail_type
    file_path = event.field("path") or ""
    parts = drop_echo(event.parts, file_path)
    diff = event.field("diff") if hail_type == "FileEdit" else None
    if hail_type == "FileEdit" and diff is None:
        # Codex-derived edits carry the apply_patch text as a Text block.
        for part in parts:
            if part.type == "text" and looks_like_patch(part.text):
                diff = part.text
                parts = [p for p in parts if p is not part]
                break
    text, blocks = split_text(parts, "\n\n")
    if hail_type in ("FileCreate", "FileDelete"):
        event.meta["op"] = "create" if hail_type == "FileCreate" else "delete"
    return _call(event) | dict(
        category=FILE_OPS[hail_type], path=file_path or None, diff=diff, text=text, blocks=blocks
    )


def _tool_result(event: EventData) -> dict[str, Any]:
    """A result, linked to its call by the call's event id, else by the correlation attributes."""
    state = event.state
    text, blocks = split_text(event.parts, "\n")
    is_error = event.data.get("is_error", False)
    if not isinstance(is_error, bool):
        event.warn("ToolResult.is_error is not a boolean")
        is_error = bool(is_error)
    raw_call = event.data.get("call_id")
    if raw_call is not None and not isinstance(raw_call, str):
        event.warn("ToolResult.call_id is not a string")
        raw_call = as_text(raw_call)
    call_id = state.call_ids.get(raw_call) if raw_call else None
    if call_id is None:
        for key in CALL_ID_ATTRS:
            value = event.attrs.get(key)
            if isinstance(value, str) and value in state.semantic_calls:
                call_id = state.semantic_calls[value]
                break
    match = EXIT_CODE.search(text[:2000])
    return dict(
        kind=Kind.TOOL_RESULT,
        tool_name=event.field("name"),
        is_error=is_error,
        call_id=call_id or raw_call or None,
        exit_code=opt_int(match.group(1)) if match else None,
        text=text,
        blocks=blocks,
    )


def _task_end(event: EventData) -> dict[str, Any]:
    summary = event.field("summary") or ""
    text, blocks = split_text(event.parts, "\n\n")
    if summary and text.strip() and text.strip() != summary.strip():
        text = f"{summary}\n\n{text}"
    elif summary:
        text = summary
    return dict(kind=Kind.TASK_END, text=text, blocks=blocks)
