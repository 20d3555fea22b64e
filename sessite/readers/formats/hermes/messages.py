"""One Hermes message as events: OpenAI chat roles (``user``, ``assistant`` with ``tool_calls``
and ``reasoning``, ``tool`` answering a ``tool_call_id``), as Hermes writes them to both files."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sessite.model import Kind, ToolCategory
from sessite.readers._util import maybe_json, obj, text_of
from sessite.readers.base import parse_time
from sessite.readers.builder import SessionBuilder
from sessite.readers.tools import replace_diff, tool_category, tool_input

# Hermes's own tool names the shared table does not know.
_CATEGORIES = {
    "terminal": ToolCategory.SHELL,
    "execute_code": ToolCategory.SHELL,
    "process": ToolCategory.SHELL,
    "search_files": ToolCategory.SEARCH,
    "session_search": ToolCategory.SEARCH,
    "delegate_task": ToolCategory.TASK,
    "web_extract": ToolCategory.WEB,
    "vision_analyze": ToolCategory.MEDIA,
    "image_generate": ToolCategory.MEDIA,
}
_REASONING = ("reasoning", "reasoning_content")


def text(content: Any) -> str:
    """A message's content as text: a string, or the ``text`` of its typed parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n\n".join(t for p in content if (t := text_of(obj(p).get("text"))))
    return ""


def key(message: dict[str, Any]) -> tuple[str, str]:
    """What identifies a message in both files (the snapshot has no times): role and words, or
    the calls it makes or answers."""
    role = str(message.get("role"))
    calls = message.get("tool_calls")
    if isinstance(calls, list) and calls:
        return role, " ".join(str(obj(c).get("id")) for c in calls)
    if role == "tool":
        return role, str(message.get("tool_call_id"))
    return role, " ".join(text(message.get("content")).split())


def add_message(b: SessionBuilder, base: str, line: int, message: dict[str, Any]) -> None:
    """The events of one message (``base`` makes their ids: the same message read from the
    snapshot gets the same ids)."""
    role = message.get("role")
    when = parse_time(message.get("timestamp"))
    body = text(message.get("content"))
    if role == "user":
        if not body.strip():
            b.skip("empty user message", line=line)
            return
        b.emit(base, kind=Kind.USER, timestamp=when, text=body, line=line)
    elif role == "assistant":
        _assistant(b, base, line, message, body, when)
    elif role == "tool":
        call_id = text_of(message.get("tool_call_id"))
        b.emit(
            f"{base}-result",
            kind=Kind.TOOL_RESULT,
            timestamp=when,
            text=body,
            call_id=call_id,
            tool_name=text_of(message.get("name")),
            is_error=_failed(body),
            line=line,
        )
    elif role == "system":
        b.emit(base, kind=Kind.SYSTEM, timestamp=when, title="system prompt", text=body, line=line)
    else:
        b.report(line, f"message role {role!r} not known; shown as raw JSON")
        b.emit(base, kind=Kind.UNKNOWN, timestamp=when, title=f"message {role!r}", raw=message, line=line)


def _assistant(
    b: SessionBuilder, base: str, line: int, message: dict[str, Any], body: str, when: datetime | None
) -> None:
    made = 0
    thought = next((t for k in _REASONING if (t := text_of(message.get(k)))), None)
    if thought and thought.strip():
        b.emit(f"{base}-think", kind=Kind.THINKING, timestamp=when, text=thought, line=line)
        made += 1
    if body.strip():
        b.emit(base, kind=Kind.ASSISTANT, timestamp=when, text=body, line=line)
        made += 1
    calls = message.get("tool_calls")
    for call in calls if isinstance(calls, list) else []:
        function = obj(obj(call).get("function"))
        name = text_of(function.get("name")) or "tool"
        args = maybe_json(function.get("arguments"))
        category = tool_category(name, _CATEGORIES)
        shown = tool_input(args, category, replace_diff())
        b.emit(
            f"{base}-call",
            kind=Kind.TOOL_CALL,
            timestamp=when,
            tool_name=name,
            tool_input=args,
            category=category,
            command=shown.command,
            path=shown.path,
            diff=shown.diff,
            call_id=text_of(obj(call).get("id")),
            line=line,
        )
        made += 1
    if not made:
        b.skip("assistant message without content", line=line)


def _failed(body: str) -> bool:
    """A tool's JSON answer that says it failed (``{"success": false}``, ``{"error": "…"}``)."""
    value = maybe_json(body)
    if not isinstance(value, dict):
        return False
    return value.get("success") is False or bool(value.get("error")) or value.get("status") == "error"
