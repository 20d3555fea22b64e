"""Tool calls and their results.

A call is asked for in an ``assistant.message`` (``toolRequests[]``), started by a
``tool.execution_start`` and answered by a ``tool.execution_complete``, all three naming
the same ``toolCallId``. The request is the call on the page; the start adds only what
the request lacks (an MCP server's name) and is merged into it, unless no request asked
for it (then the start is the call). Permissions asked for a call are shown in its
details. A result shows what the model was given (``result.content``) and, for an
edit, the change the CLI recorded (``result.detailedContent``, a unified diff).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sessite.model import Block, Kind, ToolCategory
from sessite.readers._util import maybe_json, obj, opt_int, text_of
from sessite.readers.base import as_text, parse_time
from sessite.readers.formats.copilot_cli.index import Permission
from sessite.readers.formats.copilot_cli.state import Call, CopilotFile, record_id
from sessite.readers.formats.copilot_cli.vocabulary import (
    CATEGORIES,
    COMMAND_KEYS,
    DIFFS,
    EXIT_LINE,
    PATCH_FILE,
    PATH_KEYS,
)
from sessite.readers.tools import tool_category, tool_input

_START_FACTS = ("mcpServerName", "mcpToolName", "toolTitle")


def tool_call(
    f: CopilotFile, request: dict[str, Any], line: int, ts: datetime | None, model: str | None, parent: str | None
) -> None:
    """One call asked for by an assistant message (or, without a request, by its start record)."""
    call_id = text_of(request.get("toolCallId"))
    start = f.index.starts.get(call_id or "", {})
    name = text_of(request.get("name")) or text_of(request.get("toolName")) or text_of(start.get("toolName")) or "tool"
    args = maybe_json(request.get("arguments"))
    category = tool_category(name, CATEGORIES)
    found = tool_input(args, category, DIFFS.get(name.lower()), path_keys=PATH_KEYS, command_keys=COMMAND_KEYS)
    path = found.path
    if path is None and category == ToolCategory.EDIT and isinstance(args, str):
        match = PATCH_FILE.search(args)
        path = match.group(1).strip() if match else None
    meta: dict[str, Any] = {}
    for key, label in (("intentionSummary", "intent"), ("toolTitle", "title")):
        if text_of(request.get(key)) and not _restates(request[key], args, path):
            meta[label] = request[key]
    for key in _START_FACTS:
        if text_of(start.get(key)) and key not in meta:
            meta[key] = start[key]
    permissions = [_permission_note(p, found.command) for p in f.index.permissions.get(call_id or "", ())]
    if permissions:
        meta["permission"] = permissions[0] if len(permissions) == 1 else permissions
    base = call_id or f"call-{line}-{name}"
    f.calls.setdefault(call_id or base, Call(name, category, bool(found.diff), parent, path))
    f.put(
        base,
        parent,
        kind=Kind.TOOL_CALL,
        timestamp=ts,
        tool_name=name,
        tool_input=args,
        category=category,
        command=found.command,
        path=path,
        diff=found.diff,
        call_id=call_id,
        model=model,
        line=line,
        meta=meta,
    )


def _restates(summary: str, args: Any, path: str | None) -> bool:
    """Whether an intention summary only repeats the call's input ("view the file at <path>.")."""
    values = [v for v in args.values() if isinstance(v, str) and v] if isinstance(args, dict) else []
    return summary in values or any(v in summary for v in (path, *values[:1]) if v and len(v) > 3)


def _permission_note(permission: Permission, command: str | None) -> dict[str, Any]:
    """What was asked (its kind and the CLI's words) and the answer, for the call's details
    (the command asked about only when it is not the call's own, which the page shows)."""
    request = permission.request
    note: dict[str, Any] = {}
    for key in ("kind", "intention", "path", "fileName", "url", "fullCommandText", "serverName", "toolName"):
        value = request.get(key)
        if isinstance(value, str) and value and not (key == "fullCommandText" and value == command):
            note[key] = value
    answer = obj(permission.answer).get("result") if permission.answer is not None else None
    note["answer"] = text_of(obj(answer).get("kind")) or ("not recorded" if answer is None else as_text(answer))
    return note


def tool_start(f: CopilotFile, line: int, record: dict[str, Any], data: dict[str, Any]) -> None:
    """A start whose call was asked for is merged into it; a start nobody asked for is the call."""
    call_id = text_of(data.get("toolCallId"))
    if call_id and call_id in f.index.requested:
        f.merged(line, "tool start (shown as its call)")
        return
    if call_id and call_id in f.calls:
        f.merged(line, "tool start repeated (shown as its call)")
        return
    request = {**data, "toolCallId": call_id or record_id(record, "call")}
    tool_call(f, request, line, parse_time(record.get("timestamp")), text_of(data.get("model")), f.parent_of(data))


def tool_result(f: CopilotFile, line: int, record: dict[str, Any], data: dict[str, Any]) -> None:
    """The result of a call: its output, error, exit status and (for an edit) the diff."""
    call_id = text_of(data.get("toolCallId"))
    call = f.calls.get(call_id or "")
    result = data.get("result")
    content, detailed = (
        (result.get("content"), result.get("detailedContent")) if isinstance(result, dict) else (result, None)
    )
    text = as_text(content) if content is not None else ""
    error = data.get("error")
    failed = data.get("success") is False or error is not None
    if error is not None:
        message = text_of(obj(error).get("message")) or as_text(error)
        code = text_of(obj(error).get("code"))
        message = f"{message} ({code})" if code and code not in message else message
        text = f"{text}\n{message}" if text else message
    exit_code = None
    category = call.category if call is not None else None
    if category == ToolCategory.SHELL and isinstance(content, str):
        match = EXIT_LINE.search(content)
        exit_code = opt_int(match.group(1)) if match else None
    diff, blocks = _detailed(detailed, text, call, f.facts.cwd)
    meta: dict[str, Any] = {}
    if call is None and text_of(data.get("toolName")):
        meta["tool"] = data["toolName"]
    f.put(
        record_id(record, "result"),
        call.parent if call is not None else f.parent_of(data),
        kind=Kind.TOOL_RESULT,
        timestamp=parse_time(record.get("timestamp")),
        text=text,
        blocks=blocks,
        call_id=call_id,
        is_error=failed or (exit_code is not None and exit_code != 0),
        exit_code=exit_code,
        diff=diff,
        tool_name=call.name if call is not None else text_of(data.get("toolName")),
        line=line,
        meta=meta,
    )


def _detailed(detailed: Any, text: str, call: Call | None, cwd: str | None) -> tuple[str | None, tuple[Block, ...]]:
    """``detailedContent``: an edit's diff (unless the call already shows one), other fuller
    output as a block; a diff that changes nothing (a file viewed) repeats the output and is left."""
    if not isinstance(detailed, str) or not detailed.strip() or detailed.strip() == text.strip():
        return None, ()
    body = detailed.lstrip("\n")
    if body.startswith("diff --git"):
        if not _changes(body) or (call is not None and call.has_diff):
            return None, ()
        return _absolute_headers(body, call.path if call is not None else None, cwd), ()
    return None, (Block("text", text=detailed, title="detailed output"),)


def _absolute_headers(diff: str, path: str | None, cwd: str | None) -> str:
    """Copilot heads a diff of ``/x/y`` with ``a/x/y``: give the ``---``/``+++`` lines the
    absolute path back when it is the call's file or under the session's folder."""
    known = [p.replace("\\", "/") for p in (path, cwd) if p and p.startswith("/")]
    out = []
    for row in diff.split("\n"):
        if row.startswith(("--- a/", "+++ b/")):
            rest = row[6:]
            if any(rest == k[1:] or rest.startswith(k[1:].rstrip("/") + "/") for k in known):
                row = f"{row[:4]}/{rest}"
        out.append(row)
    return "\n".join(out)


def _changes(diff: str) -> bool:
    """Whether a unified diff adds or removes any line (a viewed file comes as an all-context diff)."""
    return any(row[:1] in ("+", "-") and not row.startswith(("+++", "---")) for row in diff.split("\n"))
