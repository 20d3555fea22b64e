"""Walking an archive's folders without recursion, to a bounded depth, regular files only.

``os.walk`` recurses in Python before 3.12: a folder nested 1,500 deep ends a build
with a ``RecursionError``. And it lists a FIFO or a socket among the files, which
would hang whatever opens it. This walk keeps an explicit stack, stops at
``MAX_FOLDER_DEPTH`` levels below the root (one problem line per folder not entered),
and hands back what is neither a folder nor a regular file apart, to be named once
and skipped.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path

from sessite.readers.limits import MAX_FOLDER_DEPTH
from sessite.readers.regular import kind_of


@dataclass
class Folder:
    """One folder's listing: like os.walk's tuple, with ``odd`` (name, kind) for what is not a
    regular file (a FIFO, a socket, a device). Prune ``dirs`` in place to skip subfolders."""

    path: str
    dirs: list[str]
    files: list[str]
    odd: list[tuple[str, str]] = field(default_factory=list)
    depth: int = 0


def walk(
    root: str | os.PathLike[str],
    onerror: Callable[[OSError], None],
    too_deep: Callable[[str], None],
    max_depth: int = MAX_FOLDER_DEPTH,
    follow: Callable[[str], bool] | None = None,
) -> Iterator[Folder]:
    """Top-down, like ``os.walk(root, onerror=...)`` (symlinked folders listed, not entered, unless
    ``follow(path)`` says so: discovery follows a symlinked agent folder, each target once);
    ``too_deep(path)`` is called for each folder ``max_depth`` levels down, which is not entered."""
    entered: set[str] = set()
    stack = [(os.fspath(root), 0)]
    while stack:
        top, depth = stack.pop()
        try:
            folder = _list(top, depth)
        except OSError as exc:
            onerror(exc)
            continue
        yield folder
        below = []
        for name in folder.dirs:
            path = os.path.join(top, name)
            if os.path.islink(path):
                target = os.path.realpath(path)
                if follow is None or target in entered or not follow(path):
                    continue
                entered.add(target)
            if depth + 1 > max_depth:
                too_deep(path)
                continue
            below.append((path, depth + 1))
        stack.extend(reversed(below))


def _list(top: str, depth: int) -> Folder:
    folder = Folder(top, [], [], depth=depth)
    with os.scandir(top) as entries:
        for entry in entries:
            try:
                if entry.is_dir():
                    folder.dirs.append(entry.name)
                    continue
                if entry.is_file():
                    folder.files.append(entry.name)
                    continue
                kind = kind_of(entry.stat().st_mode)
            except OSError:
                kind = ""  # a dangling symlink and the like: listed, and opening it says why
            if kind:
                folder.odd.append((entry.name, kind))
            else:
                folder.files.append(entry.name)
    return folder


def _ignore(_: object) -> None:
    return None


def iter_files_below(folder: Path, pattern: str = "*") -> Iterator[Path]:
    """The regular files below ``folder`` (at any depth to the cap) whose names match ``pattern``:
    ``Path.rglob`` without its recursion (a RecursionError 1,000 folders deep) and without FIFOs.
    Folders that cannot be listed are passed over (discovery has said so)."""
    for listing in walk(folder, onerror=_ignore, too_deep=_ignore):
        for name in listing.files:
            if fnmatch(name, pattern):
                yield Path(listing.path) / name


def files_below(folder: Path, pattern: str = "*") -> list[Path]:
    """``iter_files_below``, sorted (as ``sorted(folder.rglob(pattern))`` was)."""
    return sorted(iter_files_below(folder, pattern))
