"""``git blame`` at HEAD for the files a user opted into (``--blame GLOB``): per line, the commit that
last changed it, the line's number in that commit, and its text."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path

from sessite.gitlinks.history import GitError, git

BLAME_MAX_BYTES = 512 << 10  # a bigger file is a problem line, not a page (its page would near 10 MB)
BLAME_MAX_FILES = 2000


@dataclass(frozen=True, slots=True)
class BlameLine:
    sha: str
    original: int  # the line's number in ``sha``'s version of the file
    text: str


@dataclass(frozen=True, slots=True)
class BlamedFile:
    path: str
    lines: tuple[BlameLine, ...]


def matching_files(repo: str | Path, globs: tuple[str, ...]) -> list[str]:
    """The files at HEAD whose path matches one of ``globs`` (``fnmatch``, ``*`` crosses folders)."""
    raw = git(repo, "ls-tree", "-r", "-z", "--name-only", "HEAD")
    paths = [p.decode("utf-8", "surrogateescape") for p in raw.split(b"\0") if p]
    return [p for p in paths if any(fnmatch.fnmatchcase(p, g) for g in globs)]


def parse_porcelain(raw: str) -> list[BlameLine]:
    """``git blame --porcelain`` output: a header line per line (sha, original, final[, count]),
    headers the first time a commit appears, then the line's text after a tab."""
    lines: list[BlameLine] = []
    sha, original = "", 0
    expect_header = True
    for row in raw.split("\n"):
        if expect_header:
            parts = row.split(" ")
            if len(parts) >= 3 and len(parts[0]) == 40:
                sha, original = parts[0], int(parts[1])
                expect_header = False
            continue
        if row.startswith("\t"):
            lines.append(BlameLine(sha, original, row[1:]))
            expect_header = True
    return lines


def blame_file(repo: str | Path, path: str) -> BlamedFile | str:
    """The file blamed at HEAD, or why it was not (binary, too big, git's error)."""
    try:
        size = int(git(repo, "cat-file", "-s", f"HEAD:{path}").decode().strip() or 0)
        if size > BLAME_MAX_BYTES:
            return f"{path}: not blamed, {size} bytes is over {BLAME_MAX_BYTES}"
        raw = git(repo, "blame", "--porcelain", "HEAD", "--", path)
    except GitError as exc:
        return f"{path}: not blamed ({exc})"
    if b"\0" in raw:
        return f"{path}: not blamed, a binary file"
    return BlamedFile(path, tuple(parse_porcelain(raw.decode("utf-8", "replace"))))
