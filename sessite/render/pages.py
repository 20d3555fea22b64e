"""Plan pages: what to build, from which data. No file I/O, no HTML.

A page's context holds only its ``deps`` (the sessions it reads) plus
site-wide constants, which is what lets a later build know what to redo.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sessite.analyze.session import SessionSummary
from sessite.interchange.formats import SUFFIXES
from sessite.render.timeline import Timeline
from sessite.site.urls import (
    INDEX_URL,
    NOT_FOUND_URL,
    export_urls,
    index_url,
    nav_script_url,
    parts_script_url,
    project_url,
    relative_root,
    session_commits_script_url,
    session_url,
    single_file_url,
)
from sessite.site.view import SessionView


@dataclass(frozen=True)
class Page:
    url: str  # path inside the site, e.g. "sessions/x.html"
    template: str
    context: dict[str, Any] = field(default_factory=dict)
    deps: tuple[str, ...] = ()  # session ids the page reads

    @property
    def root(self) -> str:
        """Relative path from this page back to the site root ("" or "../")."""
        return relative_root(self.url)


def session_page(view: SessionView) -> Page:
    """The session's page: all of it, or part 1 of a split session."""
    return session_pages(view)[0]


def session_pages(view: SessionView) -> list[Page]:
    """One page per part (``sessite/site/paging.py``); a session that fits gets its one page, without a pager.

    ``tl`` draws the compact timeline (``sessite/render/timeline.py``); ``project`` links the
    header to the project's page, its sessions and the script of its session order
    (``sessite/outputs/neighbours.py``) — URLs only, so the page still reads this session alone."""
    deps = (view.session.id,)
    base = {
        "view": view,
        "s": view.summary,
        "part": None,
        "parts_js": "",
        "project": project_links(view.summary),
        "files": download_urls(view.session.id),
        "commits_script": session_commits_script_url(view.session.id),  # (with --repo: the commits it made)
    }
    if not view.parts:
        return [Page(session_url(view.session.id), "session.html", dict(base, tl=Timeline(view)), deps)]
    script = parts_script_url(view.session.id)
    return [
        Page(part.url, "session.html", dict(base, part=part, parts_js=script, tl=Timeline(view, part)), deps)
        for part in view.parts
    ]


def download_urls(session_id: str) -> dict[str, str]:
    """Where each download of a session lives (the exports, ``html`` the one-file page): the session
    page links there, whichever of them the config asks for (``templates/session.html``)."""
    return {**dict(export_urls(session_id, SUFFIXES)), "html": single_file_url(session_id)}


def project_links(summary: SessionSummary) -> dict[str, str] | None:
    """Where a session's project leads: its insights page, its sessions in the index, its session order."""
    if not summary.project:
        return None
    return {
        "page": project_url(summary.project),
        "sessions": index_url(project=summary.project),
        "nav": nav_script_url(summary.project),
    }


def index_page(summaries: Sequence[SessionSummary]) -> Page:
    ordered = sorted(
        summaries, key=lambda s: (s.started is None, -(s.started.timestamp() if s.started else 0), s.title)
    )
    agents = sorted({s.agent for s in summaries})
    projects = sorted({s.project for s in summaries if s.project})
    # sessions with no messages and sub-agents' logs are not rows: counted and linked below the table
    apart: dict[str, list[SessionSummary]] = {}
    for s in ordered:
        reason = s.listed_apart
        if reason:
            apart.setdefault(reason, []).append(s)
    rows = [s for s in ordered if not s.listed_apart]
    return Page(
        INDEX_URL,
        "index.html",
        {"sessions": rows, "apart": sorted(apart.items()), "agents": agents, "projects": projects},
        tuple(s.id for s in summaries),
    )


def not_found_page() -> Page:
    return Page(NOT_FOUND_URL, "404.html", {})
