"""Tool calls the same way for every format: one category table, one reading of a call's input.

Agents name the same tools alike (``bash``, ``read_file``, ``grep``, ``web_fetch`` …) and
put the same facts under a handful of keys (``command``/``cmd``, ``file_path``/``path``,
``old_string``/``new_string``). Reading them here, once, keeps the pages alike whatever
agent wrote the session, and lets a new format list only the tool names that are truly
its own.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from sessite.model import ToolCategory
from sessite.readers._util import text_of, unified_diff
from sessite.readers.base import as_text

_SHELL, _EDIT, _READ, _SEARCH, _WEB, _TASK = (
    ToolCategory.SHELL,
    ToolCategory.EDIT,
    ToolCategory.READ,
    ToolCategory.SEARCH,
    ToolCategory.WEB,
    ToolCategory.TASK,
)

# Tool names (lower-cased) that several agents use, or that say plainly what they do.
# No two formats disagree on any of them; a name only one agent uses stays in its reader.
TOOL_CATEGORIES: Mapping[str, ToolCategory] = MappingProxyType(
    {
        # shell
        "bash": _SHELL,
        "bashoutput": _SHELL,
        "shell": _SHELL,
        "local_shell": _SHELL,
        "exec_command": _SHELL,
        "run_shell_command": _SHELL,
        # edit
        "edit": _EDIT,
        "multiedit": _EDIT,
        "write": _EDIT,
        "write_file": _EDIT,
        "edit_file": _EDIT,
        "replace": _EDIT,
        "patch": _EDIT,
        "apply_patch": _EDIT,
        "notebookedit": _EDIT,
        # read
        "read": _READ,
        "read_file": _READ,
        "read_many_files": _READ,
        "view": _READ,
        # search
        "grep": _SEARCH,
        "glob": _SEARCH,
        "ls": _SEARCH,
        "list": _SEARCH,
        "list_dir": _SEARCH,
        "list_directory": _SEARCH,
        "search": _SEARCH,
        "search_file_content": _SEARCH,
        # web
        "fetch": _WEB,
        "webfetch": _WEB,
        "web_fetch": _WEB,
        "websearch": _WEB,
        "web_search": _WEB,
        "google_web_search": _WEB,
        # sub-agents
        "task": _TASK,
        "agent": _TASK,
    }
)

# Categories whose calls name a file (or folder) worth showing.
FILE_CATEGORIES = frozenset({ToolCategory.EDIT, ToolCategory.READ, ToolCategory.SEARCH})
COMMAND_KEYS = ("command", "cmd")
PATH_KEYS = ("file_path", "filePath", "path")


def tool_category(name: str, overrides: Mapping[str, ToolCategory] | None = None) -> ToolCategory:
    """The category of a tool: the format's own names first (as written, then lower-cased),
    then the shared table (lower-cased); OTHER when neither knows the name."""
    lowered = name.lower()
    if overrides:
        found = overrides.get(name) or overrides.get(lowered)
        if found is not None:
            return found
    return TOOL_CATEGORIES.get(lowered, ToolCategory.OTHER)


# --------------------------------------------------------------------------- command, path, diff


@dataclass(frozen=True, slots=True)
class ToolInput:
    """What a page shows of a call besides its raw input: the command line, the file, the change."""

    command: str | None = None
    path: str | None = None
    diff: str | None = None

    def fields(self) -> dict[str, str]:
        """Only the fields that are set, for a reader that collects an event's fields in a dict."""
        found = {"command": self.command, "path": self.path, "diff": self.diff}
        return {key: value for key, value in found.items() if value}


# How one tool's input says what it changed: (input, the path found) -> a unified diff or None.
DiffRule = Callable[[Mapping[str, Any], str | None], str | None]


def first_present(args: Mapping[str, Any], keys: Sequence[str]) -> Any:
    """The value of the first key present in ``args`` (even when empty), else None."""
    for key in keys:
        if key in args:
            return args[key]
    return None


def first_text(args: Mapping[str, Any], keys: Sequence[str]) -> str | None:
    """The first value among ``keys`` that is a non-empty string."""
    for key in keys:
        value = text_of(args.get(key))
        if value:
            return value
    return None


def command_of(args: Mapping[str, Any], keys: Sequence[str] = COMMAND_KEYS) -> str | None:
    """The command line: the first key holding a non-empty string, or a list of strings (shell-joined)."""
    for key in keys:
        value = args.get(key)
        if isinstance(value, str) and value:
            return value
        if isinstance(value, list) and value and all(isinstance(part, str) for part in value):
            return shlex.join(value)
    return None


def path_of(args: Mapping[str, Any], keys: Sequence[str] = PATH_KEYS) -> str | None:
    """The file a call is about: the first key holding a non-empty string."""
    return first_text(args, keys)


def tool_input(
    args: Any,
    category: ToolCategory,
    diff: DiffRule | None = None,
    *,
    path_keys: Sequence[str] = PATH_KEYS,
    command_keys: Sequence[str] = COMMAND_KEYS,
) -> ToolInput:
    """Command (shell calls), path (calls that read, edit or search a file) and diff (edits)
    of a call, from its input; ``diff`` is the format's rule for this tool, if it has one."""
    if not isinstance(args, Mapping):
        return ToolInput()
    path = path_of(args, path_keys)
    return ToolInput(
        command=command_of(args, command_keys) if category == ToolCategory.SHELL else None,
        path=path if category in FILE_CATEGORIES else None,
        diff=(diff(args, path) or None) if diff is not None and category == ToolCategory.EDIT else None,
    )


def replace_diff(old: Sequence[str] = ("old_string",), new: Sequence[str] = ("new_string",)) -> DiffRule:
    """An edit that replaces old text by new text (keys tried in order; the first present wins)."""

    def rule(args: Mapping[str, Any], path: str | None) -> str | None:
        if not path:
            return None
        return unified_diff(path, as_text(first_present(args, old)), as_text(first_present(args, new))) or None

    return rule


def write_diff(content: Sequence[str] = ("content",)) -> DiffRule:
    """A whole file written: every line added."""

    def rule(args: Mapping[str, Any], path: str | None) -> str | None:
        if not path:
            return None
        return unified_diff(path, "", as_text(first_present(args, content))) or None

    return rule


def edits_diff(
    items: str = "edits", old: Sequence[str] = ("old_string",), new: Sequence[str] = ("new_string",)
) -> DiffRule:
    """Several replacements in one file: their hunks under one header."""

    def rule(args: Mapping[str, Any], path: str | None) -> str | None:
        edits = args.get(items)
        if not path or not isinstance(edits, list):
            return None
        parts = [
            unified_diff(path, as_text(first_present(edit, old)), as_text(first_present(edit, new)))
            for edit in edits
            if isinstance(edit, dict)
        ]
        return join_diffs(parts) or None

    return rule


def given_diff(*keys: str) -> DiffRule:
    """The input already holds the change (a patch text): the first non-empty one of ``keys``."""

    def rule(args: Mapping[str, Any], path: str | None) -> str | None:
        return first_text(args, keys)

    return rule


def join_diffs(parts: Sequence[str]) -> str | None:
    """Diffs of one file as one: the first whole, the hunks of the others after it."""
    if not parts:
        return None
    return parts[0] + "".join("\n" + part.split("\n", 2)[2] for part in parts[1:] if part.count("\n") >= 2)
