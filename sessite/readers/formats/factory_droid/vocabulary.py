"""Factory Droid's names: its tools' categories and diffs, and what a first user message tells.

Droid starts every session by running a few commands and putting their output in a
``<system-reminder>`` before the user's first words; the branch and the last commits are
read from there (``% git rev-parse --abbrev-ref HEAD``, ``% git log --oneline -5``).
"""

from __future__ import annotations

import re

from sessite.model import ToolCategory
from sessite.readers.tools import DiffRule, edits_diff, given_diff, replace_diff, write_diff

NAME = "factory_droid"
AGENT = "factory-droid"

# Tool names only Droid uses; the shared table (readers/tools.py) knows read, edit, ls, grep,
# glob, websearch and task.
CATEGORIES = {
    "execute": ToolCategory.SHELL,
    "create": ToolCategory.EDIT,
    "applypatch": ToolCategory.EDIT,
    "fetchurl": ToolCategory.WEB,
}
PATH_KEYS = ("file_path", "path", "directory_path", "folder")
DIFFS: dict[str, DiffRule] = {
    "edit": replace_diff(("old_str", "old_string"), ("new_str", "new_string")),
    "multiedit": edits_diff("edits", ("old_str", "old_string"), ("new_str", "new_string")),
    "create": write_diff(("content",)),
    "applypatch": given_diff("input", "patch"),
}

REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)
EXIT_CODE = re.compile(r"exit code:? (-?\d{1,6})", re.I)
BRANCH = re.compile(r"^% git rev-parse --abbrev-ref HEAD\n([^\n%]+)$", re.M)
HEAD = re.compile(r"^% git log --oneline[^\n]*\n([0-9a-f]{7,40}) ", re.M)
MODEL = re.compile(r"^Model: ([^\n]+)$", re.M)
