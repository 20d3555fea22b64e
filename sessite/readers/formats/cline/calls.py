"""Cline's tool calls: ``tool_use`` blocks, or XML tags in the assistant's text (the older style).

``<read_file><path>…</path></read_file>``: a tag per tool, a tag per parameter.
Edits come as a whole file (``write_to_file``) or as SEARCH/REPLACE blocks
(``replace_in_file``), shown as a unified diff.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sessite.model import Event, Kind, ToolCategory
from sessite.readers._util import maybe_json, unified_diff
from sessite.readers.formats.cline.task import Task
from sessite.readers.tools import DiffRule, tool_category, tool_input, write_diff

# Names only Cline uses; read_file, apply_patch, web_fetch and web_search come from the shared table.
CATEGORIES = {
    "execute_command": ToolCategory.SHELL,
    "write_to_file": ToolCategory.EDIT,
    "replace_in_file": ToolCategory.EDIT,
    "apply_diff": ToolCategory.EDIT,
    "insert_content": ToolCategory.EDIT,
    "search_files": ToolCategory.SEARCH,
    "list_files": ToolCategory.SEARCH,
    "list_code_definition_names": ToolCategory.SEARCH,
    "browser_action": ToolCategory.WEB,
}
# Tools whose main argument is prose, shown as the call's text rather than as JSON.
_PROSE_ARG = {
    "attempt_completion": "result",
    "ask_followup_question": "question",
    "plan_mode_respond": "response",
    "new_task": "context",
}
# Tag names the XML tool style uses (Cline's own list plus a few from its forks).
_XML_TOOLS = (
    set(CATEGORIES)
    | {"read_file", "apply_patch", "web_fetch", "web_search"}
    | set(_PROSE_ARG)
    | {
        "use_mcp_tool",
        "access_mcp_resource",
        "load_mcp_documentation",
        "condense",
        "summarize_task",
        "report_bug",
        "new_rule",
        "focus_chain",
        "generate_explanation",
        "use_skill",
    }
)
XML_CALL = re.compile(r"<(" + "|".join(sorted(_XML_TOOLS, key=len, reverse=True)) + r")>(.*?)</\1>", re.DOTALL)
_XML_PARAM = re.compile(r"<([a-z_]+)>(.*?)</\1>", re.DOTALL)
_SEARCH_REPLACE = re.compile(
    r"^(?:-{3,} SEARCH|<{3,} SEARCH)[^\n]*\n(.*?)^={3,}[^\n]*\n(.*?)^(?:\+{3,} REPLACE|>{3,} REPLACE)[^\n]*$",
    re.DOTALL | re.MULTILINE,
)
_PATH_KEYS = ("absolutePath", "path", "file_path")
_COMMAND_KEYS = ("command",)


def search_replace_diff(path: str | None, text: str) -> str | None:
    """A unified diff from Cline's SEARCH/REPLACE blocks (hunk line numbers are per block)."""
    hunks = []
    for match in _SEARCH_REPLACE.finditer(text):
        diff = unified_diff(path, match.group(1), match.group(2))
        if diff.count("\n") >= 2:
            hunks.append(diff.split("\n", 2)[2])
    if not hunks:
        return None
    label = path or "file"
    return "\n".join([f"--- {label}", f"+++ {label}", *hunks])


def _search_replace(args: Mapping[str, Any], path: str | None) -> str | None:
    diff = args.get("diff")
    return search_replace_diff(path, diff) if isinstance(diff, str) else None


_DIFFS: dict[str, DiffRule] = {
    "write_to_file": write_diff(),
    "replace_in_file": _search_replace,
    "apply_diff": _search_replace,
}


def xml_params(body: str) -> dict[str, Any]:
    """The parameters of an XML-style call (``content``, ``diff`` and ``result`` may hold tags themselves)."""
    params: dict[str, Any] = {}
    pos = 0
    while True:
        match = _XML_PARAM.search(body, pos)
        if not match:
            break
        name = match.group(1)
        value = match.group(2)
        end = match.end()
        if name in ("content", "diff", "result"):
            # file content may itself hold tags: run to the last closing tag
            last = body.rfind(f"</{name}>")
            if last > match.start():
                value = body[match.start() + len(name) + 2 : last]
                end = last + len(name) + 3
        params[name] = value.strip("\n")
        pos = end
    return params


def tool_call(
    name: str,
    raw_args: Any,
    call_id: str | None,
    base: str,
    line: int,
    ts: datetime | None,
    model: str | None,
    task: Task,
    xml: bool = False,
) -> None:
    """A call event; without a call id of its own (XML style) the event id links it to its result."""
    args = maybe_json(raw_args)
    meta: dict[str, Any] = {"style": "xml"} if xml else {}
    text = ""
    shown = args
    if isinstance(args, dict):
        shown = dict(args)
        progress = shown.pop("task_progress", None)
        if progress:
            meta["task_progress"] = progress
        prose_key = _PROSE_ARG.get(name)
        if prose_key and isinstance(shown.get(prose_key), str):
            text = shown.pop(prose_key)
        if not shown:
            shown = None
    category = tool_category(name, CATEGORIES)
    found = tool_input(args, category, _DIFFS.get(name), path_keys=_PATH_KEYS, command_keys=_COMMAND_KEYS)
    eid = task.ids.take(base)
    call_id = call_id or eid
    task.add(
        Event(
            id=eid,
            kind=Kind.TOOL_CALL,
            timestamp=ts,
            tool_name=name,
            tool_input=shown,
            category=category,
            call_id=call_id,
            text=text,
            model=model,
            line=line,
            meta=meta,
            command=found.command,
            path=found.path,
            diff=found.diff,
        )
    )
    task.open_calls.append((name, call_id))
