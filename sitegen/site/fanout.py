"""Render many site-wide pages (the git-ref pages: thousands of them) on every core.

The pages are planned in the main process; forked processes inherit them (no
pickling), render their share straight into files of the writer's spool folder
and send back only file names, which the main process moves into the site.
Below ``FANOUT_MIN`` pages, or where fork is missing, everything stays in
this process.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from sitegen.site.pages import Page
from sitegen.site.writer import spool_file

if TYPE_CHECKING:
    from sitegen.model import Problems
    from sitegen.site.render import Renderer
    from sitegen.site.writer import SiteWriter

FANOUT_MIN = 400  # pages; fewer render faster here than a fork costs
_FORKED: tuple | None = None  # (pages, renderer, spool folder), set just before the processes fork


def _render_range(span: tuple[int, int]) -> list[tuple[int, str | None, str | None]]:
    """In a forked process: (index, spooled file, error) for each page of ``span``."""
    assert _FORKED is not None, "only runs in a process forked by render_pages"
    pages, renderer, spool = _FORKED
    done: list[tuple[int, str | None, str | None]] = []
    for i in range(*span):
        try:
            done.append((i, str(spool_file(spool, renderer.stream(pages[i]))), None))
        except Exception as exc:  # noqa: BLE001 - one bad page must not stop the build
            done.append((i, None, f"{type(exc).__name__}: {exc}"))
    return done


def render_pages(pages: Sequence[Page], writer: SiteWriter, renderer: Renderer, problems: Problems, jobs: int) -> None:
    """Render and write ``pages``; a page that fails to render is a problem, not a failed build."""
    if jobs < 2 or len(pages) < FANOUT_MIN or "fork" not in multiprocessing.get_all_start_methods():
        for page in pages:
            try:
                html = renderer.render(page)
            except Exception as exc:  # noqa: BLE001 - one bad page must not stop the build
                problems.add(page.url, None, f"could not render {page.url} ({type(exc).__name__}: {exc})", "render")
                continue
            writer.write(page.url, html)
        return
    global _FORKED
    _FORKED = (pages, renderer, writer.spool_dir())
    step = max(1, len(pages) // (jobs * 4))
    spans = [(start, min(start + step, len(pages))) for start in range(0, len(pages), step)]
    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            for batch in pool.map(_render_range, spans):
                for i, path, error in batch:
                    if error is not None:
                        problems.add(pages[i].url, None, f"could not render {pages[i].url} ({error})", "render")
                    else:
                        writer.write_file(pages[i].url, Path(path))
    finally:
        _FORKED = None
