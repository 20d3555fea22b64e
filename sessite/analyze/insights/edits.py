"""Files and lines an agent changed, from its EDIT tool calls and their diffs."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sessite.analyze.session import PairedSession
from sessite.model import Kind, ToolCategory, walk


@dataclass(frozen=True, slots=True)
class FileEdit:
    path: str  # as the tool named it (relative to the session's folder when it was under it)
    added: int
    removed: int
    ok: bool  # False when the tool reported an error: lines are then not counted
    event_id: str


_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def _header_path(text: str, strip: str) -> str | None:
    path = text.split("\t", 1)[0].strip()
    if path.startswith('"') and path.endswith('"') and len(path) > 1:
        path = path[1:-1]
    if not path or path == "/dev/null":
        return None
    if path.startswith(strip):
        path = path[len(strip) :]
    return path


@dataclass(slots=True)
class _Tally:
    """Lines added and removed in one file of a diff."""

    path: str | None
    added: int = 0
    removed: int = 0


# lines of a diff that are neither content nor a ``---``/``+++`` header pair
_NOT_CONTENT = (
    "@@",
    "diff --git ",
    "index ",
    "Index: ",
    "===",
    "new file mode",
    "deleted file mode",
    "similarity ",
    "rename ",
    "*** ",
)


class _DiffTally:
    """The files of one diff as they are read; lines before any header count against ``fallback``."""

    def __init__(self, fallback: str | None) -> None:
        self.fallback = fallback
        self.files: list[_Tally] = []
        self.current: _Tally | None = None

    def tally(self) -> _Tally:
        return self.current if self.current is not None else self.start_file(self.fallback)

    def start_file(self, path: str | None) -> _Tally:
        self.current = _Tally(path)
        self.files.append(self.current)
        return self.current

    def loose_line(self, line: str) -> None:
        """A line outside any counted hunk: ``+`` and ``-`` lines still count."""
        tally = self.tally()
        if line.startswith("+"):
            tally.added += 1
        elif line.startswith("-"):
            tally.removed += 1


def diff_stats(diff: str, fallback: str | None = None) -> list[tuple[str | None, int, int]]:
    """[(path, lines added, lines removed)] per file of a unified diff.

    File headers (``--- a`` / ``+++ b``) split a multi-file patch; a diff with
    no header counts against ``fallback``. Hunk headers with line counts are
    followed exactly, so a removed line that reads ``-- x`` is not a header.
    """
    files = _DiffTally(fallback)
    old_left = new_left = 0
    lines = diff.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if old_left > 0 or new_left > 0:  # inside a hunk with known lengths
            old_left, new_left, i = _rest_of_hunk(files.tally(), lines, i - 1, old_left, new_left)
            continue
        if line.startswith("--- ") and i < len(lines) and lines[i].startswith("+++ "):
            old = _header_path(line[4:], "a/")
            new = _header_path(lines[i][4:], "b/")
            i += 1
            files.start_file(new or old or fallback)
            continue
        match = _HUNK.match(line)
        if match:
            old_left = int(match.group(1)) if match.group(1) is not None else 1
            new_left = int(match.group(2)) if match.group(2) is not None else 1
            continue
        if not line.startswith(_NOT_CONTENT):
            files.loose_line(line)
    return [(f.path, f.added, f.removed) for f in files.files]


def _rest_of_hunk(tally: _Tally, lines: list[str], i: int, old_left: int, new_left: int) -> tuple[int, int, int]:
    """Count the lines of a hunk of known lengths from ``i`` on, until its lengths are used up
    (one loop, not a call per line); returns the lines still expected and where reading stopped."""
    end = len(lines)
    while i < end and (old_left > 0 or new_left > 0):
        first = lines[i][:1]
        i += 1
        if first == "+":
            tally.added += 1
            new_left -= 1
        elif first == "-":
            tally.removed += 1
            old_left -= 1
        elif first != "\\":
            old_left -= 1
            new_left -= 1
    return old_left, new_left, i


def relative_path(path: str, cwd: str | None) -> str:
    """A path under the session's folder, relative to it; any other path as given."""
    if cwd:
        norm, base = path.replace("\\", "/"), cwd.replace("\\", "/").rstrip("/")
        if base and norm.startswith(base + "/"):
            return norm[len(base) + 1 :]
    return path


def file_edits(view: PairedSession) -> list[FileEdit]:
    """Every file an EDIT tool call changed, with its lines added and removed.

    The call's diff is preferred; a result's diff stands in when the call has
    none. An edit whose result is an error counts as attempted, not changed.
    """
    cwd = view.session.cwd
    out: list[FileEdit] = []
    for event in walk(view.session.events):
        if event.kind != Kind.TOOL_CALL or not (event.category == ToolCategory.EDIT or event.diff):
            continue
        results = view.results_for(event)
        ok = not event.is_error and not any(r.is_error for r in results)
        diff = event.diff or next((r.diff for r in results if r.diff), None)
        path = event.path
        if diff:
            parts = diff_stats(diff, path)
            if len(parts) > 1 or (parts and parts[0][0]):
                for p, added, removed in parts:
                    if p:
                        out.append(
                            FileEdit(relative_path(p, cwd), added if ok else 0, removed if ok else 0, ok, event.id)
                        )
                continue
            added = sum(a for _, a, _ in parts)
            removed = sum(r for _, _, r in parts)
        else:
            added = removed = 0
        if path:
            out.append(FileEdit(relative_path(path, cwd), added if ok else 0, removed if ok else 0, ok, event.id))
    return out
