"""OpenHands' names: its tools' categories and diffs, and what is left out (and why).

The legacy event stream names what happened by ``action``/``observation`` (``run``,
``edit``, ``read``, ``browse``…) and the model's function (``execute_bash``,
``str_replace_editor``); the V1 SDK by ``tool_name`` (``terminal``, ``file_editor``,
``task_tracker``, ``browser_*``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sessite.model import ToolCategory
from sessite.readers._util import unified_diff
from sessite.readers.base import as_text
from sessite.readers.tools import DiffRule

NAME = "openhands"
AGENT = "openhands"

CATEGORIES = {
    "execute_bash": ToolCategory.SHELL,
    "terminal": ToolCategory.SHELL,
    "run": ToolCategory.SHELL,
    "str_replace_editor": ToolCategory.EDIT,
    "file_editor": ToolCategory.EDIT,
    "edit_file": ToolCategory.EDIT,
    "write": ToolCategory.EDIT,
    "read": ToolCategory.READ,
    "browse": ToolCategory.WEB,
    "browse_interactive": ToolCategory.WEB,
    "browser": ToolCategory.WEB,
    "web_read": ToolCategory.WEB,
    "delegate": ToolCategory.TASK,
    "delegate_to_agent": ToolCategory.TASK,
}
EDITORS = ("str_replace_editor", "file_editor")
PATH_KEYS = ("path", "file_path")
COMMAND_KEYS = ("command", "cmd")


def editor_diff(args: Mapping[str, Any], path: str | None) -> str | None:
    """The file editor's change: ``create`` writes ``file_text``, ``str_replace`` swaps
    ``old_str`` for ``new_str``, ``insert`` adds ``new_str`` (``view`` changes nothing)."""
    command = args.get("command")
    if not path or command == "view":
        return None
    if command == "create":
        return unified_diff(path, "", as_text(args.get("file_text") or "")) or None
    if command == "str_replace":
        return unified_diff(path, as_text(args.get("old_str") or ""), as_text(args.get("new_str") or "")) or None
    if command == "insert" and isinstance(args.get("new_str"), str):
        return unified_diff(path, "", args["new_str"]) or None
    return None


DIFFS: dict[str, DiffRule] = {name: editor_diff for name in EDITORS}

SYSTEM_PROMPT = "OpenHands' system prompt (its own instructions, repeated each conversation)"
STATE = "agent state change (loading, running, awaiting input…)"
NO_OBSERVATION = "placeholder observation (the action had no output)"
STATE_UPDATE = "conversation state update (status bookkeeping)"
RECALL = "knowledge lookup request (what it found is shown)"
CONDENSATION = "condensation marker (which events were forgotten)"
