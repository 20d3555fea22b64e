"""The Cursor agent's names: its tools' categories and diffs, and what is left out (and why).

Kept apart from the code that reads messages, so a new tool of a new Cursor version is one
line here. The CLI and the IDE agent name their tools in CamelCase (``Read``, ``LS``,
``Shell``, ``StrReplace``); older IDE transcripts in snake_case (``run_terminal_cmd``).
"""

from __future__ import annotations

from sessite.model import ToolCategory
from sessite.readers.tools import DiffRule, edits_diff, replace_diff, write_diff

NAME = "cursor_agent"
AGENT = "cursor-agent"

# Tool names only Cursor uses (lower-cased); the shared table knows read, ls, glob, grep,
# shell, write, edit, multiedit, web_search, web_fetch, task and the rest.
CATEGORIES = {
    "strreplace": ToolCategory.EDIT,
    "search_replace": ToolCategory.EDIT,
    "delete": ToolCategory.EDIT,
    "delete_file": ToolCategory.EDIT,
    "editnotebook": ToolCategory.EDIT,
    "run_terminal_cmd": ToolCategory.SHELL,
    "semanticsearch": ToolCategory.SEARCH,
    "codebase_search": ToolCategory.SEARCH,
    "grep_search": ToolCategory.SEARCH,
    "file_search": ToolCategory.SEARCH,
    "glob_file_search": ToolCategory.SEARCH,
}
# Where Cursor's tools name their file or folder (the command is under the shared keys).
PATH_KEYS = ("path", "file_path", "target_file", "filePath", "target_directory", "target_notebook")
_REPLACE = replace_diff(("old_string", "old_str"), ("new_string", "new_str"))
DIFFS: dict[str, DiffRule] = {
    "write": write_diff(("contents", "content", "code_edit")),
    "edit": _REPLACE,
    "strreplace": _REPLACE,
    "search_replace": _REPLACE,
    "multiedit": edits_diff(),
}

# Tags Cursor wraps around what it adds to a user turn; the user's own words are in <user_query>.
QUERY_TAG = "user_query"
CONTEXT_TITLES = {
    "user_info": "Environment",
    "project_layout": "Project layout",
    "git_status": "Git status",
    "rules": "Rules",
    "external_links": "Web pages given to the model",
    "attached_files": "Attached files",
    "system_reminder": "System reminder",
    "open_and_recently_viewed_files": "Open files",
    "agent_skills": "Skills",
    "agent_requestable_workspace_rules": "Rules",
    "always_applied_workspace_rules": "Rules",
}

SYSTEM_PROMPT = "Cursor's system prompt (its own long instructions, repeated each session)"
EMPTY = "empty message"
OFF_PATH = "stored message not in the conversation's latest state (an earlier or abandoned branch)"
DEFAULT_NAME = "New Agent"  # the name every new chat gets: not a title
