"""build(config) -> BuildReport: discover → read → redact → enrich → render → write.

Streaming: each session is rendered and written as soon as it is read, and
only its small summary is kept for the aggregate pages, so memory tracks the
largest session, not the archive.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from .aggregate import Aggregate
from .catalog import CatalogEntry
from .config import SiteConfig
from .enrich import SessionSummary, SessionView, build_view
from .markup import pygments_css
from .model import Problem, Session
from .pages import Page, index_page, not_found_page, session_page
from .readers import Claim, Problems, discover
from .redact import Redactor
from .render import Renderer
from .resources import static_dir
from .writer import SiteWriter, check_output


@dataclass
class BuildReport:
    output: Path
    sessions: int = 0
    files: int = 0
    ignored: int = 0
    problems: list[Problem] = field(default_factory=list)
    redactions: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    bytes_written: int = 0
    pages: int = 0
    published: bool = False
    catalog: list[CatalogEntry] | None = None  # one entry per session, for the preview server's tools

    def summary_line(self) -> str:
        parts = [f"built {self.sessions} session{'s' if self.sessions != 1 else ''} from {self.files} file{'s' if self.files != 1 else ''} in {self.seconds:.1f}s"]
        extras = [f"{len(self.problems)} problem{'s' if len(self.problems) != 1 else ''}"]
        if self.redactions:
            extras.append(f"{sum(self.redactions.values())} secret{'s' if sum(self.redactions.values()) != 1 else ''} redacted")
        if self.ignored:
            extras.append(f"{self.ignored} other file{'s' if self.ignored != 1 else ''} ignored")
        line = f"{parts[0]} ({', '.join(extras)})"
        if self.published:
            line += f" → {self.output}"
        else:
            line += "; previous site left unchanged"
        return line


class SessionIndex:
    """The home page: one row per session, from its small summary."""

    def __init__(self, config: SiteConfig) -> None:
        self.summaries: list[SessionSummary] = []

    def add(self, view: SessionView) -> None:
        self.summaries.append(view.summary)

    def write(self, writer: SiteWriter, renderer: Renderer, problems: Problems) -> None:
        for page in (index_page(self.summaries), not_found_page()):
            _write_page(renderer, writer, page, problems, "index")


# Site-wide outputs, each fed every session as it streams past.
AGGREGATES: list[Callable[[SiteConfig], Aggregate]] = [SessionIndex]


ProgressHook = Callable[[int, int, str], None]  # (done, total, current path)


def build(config: SiteConfig, progress: ProgressHook | None = None) -> BuildReport:
    """Build the whole site; problems are collected, never raised.

    Raises OutputError when the output folder cannot be used safely.
    """
    started = time.perf_counter()
    archive = config.archive.resolve()
    check_output(archive, config.output)
    problems = Problems(archive if archive.is_dir() else archive.parent)
    report = BuildReport(output=config.output.resolve(), catalog=[])
    found = discover(archive, problems)
    report.files = len(found.claims)
    report.ignored = len(found.ignored)
    redactor = Redactor() if config.redact else None
    renderer = Renderer({"title": config.title, "base_url": config.base_url.rstrip("/") + "/" if config.base_url else ""}, config.template_dirs)
    aggregates = [factory(config) for factory in AGGREGATES]
    owners: dict[str, str] = {}

    with SiteWriter(config.output) as writer:
        for done, claim in enumerate(found.claims):
            if progress:
                progress(done, len(found.claims), problems.display(claim.path))
            for session in _read_claim(claim, problems):
                if redactor is not None:
                    session = redactor.value(session)
                source = problems.display(session.source.path)
                if session.id in owners:
                    problems.add(session.source.path, session.source.line, f"session id {session.id} already read from {owners[session.id]}; this copy skipped", "render")
                    continue
                owners[session.id] = source
                session = _with_display_path(session, source)
                view = build_view(session)
                if _write_page(renderer, writer, session_page(view), problems, session.source.path):
                    report.sessions += 1
                    report.catalog.append(CatalogEntry(view.summary, claim.reader.name, claim.path))
                    for aggregate in aggregates:
                        aggregate.add(view)
        if progress:
            progress(len(found.claims), len(found.claims), "")
        if not report.sessions:
            report.problems = problems.items
            report.seconds = time.perf_counter() - started
            writer.abort()
            if not found.claims:
                problems.add(archive, None, "no session files found", "discover")
            return report
        for aggregate in aggregates:
            aggregate.write(writer, renderer, problems)
        writer.copy_tree(static_dir(), "static")
        for user_static in config.static_dirs:
            writer.copy_tree(user_static, "static")
        writer.write("static/pygments.css", pygments_css())
        writer.write(".nojekyll", b"")
        writer.commit()
        report.bytes_written = writer.bytes_written
        report.pages = len(writer.written)
    report.published = True
    report.problems = problems.items
    report.redactions = redactor.counts if redactor else Counter()
    report.seconds = time.perf_counter() - started
    return report


def _read_claim(claim: Claim, problems: Problems) -> Iterator[Session]:
    """A reader's sessions; a reader that crashes costs only the rest of that file."""
    try:
        yield from claim.reader.read(claim.path, problems)
    except Exception as exc:  # noqa: BLE001 - a reader bug must not stop the build
        problems.add(claim.path, None, f"{claim.reader.name} reader failed ({type(exc).__name__}: {exc}); the rest of this file is skipped")


def _with_display_path(session: Session, display: str) -> Session:
    from dataclasses import replace

    return replace(session, source=replace(session.source, path=display))


def _write_page(renderer: Renderer, writer: SiteWriter, page: Page, problems: Problems, source: str | Path) -> bool:
    try:
        html = renderer.render(page)
    except Exception as exc:  # noqa: BLE001 - one bad page must not stop the build
        problems.add(source, None, f"could not render {page.url} ({type(exc).__name__}: {exc})", "render")
        return False
    writer.write(page.url, html)
    return True
