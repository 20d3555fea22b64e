"""The compact timeline in a real headless Chromium, opened from file:// as a user would:
no session page wider than a phone, a long session a few screens tall, kind filters that
hide, show and are remembered from page to page, the browser's find opening folded lines,
an outline that follows the reader, and the project's previous and next session."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import build_site
from timeline_archive import LONG, write_archive

TURNS = 30
LONG_PAGE = f"sessions/claude_code-{LONG}.html"
SIZES = ((390, 844), (1280, 900))


@pytest.fixture(scope="module")
def long_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("timeline-browser")
    build_site(write_archive(root / "archive", turns=TURNS), root / "site")
    return root / "site"


@pytest.fixture
def tab(browser: Any) -> Iterator[Any]:
    """A 1280×900 tab whose page errors fail the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert errors == []


def _open(page: Any, path: Path, hash_: str = "") -> None:
    page.goto(path.as_uri() + hash_)
    page.wait_for_load_state("load")


def _visible(page: Any, selector: str) -> list[bool]:
    return page.locator(selector).evaluate_all("els => els.map(e => e.getClientRects().length > 0)")


def test_no_session_page_is_wider_than_the_screen(browser: Any, example_site: Any, long_site: Path) -> None:
    _, site = example_site
    pages = sorted((site / "sessions").glob("*.html")) + [long_site / LONG_PAGE]
    assert len(pages) > 10
    for width, height in SIZES:
        context = browser.new_context(viewport={"width": width, "height": height})
        tab = context.new_page()
        wide = []
        for path in pages:
            _open(tab, path)
            scroll = tab.evaluate("document.documentElement.scrollWidth")
            if scroll > width:
                wide.append((path.name, scroll))
        # opened lines must fit too: open every folded line of the long session
        _open(tab, long_site / LONG_PAGE)
        tab.click("[data-action=expand-all]")
        scroll = tab.evaluate("document.documentElement.scrollWidth")
        if scroll > width:
            wide.append(("long session, all open", scroll))
        context.close()
        assert wide == [], f"wider than {width}px"


def test_a_long_session_is_a_few_screens_tall(tab: Any, long_site: Path) -> None:
    _open(tab, long_site / LONG_PAGE)
    folded = tab.evaluate("document.documentElement.scrollHeight") / 900
    # per turn: a prompt, a thought, two answers and one line for its eight tool calls
    assert folded <= 22, f"{folded:.1f} screens at 1280×900"
    assert _visible(tab, "ol.tl > li.run > details > summary") == [True] * TURNS
    tab.click("[data-action=expand-all]")
    opened = tab.evaluate("document.documentElement.scrollHeight") / 900
    assert opened > 3 * folded, f"folding saves most of the page ({opened:.1f} screens open)"
    assert all(_visible(tab, "li.cat-edit pre.dv")), "Expand all opens every line"
    tab.click("[data-action=collapse-all]")
    assert tab.evaluate("document.documentElement.scrollHeight") / 900 == pytest.approx(folded, abs=0.5)


def test_kind_filters_hide_show_and_are_remembered(tab: Any, long_site: Path) -> None:
    _open(tab, long_site / LONG_PAGE)
    assert tab.locator("[data-toolbar]").is_visible()
    boxes = tab.locator("[data-kind-filters] input[name=kind]")
    assert boxes.evaluate_all("els => els.map(e => e.value)") == [
        "prompt",
        "answer",
        "thinking",
        "tool",
        "subagent",
        "system",
    ]
    assert all(_visible(tab, "ol.tl > li.f-tool"))
    tab.uncheck("[data-kind-filters] input[value=tool]")
    tab.uncheck("[data-kind-filters] input[value=thinking]")
    assert not any(_visible(tab, "ol.tl > li.f-tool")), "tools hidden"
    assert not any(_visible(tab, "ol.tl > li.f-thinking")), "thinking hidden"
    assert all(_visible(tab, "ol.tl > li.f-prompt")) and all(_visible(tab, "ol.tl > li.f-answer"))
    assert all(_visible(tab, "ol.tl > li.f-subagent"))
    # another session page of the archive remembers the choice (localStorage, from file://)
    _open(tab, long_site / "sessions" / "claude_code-7e1e0000-0000-4000-8000-00000000000a.html")
    assert not tab.is_checked("[data-kind-filters] input[value=tool]")
    assert tab.is_checked("[data-kind-filters] input[value=prompt]")
    _open(tab, long_site / LONG_PAGE)
    assert not any(_visible(tab, "ol.tl > li.f-tool"))
    tab.check("[data-kind-filters] input[value=tool]")
    assert all(_visible(tab, "ol.tl > li.f-tool")), "shown again"
    # a link to a hidden event still shows it
    anchor = tab.locator("ol.tl > li.f-thinking").first.get_attribute("id")
    _open(tab, long_site / LONG_PAGE, "#" + anchor)
    assert tab.locator(f"#{anchor}").is_visible()
    tab.check("[data-kind-filters] input[value=thinking]")


def test_the_browsers_find_reaches_folded_lines(tab: Any, long_site: Path) -> None:
    """Chromium's find (Ctrl-F) opens a closed <details> that holds a match (and fires
    ``beforematch`` on hidden="until-found"); headless Chromium has no find bar, so this checks
    what that rests on: the folded text is findable (``window.find``, which skips text that is
    not rendered at all), only closed <details> hide it, and the page's own handlers open
    what a find selects or announces."""
    _open(tab, long_site / LONG_PAGE)
    words = "line 7 of module 1 zebra-quartz-7"
    target = tab.locator("li.cat-read", has_text=words).first
    shown = "el => el.querySelector('.result pre').getClientRects().length > 0"
    assert not target.evaluate(shown), "folded at first"
    assert tab.evaluate("w => window.find(w, false, false, true)", words), "folded text is findable"
    hiders = target.locator(".result pre").first.evaluate(
        """el => { const out = [];
        for (let p = el.parentElement; p; p = p.parentElement) {
          if (p.tagName === 'DETAILS' && !p.open) out.push('details');
          else if (p.hidden || getComputedStyle(p).display === 'none') out.push(p.tagName + ' hidden');
        } return out; }"""
    )
    assert hiders == ["details", "details"], "the call and its run: <details> the browser's find opens"
    tab.evaluate(
        "() => { const d = document.createElement('div'); d.style.display = 'none';"
        " d.textContent = 'unrendered-needle'; document.body.appendChild(d); }"
    )
    assert not tab.evaluate("() => window.find('unrendered-needle', false, false, true)"), "the check has teeth"
    # a long output inside an open call is clipped; a find that selects text below the clip opens it
    target.locator("xpath=ancestor::li[contains(@class, 'run')]/details/summary").click()
    target.locator(":scope > details > summary").click()
    box = target.locator("[data-collapsible]").first
    assert "collapsed" in box.get_attribute("class")
    assert tab.evaluate("w => window.find(w, false, false, true)", "line 55 of module 1 zebra-quartz-7")
    assert "collapsed" not in box.get_attribute("class"), "the clipped output opened"
    # the event browsers fire on hidden="until-found" content opens the <details> around it too
    thought = tab.locator("ol.tl > li.f-thinking").nth(4)
    assert not thought.locator(".body").is_visible()
    thought.locator(".body p").first.evaluate("el => el.dispatchEvent(new Event('beforematch', { bubbles: true }))")
    assert thought.locator(".body").is_visible()


def test_a_compact_time_shows_its_full_stamp_on_hover(tab: Any, long_site: Path) -> None:
    _open(tab, long_site / LONG_PAGE)
    link = tab.locator("ol.tl > li.k-user .permalink").nth(1)
    assert len(link.inner_text()) == 5, "22:45, not the date again"
    link.hover()
    assert re.fullmatch(r"2026-02-01 \d\d:\d\d:\d\d UTC", link.get_attribute("title") or "")


def test_a_permalink_into_a_folded_run_opens_it(tab: Any, long_site: Path) -> None:
    _open(tab, long_site / LONG_PAGE)
    anchor = tab.locator("li.run li.cat-edit").nth(5).get_attribute("id")
    _open(tab, long_site / LONG_PAGE, "#" + anchor)
    assert tab.locator(f"#{anchor} pre.dv").first.is_visible()


def test_the_outline_follows_the_reader(browser: Any, long_site: Path) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    _open(tab, long_site / LONG_PAGE)
    outline = tab.locator("nav.outline")
    assert outline.locator("details").evaluate("d => d.open"), "a side column on a wide screen"
    box = outline.bounding_box()
    timeline = tab.locator("ol.tl").bounding_box()
    assert box["x"] > timeline["x"] + timeline["width"] - 1, "beside the timeline"
    tab.locator("nav.outline ol a").nth(6).click()
    tab.wait_for_timeout(200)
    current = tab.locator("nav.outline a[aria-current]")
    assert current.count() == 1 and current.inner_text().startswith("Turn 6:")
    assert "7 of 30" in outline.locator("[data-outline-here]").inner_text()
    assert outline.is_visible() and outline.bounding_box()["y"] < 900, "it stays in view"
    context.close()

    context = browser.new_context(viewport={"width": 390, "height": 844})
    tab = context.new_page()
    _open(tab, long_site / LONG_PAGE)
    menu = tab.locator("nav.outline details")
    assert not menu.evaluate("d => d.open"), "a menu on a narrow screen"
    tab.locator("nav.outline summary").click()
    tab.locator("nav.outline ol a").nth(2).click()
    tab.wait_for_timeout(200)
    assert not menu.evaluate("d => d.open"), "the menu closes on a jump"
    assert tab.locator("nav.outline").bounding_box()["y"] < 5, "the menu sticks to the top"
    assert "3 of 30" in tab.locator("[data-outline-here]").inner_text()
    context.close()


def test_previous_and_next_session_of_the_project(tab: Any, long_site: Path) -> None:
    _open(tab, long_site / LONG_PAGE)
    tab.locator(".session-details > summary").click()  # the neighbours are in the header's "Details"
    nav = tab.locator("nav.session-nav-top")
    nav.wait_for(state="visible")
    prev = nav.locator("a[rel=prev]")
    nxt = nav.locator("a[rel=next]")
    assert "Set up the shop" in prev.inner_text()
    assert "Tidy the shop" in nxt.inner_text()
    assert "Session 2 of 3" in nav.inner_text()
    nxt.click()
    tab.wait_for_load_state("load")
    assert tab.url.endswith("claude_code-7e1e0000-0000-4000-8000-00000000000b.html")
    tab.locator(".session-details > summary").click()
    last = tab.locator("nav.session-nav-top")
    last.wait_for(state="visible")
    assert last.locator("a[rel=next]").count() == 0 and last.locator("a[rel=prev]").count() == 1
    _open(tab, long_site / "sessions" / "claude_code-7e1e0000-0000-4000-8000-00000000000c.html")
    tab.wait_for_timeout(200)
    assert not tab.locator("nav.session-nav-top").is_visible(), "alone in its project: no neighbours"
