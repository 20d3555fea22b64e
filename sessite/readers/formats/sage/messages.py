"""One sage message (a JSONL line or a session file's message) as events.

A line is ``{uuid?, role, content, timestamp, session_id?, tool_calls?, tokens?}``.
The spec's rules (role is user, assistant or system; content is a non-empty
string) are reported as problems; the line is kept when it can be.
"""

from __future__ import annotations

import contextlib
import difflib
from collections.abc import Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from sessite.model import Event, Kind, Problems, ToolCategory, one_line
from sessite.readers.base import as_text, parse_time
from sessite.readers.builder import SessionBuilder
from sessite.readers.safejson import loads
from sessite.readers.tools import path_of, tool_input

NAME = "sage"
_ROLE_KIND = {"user": Kind.USER, "assistant": Kind.ASSISTANT, "system": Kind.SYSTEM}
# Keys of a line read into event fields; the rest go to the event's meta.
_LINE_KEYS = {"uuid", "role", "content", "timestamp", "tool_calls", "model"}
_CALL_KEYS = ("name", "args", "arguments", "result", "duration_ms", "success")
_PATH_KEYS = ("path", "file", "file_path", "filename")
_EMPTY: tuple[Any, ...] = (None, "", [], {})
_TITLE_LEN = 80

# sage-tools.el names are open-ended (read_file, write_file, edit_file, list_files, code_search,
# glob_files, search_preview, find_definition, describe_*, git_*, web_fetch, …): words in the name decide.
_CATEGORIES = (
    (ToolCategory.WEB, ("web", "fetch", "url", "http")),
    (ToolCategory.SHELL, ("shell", "bash", "command", "exec", "terminal")),
    (ToolCategory.EDIT, ("write", "edit", "replace", "create_file", "delete", "patch", "rename")),
    (ToolCategory.READ, ("read", "describe", "blame", "view")),
    (ToolCategory.SEARCH, ("search", "grep", "find", "glob", "list_files")),
)


class SageSession(SessionBuilder):
    """One sage session as it is read; event ids repeat as ``id~2`` (sage's permalinks)."""

    def __init__(self, path: Path, problems: Problems) -> None:
        super().__init__(NAME, path, problems, label=NAME, id_sep="~")
        self.first_user: str | None = None  # the title when the session has none

    def keep(self, event: Event) -> None:
        """Append an event, noting its model and the first thing the user said."""
        self.add(event)
        if self.first_user is None and event.kind == Kind.USER and event.text.strip():
            self.first_user = event.text
        self.model(event.model)


def title_from(text: str | None) -> str | None:
    if not text:
        return None
    return one_line(text, _TITLE_LEN)


def message_events(
    obj: dict[str, Any], line: int | None, session: SageSession, *, where: str, default_model: str | None = None
) -> Iterator[Event]:
    """The events of one message: its text, then its tool calls and their results."""
    uuid = obj.get("uuid")
    ids = session.ids
    eid = ids.take(uuid if isinstance(uuid, str) and uuid else f"L{line}" if line else f"m{len(ids.used) + 1}")
    role = obj.get("role")
    ts = parse_time(obj.get("timestamp"))
    if obj.get("timestamp") is not None and ts is None:
        session.report(line, f"{where}: timestamp is not ISO 8601: {obj.get('timestamp')!r}")
    content = _content(obj, line, session, where)
    model = obj.get("model") if isinstance(obj.get("model"), str) and obj.get("model") else default_model
    meta = _line_meta(obj)
    kind = _ROLE_KIND.get(role) if isinstance(role, str) else None
    if kind is None:
        expected = "expected user, assistant or system"
        session.report(line, f"{where}: invalid role {role!r} ({expected}); shown as raw JSON")
        title = f"sage message with role {role!r}"
        yield Event(id=eid, kind=Kind.UNKNOWN, timestamp=ts, title=title, raw=obj, line=line)
        return
    tool_calls = obj.get("tool_calls")
    if tool_calls is not None and not isinstance(tool_calls, list):
        what = type(tool_calls).__name__
        session.report(line, f"{where}: tool_calls is a {what}, not an array; shown as raw JSON")
        meta["tool_calls"] = tool_calls
        tool_calls = None
    if content.strip() or not tool_calls:
        own_model = model if kind == Kind.ASSISTANT else None
        yield Event(id=eid, kind=kind, timestamp=ts, text=content, model=own_model, line=line, meta=meta)
        meta = {}
    for index, call in enumerate(tool_calls or []):
        yield from _tool_events(call, index, eid, ts, line, session, where, meta if index == 0 else {})


def _content(obj: dict[str, Any], line: int | None, session: SageSession, where: str) -> str:
    content = obj.get("content")
    if not isinstance(content, str):
        what = "missing" if content is None else "a " + type(content).__name__
        session.report(line, f"{where}: content is {what}, not a string")
        return as_text(content)
    if not content.strip() and not obj.get("tool_calls"):
        session.report(line, f"{where}: content is empty")
    return content


def _line_meta(obj: dict[str, Any]) -> dict[str, Any]:
    """Estimated tokens, token counts and keys this reader does not read into fields."""
    meta: dict[str, Any] = {}
    tokens = obj.get("tokens")
    if isinstance(tokens, dict) and tokens.get("estimated") is not None:
        meta["estimated tokens"] = tokens["estimated"]
        tokens = {k: v for k, v in tokens.items() if k != "estimated"}
    if tokens not in (None, {}, ""):
        meta["tokens"] = tokens
    for key, value in obj.items():
        if key not in _LINE_KEYS and key not in ("tokens", "session_id") and value not in _EMPTY:
            meta[key] = value
    return meta


def _tool_events(
    call: Any,
    index: int,
    eid: str,
    ts: datetime | None,
    line: int | None,
    session: SageSession,
    where: str,
    meta: dict[str, Any],
) -> Iterator[Event]:
    call_id = session.ids.take(f"{eid}-tool{index + 1}")
    if not isinstance(call, dict):
        what = type(call).__name__
        session.report(line, f"{where}: tool_calls[{index}] is a {what}, not an object; shown as raw JSON")
        yield Event(id=call_id, kind=Kind.UNKNOWN, timestamp=ts, title="sage tool call", raw=call, line=line)
        return
    name = call.get("name")
    name = name if isinstance(name, str) and name else "tool"
    args = call.get("args", call.get("arguments"))
    if isinstance(args, str):
        with contextlib.suppress(ValueError):
            args = loads(args)
    category = _category(name)
    call_meta = dict(meta)
    if call.get("duration_ms") is not None:
        call_meta["duration_ms"] = call["duration_ms"]
    for key, value in call.items():
        if key not in _CALL_KEYS and value not in _EMPTY:
            call_meta[key] = value
    yield Event(
        id=call_id,
        kind=Kind.TOOL_CALL,
        timestamp=ts,
        tool_name=name,
        tool_input=args,
        category=category,
        call_id=call_id,
        line=line,
        meta=call_meta,
        **_call_fields(args, category),
    )
    success = call.get("success")
    if "result" in call or success is not None:
        yield Event(
            id=session.ids.take(f"{call_id}-result"),
            kind=Kind.TOOL_RESULT,
            timestamp=ts,
            text=as_text(call.get("result")),
            tool_name=name,
            call_id=call_id,
            is_error=success is False or success in ("false", "nil", 0),
            line=line,
            meta={"success": success} if success is not None and not isinstance(success, bool) else {},
        )


def _call_fields(args: Any, category: ToolCategory) -> dict[str, Any]:
    """Command (shell calls), path (any call naming a file) and diff (edits) from a call's arguments."""
    if not isinstance(args, dict):
        return {}
    found = tool_input(args, category, _edit_diff, path_keys=_PATH_KEYS)
    # Unlike the shared rule (file tools only), sage shows the file of any call that names one.
    return {"command": found.command, "path": path_of(args, _PATH_KEYS), "diff": found.diff}


def _edit_diff(args: Mapping[str, Any], path: str | None) -> str | None:
    """A git-style unified diff (``a/``, ``b/``) for an edit_file call's old_text/new_text."""
    for old_key, new_key in (("old_text", "new_text"), ("old_string", "new_string"), ("old", "new")):
        old, new = args.get(old_key), args.get(new_key)
        if isinstance(old, str) and isinstance(new, str):
            name = path or "file"
            lines = difflib.unified_diff(
                old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{name}", f"b/{name}"
            )
            return "".join(line if line.endswith("\n") else line + "\n" for line in lines) or None
    return None


def _category(name: str) -> ToolCategory:
    lowered = name.lower().replace("-", "_")
    for category, words in _CATEGORIES:
        if any(word in lowered for word in words):
            return category
    return ToolCategory.OTHER
