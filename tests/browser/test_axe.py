"""Accessible by the book: axe-core (WCAG 2.2 AA rules) finds no serious or critical violation on
the index, a long session page, the search page with results, the insights page, the git-ref pages
and a session's single-file HTML, in the light and the dark theme, with every fold open."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import EXAMPLE, REPO, build_site

axe_playwright = pytest.importorskip("axe_playwright_python.sync_playwright")

REAL = REPO.parent / "shared" / "formats" / "real"
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
OPTIONS = {"runOnly": {"type": "tag", "values": WCAG}, "resultTypes": ["violations"]}
OPEN_ALL = "() => document.querySelectorAll('details').forEach((d) => { d.open = true; })"


def _pages(site: Path) -> dict[str, str]:
    """The pages the issue names, as file:// URLs."""
    sessions = sorted((site / "sessions").glob("*.html"), key=lambda p: p.stat().st_size)
    longest = sessions[-1]
    refs = sorted((site / "refs").rglob("*.html"))
    return {
        "index": (site / "index.html").as_uri(),
        "session": longest.as_uri(),
        "search": (site / "search.html").as_uri() + "?q=claude",
        "insights": (site / "insights.html").as_uri(),
        "refs": (site / "refs" / "index.html").as_uri(),
        "ref": next(p for p in refs if p.parent.name in ("commit", "issue", "pr", "branch")).as_uri(),
        "single": (site / "sessions" / longest.stem / f"{longest.stem}.html").as_uri(),
    }


def _violations(browser: Any, pages: dict[str, str]) -> dict[tuple[str, str], list[str]]:
    axe = axe_playwright.Axe()
    found: dict[tuple[str, str], list[str]] = {}
    for scheme in ("light", "dark"):
        context = browser.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 900})
        page = context.new_page()
        try:
            for name, url in pages.items():
                page.goto(url)
                page.wait_for_load_state("load")
                if name == "search":
                    page.wait_for_selector(".search-result mark")
                page.evaluate(OPEN_ALL)
                result = axe.run(page, options=OPTIONS).response
                bad = [
                    f"{v['id']} ×{len(v['nodes'])}: {v['nodes'][0]['target']}"
                    for v in result["violations"]
                    if v["impact"] in ("serious", "critical")
                ]
                if bad:
                    found[(name, scheme)] = bad
        finally:
            context.close()
    return found


@pytest.fixture(scope="module")
def example_with_single(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    site = tmp_path_factory.mktemp("axe") / "site"
    build_site(EXAMPLE, site, exports=("html",))
    yield site


def test_the_example_site_has_no_serious_violation(example_with_single, browser):
    assert _violations(browser, _pages(example_with_single)) == {}


def test_the_real_logs_have_no_serious_violation(tmp_path, browser):
    if not REAL.is_dir():
        pytest.skip("../shared/formats/real is not here")
    site = tmp_path / "site"
    build_site(REAL, site, exports=("html",))
    assert _violations(browser, _pages(site)) == {}
