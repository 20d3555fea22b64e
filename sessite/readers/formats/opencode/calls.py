"""An OpenCode ``tool`` part: one call and, once it has finished, its result.

The part's ``state`` holds the input, the status, the output or error and the
tool's ``metadata`` (an edit's diff, a shell's exit code, a task's sub-session).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sessite.model import Block, Event, Kind, ToolCategory
from sessite.readers._util import Ids, maybe_json, obj, opt_int, text_of
from sessite.readers.base import as_text, parse_time
from sessite.readers.tools import (
    DiffRule,
    ToolInput,
    edits_diff,
    given_diff,
    replace_diff,
    tool_category,
    tool_input,
    write_diff,
)

# Names only OpenCode uses; the rest come from the shared table.
CATEGORIES = {
    "codesearch": ToolCategory.SEARCH,
    "lsp_diagnostics": ToolCategory.SEARCH,
    "lsp_hover": ToolCategory.SEARCH,
}
_PATH_KEYS = ("filePath", "file_path", "path")
# How an edit's input says what changed, when the tool's metadata has no diff (lower-cased names).
_DIFFS: dict[str, DiffRule] = {
    "edit": replace_diff(("oldString", "old_string"), ("newString", "new_string")),
    "write": write_diff(),
    "multiedit": edits_diff("edits", ("oldString",), ("newString",)),
    "patch": given_diff("patchText", "patch"),
    "apply_patch": given_diff("patchText", "patch"),
}
# Tool metadata already shown elsewhere (exit code, diff, output, sub-session), not repeated in the details.
_SHOWN_METADATA = ("exit", "exitCode", "diff", "output", "preview", "sessionId", "sessionID")


def file_block(part: dict[str, Any]) -> Block:
    """A ``file`` part (or a tool's attachment): an inline image or a file reference."""
    url = text_of(part.get("url"))
    mime = text_of(part.get("mime"))
    name = text_of(part.get("filename"))
    if url and url.startswith("data:image/"):
        return Block("image", uri=url, mime=mime, title=name)
    source = obj(part.get("source"))
    text = as_text(obj(source.get("text")).get("value")) if isinstance(source.get("text"), dict) else ""
    path = url[len("file://") :] if url and url.startswith("file://") else url
    return Block("file", text=text, uri=path, mime=mime, title=name or path)


def tool_events(part: dict[str, Any], pid: str, ts: Any, model: str | None, ids: Ids) -> tuple[Event, Event | None]:
    """The call, and its result when the tool completed or failed (a running tool has none)."""
    name = text_of(part.get("tool")) or "tool"
    state = obj(part.get("state"))
    status = state.get("status")
    args = maybe_json(state.get("input"))
    metadata = obj(state.get("metadata"))
    times = obj(state.get("time"))
    call_id = text_of(part.get("callID")) or pid
    category = tool_category(name, CATEGORIES)
    found = _call_input(name, category, args, metadata)
    meta: dict[str, Any] = {}
    if text_of(state.get("title")):
        meta["title"] = state["title"]
    if status not in ("completed", "error"):
        meta["status"] = f"{status or 'unknown'} (no result recorded)"
    if part.get("metadata"):
        meta["part metadata"] = part["metadata"]
    call = Event(
        id=ids.take(pid),
        kind=Kind.TOOL_CALL,
        timestamp=parse_time(times.get("start")) or ts,
        tool_name=name,
        tool_input=args,
        call_id=call_id,
        model=model,
        meta=meta,
        category=category,
        command=found.command,
        path=found.path,
        diff=found.diff,
    )
    if status not in ("completed", "error"):
        return call, None
    return call, _result(state, metadata, times, call, f"{pid}-result", ids)


def _call_input(name: str, category: ToolCategory, args: Any, metadata: dict[str, Any]) -> ToolInput:
    """Command, path and diff; an edit's diff from the tool's metadata first, else from its input."""
    recorded = text_of(metadata.get("diff")) if category == ToolCategory.EDIT else None
    found = tool_input(args, category, None if recorded else _DIFFS.get(name.lower()), path_keys=_PATH_KEYS)
    return replace(found, diff=recorded) if recorded and isinstance(args, dict) else found


def _result(
    state: dict[str, Any], metadata: dict[str, Any], times: dict[str, Any], call: Event, eid: str, ids: Ids
) -> Event:
    status = state.get("status")
    exit_code = opt_int(metadata.get("exit")) if "exit" in metadata else opt_int(metadata.get("exitCode"))
    is_error = status == "error" or (exit_code is not None and exit_code != 0)
    text = as_text(state.get("error")) if status == "error" else as_text(state.get("output"))
    if status == "error" and not text:
        text = as_text(state.get("output"))
    result_meta = {
        k: v
        for k, v in metadata.items()
        if k not in _SHOWN_METADATA and isinstance(v, (str, int, float, bool)) and v != ""
    }
    if times.get("compacted"):
        result_meta["output compacted"] = True
    attachments = state.get("attachments")
    blocks = (
        tuple(file_block(a) for a in attachments or [] if isinstance(a, dict)) if isinstance(attachments, list) else ()
    )
    return Event(
        id=ids.take(eid),
        kind=Kind.TOOL_RESULT,
        timestamp=parse_time(times.get("end")) or call.timestamp,
        text=text,
        blocks=blocks,
        call_id=call.call_id,
        is_error=is_error,
        exit_code=exit_code,
        meta=result_meta,
    )
