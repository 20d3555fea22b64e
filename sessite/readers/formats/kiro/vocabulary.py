"""Kiro CLI's names: its tools' categories and diffs, and what is left out (and why).

Kiro CLI is the Amazon Q Developer CLI renamed; its built-in tools keep Q's names
(``fs_read``, ``fs_write``, ``execute_bash``, ``use_aws``), newer builds add short ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sessite.model import ToolCategory
from sessite.readers._util import unified_diff
from sessite.readers.base import as_text
from sessite.readers.tools import DiffRule

NAME = "kiro"
AGENT = "kiro"

CATEGORIES = {
    "execute_bash": ToolCategory.SHELL,
    "execute_cmd": ToolCategory.SHELL,
    "fs_read": ToolCategory.READ,
    "fs_write": ToolCategory.EDIT,
    "use_aws": ToolCategory.OTHER,
}
PATH_KEYS = ("path", "file_path", "filePath")
COMMAND_KEYS = ("command", "cmd")


def _fs_write(args: Mapping[str, Any], path: str | None) -> str | None:
    """``fs_write``: ``create`` writes ``file_text``; ``str_replace`` swaps ``old_str`` for
    ``new_str``; ``append`` and ``insert`` add ``new_str``."""
    if not path:
        return None
    command = args.get("command")
    if command == "str_replace":
        return unified_diff(path, as_text(args.get("old_str", "")), as_text(args.get("new_str", ""))) or None
    text = args.get("file_text") if command == "create" or "file_text" in args else args.get("new_str")
    return unified_diff(path, "", as_text(text)) if isinstance(text, str) and text else None


DIFFS: dict[str, DiffRule] = {"fs_write": _fs_write, "write": _fs_write}

EMPTY_ENTRY = "history entry with neither a message nor a reply (emptied by the exporting tool)"
STATUS_ERROR = ("Error", "error")
