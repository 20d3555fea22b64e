"""Publishing on GitHub Pages: sitemap and Atom feed, the size limits, the workflow.

- ``FeedAndSitemap`` (an aggregate, see ``aggregate.py``) writes ``sitemap.xml``
  and ``feed.xml`` (the 50 latest sessions). Both need absolute URLs, so they
  are written only when the site has a base URL (``--base-url`` or
  ``base_url`` in sessite.toml); every other link in the site stays relative.
- ``pages_limit_warnings`` tells when a built site nears what Pages accepts
  (1 GB per site, 100 MB per file).
- ``github_pages_workflow`` is the workflow ``sessite init --github-pages`` writes.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Mapping
from xml.sax.saxutils import escape, quoteattr

from . import __version__
from .config import SiteConfig
from .enrich import SessionSummary, SessionView

FEED_ENTRIES = 50
PAGES_SITE_LIMIT = 1_000_000_000  # "Published GitHub Pages sites may be no larger than 1 GB"
PAGES_FILE_LIMIT = 100_000_000  # GitHub refuses files over 100 MB
WARN_AT = 0.8  # warn from this fraction of a limit


class FeedAndSitemap:
    """``sitemap.xml`` (every session page) and ``feed.xml`` (the latest sessions, Atom)."""

    name = "feeds"

    def __init__(self, config: SiteConfig) -> None:
        self.base = config.base_url.strip().rstrip("/") + "/" if config.base_url.strip() else ""
        self.title = config.title
        self.summaries: list[SessionSummary] = []

    def collect(self, view: SessionView) -> SessionSummary:
        return view.summary

    def add(self, item: SessionSummary) -> None:
        self.summaries.append(item)

    def write(self, writer, renderer, problems) -> None:
        if not self.base:
            return  # absolute URLs are needed; without a base URL the site has no feed or sitemap
        writer.write("sitemap.xml", sitemap_xml(self.base, self.summaries).encode("utf-8"))
        writer.write("feed.xml", atom_feed(self.base, self.title, self.summaries).encode("utf-8"))


def _when(s: SessionSummary) -> datetime | None:
    return s.ended or s.started


def _w3c(dt: datetime) -> str:
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def sitemap_xml(base: str, summaries: list[SessionSummary]) -> str:
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    latest = max((w for w in map(_when, summaries) if w), default=None)
    lines.append(f"  <url><loc>{escape(base)}</loc>{f'<lastmod>{_w3c(latest)}</lastmod>' if latest else ''}</url>")
    for s in sorted(summaries, key=lambda s: s.url):
        when = _when(s)
        lastmod = f"<lastmod>{_w3c(when)}</lastmod>" if when else ""
        lines.append(f"  <url><loc>{escape(base + s.url)}</loc>{lastmod}</url>")
    lines.append("</urlset>")
    return "\n".join(lines) + "\n"


def atom_feed(base: str, title: str, summaries: list[SessionSummary], limit: int = FEED_ENTRIES) -> str:
    """An Atom 1.0 feed of the latest sessions (those with a date), newest first; no build time in
    it, so an unchanged archive gives a byte-identical feed."""
    dated = sorted((s for s in summaries if _when(s)), key=lambda s: (_when(s), s.id), reverse=True)[:limit]
    updated = _w3c(_when(dated[0])) if dated else "1970-01-01T00:00:00Z"
    out = ['<?xml version="1.0" encoding="utf-8"?>', '<feed xmlns="http://www.w3.org/2005/Atom">',
           f"  <title>{escape(title)}</title>", f"  <id>{escape(base)}</id>",
           f'  <link rel="self" type="application/atom+xml" href={quoteattr(base + "feed.xml")}/>',
           f'  <link rel="alternate" type="text/html" href={quoteattr(base)}/>',
           f"  <updated>{updated}</updated>", f"  <author><name>{escape(title)}</name></author>",
           f'  <generator version="{escape(__version__)}">sessite</generator>']
    for s in dated:
        url = base + s.url
        facts = [s.agent, ", ".join(s.models)] + ([s.project] if s.project else [])
        facts.append(f"{s.stats.messages} messages, {s.stats.tool_calls} tool calls")
        out += ["  <entry>", f"    <title>{escape(s.title)}</title>", f"    <id>{escape(url)}</id>",
                f'    <link rel="alternate" type="text/html" href={quoteattr(url)}/>',
                f"    <updated>{_w3c(_when(s))}</updated>"]
        if s.started:
            out.append(f"    <published>{_w3c(s.started)}</published>")
        out += [f"    <author><name>{escape(s.agent)}</name></author>", f"    <category term={quoteattr(s.agent)}/>",
                f"    <summary>{escape(' · '.join(f for f in facts if f))}</summary>", "  </entry>"]
    out.append("</feed>")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ size limits

def _sizes(site: Path) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for dirpath, _, filenames in os.walk(site):
        for name in filenames:
            path = Path(dirpath) / name
            try:
                sizes[path.relative_to(site).as_posix()] = path.stat().st_size
            except OSError:
                continue
    return sizes


def _mb(n: int) -> str:
    return f"{n / 1e9:.2f} GB" if n >= 1e9 else f"{n / 1e6:.1f} MB"


def pages_limit_warnings(site: Path | Mapping[str, int], site_limit: int = PAGES_SITE_LIMIT, file_limit: int = PAGES_FILE_LIMIT) -> list[str]:
    """Warnings for a site (a folder, or url -> size) near or over GitHub Pages' limits."""
    sizes = dict(site) if isinstance(site, Mapping) else _sizes(Path(site))
    total = sum(sizes.values())
    warnings: list[str] = []
    hint = "(smaller: --exports none, or exclude sessions in sessite.toml)"
    if total > site_limit:
        warnings.append(f"the site is {_mb(total)}: over GitHub Pages' {_mb(site_limit)} site limit {hint}")
    elif total > site_limit * WARN_AT:
        warnings.append(f"the site is {_mb(total)}: near GitHub Pages' {_mb(site_limit)} site limit {hint}")
    big = sorted(((size, url) for url, size in sizes.items() if size > file_limit * WARN_AT), reverse=True)
    for size, url in big[:10]:
        word = "over" if size > file_limit else "near"
        warnings.append(f"{url} is {_mb(size)}: {word} GitHub's {_mb(file_limit)} per-file limit")
    if len(big) > 10:
        warnings.append(f"… and {len(big) - 10} more files near or over {_mb(file_limit)}")
    return warnings


# ------------------------------------------------------------------ the workflow

WORKFLOW_PATH = Path(".github/workflows/sessite-pages.yml")


def github_pages_workflow(archive: str = "sessions", output: str = "_site", install: str | None = None, branch: str = "main", python: str = "3.12") -> str:
    """A GitHub Actions workflow: build the archive with sessite, deploy with the official Pages actions."""
    install = install or f"sessite=={__version__}"
    for name, value in (("archive", archive), ("output", output), ("install", install), ("branch", branch), ("python", python)):
        if not value or any(c in value for c in "\n\r\"'`$\\") or value.startswith(("-", "{", "[", "&", "*", "!", "|", ">", "%", "@")):
            raise ValueError(f"{name} {value!r} cannot go in the workflow (no quotes, $, backslashes or newlines)")
    return f"""# Publishes the session archive in {archive}/ to GitHub Pages with sessite.
# Written by `sessite init --github-pages`. In the repository's settings, under
# Pages, set "Build and deployment" to "GitHub Actions".
# Secrets are redacted by default; settings live in {archive}/sessite.toml.
name: Publish sessions

on:
  push:
    branches: ["{branch}"]
  workflow_dispatch:

permissions:
  contents: read
  pages: write
  id-token: write

concurrency:
  group: pages
  cancel-in-progress: false

jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "{python}"
      - name: Install sessite
        run: python -m pip install "{install}"
      - name: Configure Pages
        id: pages
        uses: actions/configure-pages@v5
      - name: Build the site
        run: sessite build "{archive}" -o "{output}" --base-url "${{{{ steps.pages.outputs.base_url }}}}/" --quiet
      - name: Upload the site
        uses: actions/upload-pages-artifact@v3
        with:
          path: "{output}"

  deploy:
    needs: build
    runs-on: ubuntu-latest
    environment:
      name: github-pages
      url: ${{{{ steps.deployment.outputs.page_url }}}}
    steps:
      - name: Deploy to GitHub Pages
        id: deployment
        uses: actions/deploy-pages@v4
"""
