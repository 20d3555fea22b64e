"""The Zed reader: which files are Zed's thread store, what each consumes, where Zed keeps it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

from sessite.model import Problems, Session
from sessite.readers._util import SQLITE_ERRORS, SQLITE_HEADER, as_str, connect_ro
from sessite.readers.base import Reader, Sniff
from sessite.readers.formats.zed.database import NAME, has_threads_table, read
from sessite.readers.formats.zed.sessions import AGENT, sessions
from sessite.readers.platform import Platform, unique

DB_NAME = "threads.db"
DB_SUFFIXES = (".db", ".sqlite", ".sqlite3")


class ZedReader(Reader):
    name = NAME
    agent = AGENT

    def detect(self, sniffed: Sniff) -> bool:
        """``threads.db`` (or another database) whose ``threads`` table has Zed's ``summary`` and ``data_type``."""
        path = sniffed.path
        if sniffed.is_dir or path.suffix.lower() not in DB_SUFFIXES:
            return False
        if not sniffed.raw().startswith(SQLITE_HEADER):
            return False
        try:
            with closing(connect_ro(path)) as conn:
                rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
        except SQLITE_ERRORS:
            return False
        return has_threads_table({as_str(name): as_str(sql) for name, sql in rows})

    def companions(self, path: Path) -> list[Path]:
        return [p for p in (path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal")) if p.is_file()]

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        try:
            threads = read(path, problems)
        except SQLITE_ERRORS as exc:
            problems.add(path, None, f"zed: cannot read the database ({exc})")
            return
        yield from sessions(threads, path, problems)

    def default_folders(self, plat: Platform) -> list[Path]:
        """``threads/`` in Zed's data folder: ``$XDG_DATA_HOME/zed`` (or ``~/.local/share/zed``, and the
        Flatpak's) on Linux, ``~/Library/Application Support/Zed`` on macOS, ``%LOCALAPPDATA%\\Zed`` on Windows."""
        data = plat.var("XDG_DATA_HOME") or plat.home / ".local" / "share"
        found = [
            data / "zed" / "threads",
            plat.home / ".var" / "app" / "dev.zed.Zed" / "data" / "zed" / "threads",
            plat.home / "Library" / "Application Support" / "Zed" / "threads",
        ]
        if plat.system == "windows" or plat.env.get("LOCALAPPDATA"):
            found.append((plat.var("LOCALAPPDATA") or plat.home / "AppData" / "Local") / "Zed" / "threads")
        return unique(found)

    def discovery_roots(self, folder: Path) -> tuple[Path, ...]:
        db = folder / DB_NAME
        return (db,) if db.is_file() else ()


READER = ZedReader()
