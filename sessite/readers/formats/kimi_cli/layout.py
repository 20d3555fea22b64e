"""Where a Kimi session's files are, and what a first look at one tells.

Kimi CLI: ``~/.kimi/sessions/<md5 of the working folder>/<session>/`` holds ``wire.jsonl``
(the UI event log), ``context.jsonl`` (the model's messages; ``context_<n>.jsonl`` are
older copies kept by ``/undo`` and compaction, ``context_sub_<n>.jsonl`` a sub-agent's) and
``state.json``; ``~/.kimi/kimi.json`` lists the working folders, so the folder's hash
names the session's working folder. Kimi Code: ``~/.kimi-code/sessions/wd_<folder>_<hash>/
session_<id>/`` holds ``state.json`` (title, working folder, agents) and
``agents/<agent>/wire.jsonl``, one log per agent (``main`` and its sub-agents).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from sessite.model import Problems
from sessite.readers._util import obj, text_of
from sessite.readers.base import Sniff
from sessite.readers.files import load_json

CONTEXT_ROLES = frozenset({"user", "assistant", "tool", "system", "_checkpoint", "_usage", "_system_prompt"})


def is_wire(sniffed: Sniff) -> bool:
    """A wire log: a ``metadata`` header with a protocol version, or (older) ``{timestamp, message: {type, payload}}``
    records; a sub-agent's Kimi Code log is read with its main agent's, not alone."""
    path = sniffed.path
    if path.suffix.lower() != ".jsonl" or main_wire(path) is not None:
        return False
    head = sniffed.object_line()
    first = head[2] if head is not None else None
    if first is None:
        return False
    if first.get("type") == "metadata" and "protocol_version" in first:
        return True
    return all(_envelope(r) for r in sniffed.json_lines(3))


def _envelope(record: dict[str, Any]) -> bool:
    message = record.get("message")
    return (
        isinstance(record.get("timestamp"), (int, float))
        and isinstance(message, dict)
        and isinstance(message.get("type"), str)
        and isinstance(message.get("payload"), dict)
    )


def is_lone_context(sniffed: Sniff) -> bool:
    """A ``context.jsonl`` with no wire log beside it (an older session): read as the session."""
    path = sniffed.path
    if path.name != "context.jsonl" or _size(path.parent / "wire.jsonl") > 0:
        return False
    records = list(sniffed.json_lines(5))
    return (
        bool(records)
        and all(r.get("role") in CONTEXT_ROLES for r in records)
        and any(r.get("role") in ("user", "assistant", "_checkpoint") for r in records)
    )


def session_log(folder: Path) -> Path | None:
    """The log a session folder is read from: Kimi CLI's ``wire.jsonl`` (else a lone ``context.jsonl``),
    or Kimi Code's ``agents/main/wire.jsonl``; None for any other folder (an agent's own folder is
    read with its session's)."""
    if folder.parent.name == "agents":
        return None
    for candidate in (folder / "wire.jsonl", folder / "agents" / "main" / "wire.jsonl"):
        if candidate.is_file() and is_wire(Sniff(candidate)):
            return candidate
    lone = folder / "context.jsonl"
    if lone.is_file() and is_lone_context(Sniff(lone)):
        return lone
    return None


def _size(path: Path) -> int:
    try:
        return path.stat().st_size if path.is_file() else 0
    except OSError:
        return 0


def main_wire(path: Path) -> Path | None:
    """For a Kimi Code sub-agent's log (``agents/<id>/wire.jsonl``), the main agent's log beside it."""
    if path.name != "wire.jsonl" or path.parent.parent.name != "agents" or path.parent.name == "main":
        return None
    main = path.parent.parent / "main" / "wire.jsonl"
    return main if main.is_file() else None


def agent_logs(path: Path) -> list[Path]:
    """For a Kimi Code main log, its sub-agents' logs (``agents/<id>/wire.jsonl``)."""
    if path.name != "wire.jsonl" or path.parent.name != "main" or path.parent.parent.name != "agents":
        return []
    try:
        return sorted(
            p / "wire.jsonl" for p in path.parent.parent.iterdir() if p.name != "main" and (p / "wire.jsonl").is_file()
        )
    except OSError:
        return []


def contexts(path: Path) -> list[Path]:
    """Kimi CLI's context files beside a session's log (``context.jsonl`` first)."""
    if path.name not in ("wire.jsonl", "context.jsonl"):
        return []
    try:
        found = sorted(p for p in path.parent.glob("context*.jsonl") if p.is_file() and p != path)
    except OSError:
        return []
    return sorted(found, key=lambda p: (p.name != "context.jsonl", p.name))


def state_file(path: Path) -> Path | None:
    """The session's ``state.json``: beside a Kimi CLI log, or two folders up from a Kimi Code agent's."""
    if path.name in ("wire.jsonl", "context.jsonl") and (path.parent / "state.json").is_file():
        return path.parent / "state.json"
    if path.parent.parent.name == "agents" and (path.parents[2] / "state.json").is_file():
        return path.parents[2] / "state.json"
    return None


def session_id(path: Path) -> str:
    """The session folder's name (``session_`` dropped), or the file's stem for a file out of its folder."""
    folder = path.parents[2] if path.parent.parent.name == "agents" else path.parent
    if path.name in ("wire.jsonl", "context.jsonl") or path.parent.parent.name == "agents":
        name = folder.name
        return name[len("session_") :] if name.startswith("session_") else name
    return path.stem


def work_dir(path: Path, problems: Problems) -> str | None:
    """Kimi CLI names a session's folder by the MD5 of its working folder; ``kimi.json`` lists them."""
    folder = path.parent.parent
    listing = folder.parent.parent / "kimi.json"
    if folder.parent.name != "sessions" or len(folder.name) != 32 or not listing.is_file():
        return None
    for entry in obj(load_json(listing, problems)).get("work_dirs") or []:
        candidate = text_of(obj(entry).get("path"))
        if (
            candidate
            and hashlib.md5(candidate.encode("utf-8", "surrogatepass"), usedforsecurity=False).hexdigest()
            == folder.name
        ):
            return candidate
    return None
