"""A session's commits in a real headless Chromium (file://): the list its page loads from
``commits/sessions/<id>.js``, the way to the commit page and back to the turn that made it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from commit_repos import SID, build
from helpers import build_site


@pytest.fixture(scope="module")
def commit_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object]]:
    tmp = tmp_path_factory.mktemp("commits-browser")
    made = build(tmp)
    build_site(made["archive"], tmp / "site", repos=(made["repo"],), cache_dir=tmp / "cache", jobs=1)
    return tmp / "site", made


@pytest.fixture
def tab(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert errors == []


def test_session_lists_its_commit_and_the_commit_leads_back_to_the_turn(
    tab: Any, commit_site: tuple[Path, dict[str, object]]
) -> None:
    site, made = commit_site
    tab.goto((site / "sessions" / f"claude_code-{SID['human']}.html").as_uri())
    tab.locator("details.session-details > summary").click()  # (the header's facts, commits among them)
    box = tab.locator("section.session-commits")
    box.wait_for(state="visible")
    link = box.locator("a.session-commit")
    assert link.count() == 1 and "Slug helper" in box.inner_text() and "content" in box.inner_text()
    link.click()
    tab.wait_for_load_state("load")
    assert tab.url.endswith(f"commits/{made['human']}.html")
    tab.locator("a.commit-turn").click()
    tab.wait_for_load_state("load")
    assert f"claude_code-{SID['human']}.html#" in tab.url
    anchor = tab.url.split("#", 1)[1]
    assert tab.locator(f"[id='{anchor}']").count() == 1


def test_a_session_without_commits_shows_no_list(tab: Any, commit_site: tuple[Path, dict[str, object]]) -> None:
    site, _ = commit_site
    tab.goto((site / "sessions" / f"claude_code-{SID['sibling']}.html").as_uri())
    tab.wait_for_load_state("load")
    tab.wait_for_timeout(300)
    assert tab.locator("section.session-commits").get_attribute("hidden") is not None  # (not shown, even unfolded)
