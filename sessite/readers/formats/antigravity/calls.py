"""A tool call's input and a tool step's output: the command, the file, the diff, the exit status.

The planner's ``tool_calls`` are ``{name, args, id?}`` whose ``args`` values are themselves
JSON-encoded (``"TargetFile": "\\"/src/a.py\\""``, ``"EndLine": "7"``); the step that answers a
call carries its output in ``content``: an edit's change between ``[diff_block_start]`` and
``[diff_block_end]``, a command's "completed successfully" or "exit code: N".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from sessite.model import ToolCategory
from sessite.readers._util import maybe_json, text_of
from sessite.readers.formats.antigravity.vocabulary import COMMAND_KEYS, PATH_KEYS, STEP_CATEGORIES, TOOL_CATEGORIES
from sessite.readers.tools import DiffRule, edits_diff, replace_diff, tool_category, tool_input, write_diff

_PREFIX = "default_api:"
_DIFF_RULES: Mapping[str, DiffRule] = {
    "write_to_file": write_diff(("CodeContent",)),
    "replace_file_content": replace_diff(("TargetContent",), ("ReplacementContent",)),
    "multi_replace_file_content": edits_diff("ReplacementChunks", ("TargetContent",), ("ReplacementContent",)),
}
_DIFF_BLOCK = re.compile(r"\[diff_block_start\]\n?(.*?)\n?\[diff_block_end\]", re.S)
_EDITED = re.compile(r"tool to: (.+?)\. If relevant")
_EXIT = re.compile(r"(?:exit code:?|exited with code)\s*(-?\d{1,10})")
_SUCCESS = "The command completed successfully"


def plain_name(name: str) -> str:
    return name[len(_PREFIX) :] if name.startswith(_PREFIX) else name


def category_of(name: str) -> ToolCategory:
    return tool_category(plain_name(name), TOOL_CATEGORIES)


def step_category(step_type: str) -> ToolCategory:
    return STEP_CATEGORIES.get(step_type, ToolCategory.OTHER)


def decoded_args(args: Any) -> Any:
    """The call's arguments, each JSON-encoded value decoded (a value that is not JSON kept as it is)."""
    if not isinstance(args, dict):
        return args
    return {key: maybe_json(value) for key, value in args.items()}


def call_fields(name: str, args: Any) -> dict[str, Any]:
    """Category, command, path and diff of a call, from its decoded input."""
    category = category_of(name)
    found = tool_input(
        args, category, _DIFF_RULES.get(plain_name(name)), path_keys=PATH_KEYS, command_keys=COMMAND_KEYS
    )
    return {"category": category, **found.fields()}


def output_fields(step_type: str, content: str, exit_field: Any) -> dict[str, Any]:
    """Text, diff and exit status of a tool step's output."""
    fields: dict[str, Any] = {"text": content}
    block = _DIFF_BLOCK.search(content)
    if block is not None:
        edited = _EDITED.search(content)
        path = edited.group(1).strip() if edited else "file"
        fields["diff"] = f"--- {path}\n+++ {path}\n{block.group(1)}"
        fields["text"] = (content[: block.start()] + content[block.end() :]).strip()
        fields["path"] = edited.group(1).strip() if edited else None
    exit_code = exit_field if isinstance(exit_field, int) and not isinstance(exit_field, bool) else None
    if exit_code is None and step_type in ("RUN_COMMAND", "COMMAND_STATUS"):
        found = _EXIT.search(content)
        if found is not None:
            exit_code = int(found.group(1))
        elif _SUCCESS in content:
            exit_code = 0
    if exit_code is not None:
        fields["exit_code"] = exit_code
    return {k: v for k, v in fields.items() if v is not None}


def call_id_of(call: dict[str, Any]) -> str | None:
    return text_of(call.get("id"))
