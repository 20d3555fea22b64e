"""llms.txt at the site root and each session's Markdown twin beside its page."""

from __future__ import annotations

import gzip
import re
from urllib.parse import unquote

import pytest
from helpers import EXAMPLE, build_site, parse_html

from sessite.outputs.llms import link_text

LINK = re.compile(r"^- \[(?P<text>(?:\\.|[^\]\\])*)\]\((?P<url>[^)\s]+)\): (?P<note>.+)$")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("llms") / "site"
    report = build_site(EXAMPLE, out, exports=("markdown",))
    return report, out


def _sessions(out):
    return sorted(p for p in (out / "sessions").glob("*.html"))


def test_llms_txt_is_in_the_llms_txt_format(site):
    report, out = site
    lines = (out / "llms.txt").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# Session archive" and lines[1] == ""
    assert lines[2].startswith(f"> {report.sessions} AI coding sessions by ") and "Secrets are redacted." in lines[2]
    sections = [line for line in lines if line.startswith("## ")]
    assert sections == ["## Site", "## Sessions"]
    links = [LINK.match(line) for line in lines if line.startswith("- ")]
    assert all(links), [line for line in lines if line.startswith("- ") and not LINK.match(line)]
    urls = [m["url"] for m in links if m]
    assert urls[:2] == ["index.html", "search.html"]
    for url in urls:  # every link leads to a file of the site (relative to llms.txt: no base URL)
        assert (out / unquote(url)).is_file(), url
    assert len(urls) - 2 == report.sessions == len(_sessions(out))


def test_each_session_is_linked_with_its_title_and_facts(site):
    _, out = site
    text = (out / "llms.txt").read_text(encoding="utf-8")
    for page in _sessions(out):
        soup = parse_html(page)
        title = soup.find("h1").get_text(" ", strip=True)
        sid = page.stem
        found = [m for m in map(LINK.match, text.splitlines()) if m and m["url"] == f"sessions/{sid}.md"]
        assert len(found) == 1, sid
        assert found[0]["text"] == link_text(title), (found[0]["text"], title)
        assert re.search(r"\d+ messages, \d+ tool calls", found[0]["note"])


def test_markdown_twin_is_the_export_as_plain_text(site):
    _, out = site
    for page in _sessions(out):
        twin = page.with_suffix(".md")
        packed = page.with_suffix(".md.gz")
        assert twin.read_bytes() == gzip.decompress(packed.read_bytes())
        link = parse_html(page).find("link", rel="alternate", type="text/markdown")
        assert link and unquote(link["href"]) == f"../sessions/{page.stem}.md"


def test_without_markdown_exports_sessions_link_their_pages(tmp_path):
    out = tmp_path / "site"
    build_site(EXAMPLE, out, base_url="https://me.example/arch/")
    assert not list((out / "sessions").glob("*.md"))
    text = (out / "llms.txt").read_text(encoding="utf-8")
    urls = [m["url"] for m in map(LINK.match, text.splitlines()) if m]
    assert urls[0] == "https://me.example/arch/index.html"
    assert all(u.startswith("https://me.example/arch/") for u in urls)
    assert all(u.endswith(".html") for u in urls)


def test_link_text_escapes_and_cuts():
    assert link_text("a [b]\n  c \\ d") == "a \\[b\\] c \\\\ d"
    assert len(link_text("x" * 500)) == 150
