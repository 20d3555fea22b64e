"""Warp's tool calls (``Message.ToolCall``) and their results (``Message.ToolCallResult``).

Both are a ``oneof`` over the tools Warp's agent has: the field number names the tool
(2 ``run_shell_command``, 5 ``read_files``, 6 ``apply_file_diffs``, 9 ``grep``, 12
``call_mcp_tool``, 19 ``subagent`` …; numbers from Warp's published ``task.proto``). A
call becomes a name, a category, its input as a plain object and what a page shows (the
command, the file, the change as a diff); a result becomes text, an error flag and a
shell's exit code. A tool this reader does not know keeps its strings, so nothing it
carried is lost.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sessite.model import Block, ToolCategory
from sessite.readers._util import unified_diff
from sessite.readers.formats.warp.proto import Fields, ProtoError, struct_value
from sessite.readers.tools import join_diffs

_SHELL, _READ, _EDIT, _SEARCH, _TASK, _OTHER = (
    ToolCategory.SHELL,
    ToolCategory.READ,
    ToolCategory.EDIT,
    ToolCategory.SEARCH,
    ToolCategory.TASK,
    ToolCategory.OTHER,
)
# ToolCall field -> (tool name, category)
TOOLS: dict[int, tuple[str, ToolCategory]] = {
    2: ("run_shell_command", _SHELL),
    3: ("search_codebase", _SEARCH),
    4: ("server", _OTHER),
    5: ("read_files", _READ),
    6: ("apply_file_diffs", _EDIT),
    7: ("suggest_plan", _OTHER),
    8: ("suggest_create_plan", _OTHER),
    9: ("grep", _SEARCH),
    10: ("file_glob", _SEARCH),
    11: ("read_mcp_resource", _READ),
    12: ("call_mcp_tool", _OTHER),
    13: ("write_to_long_running_shell_command", _SHELL),
    14: ("suggest_new_conversation", _OTHER),
    15: ("file_glob_v2", _SEARCH),
    16: ("suggest_prompt", _OTHER),
    17: ("open_code_review", _OTHER),
    18: ("init_project", _OTHER),
    19: ("subagent", _TASK),
    20: ("read_documents", _READ),
    21: ("edit_documents", _EDIT),
    22: ("create_documents", _EDIT),
    23: ("read_shell_command_output", _SHELL),
    24: ("use_computer", ToolCategory.MEDIA),
    25: ("insert_review_comments", _OTHER),
    26: ("read_skill", _READ),
    27: ("request_computer_use", ToolCategory.MEDIA),
    28: ("fetch_conversation", _OTHER),
    29: ("start_agent", _TASK),
    30: ("send_message_to_agent", _OTHER),
    31: ("transfer_shell_command_control_to_user", _SHELL),
}
SERVER = 4  # a tool run on Warp's server: its payload is opaque to the client


@dataclass
class Call:
    call_id: str
    name: str
    category: ToolCategory
    args: dict[str, Any] = field(default_factory=dict)
    command: str | None = None
    path: str | None = None
    diff: str | None = None
    subtask: str | None = None  # a sub-agent's task id


def read_call(message: Fields) -> Call:
    """One ``ToolCall``."""
    call_id = message.text(1)
    which = message.first_of({n: name for n, (name, _) in TOOLS.items()})
    if which is None:
        others = [n for n in message.numbers() if n != 1]
        return Call(call_id, f"tool {others[0]}" if others else "tool", _OTHER, {"strings": strings(message)})
    number, name = which
    body = message.message(number) or Fields(None)
    call = Call(call_id, name, TOOLS[number][1])
    if number in (2, 13, 23, 31):
        call.command = body.text(1) if number == 2 else None
        call.args = {"command": body.text(1)} if number == 2 else {"strings": strings(body)}
        if number == 2 and body.flag(5):
            call.args["risky"] = True
    elif number == 5:
        files = [f.text(1) for f in body.messages(1)]
        call.args, call.path = {"files": files}, files[0] if files else None
    elif number == 6:
        call.args, call.path, call.diff = _diffs(body)
    elif number in (9, 10, 15):
        call.args = {"patterns" if number != 9 else "queries": body.texts(1), "path": body.text(2)}
        call.path = body.text(2) or None
    elif number == 12:
        args = body.message(2)
        call.name = body.text(1) or name
        call.args = {"tool": body.text(1), "arguments": struct_value(args) if args else {}, "server": body.text(3)}
    elif number == 19:
        call.subtask = body.text(1) or None
        call.args = {"task": body.text(1), "payload": body.text(2)}
    else:
        call.args = {"strings": strings(body)} if body.fields else {}
    call.args = {k: v for k, v in call.args.items() if v not in ("", [], None)}
    return call


def _diffs(body: Fields) -> tuple[dict[str, Any], str | None, str | None]:
    """``apply_file_diffs``: search/replace pairs, new files, deleted files and V4A hunks, as one diff."""
    parts: list[str] = []
    paths: list[str] = []
    for change in body.messages(2):
        path = change.text(1)
        paths.append(path)
        parts.append(unified_diff(path, change.text(2), change.text(3)))
    for new in body.messages(3):
        paths.append(new.text(1))
        parts.append(unified_diff(new.text(1), "", new.text(2)))
    for gone in body.messages(4):
        paths.append(gone.text(1))
        parts.append(f"--- {gone.text(1)}\n+++ /dev/null")
    for update in body.messages(5):
        path = update.text(1)
        paths.append(path)
        for hunk in update.messages(3):
            before = hunk.text(2) + hunk.text(3) + hunk.text(5)
            after = hunk.text(2) + hunk.text(4) + hunk.text(5)
            parts.append(unified_diff(path, before, after))
    parts = [p for p in parts if p]
    args = {"summary": body.text(1), "files": paths}
    by_file: dict[str, list[str]] = {}
    for part, path in zip(parts, paths, strict=False):
        by_file.setdefault(path, []).append(part)
    diff = "\n".join(d for d in (join_diffs(p) for p in by_file.values()) if d) or None
    return args, paths[0] if paths else None, diff


@dataclass
class Result:
    call_id: str
    text: str = ""
    is_error: bool = False
    exit_code: int | None = None
    blocks: tuple[Block, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)
    server: bool = False  # a server-side tool's opaque result


def read_result(message: Fields) -> Result:
    """One ``ToolCallResult``."""
    out = Result(message.text(1))
    which = message.first_of({n: str(n) for n in range(2, 36)})
    if which is None:
        return out
    number = which[0]
    body = message.message(number) or Fields(None)
    if number == 14:
        out.text, out.is_error = "cancelled", True
    elif number == 4:
        out.server = True
    elif number in (2, 17, 27, 35):
        _shell(body, number, out)
    elif number in (3, 5, 6, 9, 10, 15, 16, 19, 24, 25, 26, 28, 29, 30, 32, 33, 34):
        _success_or_error(body, number, out)
    else:
        out.text = "\n".join(strings(body))
    return out


def _shell(body: Fields, number: int, out: Result) -> None:
    """A shell result: finished (output, exit code), still running (a snapshot), denied or not found."""
    finished = {2: 5, 17: 2, 27: 3, 35: 2}[number]
    snapshot = {2: 4, 17: 1, 27: 2, 35: 1}[number]
    done = body.message(finished)
    if done is not None:
        out.text, out.exit_code = done.text(1), done.sint32(2) or 0
    elif body.message(snapshot) is not None:
        out.text = (body.message(snapshot) or Fields(None)).text(1)
        out.meta["still running"] = True
    elif number == 2 and body.has(6):
        out.text, out.is_error = "permission denied", True
    elif number == 2 and (body.has(1) or body.has(2)):
        out.text, out.exit_code = body.text(1), body.sint32(2) or 0  # the older fields
    else:
        out.text, out.is_error = "\n".join(strings(body)) or "command not found", True
    if number in (2, 27) and body.text(3 if number == 2 else 1):
        out.meta["command run"] = body.text(3 if number == 2 else 1)
    out.is_error = out.is_error or (out.exit_code is not None and out.exit_code != 0)


def _success_or_error(body: Fields, number: int, out: Result) -> None:
    """Results shaped ``oneof { Success success = 1; Error error = 2; }`` (read_files has a third)."""
    error = body.message(2) if number != 24 else None
    if error is not None and error.text(1):
        out.text, out.is_error = error.text(1), True
        return
    success = body.message(1) or body.message(3) or Fields(None)
    if number in (5, 3):
        files = success.messages(1)
        out.blocks = tuple(_file_block(f) for f in files)
        out.text = "\n".join(f"{_file_path(f)}" for f in files)
    elif number == 9:
        rows = []
        for match in success.messages(1):
            lines = [str(line.number(1) or "") for line in match.messages(2)]
            rows.append(f"{match.text(1)}: {', '.join(lines)}" if lines else match.text(1))
        out.text = "\n".join(rows)
    elif number == 15:
        out.text = "\n".join(m.text(1) for m in success.messages(1))
        if success.text(2):
            out.meta["warnings"] = success.text(2)
    elif number == 16:
        out.text = "\n".join(t for r in success.messages(1) for t in [(r.message(1) or Fields(None)).text(1)] if t)
    elif number == 6:
        updated = [(u.message(1) or Fields(None)).text(1) for u in success.messages(2)]
        updated += [f.text(1) for f in success.messages(1)]
        deleted = [d.text(1) for d in success.messages(3)]
        out.text = "\n".join([*(f"updated {p}" for p in updated if p), *(f"deleted {p}" for p in deleted if p)])
    else:
        out.text = "\n".join(strings(success)) if success.fields else "\n".join(strings(body))


def _file_path(message: Fields) -> str:
    text = message.message(6)
    return (text or message).text(1)


def _file_block(message: Fields) -> Block:
    """A ``FileContent`` (or an ``AnyFileContent``'s text) as a file block with its contents."""
    inner = message.message(6) or message
    binary = message.message(5)
    if binary is not None:
        return Block("file", uri=binary.text(1), title=binary.text(1))
    lines = inner.message(3)
    title = inner.text(1)
    if lines is not None and lines.number(1):
        title = f"{title} (lines {lines.number(1)}–{lines.number(2)})"
    return Block("file", text=inner.text(2), uri=inner.text(1), title=title)


def strings(message: Fields, depth: int = 0) -> list[str]:
    """Every readable string in a message and its sub-messages (a tool this reader does not know)."""
    out: list[str] = []
    for _number, wire, value in message.fields:
        if wire != 2 or not value:
            continue
        nested = None
        if depth < 20:
            try:
                nested = Fields(value)
            except ProtoError:
                nested = None
        text = _printable(value)
        if text is not None and (nested is None or len(text) > 3 and text.isprintable()):
            out.append(text)
        elif nested is not None:
            out.extend(strings(nested, depth + 1))
    return out


def _printable(value: bytes) -> str | None:
    try:
        text = value.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text if all(c.isprintable() or c in "\n\r\t" for c in text) else None
