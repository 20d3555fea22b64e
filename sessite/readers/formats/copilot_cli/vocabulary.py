"""Copilot CLI's names: its tools' categories and the records left out on purpose (with why).

Kept apart from the code that reads records so that a new Copilot version's names are
one line here, and the reasons a page lists for what it leaves out read the same everywhere.
"""

from __future__ import annotations

import re

from sessite.model import ToolCategory
from sessite.readers.tools import DiffRule, replace_diff, write_diff

NAME = "copilot_cli"
AGENT = "copilot-cli"

# Tool names only Copilot CLI uses; the shared table (readers/tools.py) knows bash, view, glob,
# grep, edit, apply_patch, web_fetch, web_search and task.
CATEGORIES = {
    "powershell": ToolCategory.SHELL,
    "read_powershell": ToolCategory.SHELL,
    "write_powershell": ToolCategory.SHELL,
    "stop_powershell": ToolCategory.SHELL,
    "list_powershell": ToolCategory.SHELL,
    "read_bash": ToolCategory.SHELL,
    "write_bash": ToolCategory.SHELL,
    "stop_bash": ToolCategory.SHELL,
    "list_bash": ToolCategory.SHELL,
    "async_bash": ToolCategory.SHELL,
    "create": ToolCategory.EDIT,
    "str_replace": ToolCategory.EDIT,
    "str_replace_editor": ToolCategory.EDIT,
    "rg": ToolCategory.SEARCH,
    "fetch_copilot_cli_documentation": ToolCategory.WEB,
}
DIFFS: dict[str, DiffRule] = {
    "edit": replace_diff(("old_str", "old_string"), ("new_str", "new_string")),
    "str_replace": replace_diff(("old_str",), ("new_str",)),
    "create": write_diff(("file_text", "content")),
}
PATH_KEYS = ("path", "file_path", "filePath", "paths")
COMMAND_KEYS = ("command", "cmd")

# ``apply_patch`` takes Codex's patch text: the files it touches are named in it.
PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", re.M)
# A shell result ends with the shell's exit line: ``<shellId: 3 completed with exit code 0>``.
EXIT_LINE = re.compile(r"<(?:shellId: [^<>\n]{1,80} )?(?:completed|exited) with exit code (-?\d{1,6})>\s*\Z")

# Records whose content is on the page in another form, or that only mark time: counted, not shown.
NOT_SHOWN = {
    "assistant.turn_start": "turn start marker (a turn is shown by its messages and calls)",
    "assistant.turn_end": "turn end marker (a turn is shown by its messages and calls)",
    "system.message": "Copilot's system prompt (its own long instructions, repeated each run)",
    "session.usage_checkpoint": "usage checkpoint (running premium-request totals; the last is in the details)",
    "session.workspace_file_changed": "file change in Copilot's own session folder",
    "session.idle": "idle marker",
    "assistant.message_delta": "streamed part of a message (the whole message is shown)",
    "assistant.reasoning_delta": "streamed part of reasoning (the whole reasoning is shown)",
    "tool.execution_progress": "tool progress update (the result is shown)",
    "tool.execution_partial_result": "partial tool output (the whole result is shown)",
    "session.usage_info": "context window gauge",
    "pending_messages.modified": "queue bookkeeping",
    "assistant.intent": "intent update (the messages and calls show the work)",
    "assistant.usage": "per-request usage (the session's totals are shown)",
    "assistant.idle": "idle marker",
    "assistant.message_start": "message start marker (the whole message is shown)",
    **dict.fromkeys(
        (
            "session.skills_loaded",
            "session.mcp_servers_loaded",
            "session.mcp_server_status_changed",
            "session.extensions_loaded",
            "session.custom_agents_updated",
            "session.tools_updated",
            "session.background_tasks_changed",
            "session.remote_steerable_changed",
        ),
        "listing of loaded tools, skills, agents or servers (configuration, not conversation)",
    ),
}

# Records that become a titled system note: record type -> title.
NOTE_TITLES = {
    "session.info": "Info",
    "session.warning": "Warning",
    "session.error": "Error",
    "session.model_change": "Model changed",
    "session.mode_changed": "Mode changed",
    "session.permissions_changed": "Permissions changed",
    "session.plan_changed": "Plan changed",
    "session.context_changed": "Working context changed",
    "session.resume": "Session resumed",
    "session.shutdown": "Session ended",
    "session.truncation": "Context truncated",
    "session.task_complete": "Task complete",
    "session.auto_mode_resolved": "Model chosen automatically",
    "session.title_changed": "Title changed",
    "abort": "Aborted",
    "system.notification": "Notification",
}

# Who put a ``user.message`` in the conversation, when it was not the user (``data.source``).
SOURCE_TITLES = {
    "system": "System reminder",
    "instruction-discovery": "Discovered instructions",
}

# A hook that ran and said nothing: counted with this reason.
QUIET_HOOK = "hook that ran without output or error"
