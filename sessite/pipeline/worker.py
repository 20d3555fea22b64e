"""The per-source work of a build, run in worker processes: read → redact →
enrich → render. Pages are rendered straight into files of a spool folder
(one part of a big session at a time, see ``site/paging.py``); only their names, and
what each aggregate collected, go back, so the main process only moves files
into the site and merges small items.

Every core renders pages this way (``sessite.parallel``): a source is the unit
of work, and a session big enough to be split into parts gets a forked helper
that renders the later half of its parts and its exports (``fork_call``).
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from sessite.analyze.image_metadata import session_without_image_metadata
from sessite.analyze.redact import Redactor
from sessite.analyze.session import SessionSummary
from sessite.model import Problem, Problems
from sessite.outputs.registry import SESSION_OUTPUTS, AggregateFactory, aggregate_name
from sessite.outputs.search import SearchIndex
from sessite.parallel import fork_call, parallel_map
from sessite.pipeline.build_context import BuildContext
from sessite.pipeline.folder_settings import LeaveOut
from sessite.pipeline.output_scan import Leak, snippet_detector, snippet_leaks
from sessite.publish.writer import PublishError, spool_file
from sessite.readers import registry
from sessite.render.pages import Page, session_pages
from sessite.site.urls import parts_script_url, session_url
from sessite.site.view import SessionView, build_view, parts_script


@dataclass(frozen=True)
class SourceTask:
    key: str
    reader: str
    path: Path
    display_root: Path | None
    group: tuple[Path, ...] = ()  # other files of the same session, merged with this one (Claim.group)
    renames: tuple[tuple[str, str], ...] = ()  # (id, new id): another source already has a session with this id
    trusted: tuple[str, ...] = ()  # the archive's folders, resolved (Problems.trusted: symlinked agent folders)


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
    excluded: int = 0  # sessions left out (exclude_sessions, a broken session-folder sessite.toml)
    learned: dict[str, str] = field(default_factory=dict)  # value -> kind: what a rule replaced (Learned)
    snippet_leaks: list[Leak] = field(default_factory=list)  # found in search snippets where made (output_scan)


Spooled = list[tuple[str, Path]]  # (url, file rendered in the spool folder)
Note = Callable[[str], None]  # takes a problem's message: into Problems here, into a list in a helper
HelperShare = tuple[Spooled | None, Spooled, list[str]]  # a helper's pages (None: failed), exports, notes


class SourceWorker:
    """Everything a process needs to render sources, built once: forked workers inherit it."""

    def __init__(self, context: BuildContext, aggregate_factories: Sequence[AggregateFactory]) -> None:
        self.config = context.config
        self.renderer = context.renderer()
        self.collectors = [(aggregate_name(f), f(context.config)) for f in aggregate_factories]
        self.readers = {r.name: r for r in registry()}
        self.spool = context.spool_dir or Path(tempfile.gettempdir())
        self.leave_out = LeaveOut.for_config(context.config)
        Redactor.for_config(context.config)  # (its rules compiled once, here: forked workers inherit them)
        self.snippet_detector = snippet_detector(context.config)

    def run(self, task: SourceTask) -> SourceResult:
        problems = Problems(task.display_root, Redactor.scrub_for(self.config))
        problems.trusted.update(task.trusted)
        result = SourceResult(task.key)
        redactor = Redactor.for_config(self.config)
        reader = self.readers[task.reader]
        renames = dict(task.renames)
        try:
            for session in reader.read_group((task.path, *task.group), problems):
                read_id = session.id
                # Shown relative to the archive before redaction: what lies above it (a home folder) never shows.
                session = replace(session, source=replace(session.source, path=problems.display(session.source.path)))
                if redactor is not None:
                    session = redactor.value(session)
                session = session_without_image_metadata(session)
                kept = self.leave_out.session(session, read_id, task.path, problems)
                if kept is None:
                    result.excluded += 1
                    continue
                session = kept
                if session.id in renames:
                    session = replace(session, id=renames[session.id])
                display = problems.display(session.source.path)
                session = replace(session, source=replace(session.source, path=display))
                view = build_view(session, self.config.part_bytes or None)
                snippets: list[str] = []
                pages, items, extra = self._session_files(view, problems, display, session.source.line, snippets)
                if self.snippet_detector is not None and snippets:
                    result.snippet_leaks += snippet_leaks(self.snippet_detector, session_url(session.id), snippets)
                result.sessions.append(
                    RenderedSession(
                        session.id,
                        session_url(session.id),
                        display,
                        session.source.line,
                        pages,
                        view.summary,
                        items,
                        extra,
                    )
                )
                del view, pages, session  # a huge session's model goes before the next one is read
        except PublishError:
            raise  # the disk (full, read-only), not the file: the build stops with one line
        except Exception as exc:  # noqa: BLE001 - a reader bug costs only the rest of its file
            problems.add(
                task.path,
                None,
                f"{reader.name} reader failed ({type(exc).__name__}: {exc}); the rest of this file is skipped",
            )
        result.problems = problems.items
        result.redactions = redactor.counts if redactor else Counter()
        result.learned = dict(redactor.learned.kinds) if redactor else {}
        return result

    def _session_files(
        self, view: SessionView, problems: Problems, display: str, line: int | None, snippets: list[str]
    ) -> tuple[Spooled | None, dict[str, Any], Spooled]:
        """A session's pages, aggregate items and exports (pages and exports as spooled files);
        ``snippets`` gets the strings of its search snippets (``SearchIndex.collect``).

        A session split into parts is too big for one core: a forked helper renders
        the later half of its parts and its exports while this process renders the
        first half and collects the items. Pages are None when one failed to render
        (a problem says why)."""

        def note(message: str) -> None:
            problems.add(display, line, message, "render")

        pages = session_pages(view)
        half = len(pages) // 2
        helper = fork_call(partial(self._helper_share, view, pages[half:])) if self._may_fork(view) else None
        rendered = self._render_pages(pages if helper is None else pages[:half], note)
        items: dict[str, Any] = {}
        if rendered is not None:
            for name, collector in self.collectors:
                if isinstance(collector, SearchIndex):
                    items[name] = collector.collect(view, snippets)
                else:
                    items[name] = collector.collect(view)
        if helper is None:
            extra = self._exports(view, note) if rendered is not None else []
        else:
            theirs = (
                helper.result()
                or (  # None: the helper died, so its share is done here
                    self._render_pages(pages[half:], note),
                    self._exports(view, note),
                    [],
                )
            )
            their_pages, extra, notes = theirs
            for message in notes:
                note(message)
            if rendered is None or their_pages is None:
                discard(rendered)
                discard(their_pages)
                rendered = None
            else:
                rendered += their_pages
        if rendered is None:
            discard(extra)
            return None, {}, []
        if view.parts:
            rendered.append((parts_script_url(view.session.id), spool_file(self.spool, [parts_script(view)])))
        return rendered, items, extra

    def _may_fork(self, view: SessionView) -> bool:
        return len(view.parts) > 1 and self.config.jobs != 1 and (os.cpu_count() or 1) > 1

    def _helper_share(self, view: SessionView, pages: list[Page]) -> HelperShare:
        """In the forked helper: the later pages and the exports, with notes of what failed."""
        notes: list[str] = []
        done = self._render_pages(pages, notes.append)
        extra = self._exports(view, notes.append) if done is not None else []
        return done, extra, notes

    def _exports(self, view: SessionView, note: Note) -> Spooled:
        """The session's extra files (exports), spooled; a failing output costs its files only."""
        extra: Spooled = []
        for output in SESSION_OUTPUTS:
            try:
                for url, data in output(view, self.config):
                    extra.append((url, spool_file(self.spool, [data])))
            except PublishError:
                raise  # the disk, not the export
            except Exception as exc:  # noqa: BLE001 - an export bug costs that file only
                name = getattr(output, "__name__", "output")
                note(f"could not write {name} for {view.session.id} ({type(exc).__name__}: {exc})")
        return extra

    def _render_pages(self, pages: list[Page], note: Note) -> Spooled | None:
        """Render pages straight into the spool folder, one at a time.

        A page is never held whole in memory (nor pickled back to the main
        process): only its file name travels. A failure drops these pages (a
        note says why), as one failed page always did.
        """
        done: Spooled = []
        url = ""
        try:
            for page in pages:
                url = page.url
                done.append((url, spool_file(self.spool, self.renderer.stream(page))))
        except PublishError:
            discard(done)
            raise  # the disk, not the page
        except Exception as exc:  # noqa: BLE001 - one bad page must not stop the build
            note(f"could not render {url} ({type(exc).__name__}: {exc})")
            discard(done)
            return None
        return done


def discard(pages: Spooled | None) -> None:
    """Delete spooled pages nobody will publish."""
    for _, path in pages or ():
        path.unlink(missing_ok=True)


def run_sources(
    tasks: list[SourceTask],
    context: BuildContext,
    factories: Sequence[AggregateFactory],
    jobs: int,
) -> Iterator[SourceResult]:
    """Results in task order, rendered by ``jobs`` forked workers (or here, for small jobs).

    Tasks are sent ahead by a bounded window: results come back in task order, so a
    big source at the head must not leave the other workers idle; a finished result
    is only file names and small items, so a wide window costs little memory."""
    worker = SourceWorker(context, factories)
    yield from parallel_map(SourceWorker.run, tasks, jobs, context=worker, window=max(2, jobs * 8))
