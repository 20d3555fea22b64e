"""build(config) -> BuildReport: discover → (read → redact → enrich → render) → write.

- Streaming: each source is read, rendered and written as it comes; only small
  per-session items for the aggregates (index, search, refs, …) are kept.
- Parallel: sources render in worker processes (``work.py``), results are
  taken in archive order so the output does not depend on timing.
- Incremental: a source whose files did not change since the last build is
  not read again (``cache.py``); its pages stay as published and its cached
  items feed the aggregates. Aggregates are rewritten only when some source
  changed. A build that changes nothing touches nothing.
- Safe: the site is swapped in whole at the end (``writer.py``); problems are
  collected as data, never raised.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sitegen.build import cache as build_cache
from sitegen.build.outputs import AGGREGATES
from sitegen.build.report import BuildReport, CatalogEntry
from sitegen.build.worker import SourceResult, SourceTask, discard
from sitegen.config import SiteConfig
from sitegen.model import Problems
from sitegen.readers import Claim, discover
from sitegen.site.resources import static_dir, templates_dir
from sitegen.site.writer import SiteWriter, check_output

ProgressHook = Callable[[int, int, str], None]  # (done, total, current path)
PARALLEL_MIN_BYTES = 2 << 20  # below this much input to render, worker processes cost more than they save


def build(config: SiteConfig, progress: ProgressHook | None = None, defer: frozenset[str] = frozenset()) -> BuildReport:
    """Build the whole site; problems are collected, never raised.

    ``defer`` names aggregates that may keep their published files for now when
    only some sources changed (the preview server publishes changed pages
    first, then builds again to bring those aggregates up to date); the report
    lists the ones deferred. Raises OutputError when the output folder cannot
    be used safely.
    """
    started = time.perf_counter()
    output = config.output.resolve()
    roots = _roots(config)
    for root in roots:
        check_output(root, output)
    problems = Problems(_common_root(roots))
    report = BuildReport(output=output, catalog=[])
    found = discover(roots[0] if len(roots) == 1 else roots, problems, include=config.include, exclude=config.exclude)
    report.files = len(found.claims)
    report.ignored = len(found.ignored)

    cache_dir = _cache_dir(config, roots, output)
    theme = build_cache.theme_fingerprint(
        config, [*config.template_dirs, templates_dir()], [*config.static_dirs, static_dir()]
    )
    old = None if config.clean else build_cache.load(cache_dir / "build.pickle")
    if old is not None and old.theme != theme:
        old = None
    new = build_cache.BuildCache(key=build_cache.cache_key(), theme=theme)
    site = {
        "title": config.title,
        "base_url": config.base_url.rstrip("/") + "/" if config.base_url else "",
        "forge_url": config.forge_url,
        "prices": config.prices,
        "exports": config.exports,
        "_bytecode": cache_dir / "templates",
    }

    with SiteWriter(output) as writer:
        plan = _plan(found.claims, old, writer, problems)
        report.reused = sum(1 for _, record in plan if record is not None)
        unchanged = all(record is not None for _, record in plan)
        rewrite = (
            not unchanged
            or old is None
            or any(
                old.aggregates.get(name, ("", []))[0] != _aggregate_fingerprint(theme, plan)
                or not all(u in writer.previous for u in old.aggregates[name][1])
                for name in _aggregate_names()
            )
        )
        can_defer = (
            rewrite
            and old is not None
            and {
                n
                for n in _aggregate_names()
                if n in defer and n in old.aggregates and all(u in writer.previous for u in old.aggregates[n][1])
            }
        )
        active = [name for name in _aggregate_names() if rewrite and name not in (can_defer or set())]
        aggregates = [factory(config) for factory, name in zip(AGGREGATES, _aggregate_names()) if name in active]
        owners: dict[str, str] = {}
        tasks = [
            SourceTask(key, claim.reader.name, claim.path, problems.root)
            for (key, claim), record in plan
            if record is None
        ]
        fresh = iter(())
        if tasks:
            from sitegen.build.worker import default_jobs, run_sources

            jobs = config.jobs or default_jobs()
            if sum(_size(t.path) for t in tasks) < PARALLEL_MIN_BYTES:
                jobs = 1
            site["_spool"] = str(writer.spool_dir())  # workers render pages into files there
            fresh = run_sources(tasks, config, list(AGGREGATES), site, jobs)
        for done, ((key, claim), record) in enumerate(plan):
            if progress:
                progress(done, len(plan), problems.display(claim.path))
            if record is None:
                result = next(fresh)
                record = _record(claim, result, cache_dir)
                problems.items.extend(result.problems)
                report.redactions.update(result.redactions)
                items = {s.id: s.items for s in result.sessions}
                _take(result.sessions, writer, problems, owners, report, claim, aggregates, items, fresh=True)
            else:
                items = _load_items(cache_dir, key, active)
                if any(name not in items.get(s.id, {}) for s in record.sessions for name in active):
                    # Damaged or missing cache items: render this source again, here.
                    from sitegen.build.worker import SourceWorker

                    site.setdefault("_spool", str(writer.spool_dir()))
                    result = SourceWorker(config, list(AGGREGATES), site).run(
                        SourceTask(key, claim.reader.name, claim.path, problems.root)
                    )
                    record = _record(claim, result, cache_dir)
                    problems.items.extend(result.problems)
                    report.redactions.update(result.redactions)
                    _take(
                        result.sessions,
                        writer,
                        problems,
                        owners,
                        report,
                        claim,
                        aggregates,
                        {s.id: s.items for s in result.sessions},
                        fresh=True,
                    )
                else:
                    problems.items.extend(record.problems)
                    report.redactions.update(record.redactions)
                    _take(record.sessions, writer, problems, owners, report, claim, aggregates, items, fresh=False)
            new.sources[key] = record
        if progress:
            progress(len(plan), len(plan), "")
        if not report.sessions:
            if not found.claims:
                problems.add(roots[0], None, "no session files found", "discover")
            report.problems = problems.items
            report.seconds = time.perf_counter() - started
            writer.abort()
            return report
        aggregate_print = _aggregate_fingerprint(theme, [((key, None), record) for key, record in new.sources.items()])
        if aggregates:
            from sitegen.site.render import Renderer

            renderer = Renderer(site, config.template_dirs, cache_dir / "templates")
        for name, aggregate in zip(active, aggregates):
            before = set(writer.written)
            aggregate.write(writer, renderer, problems)
            new.aggregates[name] = (aggregate_print, sorted(set(writer.written) - before))
        for name in _aggregate_names():
            if name in active:
                continue
            stale = rewrite  # deferred: keep its files, and its old fingerprint so the next build redoes it
            fingerprint, urls = old.aggregates[name]
            new.aggregates[name] = (fingerprint if stale else aggregate_print, urls)
            for url in urls:
                writer.keep(url)
            if stale:
                report.deferred.append(name)
        writer.copy_tree(static_dir(), "static")
        for user_static in config.static_dirs:
            writer.copy_tree(user_static, "static")
        if not rewrite and "static/pygments.css" in writer.previous:
            writer.keep("static/pygments.css")  # same theme, same highlighting styles
        else:
            from sitegen.site.markup import pygments_css

            writer.write("static/pygments.css", pygments_css())
        writer.write(".nojekyll", b"")
        report.changed_urls = writer.changed_urls | writer.removed_urls
        report.changed = writer.commit()
        report.bytes_written = writer.bytes_written
        report.pages = len(writer.written)
    report.published = True
    report.problems = problems.items
    report.cache_dir = cache_dir
    _save_cache(cache_dir, new, problems)
    report.seconds = time.perf_counter() - started
    return report


# ---------------------------------------------------------------- planning


def _plan(
    claims: list[Claim], old: build_cache.BuildCache | None, writer: SiteWriter, problems: Problems
) -> list[tuple[tuple[str, Claim], build_cache.SourceRecord | None]]:
    """For each source: its cache record when it can be reused as is, else None."""
    plan = []
    for claim in claims:
        key = source_key(claim.reader.name, claim.path)
        record = old.sources.get(key) if old is not None else None
        if record is not None:
            files = [claim.path, *claim.companions]
            stamp = build_cache.stamp(files)
            if record.reader != claim.reader.name:
                record = None
            elif record.stamp != stamp:
                # Only the mtime moved? Same content means same output.
                record = (
                    build_cache.SourceRecord(
                        record.reader, stamp, record.digest, record.sessions, record.problems, record.redactions
                    )
                    if build_cache.digest(files) == record.digest
                    else None
                )
            if record is not None and not all(
                all(u in writer.previous for u in (s.url, *s.extra, *s.parts)) for s in record.sessions
            ):
                record = None  # someone removed pages from the site: render again
        plan.append(((key, claim), record))
    return plan


def _aggregate_names() -> list[str]:
    return [getattr(factory, "name", factory.__name__) for factory in AGGREGATES]


def _aggregate_fingerprint(theme: str, plan: list) -> str:
    """The state the aggregates were written from: the theme and every source's content."""
    h = hashlib.sha1(theme.encode())
    for (key, _claim), record in plan:
        h.update(key.encode("utf-8", "surrogatepass"))
        h.update(record.digest.encode())
    return h.hexdigest()


# ---------------------------------------------------------------- taking results


def _take(
    sessions: list,
    writer: SiteWriter,
    problems: Problems,
    owners: dict[str, str],
    report: BuildReport,
    claim: Claim,
    aggregates: list,
    items: dict[str, dict[str, Any]],
    fresh: bool,
) -> None:
    """Write (or keep) each session's files, feed the aggregates, in archive order."""
    for s in sessions:
        if s.id in owners:
            problems.add(
                s.source, s.line, f"session id {s.id} already read from {owners[s.id]}; this copy skipped", "render"
            )
            if fresh:
                discard(s.pages)
                discard(s.extra)
            continue
        if fresh:
            if s.pages is None:
                continue
            for url, path in s.pages:  # part 1 (the session's URL), later parts, parts.js
                writer.write_file(url, path)
            for url, path in s.extra:
                writer.write_file(url, path)
        else:
            for url in (s.url, *s.parts, *s.extra):
                writer.keep(url)
        owners[s.id] = s.source
        report.sessions += 1
        report.catalog.append(CatalogEntry(s.summary, claim.reader.name, claim.path))
        collected = items.get(s.id, {})
        for aggregate in aggregates:
            name = getattr(aggregate, "name", type(aggregate).__name__)
            if name in collected:
                aggregate.add(collected[name])


def _record(claim: Claim, result: SourceResult, cache_dir: Path) -> build_cache.SourceRecord:
    """What the cache keeps of a freshly rendered source; its items go to a file of their own."""
    files = [claim.path, *claim.companions]
    sessions = [
        build_cache.SessionRecord(
            s.id, s.url, s.source, s.line, s.summary, [u for u, _ in s.extra], [u for u, _ in s.pages[1:]]
        )
        for s in result.sessions
        if s.pages is not None
    ]
    _store_items(cache_dir, result.key, {s.id: s.items for s in result.sessions if s.pages is not None})
    return build_cache.SourceRecord(
        claim.reader.name,
        build_cache.stamp(files),
        build_cache.digest(files),
        sessions,
        result.problems,
        result.redactions,
    )


def _items_path(cache_dir: Path, key: str, aggregate: str) -> Path:
    digest = hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()
    return cache_dir / "items" / f"{digest}.{aggregate}.pickle"


def _store_items(cache_dir: Path, key: str, items: dict[str, dict[str, Any]]) -> None:
    """One file per source and aggregate, so a build loads only what its active aggregates need."""
    try:
        for name in _aggregate_names():
            path = _items_path(cache_dir, key, name)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            with open(tmp, "wb") as fh:
                pickle.dump(
                    {sid: got[name] for sid, got in items.items() if name in got}, fh, protocol=pickle.HIGHEST_PROTOCOL
                )
            os.replace(tmp, path)
    except OSError:
        pass  # a cache that cannot be written only costs speed next time


def _load_items(cache_dir: Path, key: str, names: list[str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        try:
            with open(_items_path(cache_dir, key, name), "rb") as fh:
                items = pickle.load(fh)
        except Exception:  # noqa: BLE001 - a damaged cache file means that source's items are missing
            continue
        if isinstance(items, dict):
            for sid, item in items.items():
                out.setdefault(sid, {})[name] = item
    return out


def source_key(reader: str, path: Path) -> str:
    return f"{reader}:{path}"


def cached_items(cache_dir: Path, reader: str, path: Path, aggregate: str) -> dict[str, Any]:
    """session id -> what ``aggregate`` collected from it, as the last build cached it."""
    return {sid: got[aggregate] for sid, got in _load_items(cache_dir, source_key(reader, path), [aggregate]).items()}


def _save_cache(cache_dir: Path, new: build_cache.BuildCache, problems: Problems) -> None:
    try:
        build_cache.save(cache_dir / "build.pickle", new)
        keep = {_items_path(cache_dir, key, name).name for key in new.sources for name in _aggregate_names()}
        for path in (cache_dir / "items").glob("*.pickle"):
            if path.name not in keep:
                path.unlink(missing_ok=True)
    except OSError as exc:
        problems.add(
            cache_dir,
            None,
            f"could not save the build cache ({exc.strerror or exc}); the next build will be a full one",
            "write",
        )


# ---------------------------------------------------------------- paths


def _roots(config: SiteConfig) -> list[Path]:
    archive = config.archive.resolve()
    return [archive, *(extra.resolve() for extra in config.archives if extra.resolve() != archive)]


def _common_root(roots: list[Path]) -> Path | None:
    """The folder paths are shown relative to: the archive, or what several roots share."""
    try:
        base = Path(os.path.commonpath(roots)) if len(roots) > 1 else roots[0]
    except ValueError:  # roots on different drives
        return None
    return base if base.is_dir() else base.parent


def _cache_dir(config: SiteConfig, roots: list[Path], output: Path) -> Path:
    """The cache folder: never inside an input folder or the published site."""
    chosen = Path(config.cache_dir or build_cache.default_cache_dir(output)).resolve()
    for forbidden in [*roots, output]:
        if chosen == forbidden or forbidden in chosen.parents:
            return build_cache.default_cache_dir(output)
    return chosen


def _size(path: Path) -> int:
    try:
        if path.is_dir():
            return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
        return path.stat().st_size
    except OSError:
        return 0
