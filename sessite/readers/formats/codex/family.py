"""Which rollouts belong together: a session and the sub-agents it spawned, found by their first line.

A sub-agent runs in a rollout of its own whose ``session_meta`` names its parent
thread (``parent_thread_id``, or ``source.subagent.thread_spawn``). Codex writes
every rollout of a day into one folder (``sessions/YYYY/MM/DD``), so a parent
looks for its sub-agents in its own folder and the next days', and a sub-agent
for its parent in its own folder and the days before (in a flat archive, its
own folder only). Files linked this way are a family: whichever of them
discovery offers first reads them all (``companions``) and yields the root
session with every sub-agent nested where it was spawned (``nest``); a file
with no relative present is read alone. Only each file's first bytes are read
to decide this, once per folder listing.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from sessite.readers.formats.codex.layout import is_legacy_header, subagent_info
from sessite.readers.regular import open_regular
from sessite.readers.safejson import loads

_HEAD_BYTES = 16 * 1024
_NEAR_DAYS = 7  # how many days after its parent a sub-agent's rollout may have started
_MAX_DEPTH = 20  # deeper chains are not followed (a guard against cycles)
_OWN_ID = re.compile(r'"id"\s*:\s*"([^"\\]{1,200})"')
_PARENT = re.compile(r'"parent_thread_id"\s*:\s*"([^"\\]{1,200})"')
_PAYLOAD = re.compile(r'"payload"\s*:\s*\{')
_META_TYPE = re.compile(r'"type"\s*:\s*"session_meta"')


class Head(NamedTuple):
    """What a rollout's first line says of it: its session id and its parent thread's."""

    id: str | None
    parent: str | None


@dataclass
class Family:
    """Rollout files of one session tree: each session id's files, and each id's parent."""

    root: str | None
    files: dict[str, list[Path]] = field(default_factory=dict)  # session id -> its files (snapshots)
    parent_of: dict[str, str] = field(default_factory=dict)  # session id -> parent session id

    @property
    def linked(self) -> bool:
        return bool(self.parent_of)

    def children(self, sid: str) -> list[str]:
        return [child for child, parent in self.parent_of.items() if parent == sid]

    def paths(self) -> list[Path]:
        return [p for files in self.files.values() for p in files]


def head_of(path: Path) -> Head:
    """The session id and parent thread id a rollout's first line names (None, None for anything else)."""
    try:
        stat = path.stat()
    except OSError:
        return Head(None, None)
    return _head(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=4096)
def _head(path: Path, mtime_ns: int, size: int) -> Head:
    try:
        with open_regular(path) as fh:
            text = fh.read(_HEAD_BYTES).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    except OSError:
        return Head(None, None)
    first, newline, _ = text.partition("\n")
    try:
        rec = loads(first) if newline or len(text) < _HEAD_BYTES else None
    except ValueError:
        rec = None
    if isinstance(rec, dict):
        return _head_of_record(rec)
    if not _META_TYPE.search(first):  # a first line longer than the read: its opening tells
        return Head(None, None)
    payload = _PAYLOAD.search(first)
    own = _OWN_ID.search(first, payload.end() if payload else 0)
    parent = _PARENT.search(first)
    return Head(own.group(1) if own else None, parent.group(1) if parent else None)


def _head_of_record(rec: dict[str, Any]) -> Head:
    payload = rec.get("payload")
    if rec.get("type") == "session_meta" and isinstance(payload, dict):
        meta = payload
    elif is_legacy_header(rec):
        meta = rec
    else:
        return Head(None, None)
    own = meta.get("id")
    parent = subagent_info(meta).get("parent_thread_id")
    return Head(own if isinstance(own, str) and own else None, parent if isinstance(parent, str) else None)


def family_of(path: Path) -> Family:
    """The family ``path`` belongs to (just itself when no parent or sub-agent of it is near)."""
    head = head_of(path)
    if head.id is None:
        return Family(None, {"": [path]})
    top, top_path, parent = head.id, path, head.parent
    seen = {head.id}
    for _ in range(_MAX_DEPTH):
        if not parent or parent in seen:
            break
        found = _find(top_path.parent, parent, later=False)
        if found is None:
            break
        top, top_path = parent, found
        seen.add(parent)
        parent = head_of(found).parent
    fam = Family(top)
    _gather(fam, top, top_path, 0)
    fam.files.setdefault(head.id, [path])
    if path not in fam.files[head.id]:
        fam.files[head.id].append(path)
    return fam


def _gather(fam: Family, sid: str, path: Path, depth: int) -> None:
    """``sid``'s files (its snapshots in ``path``'s folder) and, depth first, its sub-agents'."""
    fam.files[sid] = sorted(p for p, h in _folder(path.parent).items() if h.id == sid) or [path]
    if depth >= _MAX_DEPTH:
        return
    children: dict[str, Path] = {}
    for folder in _near(path.parent, later=True):
        for child_path, child in _folder(folder).items():
            if child.parent == sid and child.id and child.id not in fam.files and child.id != sid:
                children.setdefault(child.id, child_path)
    for child_id, child_path in sorted(children.items()):
        fam.parent_of[child_id] = sid
        _gather(fam, child_id, child_path, depth + 1)


def _find(folder: Path, sid: str, later: bool) -> Path | None:
    """The first rollout of session ``sid`` in ``folder`` or its neighbouring day folders."""
    for near in _near(folder, later):
        for path, head in sorted(_folder(near).items()):
            if head.id == sid:
                return path
    return None


def _folder(folder: Path) -> dict[Path, Head]:
    try:
        stamp = folder.stat().st_mtime_ns
    except OSError:
        return {}
    return _folder_heads(folder, stamp)


@lru_cache(maxsize=256)
def _folder_heads(folder: Path, mtime_ns: int) -> dict[Path, Head]:
    """Every rollout in a folder with what its first line names (read once per folder state)."""
    heads: dict[Path, Head] = {}
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return heads
    for name in names:
        if name.endswith(".jsonl") and not name.startswith("."):
            head = head_of(folder / name)
            if head.id is not None:
                heads[folder / name] = head
    return heads


def _near(folder: Path, later: bool) -> list[Path]:
    """``folder``, then (in a ``YYYY/MM/DD`` tree) the day folders after it (or before it) that exist."""
    day = _day_of(folder)
    if day is None:
        return [folder]
    root = folder.parent.parent.parent
    out = [folder]
    for step in range(1, _NEAR_DAYS + 1):
        other = day + timedelta(days=step if later else -step)
        candidate = root / f"{other.year:04d}" / f"{other.month:02d}" / f"{other.day:02d}"
        if candidate.is_dir():
            out.append(candidate)
    return out


def _day_of(folder: Path) -> date | None:
    parts = folder.parts[-3:]
    if len(parts) != 3 or not all(p.isdigit() for p in parts) or [len(p) for p in parts] != [4, 2, 2]:
        return None
    try:
        return date(int(parts[0]), int(parts[1]), int(parts[2]))
    except ValueError:
        return None
