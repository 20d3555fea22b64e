"""The Goose reader: which files are Goose's, what each consumes, where Goose keeps them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

from sessite.model import Problems, Session
from sessite.readers._util import SQLITE_ERRORS, SQLITE_HEADER, as_str, connect_ro, obj
from sessite.readers.base import Reader, Sniff
from sessite.readers.files import iter_jsonl
from sessite.readers.formats.goose.database import DB_NAME, NAME, GooseDb
from sessite.readers.formats.goose.sessions import AGENT, db_sessions, jsonl_session
from sessite.readers.platform import Platform, unique
from sessite.readers.safejson import loads

DB_SUFFIXES = (".db", ".sqlite", ".sqlite3")
PROJECTS = "projects.json"  # Goose's list of project folders (last instruction, last session): no messages


class GooseReader(Reader):
    name = NAME
    agent = AGENT

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if sniffed.is_dir:
            return False
        suffix = path.suffix.lower()
        if suffix == ".jsonl":
            return _is_legacy(sniffed)
        if path.name.endswith(PROJECTS):
            return _is_projects(sniffed)
        if path.name != DB_NAME and suffix not in DB_SUFFIXES:
            return False
        return sniffed.raw().startswith(SQLITE_HEADER) and _has_goose_tables(path)

    def companions(self, path: Path) -> list[Path]:
        """A database's log files (``projects.json`` is claimed on its own: it may come first)."""
        if path.suffix.lower() in (".jsonl", ".json"):
            return []
        found = [path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal")]
        return [p for p in found if p.is_file()]

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        if path.suffix.lower() == ".json":
            return  # project folders and last prompts: nothing a session page shows
        if path.suffix.lower() == ".jsonl":
            session = jsonl_session(path, iter_jsonl(path, problems), problems)
            if session is not None:
                yield session
            return
        try:
            db = GooseDb(path, problems)
        except SQLITE_ERRORS as exc:
            problems.add(path, None, f"goose: cannot open the database ({exc})")
            return
        try:
            yield from db_sessions(db)
        except SQLITE_ERRORS as exc:
            problems.add(path, None, f"goose: database read failed ({exc}); the rest is skipped")
        finally:
            db.close()

    def default_folders(self, plat: Platform) -> list[Path]:
        """``<data>/goose/sessions`` (XDG on Linux and macOS), ``%APPDATA%\\Block\\goose\\data\\sessions``
        on Windows, the macOS application-support folder, and ``$GOOSE_PATH_ROOT/data/sessions``."""
        found = []
        root = plat.var("GOOSE_PATH_ROOT")
        if root:
            found.append(root / "data" / "sessions")
        found.append((plat.var("XDG_DATA_HOME") or plat.home / ".local" / "share") / "goose" / "sessions")
        found.append(plat.home / "Library" / "Application Support" / "Block" / "goose" / "sessions")
        if plat.system == "windows" or plat.env.get("APPDATA"):
            appdata = plat.var("APPDATA") or plat.home / "AppData" / "Roaming"
            found.append(appdata / "Block" / "goose" / "data" / "sessions")
        return unique(found)


def _is_legacy(sniffed: Sniff) -> bool:
    """An older session file: a header with ``working_dir`` (and a description or message count), no ``type``.
    The folder's value is not judged: a damaged one costs that value, not the file."""
    head = sniffed.object_line()
    first = head[2] if head is not None else None
    if first is None or "type" in first or "working_dir" not in first:
        return False
    return "message_count" in first or "description" in first or "extension_data" in first


def _is_projects(sniffed: Sniff) -> bool:
    """``{"projects": {"<folder>": {"path", "last_accessed", "last_instruction", "last_session_id"}}}``."""
    try:
        doc = loads(sniffed.text())
    except ValueError:
        return False
    projects = obj(doc).get("projects")
    if not isinstance(projects, dict):
        return False
    entries = [obj(v) for v in list(projects.values())[:5]]
    return bool(entries) and all("last_session_id" in e or "last_instruction" in e for e in entries)


def _has_goose_tables(path: Path) -> bool:
    """``sessions`` and ``messages`` tables, the messages holding ``content_json`` (Crush's have ``parts``)."""
    try:
        with closing(connect_ro(path)) as conn:
            rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
    except SQLITE_ERRORS:
        return False
    tables = {as_str(name): as_str(sql) for name, sql in rows}
    return "sessions" in tables and "content_json" in tables.get("messages", "") and "goose_db_version" not in tables


READER = GooseReader()
