"""Every page but a session's fits its screen, in Chromium at a phone's and a laptop's size:
no sideways scroll, the index's columns, the filter's way to the full-text search, the 404
page at any depth (from file:// and under a GitHub Pages project path), a favicon."""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from helpers import EXAMPLE, build_site
from helpers import parse_html as parse

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 900}
GEMINI_PROJECT = "3b8f1c2e9a4d6b7058e1f2a3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7"  # 64 characters


def own_pages(site: Path) -> list[Path]:
    """Every page but the sessions' (another part of the site) and the search results' content."""
    return sorted(p for p in site.rglob("*.html") if p.relative_to(site).parts[0] not in ("sessions", "search"))


def scroll_width(page) -> tuple[int, int]:
    return page.evaluate("[document.documentElement.scrollWidth, innerWidth]")


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["390", "1280"])
def test_no_page_is_wider_than_the_screen(example_site, page, size):
    _, site = example_site
    page.set_viewport_size(size)
    pages = own_pages(site)
    assert {"index.html", "search.html", "insights.html", "404.html"} <= {p.name for p in pages}
    assert any(p.parts[-3:-1] for p in pages if "refs" in p.parts and p.parent.name == "issue")
    wide = {}
    for path in pages:
        page.goto(path.as_uri())
        width, screen = scroll_width(page)
        if width > screen:
            wide[str(path.relative_to(site))] = width
    assert not wide, f"wider than {size['width']} px: {wide}"


def test_charts_reflow_on_a_phone(example_site, page):
    _, site = example_site
    page.set_viewport_size(PHONE)
    page.goto((site / "insights.html").as_uri())
    charts = page.locator("figure.has-narrow")
    assert charts.count() >= 4
    for i in range(charts.count()):
        figure = charts.nth(i)
        assert figure.locator("svg.chart-narrow").is_visible() and not figure.locator("svg.chart-wide").is_visible()
        assert figure.evaluate("f => f.scrollWidth <= f.clientWidth"), "a chart scrolls sideways inside its box"
    page.set_viewport_size(LAPTOP)
    assert (
        charts.first.locator("svg.chart-wide").is_visible()
        and not charts.first.locator("svg.chart-narrow").is_visible()
    )


def test_the_index_shows_every_column_at_1280_whatever_the_names(example_site, page):
    _, site = example_site
    page.set_viewport_size(LAPTOP)
    page.goto((site / "index.html").as_uri())
    heads = page.locator("table.sessions thead th")
    names = heads.all_text_contents()
    assert [n.strip(" ▲▼") for n in names] == [
        "Title", "Agent", "Model", "Project", "Started", "Active time", "Messages", "Tools", "Tokens",
    ]  # fmt: skip
    for i in range(heads.count()):
        box = heads.nth(i).bounding_box()
        assert box and box["width"] > 0 and box["x"] + box["width"] <= LAPTOP["width"], f"{names[i]} is off screen"
    assert page.evaluate(
        "document.querySelector('.table-wrap').scrollWidth <= document.querySelector('.table-wrap').clientWidth"
    )
    cell = page.locator("table.sessions td.c-project .cut", has_text=GEMINI_PROJECT[:12])
    assert cell.get_attribute("title").startswith(GEMINI_PROJECT), "the full name on hover"
    assert cell.evaluate("e => e.scrollWidth > e.clientWidth"), "the long name is cut"
    assert cell.bounding_box()["width"] < 200


def test_the_index_drops_columns_on_a_phone(example_site, page):
    _, site = example_site
    page.set_viewport_size(PHONE)
    page.goto((site / "index.html").as_uri())
    visible = [t.strip(" ▲▼") for t in page.locator("table.sessions thead th:visible").all_text_contents()]
    assert visible == ["Title", "Started"]
    meta = page.locator("table.sessions tbody tr").first.locator(".row-meta")
    assert meta.is_visible() and "claude-code" in meta.text_content(), "agent and project said under the title"


def test_the_filter_offers_the_full_text_search_when_it_finds_nothing(example_site, page):
    _, site = example_site
    page.goto((site / "index.html").as_uri())
    link = page.locator("a[data-search-all]")
    page.fill("form[data-filters] input[name=q]", "webapp")
    assert not page.locator("[data-empty]").is_visible() and not link.is_visible()
    page.fill("form[data-filters] input[name=q]", "stream_queue")
    assert page.locator("[data-empty]").is_visible() and link.is_visible()
    assert link.text_content() == "Search all text for “stream_queue” →"
    page.select_option("form[data-filters] select[name=agent]", "codex")
    href = link.get_attribute("href")
    assert href == "search.html?q=stream_queue&agent=codex"
    link.click()
    page.wait_for_url("**/search.html?q=stream_queue&agent=codex")
    assert page.locator("form[data-search-form] input[name=q]").input_value() == "stream_queue"
    # from the address as well (?q=… from another page)
    page.goto((site / "index.html").as_uri() + "?q=no%20such%20words")
    assert link.get_attribute("href") == "search.html?q=no%20such%20words"


@pytest.fixture
def site_copy(example_site, tmp_path) -> Path:
    """A copy of the example site (this test writes 404.html where Pages would serve it)."""
    _, site = example_site
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    return copy


def test_404_deep_in_the_site_from_file_keeps_its_styles_and_its_way_back(site_copy, page):
    deep = site_copy / "refs" / "nowhere" / "404.html"  # two folders down, as Pages would serve it
    deep.parent.mkdir()
    shutil.copy(site_copy / "404.html", deep)
    page.set_viewport_size(PHONE)
    page.goto(deep.as_uri())
    back = page.locator("a.back")
    page.wait_for_function("document.body.dataset.root !== ''")
    assert page.evaluate("getComputedStyle(document.querySelector('.site-header')).display") == "flex"
    assert page.evaluate("getComputedStyle(document.body).margin") == "0px", "style.css applies"
    assert back.evaluate("a => a.href") == (site_copy / "index.html").as_uri()
    assert scroll_width(page)[0] <= PHONE["width"]
    back.click()
    page.wait_for_url((site_copy / "index.html").as_uri())
    assert page.locator("table.sessions").is_visible()


class _Pages(http.server.SimpleHTTPRequestHandler):
    """GitHub Pages for a project: the site under /repo/, its 404.html for any missing path."""

    def translate_path(self, path: str) -> str:
        path = unquote(urlsplit(path).path)
        root = Path(self.directory)
        if not path.startswith("/repo/"):
            return str(root / "missing")
        return str(root / path[len("/repo/") :])

    def send_head(self):  # type: ignore[override]
        target = Path(self.translate_path(self.path))
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            body = (Path(self.directory) / "404.html").read_bytes()
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return None
        return super().send_head()

    requested: list[str] = []  # every path asked for, in order

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        _Pages.requested.append(urlsplit(self.path).path)
        super().do_GET()


@pytest.fixture
def pages_server(example_site) -> Iterator[str]:
    _, site = example_site
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Pages, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/repo/"
    server.shutdown()
    server.server_close()


def test_404_under_a_project_path_at_any_depth(pages_server, page):
    for missing in ("nothing.html", "sessions/gone.html", "refs/a/issue/999.html"):
        response = page.goto(pages_server + missing)
        assert response is not None and response.status == 404
        page.wait_for_function("document.body.dataset.root !== ''")
        assert page.evaluate("getComputedStyle(document.querySelector('.site-header')).display") == "flex", missing
        assert page.locator("a.back").evaluate("a => a.href") == pages_server + "index.html"
        assert page.locator("link[rel=icon]").evaluate("l => l.href") == pages_server + "static/favicon.svg"
        assert page.locator("form[data-site-search]").evaluate("f => f.action") == pages_server + "search.html"
    page.fill("form[data-site-search] input", "login")
    page.press("form[data-site-search] input", "Enter")
    page.wait_for_url(pages_server + "search.html?q=login")


def test_404_with_a_base_url_is_absolute(tmp_path):
    build_site(EXAMPLE, tmp_path / "site", base_url="https://example.org/archive/")
    doc = parse(tmp_path / "site" / "404.html")
    assert doc.select_one("a.back")["href"] == "https://example.org/archive/index.html"
    assert {s["src"] for s in doc.select("script")} == {
        "https://example.org/archive/static/app.js",
        "https://example.org/archive/static/search.js",
    }
    assets = doc.select("link[rel=stylesheet], link[rel=icon]")
    assert len(assets) == 4 and all(a["href"].startswith("https://example.org/archive/static/") for a in assets)


def test_every_page_has_a_favicon_that_exists(example_site):
    _, site = example_site
    icon = site / "static" / "favicon.svg"
    assert icon.read_text().startswith("<svg")
    for path in [*own_pages(site), next((site / "sessions").glob("*.html"))]:
        link = parse(path).select_one("link[rel=icon]")
        assert link is not None, f"{path.name} asks for /favicon.ico"
        assert (path.parent / link["href"]).resolve() == icon.resolve()


def test_no_page_asks_for_a_missing_favicon(pages_server, page):
    _Pages.requested.clear()
    for address in ("index.html", "insights.html", "refs/index.html", "refs/a/issue/999.html"):
        page.goto(pages_server + address)
        page.wait_for_load_state("load")
    page.wait_for_timeout(500)  # the browser asks for the icon after the page has loaded
    assert "/repo/static/favicon.svg" in _Pages.requested
    assert not [p for p in _Pages.requested if p.endswith("favicon.ico")]
