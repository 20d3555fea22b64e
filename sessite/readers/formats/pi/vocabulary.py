"""pi's names: its tools' categories and diffs, and the entries left out on purpose (and why)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from sessite.model import ToolCategory
from sessite.readers.tools import DiffRule, edits_diff, replace_diff, write_diff

NAME = "pi"
AGENT = "pi"

# Tool names only pi uses; the shared table (readers/tools.py) knows read, bash, edit, write, ls, grep.
CATEGORIES = {"find": ToolCategory.SEARCH}
PATH_KEYS = ("path", "file_path")


_EDITS = edits_diff("edits", ("oldText", "old_text"), ("newText", "new_text"))
_REPLACE = replace_diff(("oldText", "old_string"), ("newText", "new_string"))


def _edit(args: Mapping[str, Any], path: str | None) -> str | None:
    """``edit``: ``oldText``/``newText``, or several of them in ``edits``."""
    return (_EDITS if isinstance(args.get("edits"), list) else _REPLACE)(args, path)


DIFFS: dict[str, DiffRule] = {"edit": _edit, "write": write_diff(("content",))}

# A shell result that failed ends with pi's line: "Command exited with code 1".
EXITED = re.compile(r"Command exited with code (-?\d{1,6})")

# Entries left out on purpose: type -> why.
NOT_SHOWN = {
    "custom": "extension state (kept for the extension, not part of the conversation)",
    "session_info": "session name (used for the title)",
}
