"""Link cards (OpenGraph, Twitter) on every page, noindex and robots.txt unless search_engines = true."""

from __future__ import annotations

import shutil

import pytest
from helpers import EXAMPLE, build_site, parse_html

from sessite.config import SiteConfig, load_config_file

BASE = "https://me.example/archive/"


def _pages(out):
    return [p for p in out.rglob("*.html") if not (p.parent.name == p.stem and p.parent.parent.name == "sessions")]


def _meta(soup, key):
    tag = soup.find("meta", attrs={"property": key}) or soup.find("meta", attrs={"name": key})
    return tag["content"] if tag else None


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("cards") / "site"
    build_site(EXAMPLE, out, base_url=BASE)
    return out


def test_every_page_has_a_card_and_noindex(site):
    pages = _pages(site)
    assert len(pages) > 20
    for page in pages:
        soup = parse_html(page)
        url = page.relative_to(site).as_posix()
        assert _meta(soup, "og:title"), url
        assert _meta(soup, "og:description"), url
        assert _meta(soup, "og:type") in ("article", "website"), url
        assert _meta(soup, "og:url") == BASE + url, url
        assert _meta(soup, "twitter:card") == "summary", url
        assert _meta(soup, "robots") == "noindex", url
    assert (site / "robots.txt").read_text().splitlines()[1:] == ["User-agent: *", "Disallow: /"]


def test_a_session_card_is_its_title_and_facts(site):
    for page in (site / "sessions").glob("*.html"):
        soup = parse_html(page)
        assert _meta(soup, "og:type") == "article"
        assert _meta(soup, "og:title") == soup.find("h1").get_text(" ", strip=True)[:200]
        facts = _meta(soup, "og:description")
        assert facts == _meta(soup, "description") and " messages, " in facts and " tool calls" in facts


def test_search_engines_allowed_names_the_sitemap(tmp_path):
    archive = tmp_path / "archive"
    shutil.copytree(EXAMPLE, archive)
    (archive / "sessite.toml").write_text(f'search_engines = true\nbase_url = "{BASE}"\n')
    settings = load_config_file(archive / "sessite.toml")
    out = tmp_path / "site"
    build_site(archive, out, **settings)
    assert (out / "robots.txt").read_text() == f"User-agent: *\nAllow: /\n\nSitemap: {BASE}sitemap.xml\n"
    assert (out / "sitemap.xml").is_file()
    for page in _pages(out):
        assert _meta(parse_html(page), "robots") is None, page
    assert SiteConfig(archive=archive, output=out).search_engines is False  # off unless asked for


def test_without_a_base_url_there_is_no_og_url(tmp_path):
    out = tmp_path / "site"
    build_site(EXAMPLE, out)
    soup = parse_html(out / "index.html")
    assert _meta(soup, "og:url") is None and _meta(soup, "og:title") == "Session archive"
