"""What a build produces besides each session's page: one line per output.

AGGREGATES are site-wide (see ``sessite/outputs/aggregate.py``). SESSION_OUTPUTS are
extra files per session, rendered in the worker beside the session's page: each
is a function ``(view, config) -> iterable of (url, bytes)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from sessite.config import SiteConfig
from sessite.outputs.downloads import session_exports, session_single_file
from sessite.outputs.feed import FeedAndSitemap
from sessite.outputs.home import SessionIndex
from sessite.outputs.neighbours import ProjectNeighbours
from sessite.outputs.ref_pages import GitRefsIndex
from sessite.outputs.search import SearchIndex
from sessite.site.view import SessionView

AGGREGATES: list[Callable[[SiteConfig], Any]] = [
    # index.html (with its summary), insights.html, insights/<project>.html, insights/projects.html, 404.html
    SessionIndex,
    SearchIndex,  # search/: lunr index chunks, snippets and search.html
    GitRefsIndex,  # refs/: one page per repository and per branch, commit, issue, tag
    FeedAndSitemap,  # sitemap.xml, feed.xml (only with a base URL)
    ProjectNeighbours,  # insights/<project>.sessions.js: previous/next session on a session page
]
SESSION_OUTPUTS: list[Callable[[SessionView, SiteConfig], Iterable[tuple[str, bytes]]]] = [
    session_exports,  # sessions/<id>.aics.json.gz, .hail.jsonl.gz, .md.gz (config.exports)
    session_single_file,  # sessions/<id>/<id>.html: the session as one self-contained file (exports "html")
]


def aggregate_name(factory: Callable[[SiteConfig], Any]) -> str:
    """An aggregate's name: its ``name`` attribute (it keys the aggregate's items in the cache)."""
    return str(getattr(factory, "name", factory.__name__))


def aggregate_names() -> list[str]:
    """The registered aggregates' names, in build order (read at each build: a benchmark may drop one)."""
    return [aggregate_name(factory) for factory in AGGREGATES]
