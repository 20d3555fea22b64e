"""Issue 30: a valid feed and sitemap whatever the sessions hold (ANSI colour codes in a first
prompt, control characters in a folder name), parsed here by strict XML parsers."""

from __future__ import annotations

import json
import xml.dom.minidom
import xml.etree.ElementTree as ET
from pathlib import Path

from helpers import build_site

from sessite.analyze.filenames import reserved_on_windows
from sessite.outputs.feed import xml_text

NASTY = "\x1b[31mred\x1b[0m fix the \x00cart\x07 \x1b]0;title\x07total\x0b\x0c\x1f\x7f\x85 \ufffe"


def session(root: Path, sid: str, prompt: str, cwd: str) -> None:
    line = {
        "parentUuid": None,
        "cwd": cwd,
        "sessionId": sid,
        "type": "user",
        "message": {"role": "user", "content": prompt},
        "uuid": "u-1",
        "timestamp": "2026-10-01T10:00:00.000Z",
    }
    (root / f"{sid}.jsonl").write_text(json.dumps(line) + "\n")


def test_xml_text_keeps_what_xml_holds() -> None:
    assert xml_text(NASTY) == "red fix the cart total "
    assert xml_text("tab\tline\ncr\r é 🙂") == "tab\tline\ncr\r é 🙂"


def test_the_feed_and_sitemap_parse_strictly(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    session(archive, "11111111-2222-4333-8444-555555555555", NASTY, "/home/dev/\x1b[1mshop\x01")
    session(archive, "21111111-2222-4333-8444-555555555555", "plain prompt", "/home/dev/\x08other")
    site = tmp_path / "site"
    report = build_site(archive, site, base_url="https://example.org/s/")
    assert report.sessions == 2
    for name in ("feed.xml", "sitemap.xml"):
        data = (site / name).read_bytes()
        ET.fromstring(data)
        xml.dom.minidom.parseString(data)
    feed = (site / "feed.xml").read_text()
    assert "red fix the cart" in feed and "\x1b" not in feed and "[31m" not in feed


def test_page_names_are_unique_regardless_of_case_and_never_reserved_or_built_in(tmp_path: Path) -> None:
    """A project named ``projects`` took the all-projects page; ``App``/``app`` and two ids that differ
    only in case were one file on macOS and Windows; ``nul.html`` cannot exist on Windows."""
    archive = tmp_path / "archive"
    archive.mkdir()
    ids = ["abcdef01-2222-4333-8444-555555555555", "ABCDEF01-2222-4333-8444-555555555555"]
    cwds = ["/home/dev/projects", "/home/dev/App", "/home/dev/app", "/home/dev/nul", "/home/dev/Con"]
    for n, cwd in enumerate(cwds):
        session(archive, f"{n}1111111-2222-4333-8444-555555555555", f"prompt {n}", cwd)
    for sid in ids:
        session(archive, sid, f"prompt {sid}", "/home/dev/shop")
    site = tmp_path / "site"
    report = build_site(archive, site)
    assert report.sessions == len(cwds) + len(ids)
    files = [p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()]
    folded = [f.casefold() for f in files]
    assert len(set(folded)) == len(folded), "two files differ only in case"
    assert not [f for f in files if reserved_on_windows(Path(f).name)]
    projects = (site / "insights" / "projects.html").read_text()
    assert "<h1>Projects</h1>" in projects  # the all-projects page, not the project named so
    assert sum("differs only in case" in p.message for p in report.problems) == 1
    pages = {f for f in files if f.startswith("insights/") and f.endswith(".html")}
    assert len(pages) == len(cwds) + 2  # projects.html, each project's page, and /home/dev/shop's
