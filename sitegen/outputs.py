"""What a build produces besides each session's page: one line per output.

AGGREGATES are site-wide (see ``aggregate.py``). SESSION_OUTPUTS are extra
files per session, rendered in the worker beside the session's page: each is a
function ``(view, config) -> iterable of (url, bytes)``.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from .config import SiteConfig
from .enrich import SessionView

AGGREGATES: list[Callable[[SiteConfig], Any]] = []
SESSION_OUTPUTS: list[Callable[[SessionView, SiteConfig], Iterable[tuple[str, bytes]]]] = []


def _register() -> None:
    from .exports import session_exports
    from .home import SessionIndex
    from .publish import FeedAndSitemap
    from .refsite import GitRefsIndex
    from .search import SearchIndex

    AGGREGATES.extend([
        SessionIndex,  # index.html (with its summary), insights.html, insights/<project>.html, insights/projects.html, 404.html
        SearchIndex,  # search/: lunr index chunks, snippets and search.html
        GitRefsIndex,  # refs/: one page per repository and per branch, commit, issue, tag
        FeedAndSitemap,  # sitemap.xml, feed.xml (only with a base URL)
    ])
    SESSION_OUTPUTS.extend([
        session_exports,  # sessions/<id>.aics.json.gz, .hail.jsonl.gz, .md.gz (config.exports)
    ])


_register()
