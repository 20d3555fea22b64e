"""What the last build lets this one reuse, and where a build keeps its cache.

``plan_sources`` decides, per source, whether its cached record still stands (the same stamp or
content hash, its published files still there); the aggregate fingerprints say whether the
site-wide pages must be written again. The rest finds the build's roots and its cache folder.
Split from ``pipeline.py``, which drives a build; this module only decides.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from sessite.config import SiteConfig
from sessite.pipeline import cache as build_cache
from sessite.pipeline.cache import BuildCache, SessionRecord, SourceRecord, Stamp, source_key
from sessite.pipeline.folder_settings import folder_settings
from sessite.pipeline.worker import RenderedSession, SourceResult
from sessite.publish.writer import SiteWriter
from sessite.readers import Claim
from sessite.readers.walk import files_below

Plan = list[tuple[tuple[str, Claim], SourceRecord | None]]  # per source: (key, claim), its reusable record


def plan_sources(
    claims: list[Claim], old: BuildCache | None, writer: SiteWriter, digests: dict[str, tuple[Stamp, str]]
) -> Plan:
    """For each source: its cache record when it can be reused as is, else None. A source to be
    read is stamped and hashed here, before it is read, into ``digests`` (its new record keeps
    them): lines appended while a build reads it change its stamp, so the next build reads
    it again (stamped after the read, they were never published)."""
    plan: Plan = []
    for claim in claims:
        key = source_key(claim.reader.name, claim.path)
        record = old.sources.get(key) if old is not None else None
        if record is not None:
            record = reusable_record(claim, record, writer, digests, key)
        if record is None and key not in digests:
            files = source_files(claim)
            stamp = build_cache.stamp(files)  # first the stamp, then the hash: a change between them shows
            digests[key] = (stamp, build_cache.digest(files))
        plan.append(((key, claim), record))
    return plan


def source_files(claim: Claim) -> list[Path]:
    return [claim.path, *claim.companions, *folder_settings(claim.path)]


def reusable_record(
    claim: Claim, record: SourceRecord, writer: SiteWriter, digests: dict[str, tuple[Stamp, str]], key: str
) -> SourceRecord | None:
    """The record, restamped when only the mtime moved; None when the source or its pages changed."""
    files = source_files(claim)
    stamp = build_cache.stamp(files)
    if record.reader != claim.reader.name:
        return None
    if record.stamp != stamp:
        digest = build_cache.digest(files)
        if digest != record.digest:
            digests[key] = (stamp, digest)
            return None
        # Only the mtime moved: same content means same output.
        record = replace(record, stamp=stamp)
    if not all(all(writer.published(u) for u in (s.url, *s.extra, *s.parts)) for s in record.sessions):
        return None  # someone removed pages from the site: render again
    return record


def aggregate_fingerprint(theme: str, plan: list[tuple[tuple[str, Any], SourceRecord | None]]) -> str:
    """The state the aggregates were written from: the theme and every source's content."""
    h = hashlib.sha1(theme.encode())
    for (key, _claim), record in plan:
        assert record is not None
        h.update(key.encode("utf-8", "surrogatepass"))
        h.update(record.digest.encode())
    return h.hexdigest()


def aggregate_published(old: BuildCache, name: str, writer: SiteWriter) -> bool:
    """Every file the last build wrote for aggregate ``name`` is still in the site."""
    return all(writer.published(u) for u in old.aggregates[name][1])


def aggregate_current(old: BuildCache, name: str, fingerprint: str, writer: SiteWriter) -> bool:
    return old.aggregates.get(name, ("", []))[0] == fingerprint and aggregate_published(old, name, writer)


# ---------------------------------------------------------------- what the cache keeps


def source_record(
    claim: Claim, result: SourceResult, cache_dir: Path, names: list[str], taken: tuple[Stamp, str] | None = None
) -> SourceRecord:
    """What the cache keeps of a freshly rendered source (``taken``: its stamp and content hash,
    taken by planning before it was read); its items go to a file of their own."""
    rendered = [s for s in result.sessions if s.pages is not None]
    build_cache.store_items(cache_dir, result.key, names, {s.id: s.items for s in rendered})
    if taken is None:  # not planned (a source read again under other ids): stamped now
        files = source_files(claim)
        taken = (build_cache.stamp(files), build_cache.digest(files))
    return SourceRecord(
        claim.reader.name,
        taken[0],
        taken[1],
        [session_record(s) for s in rendered],
        result.problems,
        result.redactions,
        result.excluded,
        result.learned,
    )


def session_record(s: RenderedSession) -> SessionRecord:
    pages = s.pages or []
    return SessionRecord(s.id, s.url, s.source, s.line, s.summary, [u for u, _ in s.extra], [u for u, _ in pages[1:]])


# ---------------------------------------------------------------- paths


def build_roots(config: SiteConfig) -> list[Path]:
    archive = config.archive.resolve()
    return [archive, *(extra.resolve() for extra in config.archives if extra.resolve() != archive)]


def common_root(roots: list[Path]) -> Path | None:
    """The folder paths are shown relative to: the archive, or what several roots share."""
    try:
        base = Path(os.path.commonpath(roots)) if len(roots) > 1 else roots[0]
    except ValueError:  # roots on different drives
        return None
    return base if base.is_dir() else base.parent


def cache_folder(config: SiteConfig, roots: list[Path], output: Path) -> Path:
    """The cache folder: never inside an input folder or the published site."""
    chosen = Path(config.cache_dir or build_cache.default_cache_dir(output)).resolve()
    for forbidden in [*roots, output]:
        if chosen == forbidden or forbidden in chosen.parents:
            return build_cache.default_cache_dir(output)
    return chosen


def file_size(path: Path) -> int:
    try:
        if path.is_dir():
            return sum(p.stat().st_size for p in files_below(path))
        return path.stat().st_size
    except OSError:
        return 0
