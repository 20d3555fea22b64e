"""A Cursor bubble's ``toolFormerData``: the tool call (category, command, path, diff) and its result."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sessite.model import Event, Kind, ToolCategory
from sessite.readers._util import Ids, maybe_json, obj, opt_int, text_of, unified_diff
from sessite.readers.base import as_text
from sessite.readers.tools import DiffRule, join_diffs, tool_category, tool_input

# Names only Cursor uses; the rest (read_file, edit_file, write, grep, list_dir, fetch, …) come from the shared table.
_CATEGORIES = {
    "run_terminal_cmd": ToolCategory.SHELL,
    "run_terminal_command": ToolCategory.SHELL,
    "run_terminal_command_v2": ToolCategory.SHELL,
    "read_file_v2": ToolCategory.READ,
    "edit_file_v2": ToolCategory.EDIT,
    "search_replace": ToolCategory.EDIT,
    "multi_edit": ToolCategory.EDIT,
    "delete_file": ToolCategory.EDIT,
    "reapply": ToolCategory.EDIT,
    "codebase_search": ToolCategory.SEARCH,
    "grep_search": ToolCategory.SEARCH,
    "ripgrep_search": ToolCategory.SEARCH,
    "file_search": ToolCategory.SEARCH,
    "glob_file_search": ToolCategory.SEARCH,
    "list_dir_v2": ToolCategory.SEARCH,
}
# Argument names that hold the file or folder a tool works on, most specific first.
_PATH_ARGS = (
    "target_file",
    "targetFile",
    "file_path",
    "filePath",
    "path",
    "relative_workspace_path",
    "target_directory",
    "targetDirectory",
)


def tool_events(bid: str, tool: dict[str, Any], ts: datetime | None, model: str | None, ids: Ids) -> list[Event]:
    """The call, and its result when one is recorded (or the call failed or was cancelled)."""
    name = text_of(tool.get("name")) or (f"tool {tool.get('tool')}" if tool.get("tool") is not None else "tool")
    args = maybe_json(tool.get("rawArgs")) if tool.get("rawArgs") not in (None, "") else maybe_json(tool.get("params"))
    call_id = text_of(tool.get("toolCallId")) or f"{bid}-call"
    # MCP tools are OTHER whatever their name says.
    category = ToolCategory.OTHER if name.startswith("mcp_") else tool_category(name, _CATEGORIES)
    found = tool_input(args, category, _DIFFS.get(name), path_keys=_PATH_ARGS, command_keys=("command",))
    meta: dict[str, Any] = {}
    status = text_of(tool.get("status"))
    if status and status != "completed":
        meta["status"] = status
    decision = text_of(tool.get("userDecision"))
    if decision and decision != "accepted":
        meta["user decision"] = decision
    if tool.get("tool") is not None:
        meta["tool number"] = tool["tool"]
    call = Event(
        id=ids.take(f"{bid}-call"),
        kind=Kind.TOOL_CALL,
        timestamp=ts,
        tool_name=name,
        tool_input=args,
        category=category,
        call_id=call_id,
        model=model,
        meta=meta,
        command=found.command,
        path=found.path,
        diff=found.diff,
    )
    raw_result = tool.get("result")
    error = tool.get("error")
    if raw_result in (None, "") and error in (None, "") and status not in ("error", "cancelled"):
        return [call]
    return [call, _result_event(bid, raw_result, error, status, decision, ts, call_id, ids)]


def _replacements_diff(args: Mapping[str, Any], path: str | None) -> str | None:
    """search_replace / multi_edit: each old→new replacement (the call itself when it has no
    ``edits`` list) as a hunk under one header; replacements that change nothing are left out."""
    if not path:
        return None
    edits = args.get("edits")
    if not isinstance(edits, list):
        edits = [args]
    parts = [unified_diff(path, as_text(obj(e).get("old_string")), as_text(obj(e).get("new_string"))) for e in edits]
    return join_diffs([p for p in parts if p.count("\n") >= 2])


def _write_diff(args: Mapping[str, Any], path: str | None) -> str | None:
    """write: the whole file added, when its contents are a string."""
    contents = args.get("contents", args.get("content"))
    return unified_diff(path, "", contents) if path and isinstance(contents, str) else None


# How an editing tool's arguments say what it changed (exact names).
_DIFFS: dict[str, DiffRule] = {
    "search_replace": _replacements_diff,
    "multi_edit": _replacements_diff,
    "write": _write_diff,
}


def _result_event(
    bid: str,
    raw_result: Any,
    error: Any,
    status: str | None,
    decision: str | None,
    ts: datetime | None,
    call_id: str,
    ids: Ids,
) -> Event:
    result = maybe_json(raw_result)
    text, diff, exit_code = _result_fields(result)
    if error not in (None, ""):
        message = text_of(obj(maybe_json(error)).get("message")) or as_text(maybe_json(error))
        text = f"{text}\n{message}" if text else message
    is_error = (
        status in ("error",)
        or error not in (None, "")
        or decision == "rejected"
        or (exit_code is not None and exit_code != 0)
    )
    return Event(
        id=ids.take(f"{bid}-result"),
        kind=Kind.TOOL_RESULT,
        timestamp=ts,
        text=text,
        diff=diff,
        call_id=call_id,
        is_error=is_error,
        exit_code=exit_code,
        meta={"status": status} if status in ("cancelled",) else {},
    )


def _result_fields(result: Any) -> tuple[str, str | None, int | None]:
    """A result's text, the diff it reports, and its exit code."""
    if isinstance(result, dict):
        exit_code = opt_int(result.get("exitCode")) if "exitCode" in result else opt_int(result.get("exitCodeV2"))
        diff = None
        chunks = obj(result.get("diff")).get("chunks")
        if isinstance(chunks, list):
            lines = [as_text(obj(c).get("diffString")) for c in chunks if obj(c).get("diffString")]
            diff = "\n".join(lines) or None
        for key in ("output", "contents", "content", "stdout", "text", "result"):
            if isinstance(result.get(key), str):
                return result[key], diff, exit_code
        rest = {k: v for k, v in result.items() if k not in ("exitCode", "exitCodeV2", "diff")}
        return (as_text(rest) if rest else ""), diff, exit_code
    return ("", None, None) if result is None else (as_text(result), None, None)
