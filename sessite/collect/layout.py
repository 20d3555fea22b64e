"""Which files an agent folder holds, and where each goes in the archive."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from sessite.model import Problems
from sessite.readers import discover
from sessite.readers.locations import Location

# SQLite's side files: the log is folded into the copy (``snapshot``), the others are the app's.
_SIDE_FILES = ("-wal", "-shm", "-journal")


def source_files(location: Location, problems: Problems) -> list[Path]:
    """Every file the readers read for the sessions of ``location`` (the same discovery as
    ``sessite discover``), a SQLite store's ``-wal`` and ``-shm`` left out: the copy holds them."""
    found = discover(list(location.roots), problems)
    files: dict[Path, None] = {}
    for claim in found.claims:
        for path in (claim.path, *claim.group, *claim.companions):
            if path.is_file():
                files.setdefault(path, None)
            elif path.is_dir():
                for inner in sorted(path.rglob("*")):
                    if inner.is_file() and not inner.is_symlink():
                        files.setdefault(inner, None)
    names = {p.name for p in files}
    return [p for p in files if not _side_file(p, names)]


def _side_file(path: Path, names: set[str]) -> bool:
    return any(path.name.endswith(s) and path.name[: -len(s)] in names for s in _SIDE_FILES)


def archive_path(path: Path, home: Path, agent: str) -> PurePosixPath:
    """Where ``path`` goes in the archive: its path below the home folder (``.claude/projects/…``,
    the agent's own layout), or ``<agent>/<its absolute path>`` for a folder kept elsewhere."""
    try:
        return PurePosixPath(path.absolute().relative_to(home.absolute()).as_posix())
    except ValueError:
        parts = [p for p in path.absolute().parts[1:] if p not in ("", "..")]
        return PurePosixPath(agent, *parts)


def overlaps(archive: Path, folder: Path) -> bool:
    """The archive is inside an agent folder or holds one: collecting would read its own copies."""
    a, f = archive.resolve(), folder.resolve()
    return a == f or a.is_relative_to(f) or f.is_relative_to(a)
