"""What a build produces besides each session's page: one line per output.

DEFAULT_AGGREGATES are site-wide (see ``sessite/outputs/aggregate.py``): the factories
``build()`` makes its aggregates with unless the caller passes its own list (``build(config,
aggregates=...)``). SESSION_OUTPUTS are extra files per session, rendered in the worker beside
the session's page: each is a function ``(view, config) -> iterable of (url, bytes)``. Both are
tuples: a caller that wants other outputs passes them, nobody edits these.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from sessite.analyze.insights import SessionFigures
from sessite.analyze.session import SessionSummary
from sessite.config import SiteConfig
from sessite.gitlinks.evidence import SessionEvidence
from sessite.outputs.aggregate import Aggregate
from sessite.outputs.commit_pages import CommitPages
from sessite.outputs.downloads import session_exports, session_markdown_twin, session_single_file
from sessite.outputs.feed import FeedAndSitemap
from sessite.outputs.home import SessionIndex
from sessite.outputs.llms import LlmsTxt
from sessite.outputs.neighbours import Item as NeighbourItem
from sessite.outputs.neighbours import ProjectNeighbours
from sessite.outputs.ref_pages import Collected as RefsItem
from sessite.outputs.ref_pages import GitRefsIndex
from sessite.outputs.robots import RobotsTxt
from sessite.outputs.search import SearchIndex
from sessite.search.facts import Facts
from sessite.search.item import SessionItem
from sessite.site.view import SessionView

AggregateFactory = Callable[[SiteConfig], Aggregate[Any]]  # an Aggregate class, or anything that makes one
SessionOutput = Callable[[SessionView, SiteConfig], Iterable[tuple[str, bytes]]]

DEFAULT_AGGREGATES: tuple[AggregateFactory, ...] = (
    # index.html (with its summary), insights.html, insights/<project>.html, insights/projects.html, 404.html
    SessionIndex,
    SearchIndex,  # search/: lunr index chunks, snippets and search.html
    CommitPages,  # commits/ (with --repo): a page per linked commit, each repository's commits; before refs/
    GitRefsIndex,  # refs/: one page per repository and per branch, commit, issue, tag
    FeedAndSitemap,  # sitemap.xml, feed.xml (only with a base URL)
    ProjectNeighbours,  # insights/<project>.sessions.js: previous/next session on a session page
    LlmsTxt,  # llms.txt: the archive and its sessions as links, for agents
    RobotsTxt,  # robots.txt: no crawling unless search_engines = true (then the sitemap is named)
)
SESSION_OUTPUTS: tuple[SessionOutput, ...] = (
    session_exports,  # sessions/<id>.aics.json.gz, .hail.jsonl.gz, .md.gz (config.exports)
    session_markdown_twin,  # sessions/<id>.md: the Markdown transcript as plain text (exports "markdown")
    session_single_file,  # sessions/<id>/<id>.html: the session as one self-contained file (exports "html")
)


def aggregate_name(factory: AggregateFactory) -> str:
    """An aggregate's name: its ``name`` attribute (it keys the aggregate's items in the cache)."""
    return str(getattr(factory, "name", factory.__name__))


def aggregate_names(factories: Sequence[AggregateFactory] = DEFAULT_AGGREGATES) -> list[str]:
    """The aggregates' names, in build order."""
    return [aggregate_name(factory) for factory in factories]


def _items_match(config: SiteConfig) -> None:
    """Never called: mypy checks here that each default aggregate's ``add`` takes what its
    ``collect`` makes (an ``Aggregate[Item]`` each), though the list holds them as ``Aggregate[Any]``."""
    index: Aggregate[tuple[SessionSummary, SessionFigures]] = SessionIndex(config)
    search: Aggregate[tuple[str, SessionItem, Facts]] = SearchIndex(config)
    refs: Aggregate[RefsItem | None] = GitRefsIndex(config)
    feed: Aggregate[SessionSummary] = FeedAndSitemap(config)
    neighbours: Aggregate[NeighbourItem | None] = ProjectNeighbours(config)
    llms: Aggregate[SessionSummary] = LlmsTxt(config)
    robots: Aggregate[None] = RobotsTxt(config)
    commits: Aggregate[SessionEvidence | None] = CommitPages(config)
    del index, search, refs, feed, neighbours, llms, robots, commits
