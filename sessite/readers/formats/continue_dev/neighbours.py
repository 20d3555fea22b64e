"""What a session file's neighbours know of it: its date (the index) and its replies' times (dev data).

A session file (``sessions/<id>.json``) holds no time at all. Continue's index beside it
(``sessions/sessions.json``) gives each session's ``dateCreated``; its dev data
(``dev_data/<version>/chatInteraction.jsonl``, beside the ``sessions`` folder) logs each
model call with the session's id, the reply and the time. Both are read once per build
(cached by file, size and time) however many sessions ask, and only inside the archive.
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from sessite.model import Problems
from sessite.readers._util import text_of
from sessite.readers.base import parse_time
from sessite.readers.files import iter_jsonl, load_json, outside_archive

INDEX_NAME = "sessions.json"


def index_path(session: Path, session_id: str | None) -> Path:
    """The index beside a session file (``<prefix>sessions.json`` for ``<prefix><id>.json``)."""
    name = session.name
    suffix = f"{session_id}.json" if session_id else ""
    prefix = name[: -len(suffix)] if suffix and name.endswith(suffix) else ""
    return session.with_name(prefix + INDEX_NAME)


def index_entry(session: Path, session_id: str | None, problems: Problems) -> dict[str, Any] | None:
    path = index_path(session, session_id)
    if not session_id or not _readable(path, problems):
        return None
    return _index(*_key(path)).get(session_id)


def reply_times(session: Path, session_id: str | None, problems: Problems) -> list[tuple[str, datetime]]:
    """(reply, time) of each model call the dev data logged for this session, oldest first."""
    if not session_id or session.parent.name != "sessions":
        return []
    folder = session.parent.parent / "dev_data"
    if not _readable(folder, problems, folder=True):
        return []
    found: list[tuple[str, datetime]] = []
    for log in sorted(folder.glob("*/chatInteraction.jsonl")):
        if _readable(log, problems):
            found.extend(_replies(*_key(log)).get(session_id, ()))
    return sorted(found, key=lambda pair: pair[1])


def _readable(path: Path, problems: Problems, folder: bool = False) -> bool:
    """A file (or folder) that is there and inside the archive (a link out of it is not followed)."""
    there = path.is_dir() if folder else path.is_file()
    return there and not outside_archive(path, Problems(problems.root))


def _key(path: Path) -> tuple[str, int, int]:
    stat = path.stat()
    return str(path), stat.st_mtime_ns, stat.st_size


@lru_cache(maxsize=16)
def _index(path: str, mtime: int, size: int) -> dict[str, dict[str, Any]]:
    """Session id -> its index entry (the index's own problems are its own claim's to report)."""
    entries = load_json(Path(path), Problems())
    out: dict[str, dict[str, Any]] = {}
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, dict) and text_of(entry.get("sessionId")):
            out.setdefault(entry["sessionId"], entry)
    return out


@lru_cache(maxsize=16)
def _replies(path: str, mtime: int, size: int) -> dict[str, list[tuple[str, datetime]]]:
    out: dict[str, list[tuple[str, datetime]]] = {}
    for _, record in iter_jsonl(Path(path), Problems()):
        session_id = text_of(record.get("sessionId"))
        completion = text_of(record.get("completion"))
        when = parse_time(record.get("timestamp"))
        if session_id and completion and when is not None:
            out.setdefault(session_id, []).append((completion, when))
    return out
