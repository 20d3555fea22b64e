"""``sitemap.xml`` and ``feed.xml`` (the 50 latest sessions, Atom).

Both need absolute URLs, so they are written only when the site has a base URL
(``--base-url`` or ``base_url`` in sessite.toml); every other link in the site
stays relative.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from xml.sax import saxutils

from sessite import __version__
from sessite.analyze.session import SessionSummary, one_line
from sessite.config import SiteConfig
from sessite.model import Problems
from sessite.publish.writer import SiteWriter
from sessite.render.renderer import Renderer
from sessite.site.urls import FEED_URL, SITEMAP_URL, session_url
from sessite.site.view import SessionView

FEED_ENTRIES = 50
# What XML 1.0 cannot hold (C0 controls but tab and line breaks, lone surrogates, U+FFFE/U+FFFF),
# and the C1 controls it discourages; one such character makes a strict reader refuse the whole
# feed. ANSI colour codes pasted into a prompt go whole, not just their escape character.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def xml_text(value: str) -> str:
    """``value`` with what XML cannot hold removed (see ``_NOT_XML``)."""
    return _NOT_XML.sub("", _ANSI.sub("", value))


def escape(value: str) -> str:
    return saxutils.escape(xml_text(value))


def quoteattr(value: str) -> str:
    return saxutils.quoteattr(xml_text(value))


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

    def write(self, writer: SiteWriter, renderer: Renderer, problems: Problems) -> None:
        if not self.base:
            return  # absolute URLs are needed; without a base URL the site has no feed or sitemap
        writer.write(SITEMAP_URL, sitemap_xml(self.base, self.summaries).encode("utf-8"))
        writer.write(FEED_URL, atom_feed(self.base, self.title, self.summaries).encode("utf-8"))


def _when(s: SessionSummary) -> datetime | None:
    return s.ended or s.started


def _w3c(dt: datetime) -> str:
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def sitemap_xml(base: str, summaries: list[SessionSummary]) -> str:
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    latest = max((w for w in map(_when, summaries) if w), default=None)
    lines.append(f"  <url><loc>{escape(base)}</loc>{f'<lastmod>{_w3c(latest)}</lastmod>' if latest else ''}</url>")
    for s in sorted(summaries, key=lambda s: session_url(s.id)):
        when = _when(s)
        lastmod = f"<lastmod>{_w3c(when)}</lastmod>" if when else ""
        lines.append(f"  <url><loc>{escape(base + session_url(s.id))}</loc>{lastmod}</url>")
    lines.append("</urlset>")
    return "\n".join(lines) + "\n"


def atom_feed(base: str, title: str, summaries: list[SessionSummary], limit: int = FEED_ENTRIES) -> str:
    """An Atom 1.0 feed of the latest sessions (those with a date), newest first; no build time in
    it, so an unchanged archive gives a byte-identical feed."""
    dated = sorted(
        ((when, s) for s in summaries if (when := _when(s))), key=lambda pair: (pair[0], pair[1].id), reverse=True
    )[:limit]
    updated = _w3c(dated[0][0]) if dated else "1970-01-01T00:00:00Z"
    out = [
        '<?xml version="1.0" encoding="utf-8"?>',
        '<feed xmlns="http://www.w3.org/2005/Atom">',
        f"  <title>{escape(title)}</title>",
        f"  <id>{escape(base)}</id>",
        f'  <link rel="self" type="application/atom+xml" href={quoteattr(base + FEED_URL)}/>',
        f'  <link rel="alternate" type="text/html" href={quoteattr(base)}/>',
        f"  <updated>{updated}</updated>",
        f"  <author><name>{escape(title)}</name></author>",
        f'  <generator version="{escape(__version__)}">sessite</generator>',
    ]
    for when, s in dated:
        url = base + session_url(s.id)
        out += [
            "  <entry>",
            f"    <title>{escape(s.title)}</title>",
            f"    <id>{escape(url)}</id>",
            f'    <link rel="alternate" type="text/html" href={quoteattr(url)}/>',
            f"    <updated>{_w3c(when)}</updated>",
        ]
        if s.started:
            out.append(f"    <published>{_w3c(s.started)}</published>")
        out += [
            f"    <author><name>{escape(s.agent)}</name></author>",
            f"    <category term={quoteattr(s.agent)}/>",
            f"    <summary>{escape(one_line(s))}</summary>",
            "  </entry>",
        ]
    out.append("</feed>")
    return "\n".join(out) + "\n"
