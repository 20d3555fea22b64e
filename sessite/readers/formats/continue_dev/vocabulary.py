"""Continue's names: its built-in tools (categories, where their file and command are, their
diffs), and the reasons a page lists for what it leaves out."""

from __future__ import annotations

import re

from sessite.model import ToolCategory
from sessite.readers.tools import DiffRule, edits_diff, replace_diff, write_diff

NAME = "continue_dev"
AGENT = "continue"

# Continue's built-in tools (core/tools/builtIn.ts); an MCP tool keeps the shared table's guess.
CATEGORIES = {
    "read_file": ToolCategory.READ,
    "read_file_range": ToolCategory.READ,
    "read_currently_open_file": ToolCategory.READ,
    "read_skill": ToolCategory.READ,
    "edit_existing_file": ToolCategory.EDIT,
    "single_find_and_replace": ToolCategory.EDIT,
    "multi_edit": ToolCategory.EDIT,
    "create_new_file": ToolCategory.EDIT,
    "search_and_replace_in_file": ToolCategory.EDIT,
    "run_terminal_command": ToolCategory.SHELL,
    "grep_search": ToolCategory.SEARCH,
    "file_glob_search": ToolCategory.SEARCH,
    "ls": ToolCategory.SEARCH,
    "view_subdirectory": ToolCategory.SEARCH,
    "view_repo_map": ToolCategory.SEARCH,
    "codebase": ToolCategory.SEARCH,
    "search_web": ToolCategory.WEB,
    "fetch_url_content": ToolCategory.WEB,
    "view_diff": ToolCategory.OTHER,
    "create_rule_block": ToolCategory.OTHER,
    "request_rule": ToolCategory.OTHER,
}
DIFFS: dict[str, DiffRule] = {
    "create_new_file": write_diff(("contents",)),
    "single_find_and_replace": replace_diff(("old_string",), ("new_string",)),
    "multi_edit": edits_diff("edits", ("old_string",), ("new_string",)),
}
PATH_KEYS = ("filepath", "filePath", "path", "dirPath")
COMMAND_KEYS = ("command",)

# A terminal result's status: "Command completed", "Command failed with exit code 1".
FAILED = re.compile(r"failed with exit code (-?\d{1,6})")
COMPLETED = re.compile(r"^\s*(?:Background )?[Cc]ommand completed")

# Reasons for what is not shown (the session page lists them with their counts).
EMPTY = "empty message"
ENCRYPTED = "reasoning the provider keeps encrypted (not readable)"
INDEX_MERGED = "index entry (its date and title are the session's)"
INDEX_ALONE = "index entry whose session file is not there"
TELEMETRY_CHAT = "Continue's dev-data copy of one model call (its prompt and reply; the session file shows the chat)"
TELEMETRY = "Continue's dev-data usage record"
