"""The per-source work of a build, run in worker processes: read → redact →
enrich → render. Pages are rendered straight into files of a spool folder
(one part of a big session at a time, see ``parts.py``); only their names, and
what each aggregate collected, go back, so the main process only moves files
into the site and merges small items.

Both cores of a typical machine render pages this way; a source is the unit of
work, so one huge session still renders on one core.
"""

from __future__ import annotations

import multiprocessing
import os
import tempfile
from collections import Counter
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator

from .config import SiteConfig
from .enrich import SessionSummary, SessionView, build_view
from .model import Problem
from .outputs import SESSION_OUTPUTS
from .pages import session_pages
from .parts import parts_script, parts_script_url
from .readers import Problems, registry
from .redact import Redactor
from .render import Renderer
from .writer import spool_file


@dataclass(frozen=True)
class SourceTask:
    key: str
    reader: str
    path: Path
    display_root: Path | None


@dataclass
class RenderedSession:
    id: str
    url: str
    source: str  # display path
    line: int | None
    pages: list[tuple[str, Path]] | None  # (url, file rendered in the spool folder): part 1 first; None when rendering failed
    summary: SessionSummary
    items: dict[str, Any]  # aggregate name -> collected item
    extra: list[tuple[str, Path]] = field(default_factory=list)  # other files of this session (exports), spooled like pages


@dataclass
class SourceResult:
    key: str
    sessions: list[RenderedSession] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    redactions: Counter = field(default_factory=Counter)


class SourceWorker:
    """Everything one process needs to render sources: built once per process."""

    def __init__(self, config: SiteConfig, aggregate_factories: list[Callable[[SiteConfig], Any]], site: dict[str, Any]) -> None:
        self.config = config
        self.renderer = Renderer(site, config.template_dirs, site.get("_bytecode"))
        self.collectors = [(getattr(f, "name", f.__name__), f(config)) for f in aggregate_factories]
        self.readers = {r.name: r for r in registry()}
        self.spool = Path(site.get("_spool") or tempfile.gettempdir())  # the build's folder beside the site (SiteWriter.spool_dir)

    def run(self, task: SourceTask) -> SourceResult:
        problems = Problems(task.display_root)
        result = SourceResult(task.key)
        redactor = Redactor.for_config(self.config)
        reader = self.readers[task.reader]
        try:
            for session in reader.read(task.path, problems):
                if redactor is not None:
                    session = redactor.value(session)
                display = problems.display(session.source.path)
                session = replace(session, source=replace(session.source, path=display))
                view = build_view(session, self.config.part_bytes or None)
                pages = self._render_pages(view, problems, display, session.source.line)
                items: dict[str, Any] = {}
                extra: list[tuple[str, Path]] = []
                if pages is not None:
                    items = {name: collector.collect(view) for name, collector in self.collectors}
                    for output in SESSION_OUTPUTS:
                        try:
                            for url, data in output(view, self.config):
                                extra.append((url, spool_file(self.spool, [data])))
                        except Exception as exc:  # noqa: BLE001 - an export bug costs that file only
                            problems.add(display, session.source.line, f"could not write {getattr(output, '__name__', 'output')} for {session.id} ({type(exc).__name__}: {exc})", "render")
                result.sessions.append(RenderedSession(session.id, view.summary.url, display, session.source.line, pages, view.summary, items, extra))
                del view, pages, session  # a huge session's model goes before the next one is read
        except Exception as exc:  # noqa: BLE001 - a reader bug costs only the rest of its file
            problems.add(task.path, None, f"{reader.name} reader failed ({type(exc).__name__}: {exc}); the rest of this file is skipped")
        result.problems = problems.items
        result.redactions = redactor.counts if redactor else Counter()
        return result

    def _render_pages(self, view: SessionView, problems: Problems, display: str, line: int | None) -> list[tuple[str, Path]] | None:
        """Render each page of a session straight into the spool folder, one at a time.

        A page is never held whole in memory (nor pickled back to the main
        process): only its file name travels. A failure drops the session's
        pages (a problem says why), as one failed page always did.
        """
        done: list[tuple[str, Path]] = []
        url = view.summary.url
        try:
            for page in session_pages(view):
                url = page.url
                done.append((url, spool_file(self.spool, self.renderer.stream(page))))
            if view.parts:
                url = parts_script_url(view.session.id)
                done.append((url, spool_file(self.spool, [parts_script(view).decode("ascii")])))
        except Exception as exc:  # noqa: BLE001 - one bad page must not stop the build
            problems.add(display, line, f"could not render {url} ({type(exc).__name__}: {exc})", "render")
            discard(done)
            return None
        return done


def discard(pages: list[tuple[str, Path]] | None) -> None:
    """Delete spooled pages nobody will publish."""
    for _, path in pages or ():
        path.unlink(missing_ok=True)


_WORKER: SourceWorker | None = None


def _init(config: SiteConfig, factories: list[Callable[[SiteConfig], Any]], site: dict[str, Any]) -> None:
    global _WORKER
    _WORKER = SourceWorker(config, factories, site)


def _run(task: SourceTask) -> SourceResult:
    assert _WORKER is not None
    return _WORKER.run(task)


def default_jobs() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


def run_sources(tasks: list[SourceTask], config: SiteConfig, factories: list[Callable[[SiteConfig], Any]], site: dict[str, Any], jobs: int) -> Iterator[SourceResult]:
    """Results in task order; in this process for small jobs, else in a process pool."""
    if jobs <= 1 or len(tasks) < 2:
        worker = SourceWorker(config, factories, site)
        for task in tasks:
            yield worker.run(task)
        return
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    pool: Executor = ProcessPoolExecutor(max_workers=min(jobs, len(tasks)), mp_context=context, initializer=_init, initargs=(config, factories, site))
    try:
        # Submit ahead by a bounded window: results come back in task order, so a big
        # source at the head must not leave the other workers idle; a finished result is
        # only file names and small items, so a wide window costs little memory.
        window = max(2, jobs * 8)
        pending = []
        it = iter(tasks)
        for task in it:
            pending.append(pool.submit(_run, task))
            if len(pending) >= window:
                break
        while pending:
            future = pending.pop(0)
            nxt = next(it, None)
            if nxt is not None:
                pending.append(pool.submit(_run, nxt))
            yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
