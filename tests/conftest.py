"""Shared test fixtures: paths to the hand-written fixtures and the team's real samples."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sitegen.model import Problems

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SAMPLES = Path(os.environ.get("SESSITE_SAMPLES", REPO.parent / "shared" / "formats" / "samples"))


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def samples() -> Path:
    """The real sample files from ../shared/formats/samples; skips when absent."""
    if not SAMPLES.is_dir():
        pytest.skip(f"shared samples not found at {SAMPLES}")
    return SAMPLES


@pytest.fixture
def problems() -> Problems:
    return Problems()


EXAMPLE = REPO / "example-archive"


def build_site(archive: Path, output: Path, **options):
    """Build a site with the real pipeline and return its BuildReport."""
    from sitegen.build import build
    from sitegen.config import SiteConfig

    return build(SiteConfig(archive=archive, output=output, **options))


def parse_html(path: Path):
    """A built page, parsed."""
    from bs4 import BeautifulSoup

    return BeautifulSoup(path.read_text("utf-8"), "html.parser")


def follow_link(page: Path, href: str) -> tuple[Path, str]:
    """The file a relative link of a built page points at, and its fragment (asserts it exists)."""
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(href)
    assert not parts.scheme and not href.startswith("/"), f"{page}: {href} is not relative"
    target = (page.parent / unquote(parts.path)).resolve()
    assert target.is_file(), f"{page}: broken link {href}"
    return target, parts.fragment


@pytest.fixture(scope="session")
def example_site(tmp_path_factory):
    """The bundled example archive, built once for the whole test session."""
    out = tmp_path_factory.mktemp("example") / "site"
    report = build_site(EXAMPLE, out)
    return report, out


def chromium_path() -> str | None:
    import shutil

    return os.environ.get("SESSITE_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium driven by Playwright (never a downloaded browser).

    Skips when Chromium is absent, except in CI (SESSITE_REQUIRE_BROWSER=1), where it must run.
    """
    path = chromium_path()
    if not path:
        if os.environ.get("SESSITE_REQUIRE_BROWSER"):
            pytest.fail("Chromium is required for browser tests (SESSITE_REQUIRE_BROWSER=1) but was not found")
        pytest.skip("chromium not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        instance = pw.chromium.launch(
            executable_path=path,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield instance
        instance.close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    tab = context.new_page()
    tab.set_default_timeout(10_000)
    yield tab
    context.close()
