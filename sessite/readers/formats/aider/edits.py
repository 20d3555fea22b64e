"""A reply cut into prose, reasoning and the edits it makes (shown as calls with their diff).

Aider's models edit files by writing them into the reply, in the edit format aider asked for:

- SEARCH/REPLACE blocks (``diff`` and ``diff-fenced``): the file's name, then
  ``<<<<<<< SEARCH`` old lines ``=======`` new lines ``>>>>>>> REPLACE``, in a code fence
  or not; a block without a name edits the file the previous one named;
- a whole file (``whole``): the file's name on a line, then the file in a code fence;
- a unified diff (``udiff``): a ```` ```diff ```` fence with ``---``/``+++`` headers.

A fence of the last two kinds is an edit only when aider says it wrote that file (``Applied
edit to …``, ``Skipping edits to …`` right after the reply): a model shows code in fences
for many other reasons. Reasoning in ``<think>`` tags becomes its own piece.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sessite.readers._util import unified_diff
from sessite.readers.formats.aider.vocabulary import THINK

_FENCE = re.compile(r"^(`{3,}|~{3,})\s*([^`\s]*)")
_SEARCH = re.compile(r"^<{5,9} SEARCH>?\s*$")
_DIVIDER = re.compile(r"^={5,9}\s*$")
_REPLACE = re.compile(r"^>{5,9} REPLACE\s*$")
_DIFF_TARGET = re.compile(r"^\+\+\+ (?:b/)?(.+?)\s*$", re.M)


@dataclass(frozen=True)
class Edit:
    path: str
    kind: str  # "search/replace", "whole file" or "udiff"
    diff: str | None = None
    content: str | None = None  # a whole file's new text (its old text is not in the log)
    search: str = ""


@dataclass(frozen=True)
class Piece:
    kind: str  # "prose", "think" or "edit"
    text: str = ""
    edit: Edit | None = None


def file_name(line: str) -> str:
    """A file name as aider reads it off a line: without markdown marks around it."""
    name = line.strip().lstrip("#").strip().strip("`").strip("*").rstrip(":").strip("`").strip()
    return name


def _named(line: str, written: set[str]) -> str:
    """The file a line names, when it can be one: a name aider wrote, or one word (a sentence is not a path)."""
    name = file_name(line)
    return name if name in written or (name and len(name) <= 300 and not any(c.isspace() for c in name)) else ""


def pieces(text: str, written: set[str]) -> list[Piece]:
    """The reply's reasoning first, then its prose and edits in order."""
    out = [Piece("think", m.group(2)) for m in THINK.finditer(text) if m.group(2).strip()]
    rest = THINK.sub("", text)
    lines = rest.split("\n")
    prose: list[str] = []
    last_path = ""

    def flush() -> None:
        body = "\n".join(prose).strip("\n")
        if body.strip():
            out.append(Piece("prose", body))
        prose.clear()

    index = 0
    while index < len(lines):
        line = lines[index]
        fence = _FENCE.match(line)
        if fence:
            end = _closing(lines, index, fence.group(1))
            body = lines[index + 1 : end]
            before = _last_text(prose)
            edits = _fenced_edits(body, fence.group(2), before, last_path, written)
            if edits:
                _drop_name(prose, edits[0].path)
                flush()
                out.extend(Piece("edit", edit=e) for e in edits)
                last_path = edits[-1].path
            else:
                prose.extend(lines[index : end + 1])
            index = end + 1
            continue
        if _SEARCH.match(line):
            block, index = _block(lines, index)
            path = _named(_last_text(prose), written) or last_path
            _drop_name(prose, path)
            flush()
            edit = _replacement(path, *block)
            out.append(Piece("edit", edit=edit))
            last_path = path
            continue
        prose.append(line)
        index += 1
    flush()
    return out


def _drop_name(prose: list[str], path: str) -> None:
    """The file's name on the line right before its edit: the call shows it, the prose need not."""
    last = prose[-1].strip() if prose else ""
    if path and last and not any(c.isspace() for c in last) and file_name(last) == path:
        prose.pop()


def _closing(lines: list[str], start: int, fence: str) -> int:
    for index in range(start + 1, len(lines)):
        stripped = lines[index].strip()
        if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
            return index
    return len(lines)  # an unclosed fence runs to the end


def _last_text(lines: list[str]) -> str:
    return next((line for line in reversed(lines) if line.strip()), "")


def _block(lines: list[str], start: int) -> tuple[tuple[str, str], int]:
    """(search, replace) of the SEARCH/REPLACE block at ``start``, and the index after it."""
    search: list[str] = []
    replace: list[str] = []
    side = search
    index = start + 1
    while index < len(lines):
        line = lines[index]
        index += 1
        if _DIVIDER.match(line) and side is search:
            side = replace
        elif _REPLACE.match(line):
            break
        else:
            side.append(line)
    return ("\n".join(search), "\n".join(replace)), index


def _replacement(path: str, search: str, replace: str) -> Edit:
    return Edit(path, "search/replace", unified_diff(path or None, search, replace) or None, search=search)


def _fenced_edits(body: list[str], language: str, before: str, last_path: str, written: set[str]) -> list[Edit]:
    """The edits a fence holds: SEARCH/REPLACE blocks, or (when aider wrote the file) a diff or a whole file."""
    if any(_SEARCH.match(line) for line in body):
        edits = []
        path = _named(before, written) or last_path
        index = 0
        pending: list[str] = []
        while index < len(body):
            if _SEARCH.match(body[index]):
                named = _named(_last_text(pending), written)
                path = named or path
                block, index = _block(body, index)
                edits.append(_replacement(path, *block))
                pending = []
            else:
                pending.append(body[index])
                index += 1
        return edits
    text = "\n".join(body)
    target = _DIFF_TARGET.search(text)
    if language == "diff" and target and file_name(target.group(1)) in written:
        return [Edit(file_name(target.group(1)), "udiff", diff=text)]
    name = file_name(before)
    if name and name in written:
        return [Edit(name, "whole file", content=text)]
    return []


def fenced_text(content: str, path: str) -> str:
    """A whole file's new text as a markdown code block (its language named by its extension)."""
    longest = max((len(run) for run in re.findall(r"`{3,}", content)), default=2)
    fence = "`" * (longest + 1)
    language = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    return f"{fence}{language if language.isalnum() else ''}\n{content.rstrip()}\n{fence}"
