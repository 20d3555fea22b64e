"""``llms.txt``: what the archive is and where each session is, for agents reading a hosted site.

The llms.txt format (https://llmstxt.org/): an H1 with the site's title, a blockquote
summing the archive up, then sections of ``- [name](url): note`` links: the index and
search pages, then every session, newest first, with its (redacted) title and its
facts on one line. With Markdown exports on, a session links its plain ``<id>.md``
transcript, which an agent reads as it is; else its page. Links are absolute with a
base URL, else relative to the site root, where llms.txt sits.
"""

from __future__ import annotations

import re
from datetime import datetime
from urllib.parse import quote

from sessite.analyze.session import SessionSummary, one_line
from sessite.config import SiteConfig
from sessite.model import Problems
from sessite.publish.writer import SiteWriter
from sessite.render.renderer import Renderer
from sessite.site.urls import INDEX_URL, LLMS_TXT_URL, SEARCH_URL, markdown_twin_url, session_url
from sessite.site.view import SessionView

TITLE_CHARS = 150
_LINK_TEXT = re.compile(r"([\\\[\]])")


def link_text(text: str, limit: int = TITLE_CHARS) -> str:
    """``text`` as one line of a Markdown link's text: whitespace collapsed, brackets escaped, cut."""
    line = " ".join(text.split())
    if len(line) > limit:
        line = line[: limit - 1].rstrip() + "…"
    return _LINK_TEXT.sub(r"\\\1", line)


def _note(text: str) -> str:
    return " ".join(text.split())


class LlmsTxt:
    """The aggregate writing ``llms.txt`` from every session's summary."""

    name = "llms"

    def __init__(self, config: SiteConfig) -> None:
        self.title = config.title
        self.base = config.base_url.strip().rstrip("/") + "/" if config.base_url.strip() else ""
        self.markdown = "markdown" in config.exports
        self.summaries: list[SessionSummary] = []

    def collect(self, view: SessionView) -> SessionSummary:
        return view.summary

    def add(self, item: SessionSummary) -> None:
        self.summaries.append(item)

    def write(self, writer: SiteWriter, renderer: Renderer, problems: Problems) -> None:
        writer.write(LLMS_TXT_URL, self.text().encode("utf-8"))

    def _url(self, url: str) -> str:
        return self.base + quote(url)

    def text(self) -> str:
        sessions = sorted(
            self.summaries, key=lambda s: (s.started is None, -(s.started.timestamp() if s.started else 0), s.id)
        )
        agents = sorted({s.agent for s in sessions})
        projects = {s.project for s in sessions if s.project}
        dates = [s.started for s in sessions if s.started]
        span = f", {_day(min(dates))} to {_day(max(dates))}" if dates else ""
        count = f"{len(sessions)} AI coding session{'s' if len(sessions) != 1 else ''}"
        where = f" in {len(projects)} project{'s' if len(projects) != 1 else ''}" if projects else ""
        twin = " Each session links its transcript as plain Markdown." if self.markdown else ""
        lines = [
            f"# {_note(self.title)}",
            "",
            f"> {count} by {', '.join(agents) or 'no agent'}{where}{span}, published with sessite. "
            f"Secrets are redacted.{twin}",
            "",
            "Each session's page shows every event of it: prompts, replies, tool calls and their output.",
            "",
            "## Site",
            "",
            f"- [Index]({self._url(INDEX_URL)}): every session, newest first, filtered by agent, project or date",
            f"- [Search]({self._url(SEARCH_URL)}): full-text search of every session (`{SEARCH_URL}?q=words`)",
            "",
            "## Sessions",
            "",
        ]
        for s in sessions:
            url = markdown_twin_url(s.id) if self.markdown else session_url(s.id)
            when = f" · {_day(s.started)}" if s.started else ""
            lines.append(f"- [{link_text(s.title)}]({self._url(url)}): {_note(one_line(s))}{when}")
        return "\n".join(lines) + "\n"


def _day(value: datetime) -> str:
    return value.date().isoformat()
