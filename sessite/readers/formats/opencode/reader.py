"""The OpenCode Reader: a storage tree (a folder), a database or an export file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from sessite.model import Problems, Session
from sessite.readers._util import SQLITE_ERRORS
from sessite.readers.base import Reader, Sniff
from sessite.readers.formats.opencode.assemble import sessions
from sessite.readers.formats.opencode.database import DbSource
from sessite.readers.formats.opencode.detect import (
    AGENT,
    DB_NAME,
    FORK_DB_NAMES,
    FORK_FOLDERS,
    NAME,
    is_db,
    is_db_name,
    is_export,
    is_export_with_damaged_info,
    is_tree,
)
from sessite.readers.formats.opencode.sources import ExportSource, Source, TreeSource
from sessite.readers.platform import Platform
from sessite.readers.walk import files_below


class OpenCodeReader(Reader):
    name = NAME
    claims_directories = True
    claims_files = True  # opencode.db and export files
    agent = AGENT

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if path.is_dir():
            return path.parent.name not in FORK_FOLDERS and is_tree(path)
        if path.name in FORK_DB_NAMES:
            return False
        if is_db_name(path):
            return is_db(path)
        if path.suffix.lower() == ".json":
            return is_export(sniffed.text(4096)) or is_export_with_damaged_info(sniffed.text())
        return False

    def companions(self, path: Path) -> list[Path]:
        if path.is_dir():
            try:
                return files_below(path)
            except OSError:
                return []
        if is_db_name(path):
            return [p for p in (path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal")) if p.is_file()]
        return []

    def default_folders(self, plat: Platform) -> list[Path]:
        """``opencode`` in the XDG data folders."""
        return [data / "opencode" for data in plat.data_dirs]

    def discovery_roots(self, folder: Path) -> tuple[Path, ...]:
        """The ``storage`` tree and ``opencode.db`` only: the data folder also holds logs and git snapshots."""
        if not (folder.name == "opencode" or (folder / "storage").is_dir() or (folder / DB_NAME).is_file()):
            return (folder,)
        return tuple(
            p
            for p in (folder / "storage", folder / DB_NAME)
            if p.exists() and (p.is_file() or (p / "session").is_dir())
        )

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        if path.is_dir():
            source: Source = TreeSource(path, problems)
        elif path.suffix.lower() == ".json":
            source = ExportSource(path, problems)
        else:
            try:
                source = DbSource(path, problems)
            except SQLITE_ERRORS as exc:
                problems.add(path, None, f"opencode: cannot open the database ({exc})")
                return
        try:
            yield from sessions(source, problems)
        except SQLITE_ERRORS as exc:
            problems.add(path, None, f"opencode: database read failed ({exc}); the rest is skipped")
        finally:
            source.close()


READER = OpenCodeReader()
