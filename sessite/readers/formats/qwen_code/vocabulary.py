"""Qwen Code's names: its tools' categories, the records left out on purpose (and why), note titles.

Kept apart from the code that reads records so that a new Qwen Code version's names are
one line here, and the reasons a page lists for what it leaves out read the same everywhere.
"""

from __future__ import annotations

import re

from sessite.model import ToolCategory
from sessite.readers.tools import DiffRule, replace_diff, write_diff

NAME = "qwen_code"
AGENT = "qwen-code"

# Tool names only Qwen Code uses; the shared table (readers/tools.py) knows read_file, write_file,
# edit, run_shell_command, glob, list_directory, read_many_files, web_fetch, web_search, agent, task.
CATEGORIES = {
    "grep_search": ToolCategory.SEARCH,
    "search_file_content": ToolCategory.SEARCH,
    "lsp": ToolCategory.SEARCH,
    "image_read": ToolCategory.READ,
}
DIFFS: dict[str, DiffRule] = {
    "edit": replace_diff(("old_string",), ("new_string",)),
    "replace": replace_diff(("old_string",), ("new_string",)),
    "write_file": write_diff(("content",)),
}
PATH_KEYS = ("file_path", "absolute_path", "path", "dir_path", "directory")
# Tools that start a sub-agent (the shared table already says they are tasks).
AGENT_TOOLS = frozenset({"agent", "task"})

# A shell result ends with the CLI's summary lines: ``Exit Code: 0``.
EXIT_LINE = re.compile(r"^Exit Code: (-?\d{1,6})\s*$", re.M)
# The part of a user turn a hook added (not the user's words).
HOOK_CONTEXT = re.compile(r"<qwen:[\w-]+>.*?</qwen:[\w-]+>", re.S)
# The reminder older versions put before the user's words.
SYSTEM_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)

# ``system`` records whose content is bookkeeping for the CLI's own resume: counted, not shown.
NOT_SHOWN = {
    **dict.fromkeys(
        (
            "session_notes",
            "attribution_snapshot",
            "file_history_snapshot",
            "session_artifact_event",
            "session_artifact_snapshot",
            "session_sources_snapshot",
            "branch_checkpoint",
            "goal_state",
            "goal_runtime",
            "goal_turn_end",
            "managed_session_header_v1",
            "managed_session_event_v1",
            "managed_session_commit_v1",
            "session_execution_engine",
            "user_text_elements",
            "agent_bootstrap",
            "agent_session_ready",
        ),
        "resume bookkeeping (state the CLI restores, not conversation)",
    ),
    "custom_title": "session title record (used for the session title)",
}

# ``system`` records shown as a titled note: subtype -> title.
NOTE_TITLES = {
    "session_model": "Model chosen",
    "session_approval_mode": "Approval mode",
    "parent_session": "Started by another session",
    "session_source": "Session source",
    "agent_launch_prompt": "Sub-agent launched",
    "agent_retry": "Sub-agent retried",
    "omni_recall": "Recall",
    "realtime_message": "Realtime message",
    "turn_result": "Turn result",
    "background_task_completed": "Background task completed",
}

# ``user`` records the CLI writes on the user's behalf: subtype -> note title.
USER_NOTES = {
    "notification": "Notification",
    "cron": "Scheduled prompt",
    "background_task_completed": "Background task completed",
}

# UI telemetry events: name (without the ``qwen-code.`` prefix) -> what becomes of them.
TELEMETRY_PREFIX = "qwen-code."
