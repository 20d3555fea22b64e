"""Previous and next session in a project: one small script per project.

A session page is rendered from its own session alone (a page's context holds
only its ``deps``), so it cannot know its neighbours. This aggregate collects
each session's project, start and title, and writes
``insights/<project>.sessions.js``: one inert call,
``sessiteProjectSessions({"sessions": [[url, title, started], …]})``, in the
order sessions started. The session page names that script
(``data-session-nav``) and ``static/app.js`` loads it, as it loads a split
session's ``parts.js``: a ``<script>`` works from ``file://``, a fetch does not.
A page whose script is missing (an older build) simply shows no neighbours.
"""

from __future__ import annotations

import json
from datetime import UTC
from typing import Any

from sessite.config import SiteConfig
from sessite.model import Problems
from sessite.publish.writer import SiteWriter
from sessite.site.urls import nav_script_url, session_url
from sessite.site.view import SessionView

TITLE_CHARS = 100  # a neighbour's title in the script: enough for a link's words


# one session: (project, started as a sortable ISO string or "", url, title)
Item = tuple[str, str, str, str]


class ProjectNeighbours:
    """The aggregate (``sessite/outputs/aggregate.py``) that writes each project's session order."""

    name = "neighbours"

    def __init__(self, config: SiteConfig) -> None:
        self.projects: dict[str, list[tuple[str, str, str]]] = {}

    def collect(self, view: SessionView) -> Item | None:
        s = view.summary
        if not s.project:
            return None
        started = s.started.astimezone(UTC).isoformat() if s.started else ""
        title = s.title if len(s.title) <= TITLE_CHARS else s.title[: TITLE_CHARS - 1] + "…"
        return (s.project, started, session_url(s.id), title)

    def add(self, item: Item | None) -> None:
        if item is None:
            return
        project, started, url, title = item
        self.projects.setdefault(project, []).append((started, url, title))

    def scripts(self) -> dict[str, bytes]:
        """Each project's script, by URL: its sessions from the first started to the last
        (sessions without a start time last, in archive order)."""
        out: dict[str, bytes] = {}
        for project, sessions in self.projects.items():
            ordered = sorted(sessions, key=lambda s: (s[0] == "", s[0]))
            data = {"sessions": [[url, title, started[:10]] for started, url, title in ordered]}
            body = json.dumps(data, ensure_ascii=True, separators=(",", ":")).replace("</", "<\\/")
            out[nav_script_url(project)] = ("sessiteProjectSessions(" + body + ");\n").encode("ascii")
        return out

    def write(self, writer: SiteWriter, renderer: Any, problems: Problems) -> None:
        for url, data in self.scripts().items():
            writer.write(url, data)  # a failed write is the disk's (PublishError): the build stops
