"""The built site of the bundled example archive, checked by parsing the HTML we wrote."""

import hashlib
import os
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner
from helpers import EXAMPLE, build_site

from sessite.analyze.redact import Redactor
from sessite.cli import main
from sessite.model import Problems, walk
from sessite.readers import discover
from sessite.site.view import build_view


def read_all(archive: Path):
    problems = Problems(archive)
    sessions = []
    for claim in discover(archive, problems).claims:
        sessions.extend(Redactor().value(s) for s in claim.reader.read(claim.path, problems))
    return sessions, problems


def parse(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text("utf-8"), "html.parser")


def test_example_builds_cleanly_with_every_format(example_site):
    report, site = example_site
    assert report.published
    assert [str(p) for p in report.problems] == []
    sessions, _ = read_all(EXAMPLE)
    assert report.sessions == len(sessions) >= 6
    formats = {s.source.format for s in sessions}
    assert formats >= {"aics", "hail", "claude_code", "claude_ai", "sage"}


def test_every_event_of_every_session_has_its_anchor(example_site):
    _, site = example_site
    sessions, _ = read_all(EXAMPLE)
    for session in sessions:
        page = site / "sessions" / f"{session.id}.html"
        doc = parse(page)
        view = build_view(session)
        ids = {tag["id"] for tag in doc.find_all(id=True)}
        missing = [e.id for e in walk(session.events) if view.anchors[e.id] not in ids]
        assert not missing, f"{session.id}: events not on the page: {missing[:5]}"
        # each anchor once: nothing shown twice
        anchors = [t["id"] for t in doc.find_all(id=True) if t["id"].startswith("e-")]
        assert len(anchors) == len(set(anchors)) == sum(1 for _ in walk(session.events))


def test_index_lists_every_session_with_facts(example_site):
    _, site = example_site
    sessions, _ = read_all(EXAMPLE)
    doc = parse(site / "index.html")
    rows = doc.select("table.sessions tbody tr")
    assert len(rows) == len(sessions)
    links = {a["href"] for a in doc.select("table.sessions tbody a")}
    assert links == {f"sessions/{s.id}.html" for s in sessions}
    agents = {row["data-agent"] for row in rows}
    assert {"claude-code", "claude.ai", "sage"} <= agents
    for row in rows:
        started = row.find_all("td")[4]
        assert started.find("time"), "every example session has a start date"


def test_dates_come_from_the_session_not_the_file(tmp_path):
    archive = tmp_path / "a"
    archive.mkdir()
    source = EXAMPLE / "aics" / "rate-limiter.aics.json"
    copy = archive / source.name
    copy.write_bytes(source.read_bytes())
    os.utime(copy, (946684800, 946684800))  # 2000-01-01
    report = build_site(archive, tmp_path / "site")
    doc = parse(tmp_path / "site" / "index.html")
    assert doc.select_one("tbody time")["datetime"].startswith("2026-10-14T09:12:00")
    assert report.sessions == 1


def test_links_are_relative_and_resolve(example_site):
    _, site = example_site
    for page in site.rglob("*.html"):
        doc = parse(page)
        for tag, attr in (("a", "href"), ("link", "href"), ("script", "src"), ("img", "src")):
            for el in doc.find_all(tag):
                url = el.get(attr)
                if not url:
                    continue
                parts = urlsplit(url)
                if tag != "a":
                    assert not parts.scheme and not url.startswith("/"), (
                        f"{page.name}: external or absolute asset {url}"
                    )
                if parts.scheme or url.startswith("#"):
                    continue
                if page.name == "404.html" and url.startswith("../") and url.endswith("static/notfound.js"):
                    continue  # asked for at each depth: Pages serves 404.html deep in the site
                assert not url.startswith("/"), f"{page.name}: absolute link {url} breaks under a project path"
                target = (page.parent / unquote(parts.path)).resolve()
                assert target.is_file(), f"{page.relative_to(site)}: broken link {url}"


def test_site_has_pages_files_and_no_cdn(example_site):
    _, site = example_site
    assert (site / ".nojekyll").is_file()
    assert parse(site / "404.html").find("h1").get_text() == "Page not found"
    assert (site / "static" / "style.css").is_file() and (site / "static" / "pygments.css").is_file()
    css = (site / "static" / "pygments.css").read_text()
    dark = re.compile(r"prefers-color-scheme:\s*dark")  # (the site serves its styles minified)
    assert dark.search(css) and dark.search((site / "static" / "style.css").read_text())


def test_permalinks_point_at_their_own_event(example_site):
    _, site = example_site
    for page in (site / "sessions").glob("*.html"):
        for link in parse(page).select("a.permalink"):
            container = link.find_parent(id=True)
            assert link["href"] == f"#{container['id']}"


def test_tool_calls_show_their_results_inline(example_site):
    _, site = example_site
    doc = parse(site / "sessions" / "aics-01927a3e-5b1c-7def-8123-456789abcdef.html")
    call = doc.select_one("li.k-tool_call .tool-name")
    assert call is not None
    run_tests = [li for li in doc.select("li.k-tool_call") if li.select_one(".tool-name").get_text() == "run_tests"][0]
    result = run_tests.select_one(".result")
    assert "120 passed" in result.get_text()
    assert result.select_one("[data-collapsible]") is not None, "a 120-line output is collapsed"


def test_cli_prints_one_summary_line(tmp_path):
    result = CliRunner().invoke(main, ["build", str(EXAMPLE), "-o", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith("built ") and " sessions from " in lines[0] and "0 problems" in lines[0]


def snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha1(p.read_bytes()).hexdigest() + str(p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file()
    } | {str(p.relative_to(root)) + "/": "" for p in root.rglob("*") if p.is_dir()}


def test_build_never_writes_inside_the_input(tmp_path):
    before = snapshot(EXAMPLE)
    build_site(EXAMPLE, tmp_path / "site")
    assert snapshot(EXAMPLE) == before


def test_output_inside_input_is_refused(tmp_path):
    result = CliRunner().invoke(main, ["build", str(EXAMPLE), "-o", str(EXAMPLE / "site")])
    assert result.exit_code != 0 and "inside the archive" in result.output
    assert not (EXAMPLE / "site").exists()


def test_foreign_output_folder_is_not_destroyed(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("precious")
    result = CliRunner().invoke(main, ["build", str(EXAMPLE), "-o", str(out)])
    assert result.exit_code != 0 and "not made by sessite" in result.output
    assert (out / "thesis.tex").read_text() == "precious"


def test_a_build_that_dies_midway_leaves_the_previous_site(tmp_path, monkeypatch):
    out = tmp_path / "site"
    build_site(EXAMPLE, out)
    before = snapshot(out)
    import sessite.publish.writer as writer_module

    def explode(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(writer_module.SiteWriter, "commit", explode)
    with pytest.raises(RuntimeError):
        build_site(EXAMPLE, out)
    assert snapshot(out) == before
    assert [p.name for p in tmp_path.iterdir()] == ["site"], "no staging folder left behind"


def test_rebuild_keeps_unchanged_files_untouched(tmp_path):
    out = tmp_path / "site"
    build_site(EXAMPLE, out)
    before = snapshot(out)
    build_site(EXAMPLE, out)
    assert snapshot(out) == before


def test_an_archive_with_no_sessions_builds_nothing(tmp_path):
    archive = tmp_path / "empty"
    archive.mkdir()
    (archive / "notes.md").write_text("# not a session")
    result = CliRunner().invoke(main, ["build", str(archive), "-o", str(tmp_path / "site")])
    assert result.exit_code == 1
    assert "built 0 sessions" in result.stdout
    assert not (tmp_path / "site").exists()
