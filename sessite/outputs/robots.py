"""``robots.txt``: crawlers stay away unless ``search_engines = true``; then the sitemap is named.

An archive of personal sessions is usually published to be shared, not listed, so by
default every page says ``noindex`` (``templates/_cards.html``) and robots.txt
disallows everything. ``search_engines = true`` in sessite.toml allows crawling, and
with a base URL (which ``sitemap.xml`` needs for its absolute URLs) names the sitemap.
A robots.txt counts only at a host's root: under a project path (GitHub Pages'
``you.github.io/repo/``) the pages' ``noindex`` is what crawlers read.
"""

from __future__ import annotations

from sessite.config import SiteConfig
from sessite.model import Problems
from sessite.publish.writer import SiteWriter
from sessite.render.renderer import Renderer
from sessite.site.urls import ROBOTS_URL, SITEMAP_URL
from sessite.site.view import SessionView

_SHARED_NOT_LISTED = "# Shared, not listed (search_engines = true in sessite.toml allows crawling)."


def robots_txt(search_engines: bool, base_url: str) -> str:
    if not search_engines:
        return f"{_SHARED_NOT_LISTED}\nUser-agent: *\nDisallow: /\n"
    lines = ["User-agent: *", "Allow: /"]
    if base_url:
        lines += ["", f"Sitemap: {base_url.rstrip('/')}/{SITEMAP_URL}"]
    return "\n".join(lines) + "\n"


class RobotsTxt:
    """The aggregate writing ``robots.txt`` (it keeps nothing of the sessions)."""

    name = "robots"

    def __init__(self, config: SiteConfig) -> None:
        self.text = robots_txt(config.search_engines, config.base_url.strip())

    def collect(self, view: SessionView) -> None:
        return None

    def add(self, item: None) -> None:
        pass

    def write(self, writer: SiteWriter, renderer: Renderer, problems: Problems) -> None:
        writer.write(ROBOTS_URL, self.text.encode("utf-8"))
