"""Flat sidechains: Claude Code 2.0.x's sub-agent files beside their main file.

2.0.x writes each sub-agent run as ``agent-<id>.jsonl`` in the project folder itself,
every record carrying ``isSidechain: true``, its ``agentId`` and the *parent's*
``sessionId``. A file is told for a sidechain by those records, whatever its name (an
archive may have renamed it). The main file of a session id is ``<sid>.jsonl`` (else a
non-sidechain file of that session id); it and the sidechains are one group, read
together as one session of that id, even when the main file is missing or empty.

Discovery offers a folder's files by name, so the group's first file by name leads
it (``detect`` says yes to it alone) and the others are its companions: no member is
offered alone before its group has claimed it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from sessite.readers.formats.claude_code.layout import agent_id_from_name, main_file_of_agent
from sessite.readers.formats.claude_code.vocabulary import UUID_LIKE
from sessite.readers.regular import open_regular
from sessite.readers.safejson import loads

_HEAD_BYTES = 16 * 1024  # the envelope (sessionId, isSidechain, agentId) opens every record
_SESSION_ID = re.compile(rb'"sessionId"\s*:\s*"([^"\\]{1,200})"')
_SIDECHAIN = re.compile(rb'"isSidechain"\s*:\s*true')
_AGENT_ID = re.compile(rb'"agentId"\s*:\s*"([^"\\]{1,200})"')


@dataclass(frozen=True)
class Head:
    """What a file's first records say about it."""

    sid: str | None = None  # the session id of the first record that has one
    sidechain: bool = False  # that record is a sidechain's
    agent_id: str | None = None


@dataclass
class FolderIndex:
    """The ``.jsonl`` files of one folder by session id: sidechains and main files, each by name."""

    sidechains: dict[str, list[Path]] = field(default_factory=dict)
    mains: dict[str, list[Path]] = field(default_factory=dict)


def read_head(path: Path, head: bytes | None = None) -> Head:
    """The first record with a ``sessionId`` among a file's first bytes (``head``, when already read)."""
    if head is None:
        try:
            with open_regular(path) as fh:
                head = fh.read(_HEAD_BYTES)
        except OSError:
            return Head()
    lines = head[:_HEAD_BYTES].split(b"\n")
    for line in lines[:-1] if len(lines) > 1 else lines:
        rec = _parse(line)
        if isinstance(rec, dict) and isinstance(rec.get("sessionId"), str) and rec["sessionId"]:
            agent = rec.get("agentId")
            return Head(rec["sessionId"], rec.get("isSidechain") is True, agent if isinstance(agent, str) else None)
    # A first record longer than the head: its envelope comes first, so the fields are in it.
    sid, agent = _SESSION_ID.search(head), _AGENT_ID.search(lines[0])
    return Head(
        sid.group(1).decode("utf-8", "replace") if sid else None,
        bool(_SIDECHAIN.search(lines[0])),
        agent.group(1).decode("utf-8", "replace") if agent else None,
    )


def _parse(line: bytes) -> object:
    line = line.strip()
    if not line.startswith((b"{", b"\xef\xbb\xbf{")):
        return None
    try:
        return loads(line.decode("utf-8", "replace").lstrip("\ufeff"))
    except ValueError:
        return None


def flat_session(path: Path, head: bytes | None = None) -> str | None:
    """For a flat sidechain (a ``.jsonl`` not under ``subagents/`` whose records are a sidechain's):
    its parent's session id."""
    if path.suffix.lower() != ".jsonl" or main_file_of_agent(path) is not None:
        return None
    found = read_head(path, head)
    return found.sid if found.sidechain else None


def agent_id_of(path: Path) -> str:
    """A sub-agent file's agent id: from its name (``agent-<id>.jsonl``), else from its records."""
    if path.name.startswith("agent-"):
        return agent_id_from_name(path)
    return read_head(path).agent_id or path.stem


def folder_index(folder: Path) -> FolderIndex:
    try:
        stamp = folder.stat().st_mtime_ns
    except OSError:
        return FolderIndex()
    return _folder_index(str(folder), stamp)


@lru_cache(maxsize=32)
def _folder_index(folder: str, stamp: int) -> FolderIndex:
    """Read once per folder state (``stamp``: files come and go): every file of it asks."""
    index = FolderIndex()
    try:
        with os.scandir(folder) as entries:
            names = sorted(e.name for e in entries if e.name.endswith(".jsonl") and not e.name.startswith("."))
    except OSError:
        return index
    for name in names:
        path = Path(folder) / name
        head = read_head(path)
        if head.sid and path.is_file():
            (index.sidechains if head.sidechain else index.mains).setdefault(head.sid, []).append(path)
    return index


def main_of(folder: Path, sid: str) -> Path | None:
    """The main file of a session id in a folder: ``<sid>.jsonl``, else a file of that session's."""
    named = folder / f"{sid}.jsonl"
    if named.is_file():
        return named
    mains = folder_index(folder).mains.get(sid)
    return mains[0] if mains else None


def group_members(folder: Path, sid: str) -> list[Path]:
    """The main file (when there is one) and the flat sidechains of a session id, by name."""
    main = main_of(folder, sid)
    members = [*folder_index(folder).sidechains.get(sid, ()), *([main] if main else [])]
    return sorted(members, key=lambda p: p.name)


def flat_agents_of_main(path: Path) -> list[Path]:
    """The flat sidechains beside a main file that carry its session id."""
    sid = path.stem if UUID_LIKE.match(path.stem) else read_head(path).sid
    if not sid or main_of(path.parent, sid) != path:
        return []
    return [p for p in folder_index(path.parent).sidechains.get(sid, ()) if p != path]


def flat_sidechains(path: Path) -> list[Path]:
    """The flat sidechains of ``path``'s session, ``path`` first."""
    sid = flat_session(path)
    group = folder_index(path.parent).sidechains.get(sid, []) if sid else []
    return sorted({path, *group}, key=lambda p: (p != path, p.name))


def leads_sidechains(path: Path) -> bool:
    """An empty (or bookkeeping-only) ``<sessionId>.jsonl`` whose flat sidechains lie beside it."""
    return bool(UUID_LIKE.match(path.stem)) and path.stem in folder_index(path.parent).sidechains
