"""One pass of ``sessite collect``: each source file copied in, grown or kept; nothing when nothing is new.

For each file the agents' folders hold (``layout``), a consistent copy is taken into a private
temporary folder (``snapshot``) and compared with the archive's copy (``compare``):

- none yet: ``new``, copied in;
- the same size and modification time as the archive's copy (which ``_install`` gives the
  source's), or the same bytes: ``unchanged``, nothing is written (not even a time);
- the archive's copy plus more: ``grown``, replaced;
- something of the archive's copy is gone: ``rewritten`` (and kept), the archive's copy moved to
  ``.sessite-kept/<time>/<its path>`` first, then the new one put in its place.

A file in the archive whose source is gone is left as it is (``gone``). Every write is a
temporary file beside its target renamed over it, so a stopped run leaves no half-written file.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

from sessite.collect.compare import only_adds, same
from sessite.collect.layout import archive_path, source_files
from sessite.collect.snapshot import Kind, take
from sessite.model import Problems
from sessite.readers.kept import KEPT_DIR
from sessite.readers.locations import Location

ACTIONS = ("new", "grown", "rewritten", "unchanged", "gone")


@dataclass(frozen=True)
class Entry:
    """What one file came to: ``action`` is one of ACTIONS; ``kept`` the earlier copy's path."""

    agent: str
    source: str
    target: str  # relative to the archive
    action: str
    kept: str | None = None


@dataclass
class Outcome:
    archive: Path
    entries: list[Entry] = field(default_factory=list)

    def count(self, action: str) -> int:
        return sum(1 for e in self.entries if e.action == action)

    def summary(self, dry_run: bool = False) -> str:
        """``2 new, 1 grown, 1 rewritten (earlier copy kept), 40 unchanged`` (+ gone ones)."""
        words = [
            f"{self.count('new')} new",
            f"{self.count('grown')} grown",
            f"{self.count('rewritten')} rewritten (earlier copy kept)",
            f"{self.count('unchanged')} unchanged",
        ]
        if self.count("gone"):
            words.append(f"{self.count('gone')} gone from the agent's folder (still in the archive)")
        verb = "would collect" if dry_run else "collected"
        return f"{verb} into {self.archive}: " + ", ".join(words)


def stamp(now: datetime | None = None) -> str:
    return (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def collect(
    archive: Path,
    locations: Sequence[Location],
    home: Path,
    problems: Problems,
    *,
    dry_run: bool = False,
    now: datetime | None = None,
) -> Outcome:
    """Copy every session file of ``locations`` into ``archive`` (see the module doc)."""
    outcome = Outcome(archive)
    when = stamp(now)
    seen: set[PurePosixPath] = set()
    with tempfile.TemporaryDirectory(prefix="sessite-collect-") as tmp:
        for n, location in enumerate(locations):
            for i, source in enumerate(source_files(location, problems)):
                rel = archive_path(source, home, location.agent)
                if rel in seen:
                    continue
                seen.add(rel)
                if _same_stamp(source, archive / rel):
                    outcome.entries.append(Entry(location.agent, str(source), rel.as_posix(), "unchanged"))
                    continue
                snap = take(source, Path(tmp) / f"{n}-{i}", problems)
                if snap is None:
                    continue
                kind, copy = snap
                entry = _one(archive, rel, copy, kind, when, dry_run, _mtime(source))
                outcome.entries.append(Entry(location.agent, str(source), rel.as_posix(), *entry))
                copy.unlink(missing_ok=True)
            outcome.entries.extend(_gone(archive, location, home, seen))
    return outcome


def _same_stamp(source: Path, target: Path) -> bool:
    """The archive's copy has the source's size and modification time (``_install`` gives it the
    source's): the file has not changed since, and is not read again. A SQLite store's copy never
    matches (its log is folded in), so a store is always compared by its content."""
    try:
        a, b = source.stat(), target.stat()
    except OSError:
        return False
    return a.st_size == b.st_size and a.st_mtime_ns == b.st_mtime_ns


def _mtime(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


def _one(
    archive: Path, rel: PurePosixPath, copy: Path, kind: Kind, when: str, dry_run: bool, mtime: int | None
) -> tuple[str, str | None]:
    target = archive / rel
    if not target.exists():
        if not dry_run:
            _install(copy, target, mtime)
        return "new", None
    if same(target, copy):
        return "unchanged", None
    if only_adds(target, copy, kind):
        if not dry_run:
            _install(copy, target, mtime)
        return "grown", None
    kept = _kept_path(archive, rel, when)
    if not dry_run:
        kept.parent.mkdir(parents=True, exist_ok=True)
        os.replace(target, kept)
        _install(copy, target, mtime)
    return "rewritten", kept.relative_to(archive).as_posix()


def _kept_path(archive: Path, rel: PurePosixPath, when: str) -> Path:
    path = archive / KEPT_DIR / when / rel
    n = 2
    while path.exists():  # two runs within one second
        path = archive / KEPT_DIR / f"{when}-{n}" / rel
        n += 1
    return path


def _install(copy: Path, target: Path, mtime: int | None) -> None:
    """``copy`` at ``target``, whole or not at all: a hidden temporary file beside it, renamed;
    with the source's modification time (some formats date a session by its file)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".sessite-tmp-", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out, open(copy, "rb") as src:
            shutil.copyfileobj(src, out, 1 << 20)
        if mtime is not None:
            os.utime(tmp, ns=(mtime, mtime))
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _gone(archive: Path, location: Location, home: Path, seen: set[PurePosixPath]) -> list[Entry]:
    """Files the archive holds for ``location`` whose source no longer exists (kept as they are)."""
    folder = archive_path(location.folder, home, location.agent)
    base = archive / folder
    if not base.is_dir():
        return []
    inside_home = folder.parts[:1] != (location.agent,) or location.folder.absolute().is_relative_to(home.absolute())
    out = []
    for path in sorted(base.rglob("*")):
        if not path.is_file() or path.name.startswith(".sessite-tmp-"):
            continue
        rel = PurePosixPath(path.relative_to(archive).as_posix())
        source = home / rel if inside_home else Path(location.folder.anchor, *rel.parts[1:])
        if rel in seen or source.exists():
            continue
        seen.add(rel)
        out.append(Entry(location.agent, "", rel.as_posix(), "gone"))
    return out
