"""The Crush reader: which files are Crush databases, what each consumes, where Crush keeps them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from sessite.model import Problems, Session
from sessite.readers._util import SQLITE_ERRORS, SQLITE_HEADER, obj, table_names, text_of
from sessite.readers.base import Reader, Sniff
from sessite.readers.files import decode_bytes
from sessite.readers.formats.crush.sessions import AGENT, sessions
from sessite.readers.formats.crush.store import DB_NAME, NAME, TABLES, CrushStore
from sessite.readers.platform import Platform
from sessite.readers.regular import open_regular
from sessite.readers.safejson import loads

DB_SUFFIXES = (".db", ".sqlite", ".sqlite3")
_PROJECTS = "projects.json"  # Crush's list of the projects it has run in, in its global data folder
_MAX_PROJECTS = 5000


class CrushReader(Reader):
    name = NAME
    dot_names = (".crush",)  # found inside an archived project, too
    agent = AGENT

    def detect(self, sniffed: Sniff) -> bool:
        """``crush.db`` with a SQLite header; another database name only with Crush's tables."""
        path = sniffed.path
        if sniffed.is_dir or not sniffed.raw().startswith(SQLITE_HEADER):
            return False
        if path.name == DB_NAME:
            return True
        return path.suffix.lower() in DB_SUFFIXES and table_names(path) >= TABLES

    def companions(self, path: Path) -> list[Path]:
        """The database's log files, and the empty ``init`` marker Crush keeps beside ``crush.db``."""
        found = [path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal")]
        if path.name == DB_NAME:
            found.append(path.with_name("init"))
        return [p for p in found if p.is_file()]

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        try:
            store = CrushStore(path, problems)
        except SQLITE_ERRORS as exc:
            problems.add(path, None, f"crush: cannot open the database ({exc})")
            return
        try:
            yield from sessions(store)
        except SQLITE_ERRORS as exc:
            problems.add(path, None, f"crush: database read failed ({exc}); the rest is skipped")
        finally:
            store.close()

    def default_folders(self, plat: Platform) -> list[Path]:
        """Crush's global data folder, whose ``projects.json`` lists each project's ``.crush`` folder."""
        override = plat.var("CRUSH_GLOBAL_DATA")
        if override:
            return [override]
        xdg = plat.var("XDG_DATA_HOME")
        if xdg:
            return [xdg / "crush"]
        if plat.system == "windows":
            return [(plat.var("LOCALAPPDATA") or plat.home / "AppData" / "Local") / "crush"]
        return [plat.home / ".local" / "share" / "crush"]

    def discovery_roots(self, folder: Path) -> tuple[Path, ...]:
        """The ``crush.db`` of every project ``projects.json`` lists (and of the global workspace)."""
        found = [folder / ".crush" / DB_NAME, folder / DB_NAME]
        for data_dir in _project_data_dirs(folder / _PROJECTS):
            found.append(data_dir / DB_NAME)
        return tuple(p for p in dict.fromkeys(found) if p.is_file())


def _project_data_dirs(projects: Path) -> list[Path]:
    """``{"projects": [{"path", "data_dir"}]}``: each project's data folder (``<path>/.crush`` if unnamed)."""
    try:
        with open_regular(projects) as fh:
            doc = loads(decode_bytes(fh.read(16 * 1024 * 1024))[0])
    except (OSError, ValueError):
        return []
    entries = obj(doc).get("projects")
    out = []
    for entry in entries[:_MAX_PROJECTS] if isinstance(entries, list) else []:
        data_dir = text_of(obj(entry).get("data_dir"))
        project = text_of(obj(entry).get("path"))
        if data_dir:
            out.append(Path(data_dir))
        elif project:
            out.append(Path(project) / ".crush")
    return out


READER = CrushReader()
