"""An encrypted site (``sessite build --encrypt``) in headless Chromium, from ``file://`` and over
HTTP under a project path: the password opens pages and search under the site's strict CSP, the
key lasts the tab, a wrong password shows one message and nothing of the sessions."""

from __future__ import annotations

import functools
import http.server
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from helpers import EXAMPLE

from sessite.config import SiteConfig
from sessite.pipeline import build
from sessite.publish.vault import KEYS_URL, Keyring, url_key
from sessite.site.urls import opaque_urls, session_url

PASSWORD = "correct horse battery staple"
CLAUDE = "claude_code-7b3e9a52-4c1d-4f8e-9a2b-1d6c5e8f0a34"
AICS_ID = "aics-01927a3e-5b1c-7def-8123-456789abcdef"
NOTES_ID = "sage--home-dev-notes--history-20261001-090000-7528077e1d"  # one of a project's two sessions
THINKING = "e-m2-thinking"  # the AICS session's thinking block (a closed <details>)


@pytest.fixture(scope="module")
def encrypted_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("encrypted") / "site"
    config = SiteConfig(
        archive=EXAMPLE,
        output=out,
        encrypt=True,
        exports=("markdown", "html"),
        cache_dir=out.parent / "cache",
        progress=False,
    )
    assert build(config, password=PASSWORD).published
    return out


@pytest.fixture(scope="module")
def addresses(encrypted_site: Path) -> dict[str, str]:
    """The hashed addresses of two session pages (an encrypted site has no ``sessions/<id>.html``)."""
    opened = Keyring.from_js((encrypted_site / KEYS_URL).read_bytes()).open(PASSWORD)
    assert opened is not None
    with opaque_urls(url_key(opened[1])):
        found = {"session": session_url(CLAUDE), "aics": session_url(AICS_ID), "notes": session_url(NOTES_ID)}
    assert all(url.startswith("p/") and (encrypted_site / url).is_file() for url in found.values())
    assert not (encrypted_site / "sessions").exists()
    return found


def watch(page: Any) -> list[str]:
    """Console errors and page errors (a CSP violation is one), collected as they come."""
    seen: list[str] = []
    page.on("console", lambda m: seen.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: seen.append(str(e)))
    return seen


def unlock(page: Any, password: str) -> None:
    page.locator("form[data-vault-form]:not([hidden])").wait_for()
    page.fill("input[type=password]", password)
    page.click("form[data-vault-form] button")


def csp_errors(seen: list[str]) -> list[str]:
    return [m for m in seen if "Content Security Policy" in m]


def test_a_wrong_password_shows_one_message_and_nothing_else(
    encrypted_site: Path, addresses: dict[str, str], page: Any
) -> None:
    seen = watch(page)
    page.goto((encrypted_site / addresses["session"]).as_uri())
    unlock(page, "not the password")
    message = page.locator("[data-vault-message]", has_text="Wrong password")
    message.wait_for(timeout=30_000)
    assert message.text_content() == "Wrong password: it opens no key of this site."
    text = page.evaluate("document.documentElement.outerHTML")
    assert "login" not in text.lower() and "csrf" not in text.lower()
    assert page.evaluate("sessionStorage.length") == 0
    assert csp_errors(seen) == []


def test_from_file_the_password_opens_pages_and_search_for_the_tab(
    encrypted_site: Path, addresses: dict[str, str], page: Any
) -> None:
    seen = watch(page)
    SESSION, AICS = addresses["session"], addresses["aics"]
    page.goto((encrypted_site / "index.html").as_uri())
    unlock(page, PASSWORD)
    page.locator("table.sessions tbody tr").first.wait_for(timeout=30_000)
    assert page.locator("table.sessions tbody tr").count() == 13
    assert page.locator("script:not([src])").count() == 0
    csp = page.locator("meta[http-equiv=Content-Security-Policy]").first.get_attribute("content")
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp

    # another page: no password asked, its scripts run (app.js opens the permalinked event)
    page.click(f"a[href='{SESSION}']")
    page.locator("article.session").wait_for()
    assert "login form" in page.title()
    assert page.locator(".vault-forget").is_visible()
    assert page.url == (encrypted_site / SESSION).as_uri()
    # a reload: the key is remembered for the tab, no password asked
    page.reload()
    page.locator("article.session").wait_for(timeout=30_000)
    assert "login form" in page.title() and page.locator("form[data-vault-form]").count() == 0
    # the project's other session: its decrypted session list links to the hashed address
    page.goto((encrypted_site / addresses["notes"]).as_uri())
    neighbour = page.locator(".session-nav a:visible").first
    neighbour.wait_for(timeout=20_000)
    assert re.fullmatch(r"(\.\./)?p/[0-9a-f]{24}\.html", neighbour.get_attribute("href") or "")
    neighbour.click()
    page.locator("article.session").wait_for(timeout=30_000)
    assert page.url != (encrypted_site / addresses["notes"]).as_uri() and "/p/" in page.url
    # a permalink: the page's own script opens the closed thinking block it points at
    page.goto((encrypted_site / AICS).as_uri() + "#" + THINKING)
    page.locator(f"#{THINKING} details.thinking").wait_for(state="attached")
    page.locator("article.session").wait_for()
    assert page.locator(f"#{THINKING} details.thinking").evaluate("d => d.open")
    # back to the list: no password asked
    page.go_back()
    page.locator("article.session").wait_for()

    # search decrypts the chunks it needs; the results link to the pages
    page.goto((encrypted_site / "search.html").as_uri() + "?q=csrf")
    result = page.locator("ol.search-results li a, .search-results a").first
    result.wait_for(timeout=20_000)
    href = result.get_attribute("href") or ""
    assert href.startswith("p/") and "sessions/" not in href, "results link to the hashed addresses"
    result.click()
    page.locator("article.session").wait_for(timeout=30_000)
    page.go_back()
    result.wait_for(timeout=20_000)
    status = page.locator("[data-state]").first
    assert status.get_attribute("data-engine") == "page"

    # a download is decrypted on the page and saved under its own name
    page.goto((encrypted_site / SESSION).as_uri())
    page.locator("details.session-details > summary").click()  # (downloads are among the header's details)
    link = page.locator("a[download][href$='.md.gz']")
    with page.expect_download() as caught:
        link.click()
    assert caught.value.suggested_filename.endswith(".md.gz")
    assert caught.value.path().read_bytes()[:2] == b"\x1f\x8b", "the gzip file itself, decrypted"
    with page.expect_download() as caught:
        page.locator("a[download][href$='.html']").click()
    one_file = caught.value.path().read_text("utf-8")
    assert one_file.startswith("<!doctype html>") and "login form" in one_file

    # forget: the next page asks again
    page.click(".vault-forget")
    page.locator("form[data-vault-form]:not([hidden])").wait_for()
    assert page.evaluate("sessionStorage.length") == 0
    assert csp_errors(seen) == []


class _Pages(http.server.SimpleHTTPRequestHandler):
    """GitHub Pages for a project: the site under /repo/, its 404.html for any missing path."""

    def translate_path(self, path: str) -> str:
        path = unquote(urlsplit(path).path)
        root = Path(self.directory)
        return str(root / path[len("/repo/") :]) if path.startswith("/repo/") else str(root / "missing")

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

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def served(encrypted_site: Path) -> Iterator[str]:
    handler = functools.partial(_Pages, directory=str(encrypted_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/repo/"
    server.shutdown()
    server.server_close()


def test_over_http_under_a_project_path(served: str, addresses: dict[str, str], page: Any) -> None:
    seen = watch(page)
    SESSION = addresses["session"]
    page.goto(served + "refs/")  # a folder's address: its index.html
    unlock(page, PASSWORD)
    page.locator("h1").filter(has_text="Git refs").first.wait_for(timeout=30_000)
    page.goto(served + SESSION)
    page.locator("article.session").wait_for()
    page.reload()  # the key kept for the tab
    page.locator("article.session").wait_for(timeout=30_000)
    page.goto(served + "search.html?q=login")
    first = page.locator(".search-results a").first
    first.wait_for(timeout=20_000)
    # over http the query runs in the worker: the page decrypts the chunks it needs and sends them
    assert page.locator("[data-state]").first.get_attribute("data-engine") == "worker"
    first.click()
    page.locator("article.session").wait_for(timeout=30_000)
    assert page.url.startswith(served + "p/")
    # the 404 page, itself encrypted, at any depth
    for gone in ("sessions/gone.html", "p/a/gone.html", "p/a/b/gone.html", "p/a/b/c/gone.html"):
        response = page.goto(served + gone)
        assert response is not None and response.status == 404
        page.locator("body[data-root] a.back").wait_for()  # data-root: static/notfound.js has run
        assert page.locator("a.back").evaluate("a => a.href") == served + "index.html"
    assert csp_errors(seen) == []
