"""Incremental build state, kept outside both the input and the published site.

Each source (a file or a folder a reader claims) is stamped by the (mtime_ns,
size) of its files, and by a content hash when the stamp moved. An unchanged
source reuses what it yielded last time: its pages stay as published and its
aggregate items are fed to the aggregates without reading it again. Anything
that changes every page (sessite itself, its templates and static files, the
site settings) changes the theme fingerprint, and then everything is rebuilt.

The cache carries a version key; a missing, foreign or corrupt cache means a
full build, never a crash. It is never published (it may hold unredacted text
when redaction is off, the secrets redaction learnt from each source, and paths
of the user's machine), and it is private:
``0600`` files in ``0700`` folders, each file sealed with a per-cache key and
unpickled only when the seal checks out (``sealed.py``).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from sessite import __version__
from sessite.model import Problem
from sessite.pipeline import sealed

# 2: SessionRecord.parts; 3: no spans for uncoloured tokens; 4: cached items live in stage packages;
# 5: one items file per source; 6: snippet packs of 128 events; 7: snippets only of events a result opens;
# 8: SessionSummary without url (the site layer makes it from the id); 9: search items carry the session's facts;
# 10: summaries carry active time and whether the session is listed apart (no messages, a sub-agent's log)
# 11: sources keep the secrets they taught redaction; the cache keeps the ones spread across the archive
CACHE_VERSION = 11


@dataclass
class SessionRecord:
    id: str
    url: str
    source: str  # display path
    line: int | None
    summary: Any  # SessionSummary, for the index and the preview server's catalog
    extra: list[str]  # other files written for this session (exports)
    parts: list[str] = field(
        default_factory=list
    )  # a split session's later pages and its parts.js (sessite/site/paging.py)


Stamp = tuple[tuple[str, int, int], ...]  # (path, mtime_ns, size) of each file of a source


@dataclass
class SourceRecord:
    reader: str
    stamp: Stamp
    digest: str
    sessions: list[SessionRecord]
    problems: list[Problem]
    redactions: Any = None  # Counter of redactions by kind
    excluded: int = 0  # sessions left out (exclude_sessions)
    # value -> kind: the secrets a rule replaced in this source, looked for in the others' pages by the
    # output scan (pipeline/learned_elsewhere.py); why this cache must stay private when redaction is on too
    learned: dict[str, str] = field(default_factory=dict)


@dataclass
class BuildCache:
    key: str = ""
    theme: str = ""
    sources: dict[str, SourceRecord] = field(default_factory=dict)
    aggregates: dict[str, tuple[str, list[str]]] = field(default_factory=dict)  # name -> (fingerprint, urls written)
    scanned: bool = False  # the site published with this cache passed the output scan (pipeline/output_scan.py)
    known: tuple[tuple[str, str], ...] = ()  # SiteConfig.redact_known of the build that made it


@lru_cache(maxsize=1)
def cache_key() -> str:
    """Changes with sessite's version and the versions of the libraries that shape its output."""
    libs = []
    for name in ("jinja2", "mistune", "pygments", "lunr", "zlib-ng"):
        try:
            libs.append(f"{name}={version(name)}")
        except PackageNotFoundError:
            libs.append(f"{name}=?")
    return f"sessite-{__version__}-cache-{CACHE_VERSION}-" + ",".join(libs)


def default_cache_dir(output: Path) -> Path:
    """Per output folder, under the user's cache directory (never in the site or the input)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    digest = hashlib.sha1(str(output.resolve()).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return base / "sessite" / digest


def load(path: Path) -> BuildCache | None:
    """The cache at ``path``, or None when it is missing, from another version, or corrupt."""
    try:
        cache = sealed.load(path, path.parent)
    except FileNotFoundError:
        return None
    except Exception:  # noqa: BLE001 - any damage (or a seal that does not check out) means a full build
        return None
    if not isinstance(cache, BuildCache) or cache.key != cache_key():
        return None
    return cache


def save(path: Path, cache: BuildCache) -> None:
    """Write atomically (a crash mid-save leaves the previous cache, not half of one), sealed and
    private (``sealed``); raises OSError for a folder that is not this user's alone."""
    sealed.dump(cache, path, path.parent)


def stamp(paths: list[Path]) -> Stamp:
    """(path, mtime_ns, size) of every file of a source; folders contribute their files."""
    out = []
    for path in paths:
        try:
            st = path.stat()
        except OSError:
            out.append((str(path), -1, -1))
            continue
        if path.is_dir():
            continue
        out.append((str(path), st.st_mtime_ns, st.st_size))
    return tuple(sorted(out))


def digest(paths: list[Path]) -> str:
    """Content hash of a source's files (for when only the mtime moved)."""
    h = hashlib.sha1()
    for path in sorted(paths):
        if path.is_dir():
            continue
        h.update(str(path).encode("utf-8", "surrogatepass"))
        try:
            with open(path, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    h.update(chunk)
        except OSError:
            h.update(b"<unreadable>")
    return h.hexdigest()


def theme_fingerprint(config: Any, template_dirs: list[Path], static_dirs: list[Path]) -> str:
    """Everything that changes every page: sessite's code and version, templates, static files, settings."""
    h = hashlib.sha1(cache_key().encode())
    package = Path(__file__).resolve().parent.parent  # all of sessite/
    for path in sorted(package.rglob("*.py")):
        st = path.stat()
        h.update(f"{path.relative_to(package)}:{st.st_size}:{st.st_mtime_ns}".encode())
    for folder in [*template_dirs, *static_dirs]:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                h.update(path.relative_to(folder).as_posix().encode())
                h.update(path.read_bytes())
    settings = {f.name: getattr(config, f.name) for f in fields(config) if f.name not in _NOT_THEME}
    h.update(repr(sorted((k, repr(v)) for k, v in settings.items())).encode())
    return h.hexdigest()


# Settings that do not change what a page looks like.
_NOT_THEME = {"archive", "archives", "output", "progress", "strict", "cache_dir", "clean", "jobs"}


# ---------------------------------------------------------------- aggregate items


def source_key(reader: str, path: Path) -> str:
    return f"{reader}:{path}"


def items_path(cache_dir: Path, key: str) -> Path:
    """One file per source with every aggregate's items: a file made costs more than the
    few items of the aggregates a build does not need (creating files dominates a cold build's I/O)."""
    digest = hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()
    return cache_dir / "items" / f"{digest}.pickle"


def store_items(cache_dir: Path, key: str, names: Iterable[str], items: dict[str, dict[str, Any]]) -> None:
    """Keep what each aggregate in ``names`` collected from one source's sessions (session id -> name -> item)."""
    by_name = {name: {sid: got[name] for sid, got in items.items() if name in got} for name in names}
    path = items_path(cache_dir, key)
    with contextlib.suppress(OSError):  # a cache that cannot be written only costs speed next time
        sealed.dump(by_name, path, cache_dir)


def load_items(cache_dir: Path, key: str, names: Iterable[str]) -> dict[str, dict[str, Any]]:
    """session id -> aggregate name -> item, for the aggregates in ``names`` the source's file holds."""
    try:
        by_name = sealed.load(items_path(cache_dir, key), cache_dir)
    except Exception:  # noqa: BLE001 - a damaged (or unsealed) cache file means that source's items are missing
        return {}
    out: dict[str, dict[str, Any]] = {}
    if not isinstance(by_name, dict):
        return out
    for name in names:
        items = by_name.get(name)
        if isinstance(items, dict):
            for sid, item in items.items():
                out.setdefault(sid, {})[name] = item
    return out


def cached_items(cache_dir: Path, reader: str, path: Path, aggregate: str) -> dict[str, Any]:
    """session id -> what ``aggregate`` collected from it, as the last build cached it."""
    return {sid: got[aggregate] for sid, got in load_items(cache_dir, source_key(reader, path), [aggregate]).items()}


def prune_items(cache_dir: Path, keep: set[str]) -> None:
    """Delete item files whose names are not in ``keep`` (sources gone since the last build)."""
    for path in (cache_dir / "items").glob("*.pickle"):
        if path.name not in keep:
            path.unlink(missing_ok=True)
