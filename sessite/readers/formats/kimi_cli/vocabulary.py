"""Kimi CLI's names: its tools' categories and diffs, and the records left out on purpose (and why).

Kimi CLI (``~/.kimi``) and its successor Kimi Code (``~/.kimi-code``) name their tools
differently (``Shell``/``Bash``, ``ReadFile``/``Read``, ``StrReplaceFile``/``Edit``); both
sets are here, so a page looks the same whichever wrote the session.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from sessite.model import ToolCategory
from sessite.readers._util import unified_diff
from sessite.readers.base import as_text
from sessite.readers.tools import DiffRule, join_diffs, replace_diff, write_diff

NAME = "kimi_cli"
AGENT = "kimi-cli"

# Tool names only Kimi uses; the shared table (readers/tools.py) knows shell, bash, read, write,
# edit, glob, grep, websearch, task and agent.
CATEGORIES = {
    "readfile": ToolCategory.READ,
    "readmediafile": ToolCategory.READ,
    "writefile": ToolCategory.EDIT,
    "strreplacefile": ToolCategory.EDIT,
    "searchweb": ToolCategory.WEB,
    "fetchurl": ToolCategory.WEB,
    "agentswarm": ToolCategory.TASK,
    "createsubagent": ToolCategory.TASK,
}
PATH_KEYS = ("path", "file_path", "directory")


def _str_replace(args: Mapping[str, Any], path: str | None) -> str | None:
    """``StrReplaceFile``: one edit ``{old, new}`` or a list of them."""
    edit = args.get("edit")
    edits = edit if isinstance(edit, list) else [edit]
    if not path:
        return None
    parts = [unified_diff(path, as_text(e.get("old")), as_text(e.get("new"))) for e in edits if isinstance(e, dict)]
    return join_diffs([p for p in parts if p])


DIFFS: dict[str, DiffRule] = {
    "writefile": write_diff(("content",)),
    "write": write_diff(("content",)),
    "strreplacefile": _str_replace,
    "edit": replace_diff(("old_string", "old", "old_text"), ("new_string", "new", "new_text")),
}

# A shell result says how the command ended.
EXIT_FAILED = re.compile(r"Command failed with exit code: (-?\d{1,6})")
EXIT_OK = "Command executed successfully"
# The sub-agent a Kimi Code ``Agent`` call started, named in its result.
AGENT_ID = re.compile(r"^agent_id: ([\w.-]+)$", re.M)

# Wire events (Kimi CLI) left out on purpose: type -> why.
WIRE_NOT_SHOWN = {
    "StepBegin": "step start marker (a step is shown by its messages and calls)",
    "TurnEnd": "turn end marker (a turn is shown by its messages and calls)",
    "CompactionBegin": "compaction start marker (the compaction is shown where it ends)",
    "MCPLoadingBegin": "MCP loading marker",
    "MCPLoadingEnd": "MCP loading marker",
    "ToolCallPart": "streamed fragment of a tool call (the whole call is shown)",
    "HookTriggered": "hook start marker (its outcome is shown)",
}

# Kimi Code records left out on purpose: type -> why.
CODE_NOT_SHOWN = {
    "tools.set_active_tools": "list of the tools offered to the model (configuration)",
    "llm.tools_snapshot": "tool definitions sent to the model (configuration)",
    "llm.request": "model request bookkeeping (the response is shown)",
    "plugin.session_start": "plugin bookkeeping",
    "runtime.set_binding": "runtime bookkeeping",
    "token_counting.measured": "context size measurement",
    "token_counting.turn_recorded": "context size measurement",
    "profile.bind": "agent profile and system prompt (configuration)",
    "turn.ended": "turn end marker (a turn is shown by its messages and calls)",
    "full_compaction.begin": "compaction start marker (the compaction is shown with its summary)",
    "full_compaction.complete": "compaction end marker (the compaction is shown with its summary)",
}
CONFIG = "configuration update (model and working folder in the session details; the system prompt is left out)"

# Notes: Kimi Code record type -> title.
CODE_NOTES = {
    "turn.cancel": "Turn cancelled",
    "plan_mode.enter": "Plan mode on",
    "plan_mode.exit": "Plan mode off",
    "permission.set_mode": "Permission mode",
}
