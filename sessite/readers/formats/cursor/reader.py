"""The Cursor reader: which files are Cursor stores, what each consumes, and the read itself."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from sessite.model import Problems, Session
from sessite.readers._util import SQLITE_ERRORS, is_sqlite, table_names
from sessite.readers.base import Reader, Sniff
from sessite.readers.formats.cursor.database import DbStore
from sessite.readers.formats.cursor.keys import AGENT, DB_NAME, NAME
from sessite.readers.formats.cursor.sessions import store_sessions
from sessite.readers.formats.cursor.store import JsonStore, Store, json_companions, json_kind
from sessite.readers.platform import Platform


class CursorReader(Reader):
    """A Cursor store (database or JSON dump): one Session per composer and per old chat tab."""

    name = NAME
    claims_directories = False
    agent = AGENT

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        suffix = path.suffix.lower()
        if suffix == ".json":
            return json_kind(path, sniffed.text(4096)) is not None
        if path.name == DB_NAME:
            return is_sqlite(path)
        if not is_sqlite(path):
            return False
        tables = table_names(path)
        return "cursorDiskKV" in tables or ("ItemTable" in tables and suffix in (".vscdb", ".backup"))

    def companions(self, path: Path) -> list[Path]:
        """The other JSON files of a dump; a database's journal, backup and workspace.json."""
        if path.suffix.lower() == ".json":
            return json_companions(path)
        found = [path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal", ".backup")]
        if path.name == DB_NAME:
            found.append(path.with_name("workspace.json"))
        return [p for p in found if p.is_file()]

    def default_folders(self, plat: Platform) -> list[Path]:
        """Cursor's ``User`` folder in each settings folder."""
        return [config / "Cursor" / "User" for config in plat.config_dirs]

    def discovery_roots(self, folder: Path) -> tuple[Path, ...]:
        """The global and per-workspace ``state.vscdb`` only: ``User`` holds every extension's storage."""
        if not (folder.is_dir() and ((folder / "globalStorage").is_dir() or (folder / "workspaceStorage").is_dir())):
            return (folder,)
        found = [folder / "globalStorage" / DB_NAME]
        with contextlib.suppress(OSError):
            found += sorted(p / DB_NAME for p in (folder / "workspaceStorage").iterdir() if p.is_dir())
        return tuple(p for p in found if p.is_file())

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        if path.suffix.lower() == ".json":
            store: Store = JsonStore(path, problems)
        else:
            try:
                store = DbStore(path, problems)
            except SQLITE_ERRORS as exc:
                problems.add(path, None, f"cursor: cannot open the database ({exc})")
                return
        try:
            yield from store_sessions(store, path, problems)
        except SQLITE_ERRORS as exc:
            problems.add(path, None, f"cursor: database read failed ({exc}); the rest is skipped")
        finally:
            store.close()


READER = CursorReader()
