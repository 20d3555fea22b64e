"""The Warp reader: which files are Warp's database, what each consumes, where Warp keeps it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from sessite.model import Problems, Session
from sessite.readers._util import SQLITE_ERRORS, SQLITE_HEADER, table_names
from sessite.readers.base import Reader, Sniff
from sessite.readers.formats.warp.database import NAME, has_ai_tables, read
from sessite.readers.formats.warp.sessions import AGENT, sessions
from sessite.readers.platform import Platform, unique

DB_NAME = "warp.sqlite"
DB_SUFFIXES = (".sqlite", ".sqlite3", ".db")
_MAC_GROUP = ("Library", "Group Containers", "2BBY89MBSN.dev.warp", "Library", "Application Support")
_CHANNELS = ("Stable", "Preview")


class WarpReader(Reader):
    name = NAME
    agent = AGENT

    def detect(self, sniffed: Sniff) -> bool:
        """``warp.sqlite`` with a SQLite header; another database name only with Warp's AI tables."""
        path = sniffed.path
        if sniffed.is_dir or not sniffed.raw().startswith(SQLITE_HEADER):
            return False
        if path.name == DB_NAME:
            return True
        return path.suffix.lower() in DB_SUFFIXES and has_ai_tables(table_names(path))

    def companions(self, path: Path) -> list[Path]:
        return [p for p in (path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal")) if p.is_file()]

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        try:
            data = read(path, problems)
        except SQLITE_ERRORS as exc:
            problems.add(path, None, f"warp: cannot read the database ({exc})")
            return
        yield from sessions(data, path, problems)

    def default_folders(self, plat: Platform) -> list[Path]:
        """Linux ``~/.local/state/warp-terminal`` (``$XDG_STATE_HOME``), macOS the app's group container,
        Windows ``%LOCALAPPDATA%\\warp\\Warp\\data`` (and the Preview channel's folders)."""
        state = plat.var("XDG_STATE_HOME") or plat.home / ".local" / "state"
        found = [state / "warp-terminal", state / "warp-terminal-preview"]
        mac = plat.home.joinpath(*_MAC_GROUP)
        found += [mac / f"dev.warp.Warp-{channel}" for channel in _CHANNELS]
        if plat.system == "windows" or plat.env.get("LOCALAPPDATA"):
            local = plat.var("LOCALAPPDATA") or plat.home / "AppData" / "Local"
            found += [local / "warp" / "Warp" / "data", local / "warp" / "WarpPreview" / "data"]
        return unique(found)

    def discovery_roots(self, folder: Path) -> tuple[Path, ...]:
        """Only the database: the folder also holds logs, themes and caches."""
        db = folder / DB_NAME
        return (db,) if db.is_file() else ()


READER = WarpReader()
