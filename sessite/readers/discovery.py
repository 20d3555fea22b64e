"""Archive discovery: one walk that offers every folder and file to the readers.

``build``, ``discover``, ``collect`` and ``serve`` all find their sources here. Directory formats
are offered each folder first; each file goes to the first reader that detects it; files a claimed
source consumes (its companions) are not offered again.

Everything in an archive is untrusted: every ``detect`` runs inside a per-path guard, and a
symlink is followed only when it stays inside the archive.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path

from sessite.model import Problems, Session
from sessite.readers.base import Reader, Sniff
from sessite.readers.entire import is_checkpoint_file, sidecars
from sessite.readers.files import outside_archive
from sessite.readers.formats import built_in
from sessite.readers.hidden import FolderPolicy
from sessite.readers.kept import current_path, is_kept
from sessite.readers.limits import MAX_FOLDER_DEPTH
from sessite.readers.plugins import PluginError, plugin_readers
from sessite.readers.walk import Folder, walk

# Files that are never sessions and not worth a warning.
_QUIET_SUFFIXES = {
    ".md",
    ".txt",
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".svg",
    ".html",
    ".css",
    ".js",
    ".toml",
    ".yaml",
    ".yml",
    ".lock",
    ".log",
}


@lru_cache(maxsize=1)
def _loaded() -> tuple[tuple[Reader, ...], tuple[PluginError, ...]]:
    readers = built_in()
    plugins, broken = plugin_readers(r.name for r in readers)
    return readers + plugins, broken


def registry() -> tuple[Reader, ...]:
    """Every reader, in detection order: the built-in formats, then the installed plugins."""
    return _loaded()[0]


def plugin_problems(problems: Problems) -> None:
    """One problem line per reader plugin left out (``sessite.readers.plugins``)."""
    for broken in _loaded()[1]:
        problems.add(f"plugin {broken.name}", None, broken.message, "discover")


@dataclass
class Claim:
    reader: Reader
    path: Path
    companions: tuple[Path, ...] = ()  # other files this read consumes (e.g. sub-agent logs)
    group: tuple[Path, ...] = ()  # other files of the same session (``Reader.session_key``), read with this one
    key: str | None = None  # the session key the reader sniffed, if any

    @property
    def sources(self) -> tuple[Path, ...]:
        """The files read as sessions: this one and those grouped with it."""
        return (self.path, *self.group)

    def read(self, problems: Problems) -> Iterator[Session]:
        """Every session of this source, the grouped files' copies of one session merged."""
        return self.reader.read_group(self.sources, problems)


@dataclass
class DiscoveryResult:
    claims: list[Claim] = field(default_factory=list)
    ignored: list[Path] = field(default_factory=list)  # files that are not sessions
    skipped: str = ""  # the folders not entered and why (``FolderPolicy.summary``), for an empty archive


def _companions(reader: Reader, path: Path, problems: Problems) -> tuple[Path, ...]:
    try:
        return (*reader.companions(path), *sidecars(path))
    except Exception as exc:  # noqa: BLE001 - a companions bug must not stop discovery
        problems.add(
            path, None, f"{reader.name}: cannot list the files it reads ({type(exc).__name__}: {exc})", "discover"
        )
        return ()


def _detects(reader: Reader, sniffed: Sniff, problems: Problems, *, records: bool = False) -> bool:
    """``reader.detect`` (``detect_records`` with ``records``: discovery's second look) inside
    the per-path guard: a file that breaks a detect (a first line nested 10,000 deep, say) is
    one problem line, never the end of the build."""
    try:
        return reader.detect_records(sniffed) if records else reader.detect(sniffed)
    except Exception as exc:  # noqa: BLE001 - a detect bug must not stop discovery
        problems.add(sniffed.path, None, f"{reader.name} detect failed ({type(exc).__name__}: {exc})", "discover")
        return False


def _claim(
    reader: Reader, path: Path, result: DiscoveryResult, consumed: set[Path], problems: Problems, key: str | None = None
) -> None:
    """``path`` claimed by ``reader``: the files it consumes are not offered again."""
    comps = _companions(reader, path, problems)
    consumed.update(comps)
    result.claims.append(Claim(reader, path, comps, key=key))


def _session_key(reader: Reader, sniffed: Sniff, problems: Problems) -> str | None:
    try:
        key = reader.session_key(sniffed)
    except Exception as exc:  # noqa: BLE001 - a key bug must not stop discovery; the file is read alone
        problems.add(sniffed.path, None, f"{reader.name} session key failed ({type(exc).__name__}: {exc})", "discover")
        return None
    return key if isinstance(key, str) and key else None


def join_kept(claims: list[Claim]) -> list[Claim]:
    """An earlier copy ``sessite collect`` kept (``.sessite-kept/<time>/<path>``) is read with the
    current ``<path>`` when the same reader claims both, so the session shows whole (``readers.kept``)."""
    lead = {(c.reader.name, c.path): i for i, c in enumerate(claims) if not is_kept(c.path)}
    out: list[Claim | None] = list(claims)
    for i, claim in enumerate(claims):
        if not is_kept(claim.path):
            continue
        j = lead.get((claim.reader.name, current_path(claim.path)))
        if j is None:
            continue  # the current file is gone too (or read by another reader): the copy stands alone
        now = out[j]
        assert now is not None
        out[j] = replace(
            now, group=(*now.group, claim.path), companions=(*now.companions, claim.path, *claim.companions)
        )
        out[i] = None
    return [c for c in out if c is not None]


def group_copies(claims: list[Claim]) -> list[Claim]:
    """Claims of one reader with one session key become one claim: the first (in archive
    order) reads the others too, so a later, fuller snapshot of a session is merged, not dropped."""
    first: dict[tuple[str, str], int] = {}
    out: list[Claim] = []
    for claim in claims:
        if claim.key is None:
            out.append(claim)
            continue
        index = first.setdefault((claim.reader.name, claim.key), len(out))
        if index == len(out):
            out.append(claim)
            continue
        lead = out[index]
        out[index] = replace(
            lead,
            group=(*lead.group, claim.path),
            companions=(*lead.companions, claim.path, *claim.companions),
        )
    return out


TOO_DEEP = f"a folder more than {MAX_FOLDER_DEPTH} levels below the archive (the cap on depth); not read"


def discover(
    root: Path | Sequence[Path],
    problems: Problems,
    readers: tuple[Reader, ...] | None = None,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
) -> DiscoveryResult:
    """Find every session source under ``root`` (a folder or a single file, or several of them).

    ``include``/``exclude``: globs matched against each source's path relative to
    its root (see SourceFilter); an excluded folder is not even listed.

    Directory formats are offered each folder first. Each file goes to the
    first reader that detects it.
    Files a claimed source consumes (its companions) are not offered again.
    """
    if not readers:
        readers = registry()
        plugin_problems(problems)
    if not isinstance(root, (str, os.PathLike)):
        return _discover_each(root, problems, readers, include, exclude)
    result = DiscoveryResult()
    keep = SourceFilter(root, include, exclude)
    file_readers = [r for r in readers if r.claims_files or not r.claims_directories]
    if root.is_file():
        if keep.allows(root):
            _offer_file(root, file_readers, result, problems, set())  # a root given as a symlink is fine
        return result
    problems.trust(root)
    walker = _Walker(root, readers, file_readers, keep, result, problems)
    for listing in walk(
        root,
        onerror=lambda e: problems.add(e.filename or root, None, f"cannot list: {e.strerror}", "discover"),
        too_deep=lambda p: problems.add(p, None, TOO_DEEP, "discover"),
        follow=walker.follows,
    ):
        walker.folder(Path(listing.path), listing)
    result.claims = group_copies(join_kept(result.claims))
    result.skipped = walker.policy.summary()
    return result


class _Walker:
    """One discovery's walk: what each folder offers to the readers, and what was consumed so far."""

    def __init__(
        self,
        root: Path,
        readers: Sequence[Reader],
        file_readers: list[Reader],
        keep: SourceFilter,
        result: DiscoveryResult,
        problems: Problems,
    ) -> None:
        self.file_readers = file_readers
        self.dir_readers = [r for r in readers if r.claims_directories]
        self.root = root
        self.policy = FolderPolicy(readers)
        self.dot_names = self.policy.dot_names  # hidden names a format lives under
        self.keep = keep
        self.result = result
        self.problems = problems
        self.consumed: set[Path] = set()
        self.links: set[Path] = set()  # symlinked agent folders the walk follows

    def _parts(self, path: Path) -> tuple[str, ...]:
        try:
            return path.relative_to(self.root).parts
        except ValueError:
            return (path.name,)

    def follows(self, path: str) -> bool:
        """A symlinked folder is followed when it is an agent's folder (``~/.claude/projects`` kept
        elsewhere by a dotfile manager): its target is trusted as part of the archive."""
        return Path(path) in self.links

    def folder(self, here: Path, listing: Folder) -> None:
        """Offer the folder to the folder formats, then its files to the file formats."""
        dirnames, filenames = listing.dirs, listing.files
        for name, kind in sorted(listing.odd):
            if (not name.startswith(".") or name in self.dot_names) and self.keep.allows(here / name):
                self.problems.add(here / name, None, f"{kind}, not a regular file; skipped", "discover")
        parts = self._parts(here)
        dirnames[:] = sorted(
            d for d in dirnames if not self.keep.excludes(here / d) and self.policy.enters(here / d, (*parts, d))
        )
        for name in dirnames:
            if (here / name).is_symlink():  # followed when an agent's folder, else said when it leads out
                if self.policy.agent_folder((*parts, name)):
                    self.links.add(here / name)
                    self.problems.trust(here / name)
                else:
                    outside_archive(here / name, self.problems, "discover")
        folder = Sniff(here)
        claimed = next((r for r in self.dir_readers if _detects(r, folder, self.problems)), None)
        if claimed is not None and not self.keep.allows(here):
            # a filtered-out folder source: its files are not offered alone
            self.consumed.update(_companions(claimed, here, self.problems))
        elif claimed is not None:
            # The folder's own files are consumed; anything else in it (e.g. Claude Code
            # sessions sharing ~/.claude/projects with sage) is still offered below.
            _claim(claimed, here, self.result, self.consumed, self.problems)
        for name in sorted(filenames):
            if name.startswith(".") and name not in self.dot_names:
                continue
            if not self.policy.offers_file((*parts, name)):
                continue
            path = here / name
            if path in self.consumed or not self.keep.allows(path):
                continue
            if path.is_symlink() and outside_archive(path, self.problems, "discover"):
                continue
            _offer_file(path, self.file_readers, self.result, self.problems, self.consumed)


def _discover_each(
    roots: Sequence[Path],
    problems: Problems,
    readers: tuple[Reader, ...],
    include: Sequence[str],
    exclude: Sequence[str],
) -> DiscoveryResult:
    """Several roots (sessite build --discover): a path found twice is claimed once."""
    result = DiscoveryResult()
    taken: set[Path] = set()
    for one in roots:
        part = discover(Path(one), problems, readers, include, exclude)
        for claim in part.claims:
            if claim.path not in taken:
                taken.add(claim.path)
                taken.update(claim.companions)
                result.claims.append(claim)
        result.ignored.extend(p for p in part.ignored if p not in taken)
        taken.update(part.ignored)
        result.skipped = ", ".join(x for x in (result.skipped, part.skipped) if x)
    result.claims = group_copies(result.claims)
    return result


class SourceFilter:
    """Include/exclude globs (sessite.toml ``include``/``exclude``) for discovered sources.

    A glob is matched (case-sensitively, ``*`` also crossing ``/``) against the
    source's path relative to the root, and against each of its parent folders'
    paths; a glob without ``/`` is also matched against each path component. So
    ``*.jsonl``, ``claude-code/**``, ``scratch`` and ``2025/*/old-*`` all work. An
    excluded folder is not walked; exclude wins over include; with no include
    globs, everything not excluded is read.
    """

    def __init__(self, root: Path, include: Sequence[str] = (), exclude: Sequence[str] = ()) -> None:
        self.root = root if root.is_dir() else root.parent
        self.include = tuple(g.strip().strip("/") for g in include if g and g.strip().strip("/"))
        self.exclude = tuple(g.strip().strip("/") for g in exclude if g and g.strip().strip("/"))

    def _rel(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.name

    @staticmethod
    def _matches(rel: str, globs: tuple[str, ...]) -> bool:
        parts = rel.split("/")
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        for glob in globs:
            if any(fnmatchcase(p, glob) for p in prefixes):
                return True
            if "/" not in glob and any(fnmatchcase(part, glob) for part in parts):
                return True
        return False

    def excludes(self, path: Path) -> bool:
        return bool(self.exclude) and self._matches(self._rel(path), self.exclude)

    def allows(self, path: Path) -> bool:
        if not self.include and not self.exclude:
            return True
        rel = self._rel(path)
        if rel in ("", "."):
            return True  # the root itself
        if self.exclude and self._matches(rel, self.exclude):
            return False
        return not self.include or self._matches(rel, self.include)


# A JSON-lines file no reader recognises is looked at again from its 2nd, 3rd and 4th line.
SECOND_LOOKS = 3


def _offer_later_lines(
    path: Path,
    sniffed: Sniff,
    readers: Sequence[Reader],
    result: DiscoveryResult,
    problems: Problems,
    consumed: set[Path],
) -> bool:
    """Claim a JSON-lines file whose first records are too damaged to tell its format by what
    its later records say: one bad value must not cost a whole transcript. The reader then
    reads every line (reporting the damaged ones); the file's sniff is not trusted for a
    session key, so the file is read on its own."""
    if path.suffix.lower() != ".jsonl" or not sniffed.text(1024).lstrip().startswith(("{", "[")):
        return False
    for skipped in range(1, SECOND_LOOKS + 1):
        later = sniffed.after_lines(skipped)
        if later is None:
            return False
        for reader in readers:
            if _detects(reader, later, problems) or _detects(reader, later, problems, records=True):
                problems.add(
                    path,
                    None,
                    f"the first {skipped} line(s) do not say what this file is; read as {reader.name} from the rest",
                    "discover",
                )
                _claim(reader, path, result, consumed, problems)
                return True
    return False


def _looks(sniffed: Sniff) -> Iterator[Sniff]:
    """The file's head, then (if none recognised it and it holds bulk) its skeleton."""
    yield sniffed
    bulky = sniffed.skeletal()
    if bulky is not None:
        yield bulky


def _offer_file(
    path: Path, readers: Sequence[Reader], result: DiscoveryResult, problems: Problems, consumed: set[Path]
) -> None:
    """Offer one file to ``readers`` (those that read files), in order."""
    if not path.is_file():
        return
    sniffed = Sniff(path)
    for look in _looks(sniffed):
        for reader in readers:
            if _detects(reader, look, problems):
                _claim(reader, path, result, consumed, problems, _session_key(reader, look, problems))
                return
    if _offer_later_lines(path, sniffed, readers, result, problems, consumed):
        return
    result.ignored.append(path)
    try:
        size = path.stat().st_size
    except OSError:
        return  # gone since it was listed
    if is_checkpoint_file(path):
        return  # an Entire checkpoint's own metadata: known, and no session
    if path.suffix.lower() in {".json", ".jsonl"} and size > 0:
        problems.add(path, None, _unrecognised(sniffed, readers, problems), "discover")
    elif path.suffix.lower() not in _QUIET_SUFFIXES and size == 0:
        problems.add(path, None, "empty file; skipped", "discover")


def _unrecognised(sniffed: Sniff, readers: Sequence[Reader], problems: Problems) -> str:
    """What to say of a JSON file no reader claimed: a format's file with no conversation in it
    (``Reader.holds_nothing``) is not an unknown format."""
    for reader in readers:
        try:
            why = reader.holds_nothing(sniffed)
        except Exception:  # noqa: BLE001, S112 - a bug here costs only the better message
            continue
        if why:
            return why
    return "not a recognised session format; skipped"
