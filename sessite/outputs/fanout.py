"""Render many site-wide pages (the git-ref pages: thousands of them) on every core.

The pages are planned in the main process; forked workers (``sessite.parallel``)
inherit them (no pickling), render spans of them straight into files of the
writer's spool folder and send back only file names, which the main process
moves into the site. Below ``FANOUT_MIN`` pages, or where fork is missing,
everything stays in this process.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sessite.model import Problems
from sessite.parallel import can_fork, parallel_map
from sessite.publish.writer import PublishError, SiteWriter, spool_file
from sessite.render.pages import Page
from sessite.render.renderer import Renderer

FANOUT_MIN = 400  # pages; fewer render faster here than a fork costs
SPANS_PER_JOB = 4  # spans of pages per worker: enough to even out slow spans


@dataclass(frozen=True)
class _Fanout:
    """What the workers inherit."""

    pages: Sequence[Page]
    renderer: Renderer
    spool: Path


Rendered = tuple[int, Path | None, str | None]  # (page index, spooled file, error)


def _render_span(fanout: _Fanout, span: range) -> list[Rendered]:
    """In a worker: (index, spooled file, error) for each page of ``span``."""
    done: list[Rendered] = []
    for i in span:
        try:
            done.append((i, spool_file(fanout.spool, fanout.renderer.stream(fanout.pages[i])), None))
        except PublishError:
            raise  # the disk, not the page: raised again in the caller, which stops the build
        except Exception as exc:  # noqa: BLE001 - one bad page must not stop the build
            done.append((i, None, f"{type(exc).__name__}: {exc}"))
    return done


def render_pages(pages: Sequence[Page], writer: SiteWriter, renderer: Renderer, problems: Problems, jobs: int) -> None:
    """Render and write ``pages``; a page that fails to render is a problem, not a failed build."""
    if jobs < 2 or len(pages) < FANOUT_MIN or not can_fork():
        for page in pages:
            try:
                html = renderer.render(page)
            except Exception as exc:  # noqa: BLE001 - one bad page must not stop the build
                problems.add(page.url, None, f"could not render {page.url} ({type(exc).__name__}: {exc})", "render")
                continue
            writer.write(page.url, html)
        return
    step = max(1, len(pages) // (jobs * SPANS_PER_JOB))
    spans = [range(start, min(start + step, len(pages))) for start in range(0, len(pages), step)]
    fanout = _Fanout(pages, renderer, writer.spool_dir())
    for batch in parallel_map(_render_span, spans, jobs, context=fanout):
        for i, path, error in batch:
            if path is None:
                problems.add(pages[i].url, None, f"could not render {pages[i].url} ({error})", "render")
            else:
                writer.write_file(pages[i].url, path)
