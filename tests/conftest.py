"""pytest fixtures only: the archives, a built example site, a browser.

Shared functions and paths live in ``helpers.py``; tests import them from there.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import EXAMPLE, FIXTURES, SAMPLES, build_site, chromium_path, node_path

from sessite.model import Problems
from sessite.pipeline import BuildReport


def pytest_configure(config: pytest.Config) -> None:
    if config.option.collectonly:
        # Nothing runs, so syrupy would call every HTML snapshot unused and fail the collection.
        config.option.disable_unused_snapshots = True


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


@pytest.fixture(scope="session")
def example_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[BuildReport, Path]:
    """The bundled example archive, built once for the whole test session."""
    out = tmp_path_factory.mktemp("example") / "site"
    report = build_site(EXAMPLE, out)
    return report, out


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's Chromium driven by Playwright (never a downloaded browser).

    Skips when Chromium is absent, except in CI (SESSITE_REQUIRE_BROWSER=1), where it must run.
    """
    path = chromium_path()
    if not path:
        if os.environ.get("SESSITE_REQUIRE_BROWSER"):
            pytest.fail("Chromium is required for browser tests (SESSITE_REQUIRE_BROWSER=1) but was not found")
        pytest.skip("chromium not installed")
    # Imported here, not at the top: only the browser tests need Playwright (an optional, heavy dependency).
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
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context()
    tab = context.new_page()
    tab.set_default_timeout(10_000)
    yield tab
    context.close()


@pytest.fixture(scope="session")
def node() -> str:
    """Node.js, to run the vendored lunr.js. Skips when absent, except in CI (SESSITE_REQUIRE_BROWSER=1)."""
    path = node_path()
    if not path:
        if os.environ.get("SESSITE_REQUIRE_BROWSER"):
            pytest.fail("node is required for the search tests (SESSITE_REQUIRE_BROWSER=1) but was not found")
        pytest.skip("node not installed")
    return path
