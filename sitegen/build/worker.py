"""The per-source work of a build, run in worker processes: read → redact →
enrich → render. Pages are rendered straight into files of a spool folder
(one part of a big session at a time, see ``parts.py``); only their names, and
what each aggregate collected, go back, so the main process only moves files
into the site and merges small items.

Both cores of a typical machine render pages this way; a source is the unit of
work, and a session big enough to be split into parts gets a forked helper
that renders half of its parts and its exports (``_Helper``).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sitegen.analyze.redact import Redactor
from sitegen.analyze.session import SessionSummary
from sitegen.build.outputs import SESSION_OUTPUTS
from sitegen.config import SiteConfig
from sitegen.model import Problem, Problems
from sitegen.readers import registry
from sitegen.site.pages import Page, session_pages
from sitegen.site.render import Renderer
from sitegen.site.urls import parts_script_url
from sitegen.site.view import SessionView, build_view, parts_script
from sitegen.site.writer import spool_file


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
    pages: (
        list[tuple[str, Path]] | None
    )  # (url, file rendered in the spool folder): part 1 first; None when rendering failed
    summary: SessionSummary
    items: dict[str, Any]  # aggregate name -> collected item
    extra: list[tuple[str, Path]] = field(
        default_factory=list
    )  # other files of this session (exports), spooled like pages


@dataclass
class SourceResult:
    key: str
    sessions: list[RenderedSession] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    redactions: Counter = field(default_factory=Counter)


class SourceWorker:
    """Everything one process needs to render sources: built once per process."""

    def __init__(
        self, config: SiteConfig, aggregate_factories: list[Callable[[SiteConfig], Any]], site: dict[str, Any]
    ) -> None:
        self.config = config
        self.renderer = Renderer(site, config.template_dirs, site.get("_bytecode"))
        self.collectors = [(getattr(f, "name", f.__name__), f(config)) for f in aggregate_factories]
        self.readers = {r.name: r for r in registry()}
        self.spool = Path(
            site.get("_spool") or tempfile.gettempdir()
        )  # the build's folder beside the site (SiteWriter.spool_dir)

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
                pages, items, extra = self._session_files(view, problems, display, session.source.line)
                result.sessions.append(
                    RenderedSession(
                        session.id, view.summary.url, display, session.source.line, pages, view.summary, items, extra
                    )
                )
                del view, pages, session  # a huge session's model goes before the next one is read
        except Exception as exc:  # noqa: BLE001 - a reader bug costs only the rest of its file
            problems.add(
                task.path,
                None,
                f"{reader.name} reader failed ({type(exc).__name__}: {exc}); the rest of this file is skipped",
            )
        result.problems = problems.items
        result.redactions = redactor.counts if redactor else Counter()
        return result

    def _session_files(
        self, view: SessionView, problems: Problems, display: str, line: int | None
    ) -> tuple[list[tuple[str, Path]] | None, dict[str, Any], list[tuple[str, Path]]]:
        """A session's pages, aggregate items and exports (pages and exports as spooled files).

        A session split into parts is too big for one core: a forked helper renders
        the later half of its parts and its exports while this process renders the
        first half and collects the items (``_Helper``). Pages are None when one
        failed to render (a problem says why)."""
        pages = session_pages(view)
        helper = _Helper.start(self, view, pages[len(pages) // 2 :], display, line) if self._may_fork(view) else None
        own = pages if helper is None else pages[: len(pages) // 2]
        rendered = self._render_pages(own, problems, display, line)
        items: dict[str, Any] = {}
        extra: list[tuple[str, Path]] = []
        if rendered is not None:
            items = {name: collector.collect(view) for name, collector in self.collectors}
        if helper is not None:
            theirs = helper.result()
            if theirs is None:  # the helper died: do its share here
                theirs = (
                    self._render_pages(pages[len(pages) // 2 :], problems, display, line),
                    self._exports(view, problems, display, line),
                    [],
                )
            their_pages, extra, notes = theirs
            for note in notes:
                problems.add(display, line, note, "render")
            if rendered is None or their_pages is None:
                discard(rendered)
                discard(their_pages)
                rendered = None
            else:
                rendered += their_pages
        elif rendered is not None:
            extra = self._exports(view, problems, display, line)
        if rendered is not None and view.parts:
            rendered.append(
                (parts_script_url(view.session.id), spool_file(self.spool, [parts_script(view).decode("ascii")]))
            )
        if rendered is None:
            discard(extra)
            return None, {}, []
        return rendered, items, extra

    def _may_fork(self, view: SessionView) -> bool:
        return len(view.parts) > 1 and self.config.jobs != 1 and (os.cpu_count() or 1) > 1 and hasattr(os, "fork")

    def _exports(
        self,
        view: SessionView,
        problems: Problems | None,
        display: str,
        line: int | None,
        notes: list[str] | None = None,
    ) -> list[tuple[str, Path]]:
        """The session's extra files (exports), spooled; a failing output costs its files only."""
        extra: list[tuple[str, Path]] = []
        for output in SESSION_OUTPUTS:
            try:
                for url, data in output(view, self.config):
                    extra.append((url, spool_file(self.spool, [data])))
            except Exception as exc:  # noqa: BLE001 - an export bug costs that file only
                note = f"could not write {getattr(output, '__name__', 'output')} for {view.session.id} ({type(exc).__name__}: {exc})"
                if notes is not None:
                    notes.append(note)
                else:
                    problems.add(display, line, note, "render")
        return extra

    def _render_pages(
        self,
        pages: list[Page],
        problems: Problems | None,
        display: str,
        line: int | None,
        notes: list[str] | None = None,
    ) -> list[tuple[str, Path]] | None:
        """Render pages straight into the spool folder, one at a time.

        A page is never held whole in memory (nor pickled back to the main
        process): only its file name travels. A failure drops these pages (a
        problem, or a note for the caller, says why), as one failed page always did.
        """
        done: list[tuple[str, Path]] = []
        url = ""
        try:
            for page in pages:
                url = page.url
                done.append((url, spool_file(self.spool, self.renderer.stream(page))))
        except Exception as exc:  # noqa: BLE001 - one bad page must not stop the build
            note = f"could not render {url} ({type(exc).__name__}: {exc})"
            if notes is not None:
                notes.append(note)
            else:
                problems.add(display, line, note, "render")
            discard(done)
            return None
        return done


class _Helper:
    """A forked copy of a worker that renders part of a big session (it shares the
    session's model with its parent, copy-on-write, so nothing is pickled to it) and
    sends back only spooled file names and problem notes, through a pipe."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid, self.fd = pid, fd

    @classmethod
    def start(
        cls, worker: SourceWorker, view: SessionView, pages: list[Page], display: str, line: int | None
    ) -> _Helper | None:
        try:
            read, write = os.pipe()
            pid = os.fork()
        except OSError:
            return None
        if pid:
            os.close(write)
            return cls(pid, read)
        os.close(read)  # the helper: render, export, report, and leave without running the parent's exit handlers
        status = 1
        try:
            notes: list[str] = []
            done = worker._render_pages(pages, None, display, line, notes)
            extra = worker._exports(view, None, display, line, notes) if done is not None else []
            with os.fdopen(write, "wb") as fh:
                pickle.dump((done, extra, notes), fh)
            status = 0
        finally:
            os._exit(status)

    def result(self) -> tuple[list[tuple[str, Path]] | None, list[tuple[str, Path]], list[str]] | None:
        """What the helper made, or None when it failed (its share must be done again)."""
        with os.fdopen(self.fd, "rb") as fh:
            data = fh.read()  # before waiting: a report bigger than the pipe's buffer waits for this read
        _, status = os.waitpid(self.pid, 0)
        if status != 0 or not data:
            return None
        try:
            return pickle.loads(data)
        except Exception:  # noqa: BLE001 - a cut report: do the share again
            return None


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


def run_sources(
    tasks: list[SourceTask],
    config: SiteConfig,
    factories: list[Callable[[SiteConfig], Any]],
    site: dict[str, Any],
    jobs: int,
) -> Iterator[SourceResult]:
    """Results in task order; in this process for small jobs, else in a process pool."""
    if jobs <= 1 or len(tasks) < 2:
        worker = SourceWorker(config, factories, site)
        for task in tasks:
            yield worker.run(task)
        return
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    pool: Executor = ProcessPoolExecutor(
        max_workers=min(jobs, len(tasks)), mp_context=context, initializer=_init, initargs=(config, factories, site)
    )
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
