"""A consistent copy of one file while its agent may be writing it, taken without writing beside it.

- a JSON-lines file is copied to its last complete line: a record the agent is half-way through
  writing is left for the next run (a last line without its newline is kept when it is whole JSON);
- a SQLite store is read with its committed ``-wal`` applied in memory (``readers.sqlite_wal``:
  opening it any other way would checkpoint the log or create a ``-shm`` in the agent's folder)
  and written out through SQLite's backup API, so the copy is one self-contained database;
- anything else is copied as it is.

A file that changes while it is copied is copied again (a few times at most).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Literal

from sessite.model import Problems
from sessite.readers._util import is_sqlite
from sessite.readers.regular import open_regular
from sessite.readers.sqlite_wal import open_database, wal_path

Kind = Literal["jsonl", "json", "sqlite", "bytes"]
_TRIES = 3
_CHUNK = 1 << 20


def kind_of(path: Path) -> Kind:
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    if suffix == ".json":
        return "json"
    return "sqlite" if is_sqlite(path) else "bytes"


def _state(path: Path) -> tuple[tuple[int, int], ...]:
    """What changes when the agent writes: size and mtime of the file (and of a store's log)."""
    out = []
    for p in (path, wal_path(path)):
        try:
            st = p.stat()
            out.append((st.st_size, st.st_mtime_ns))
        except OSError:
            out.append((-1, -1))
    return tuple(out)


def take(path: Path, into: Path, problems: Problems) -> tuple[Kind, Path] | None:
    """Copy ``path`` consistently to the new file ``into``; None (and one problem) when it cannot be read."""
    kind = kind_of(path)
    for _ in range(_TRIES):
        before = _state(path)
        try:
            if kind == "sqlite":
                _sqlite(path, into, problems)
            else:
                _copy(path, into, whole_lines=kind == "jsonl")
        except (OSError, sqlite3.Error) as exc:
            problems.add(path, None, f"cannot copy: {getattr(exc, 'strerror', None) or exc}", "collect")
            return None
        if _state(path) == before:
            return kind, into
    problems.add(path, None, f"kept changing while it was copied; copied as of the last of {_TRIES} tries", "collect")
    return kind, into


def _copy(path: Path, into: Path, whole_lines: bool) -> None:
    with open_regular(path) as src, open(into, "wb") as dst:
        shutil.copyfileobj(src, dst, _CHUNK)
    if whole_lines:
        _cut_to_last_line(into)


def _cut_to_last_line(path: Path) -> None:
    """Drop a last line the agent has not finished writing (no newline, and not whole JSON)."""
    size = path.stat().st_size
    with open(path, "rb+") as fh:
        pos = size
        while pos > 0:
            step = min(_CHUNK, pos)
            fh.seek(pos - step)
            chunk = fh.read(step)
            at = chunk.rfind(b"\n")
            if at >= 0:
                pos = pos - step + at + 1
                break
            pos -= step
        fh.seek(pos)
        tail = fh.read()
        if not tail.strip() or _whole_json(tail):
            return
        fh.truncate(pos)


def _whole_json(data: bytes) -> bool:
    try:
        json.loads(data)
    except ValueError:
        return False
    return True


def _sqlite(path: Path, into: Path, problems: Problems) -> None:
    source = open_database(path, problems, "collect")
    try:
        target = sqlite3.connect(into)
        try:
            source.backup(target)
            target.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, no -wal to carry
        finally:
            target.close()
    finally:
        source.close()
