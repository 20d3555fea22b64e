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
    from .home import SessionIndex
    from .refsite import GitRefsIndex
    from .search import SearchIndex

    AGGREGATES.extend([
        SessionIndex,  # index.html, 404.html
        SearchIndex,  # search/: lunr index chunks, snippets and search.html
        GitRefsIndex,  # refs/: one page per repository and per branch, commit, issue, tag
    ])


_register()
