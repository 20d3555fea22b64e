"""Crush's tool calls and results: categories, the command, the file, the change and the exit status.

A call is a ``tool_call`` part of an assistant message (``{id, name, input}``, the input a
JSON string); its result is a ``tool_result`` part of the ``tool`` message after it
(``{tool_call_id, content, metadata, is_error}``, the metadata a JSON string the tool
fills: an edit's ``diff`` or ``old_content``/``new_content``, a shell's ``output`` and
``working_directory``). The change an edit made is taken from its result's metadata when
there is one (what Crush applied), else from the call's input.

Crush's shell tool writes ``Exit code N`` at the end of a failed command's output and
nothing for a command that succeeded, so a command that ran (its metadata has times)
without that line exited with 0.
"""

from __future__ import annotations

import re
from typing import Any

from sessite.model import Block, ToolCategory
from sessite.readers._util import maybe_json, opt_int, text_of, unified_diff
from sessite.readers.base import as_text
from sessite.readers.safejson import loads
from sessite.readers.tools import DiffRule, ToolInput, edits_diff, replace_diff, tool_category, tool_input, write_diff

# Names only Crush uses; the shared table knows bash, edit, multiedit, write, view, ls, glob,
# grep, fetch, web_fetch, web_search and agent.
CATEGORIES = {
    "sourcegraph": ToolCategory.SEARCH,
    "references": ToolCategory.SEARCH,
    "diagnostics": ToolCategory.SEARCH,
    "lsp_symbols": ToolCategory.SEARCH,
    "lsp_definition": ToolCategory.SEARCH,
    "lsp_call_hierarchy": ToolCategory.SEARCH,
    "download": ToolCategory.WEB,
    "agentic_fetch": ToolCategory.WEB,
    "job_output": ToolCategory.SHELL,
    "job_kill": ToolCategory.SHELL,
    "lsp_rename": ToolCategory.EDIT,
    "lsp_replace_symbol": ToolCategory.EDIT,
}
DIFFS: dict[str, DiffRule] = {
    "edit": replace_diff(),
    "multiedit": edits_diff(),
    "write": write_diff(),
}
PATH_KEYS = ("file_path", "path")
_EXIT = re.compile(r"(?:^|\n)Exit code (-?\d{1,6})\s*\Z")
_ABORTED = "Command was aborted before completion"
# Metadata a page shows elsewhere (the diff, the output, the file's contents), not repeated in the details.
_SHOWN_METADATA = frozenset({"diff", "output", "old_content", "new_content", "content", "file_path"})


def metadata_of(value: Any, notes: list[str]) -> dict[str, Any]:
    """A result's ``metadata`` (a JSON string, or empty) as an object; an odd one is one note."""
    if value in (None, ""):
        return {}
    if isinstance(value, dict):
        return value
    if not isinstance(value, str):
        notes.append(f"tool result metadata is a {type(value).__name__}, not JSON text; left out")
        return {}
    try:
        parsed = loads(value, notes)
    except ValueError:
        notes.append("tool result metadata is not JSON; left out")
        return {}
    return parsed if isinstance(parsed, dict) else {}


def call_fields(name: str, raw_input: Any, metadata: dict[str, Any]) -> tuple[Any, ToolCategory, ToolInput]:
    """The input (parsed), the category, and the command/path/diff a page shows for one call."""
    args = maybe_json(raw_input)
    category = tool_category(name, CATEGORIES)
    found = tool_input(args, category, DIFFS.get(name.lower()), path_keys=PATH_KEYS)
    if category == ToolCategory.EDIT:
        applied = applied_diff(metadata, found.path)
        if applied:
            found = ToolInput(found.command, found.path, applied)
    return args, category, found


def applied_diff(metadata: dict[str, Any], path: str | None) -> str | None:
    """The change Crush recorded in an edit's result: its own diff, else old and new contents."""
    diff = text_of(metadata.get("diff"))
    if diff and diff.strip():
        return diff
    old, new = metadata.get("old_content"), metadata.get("new_content")
    if isinstance(old, str) and isinstance(new, str) and old != new:
        return unified_diff(path or text_of(metadata.get("file_path")), old, new) or None
    return None


def exit_status(category: ToolCategory | None, content: str, metadata: dict[str, Any]) -> tuple[int | None, bool]:
    """(exit code, aborted) of a shell command's result; (None, False) for anything else."""
    if category != ToolCategory.SHELL:
        return None, False
    output = metadata.get("output") if isinstance(metadata.get("output"), str) else content
    text = _without_cwd(str(output))
    if text.rstrip().endswith(_ABORTED):
        return None, True
    match = _EXIT.search(text)
    if match:
        return opt_int(match.group(1)), False
    ran = opt_int(metadata.get("start_time")) is not None and opt_int(metadata.get("end_time")) is not None
    return (0 if ran else None), False


def _without_cwd(text: str) -> str:
    end = text.rfind("<cwd>")
    return text[:end].rstrip() if end >= 0 and text.rstrip().endswith("</cwd>") else text


def result_meta(metadata: dict[str, Any], aborted: bool) -> dict[str, Any]:
    """The scalar facts of a result's metadata not shown elsewhere (counts, times, the working folder)."""
    meta = {
        key: value
        for key, value in metadata.items()
        if key not in _SHOWN_METADATA and isinstance(value, (str, int, float, bool)) and value != ""
    }
    start, end = opt_int(metadata.get("start_time")), opt_int(metadata.get("end_time"))
    if start is not None and end is not None and end >= start:
        meta.pop("start_time", None)
        meta.pop("end_time", None)
        meta["duration"] = f"{(end - start) / 1000:.3f} s"
    if aborted:
        meta["aborted"] = True
    return meta


def result_blocks(data: dict[str, Any]) -> tuple[Block, ...]:
    """What a result carries besides text: an image (``data`` with ``mime_type``)."""
    payload = text_of(data.get("data"))
    mime = text_of(data.get("mime_type"))
    if not payload:
        return ()
    if mime and mime.startswith("image/"):
        uri = payload if payload.startswith("data:") else f"data:{mime};base64,{payload}"
        return (Block("image", uri=uri, mime=mime),)
    return (Block("file", text=as_text(payload), mime=mime, title=mime or "data"),)
