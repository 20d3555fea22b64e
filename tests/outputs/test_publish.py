"""GitHub Pages: the workflow `sessite init --github-pages` writes, base-URL links, sitemap, Atom feed, size limits."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC
from urllib.parse import unquote, urlsplit

import pytest
import yaml
from bs4 import BeautifulSoup
from click.testing import CliRunner
from helpers import EXAMPLE, build_site

from sessite.cli import main
from sessite.outputs.feed import FEED_ENTRIES, atom_feed
from sessite.pipeline.github_pages import github_pages_workflow, pages_limit_warnings

BASE = "https://octo.github.io/team-sessions/"
ATOM = "{http://www.w3.org/2005/Atom}"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


# ---------------------------------------------------------------- the workflow


def _steps(workflow, job):
    return workflow["jobs"][job]["steps"]


def test_init_writes_a_valid_pages_workflow(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sessions").mkdir()
    result = CliRunner().invoke(main, ["init", "--github-pages"])
    assert result.exit_code == 0, result.output
    path = tmp_path / ".github" / "workflows" / "sessite-pages.yml"
    workflow = yaml.safe_load(path.read_text())
    on = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert on["push"]["branches"] == ["main"] and "workflow_dispatch" in on
    assert workflow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    uses = [s.get("uses", "") for s in _steps(workflow, "build")]
    for action in (
        "actions/checkout@",
        "actions/setup-python@",
        "actions/configure-pages@",
        "actions/upload-pages-artifact@",
    ):
        assert any(u.startswith(action) for u in uses), action
    runs = " ".join(s.get("run", "") for s in _steps(workflow, "build"))
    assert (
        "pip install" in runs
        and 'sessite build "sessions" -o "_site" --base-url "${{ steps.pages.outputs.base_url }}/"' in runs
    )
    upload = next(
        s for s in _steps(workflow, "build") if s.get("uses", "").startswith("actions/upload-pages-artifact@")
    )
    assert upload["with"]["path"] == "_site"
    deploy = workflow["jobs"]["deploy"]
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    assert deploy["environment"]["url"] == "${{ steps.deployment.outputs.page_url }}"
    assert [s["uses"].split("@")[0] for s in deploy["steps"]] == ["actions/deploy-pages"] and deploy["steps"][0][
        "id"
    ] == "deployment"


def test_init_refuses_to_overwrite_without_force(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(main, ["init", "--github-pages", "--archive", "logs", "--branch", "trunk"]).exit_code == 0
    path = tmp_path / ".github" / "workflows" / "sessite-pages.yml"
    path.write_text("# mine\n")
    result = runner.invoke(main, ["init", "--github-pages"])
    assert result.exit_code != 0 and "already exists" in result.output and path.read_text() == "# mine\n"
    assert (
        runner.invoke(
            main, ["init", "--github-pages", "--force", "--install", "git+https://example.com/sessite@v1"]
        ).exit_code
        == 0
    )
    assert 'pip install "git+https://example.com/sessite@v1"' in path.read_text()
    assert runner.invoke(main, ["init"]).exit_code != 0  # says what to set up


@pytest.mark.parametrize("option, value", [("archive", 'a"b'), ("branch", "$x"), ("output", "-o"), ("install", "x\ny")])
def test_workflow_values_that_would_break_it_are_refused(option, value):
    with pytest.raises(ValueError):
        github_pages_workflow(**{option: value})


# ---------------------------------------------------------------- base URL, sitemap, feed


@pytest.fixture(scope="module")
def pages_site(tmp_path_factory):
    out = tmp_path_factory.mktemp("pages") / "site"
    report = build_site(EXAMPLE, out, base_url=BASE, jobs=1, cache_dir=out.parent / "cache")
    assert report.published
    return out


def test_only_the_404_page_uses_absolute_urls(pages_site):
    doc = BeautifulSoup((pages_site / "404.html").read_text(), "html.parser")
    assets = [el.get("href") or el.get("src") for el in doc.select("link[rel=stylesheet], script[src]")]
    assert assets and all(a.startswith(BASE + "static/") for a in assets)
    assert doc.select_one("main a")["href"] == BASE + "index.html"
    for page in pages_site.rglob("*.html"):
        if page.name == "404.html":
            continue
        doc = BeautifulSoup(page.read_text(), "html.parser")
        for el in doc.select("[href], [src]"):
            url = el.get("href") or el.get("src")
            if url.startswith("#"):
                continue
            if el.name == "a" and urlsplit(url).scheme in ("http", "https"):
                assert not url.startswith(BASE), (
                    f"{page.relative_to(pages_site)}: an internal link made absolute: {url}"
                )
                continue  # a link out (to a forge)
            assert not urlsplit(url).scheme and not url.startswith("/"), f"{page.relative_to(pages_site)}: {url}"
            assert (page.parent / unquote(urlsplit(url).path)).resolve().exists(), (
                f"{page.relative_to(pages_site)}: broken {url}"
            )


def test_the_404_page_without_a_base_url_stays_relative(tmp_path):
    build_site(EXAMPLE / "hail", tmp_path / "site", jobs=1, cache_dir=tmp_path / "cache")
    doc = BeautifulSoup((tmp_path / "site" / "404.html").read_text(), "html.parser")
    assert doc.select_one("link[rel=stylesheet]")["href"] == "static/style.css"
    assert not (tmp_path / "site" / "feed.xml").exists() and not (tmp_path / "site" / "sitemap.xml").exists()


def test_sitemap_lists_every_session_with_absolute_urls(pages_site):
    root = ET.parse(pages_site / "sitemap.xml").getroot()
    locs = [u.find(f"{SITEMAP}loc").text for u in root.findall(f"{SITEMAP}url")]
    assert locs[0] == BASE
    pages = {p.relative_to(pages_site).as_posix() for p in (pages_site / "sessions").glob("*.html")}
    assert {loc[len(BASE) :] for loc in locs[1:]} == pages
    assert all(u.find(f"{SITEMAP}lastmod") is not None for u in root.findall(f"{SITEMAP}url"))


def test_atom_feed_of_the_latest_sessions(pages_site):
    root = ET.parse(pages_site / "feed.xml").getroot()
    assert root.tag == f"{ATOM}feed" and root.find(f"{ATOM}id").text == BASE
    assert root.find(f"{ATOM}link[@rel='self']").get("href") == BASE + "feed.xml"
    entries = root.findall(f"{ATOM}entry")
    assert 0 < len(entries) <= FEED_ENTRIES
    updated = [e.find(f"{ATOM}updated").text for e in entries]
    assert updated == sorted(updated, reverse=True) and root.find(f"{ATOM}updated").text == updated[0]
    for entry in entries:
        href = entry.find(f"{ATOM}link").get("href")
        assert href.startswith(BASE + "sessions/") and entry.find(f"{ATOM}id").text == href
        assert (pages_site / href[len(BASE) :]).is_file()
        assert entry.find(f"{ATOM}title").text and entry.find(f"{ATOM}author/{ATOM}name").text
    pages = BeautifulSoup((pages_site / "index.html").read_text(), "html.parser")
    assert pages.select_one("link[type='application/atom+xml']")["href"] == "feed.xml"


def test_feed_keeps_the_latest_fifty_and_escapes(pages_site):
    from datetime import datetime, timedelta

    from sessite.analyze.session import SessionSummary, Stats
    from sessite.model import GitRefs

    start = datetime(2026, 1, 1, tzinfo=UTC)
    summaries = [
        SessionSummary(
            id=f"s{i}",
            title=f"<b>{i}</b> & more",
            agent="codex",
            format="codex",
            source="x",
            project=None,
            cwd=None,
            models=("gpt",),
            started=start + timedelta(hours=i),
            ended=None,
            stats=Stats(),
            git=GitRefs(),
        )
        for i in range(80)
    ]
    root = ET.fromstring(atom_feed(BASE, "T & T", summaries))
    titles = [e.find(f"{ATOM}title").text for e in root.findall(f"{ATOM}entry")]
    assert len(titles) == 50 and titles[0] == "<b>79</b> & more" and titles[-1] == "<b>30</b> & more"
    assert root.find(f"{ATOM}title").text == "T & T"


# ---------------------------------------------------------------- Pages' limits


def test_pages_limit_warnings():
    assert pages_limit_warnings({"index.html": 10_000, "sessions/a.html": 50_000_000}) == []
    near = pages_limit_warnings({f"sessions/{i}.html": 9_000_000 for i in range(95)})
    assert len(near) == 1 and "near GitHub Pages' 1.00 GB site limit" in near[0]
    over = pages_limit_warnings(
        {"big.aics.json.gz": 120_000_000, "almost.html": 90_000_000, **{f"s/{i}": 10_000_000 for i in range(100)}}
    )
    assert "over GitHub Pages' 1.00 GB site limit" in over[0]
    assert any(w.startswith("big.aics.json.gz is 120.0 MB: over") for w in over) and any(
        w.startswith("almost.html is 90.0 MB: near") for w in over
    )


def test_the_build_command_warns_near_the_limits(tmp_path, monkeypatch):
    import sessite.pipeline.github_pages as publish

    monkeypatch.setattr(publish, "PAGES_FILE_LIMIT", 2_000)
    monkeypatch.setattr(publish.pages_limit_warnings, "__defaults__", (publish.PAGES_SITE_LIMIT, 2_000))
    result = CliRunner().invoke(
        main, ["build", str(EXAMPLE / "hail"), "-o", str(tmp_path / "site"), "-q", "--cache-dir", str(tmp_path / "c")]
    )
    assert result.exit_code == 0
    assert "warning: " in result.output and "per-file limit" in result.output
