"""Opening only regular files: a FIFO, socket or device named like a session file is never read.

Opening a FIFO for reading blocks until something writes to it, so one planted in an
archive (``agent-x.jsonl``, a ``-wal`` beside a store) would hang a build forever; a
character device such as ``/dev/zero`` never ends. So the path is looked at with
``os.stat`` first, opened with ``O_NONBLOCK`` (a FIFO swapped in between does not
block the open) and looked at again through the open descriptor.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a folder"),
)


class NotRegularFile(OSError):
    """The path is something other than a regular file (an OSError, so every caller that
    survives an unreadable file survives this one too)."""

    def __init__(self, path: str | os.PathLike[str], kind: str) -> None:
        super().__init__(f"{kind}, not a regular file; not read")
        self.strerror = f"{kind}, not a regular file; not read"
        self.filename = os.fspath(path)
        self.kind = kind


def kind_of(mode: int) -> str:
    """What a ``st_mode`` is, in words (``a FIFO``), or ``""`` for a regular file."""
    if stat.S_ISREG(mode):
        return ""
    return next((words for test, words in _KINDS if test(mode)), "not a regular file")


def odd_kind(path: str | os.PathLike[str]) -> str:
    """``""`` for a regular file (or one that cannot be looked at: opening it says why), else
    what it is instead. Follows symlinks, as opening does."""
    try:
        return kind_of(os.stat(path).st_mode)
    except (OSError, ValueError):
        return ""


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """``open(path, "rb")`` for a regular file; raises ``NotRegularFile`` (an OSError) for
    anything else, without ever blocking."""
    kind = odd_kind(path)
    if kind:
        raise NotRegularFile(path, kind)
    fd = os.open(path, _FLAGS)
    try:
        kind = kind_of(os.fstat(fd).st_mode)
        if kind:
            raise NotRegularFile(path, kind)
        if _FLAGS & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike[str], size: int = -1) -> bytes:
    """The first ``size`` bytes (all when -1) of a regular file; raises OSError as ``open_regular``."""
    with open_regular(path) as fh:
        return fh.read(size)


def is_regular(path: Path) -> bool:
    """True for a regular file (following symlinks), without opening it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False
