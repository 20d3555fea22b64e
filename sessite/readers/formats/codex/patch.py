"""``apply_patch`` in both its forms, turned into unified-style diffs.

The call carries Codex's ``*** Begin Patch`` text (as a custom tool input, a
function argument or a shell heredoc); the ``patch_apply_end`` notice carries
a ``changes`` map. Either becomes one diff and the list of paths it touches.
"""

from __future__ import annotations

import re
from typing import Any

from sessite.readers._util import text_of
from sessite.readers.base import as_text

_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$")
_BEGIN = "*** Begin Patch"
_END = "*** End Patch"
_MOVE_TO = "*** Move to: "


class _FilePatch:
    """One ``*** Add|Update|Delete File:`` section of a patch."""

    def __init__(self, op: str, path: str) -> None:
        self.op = op
        self.path = path
        self.body: list[str] = []
        self.move_to: str | None = None

    def add_line(self, line: str) -> None:
        if self.op == "Add" or line.startswith("@@") or line[:1] in ("+", "-", " "):
            self.body.append(line)
        else:
            self.body.append(" " + line)  # a blank context line written without its space

    def diff_lines(self) -> list[str]:
        body = self.body
        if self.op == "Add":
            return ["--- /dev/null", f"+++ b/{self.path}", f"@@ -0,0 +1,{len(body)} @@"] + [
                line if line.startswith("+") else "+" + line for line in body
            ]
        if self.op == "Delete":
            return [f"--- a/{self.path}", "+++ /dev/null"]
        head = [f"--- a/{self.path}", f"+++ b/{self.move_to or self.path}"]
        if body and not body[0].startswith("@@"):
            head.append("@@")
        return head + body


def patch_to_diff(patch: str) -> tuple[str | None, list[str]]:
    """Turn Codex's ``*** Begin Patch`` text into a unified-style diff and its paths.

    The patch format has no line numbers, so hunk headers stay as the patch
    wrote them (``@@`` or ``@@ <context line>``); added files get a counted header.
    """
    files: list[_FilePatch] = []
    paths: list[str] = []
    for line in patch.splitlines():
        match = _PATCH_FILE.match(line)
        if match:
            files.append(_FilePatch(match.group(1), match.group(2)))
            paths.append(match.group(2))
            continue
        if not files or line.startswith((_BEGIN, _END)):
            continue
        current = files[-1]
        if line.startswith(_MOVE_TO):
            current.move_to = line[len(_MOVE_TO) :].strip()
            if current.move_to not in paths:
                paths.append(current.move_to)
            continue
        if line.startswith("*** End of File"):
            continue
        current.add_line(line)
    out = [line for file in files for line in file.diff_lines()]
    return ("\n".join(out) if out else None), paths


def patch_in(text: str) -> str | None:
    """The ``*** Begin Patch … *** End Patch`` text inside a command, if any."""
    start = text.find(_BEGIN)
    if start < 0:
        return None
    end = text.find(_END, start)
    return text[start:] if end < 0 else text[start : end + len(_END)]


def changes_to_diff(changes: dict[str, Any]) -> tuple[str | None, list[str]]:
    """A diff from ``patch_apply_end.changes`` ({path: {type, content | unified_diff, move_path}})."""
    out: list[str] = []
    paths: list[str] = []
    for path, change in changes.items():
        if not isinstance(change, dict):
            continue
        paths.append(path)
        out.extend(_change_lines(path, change))
    return ("\n".join(out) if out else None), paths


def _change_lines(path: str, change: dict[str, Any]) -> list[str]:
    kind = str(change.get("type") or "").lower()
    if kind == "add":
        lines = as_text(change.get("content")).splitlines()
        return ["--- /dev/null", f"+++ b/{path}", f"@@ -0,0 +1,{len(lines)} @@", *("+" + line for line in lines)]
    if kind == "delete":
        lines = as_text(change.get("content")).splitlines()
        out = [f"--- a/{path}", "+++ /dev/null"]
        if lines:
            out.extend([f"@@ -1,{len(lines)} +0,0 @@", *("-" + line for line in lines)])
        return out
    diff = as_text(change.get("unified_diff")).rstrip("\n")
    target = text_of(change.get("move_path")) or path
    out = [] if diff.startswith("---") else [f"--- a/{path}", f"+++ b/{target}"]
    if diff:
        out.append(diff)
    return out
