"""The insights in headless Chromium, from file:// as a user opens them: screenshots in
both themes kept under test-artifacts/ (looked at, not compared pixel by pixel), no
CSP or script errors, and every chart link landing on the sessions it counts."""

from __future__ import annotations

import pytest
from helpers import REPO

ARTIFACTS = REPO / "test-artifacts"
CLAUDE_CODE = "claude_code-7b3e9a52-4c1d-4f8e-9a2b-1d6c5e8f0a34"


def watch(tab) -> list[str]:
    problems: list[str] = []
    tab.on("pageerror", lambda exc: problems.append(str(exc)))
    tab.on("console", lambda msg: problems.append(msg.text) if msg.type in ("error", "warning") else None)
    return problems


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_insights_screenshots(example_site, browser, scheme):
    _, site = example_site
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1200, "height": 900})
    tab = context.new_page()
    problems = watch(tab)
    try:
        tab.goto((site / "insights.html").as_uri())
        tab.wait_for_load_state("load")
        # the charts follow the theme: a bar's fill is the theme's colour, not a fixed one
        fill = tab.locator("#ch-tools rect.bar").first.evaluate("el => getComputedStyle(el).fill")
        text = tab.locator("#ch-tools text.label").first.evaluate("el => getComputedStyle(el).fill")
        background = tab.evaluate("() => getComputedStyle(document.body).backgroundColor")
        assert fill != "none" and text != background
        expected_bg = "rgb(255, 255, 255)" if scheme == "light" else "rgb(13, 17, 23)"
        assert background == expected_bg
        tab.screenshot(path=str(ARTIFACTS / f"insights-{scheme}.png"), full_page=True)
        tab.goto((site / "sessions" / f"{CLAUDE_CODE}.html").as_uri())
        tab.wait_for_load_state("load")
        tab.locator(".session-details > summary").click()  # the figures are in the header's "Details"
        tab.locator("section.session-insights").screenshot(path=str(ARTIFACTS / f"session-figures-{scheme}.png"))
        tab.goto((site / "index.html").as_uri())
        tab.wait_for_load_state("load")
        tab.screenshot(path=str(ARTIFACTS / f"home-{scheme}.png"))
    finally:
        context.close()
    assert problems == [], "no CSP violations or script errors"
    assert (ARTIFACTS / f"insights-{scheme}.png").stat().st_size > 10_000


def shown(tab) -> list[str]:
    return [
        r.locator("td a").first.get_attribute("href")
        for r in tab.locator("table.sessions tbody tr").all()
        if r.is_visible()
    ]


def test_index_filters_from_the_address(example_site, page):
    _, site = example_site
    problems = watch(page)
    index = (site / "index.html").as_uri()
    page.goto(index + "?tool=Bash")
    rows = shown(page)
    assert sorted(rows) == ["sessions/amp-T-5c1e9a2b-3d4f-4a5b-8c6d-7e8f9a0b1c2d.html", f"sessions/{CLAUDE_CODE}.html"]
    assert "2 of 13 shown" in page.locator("output[name=shown]").inner_text()
    chip = page.locator("[data-facet-chips] .chip")
    assert chip.inner_text().startswith("Tool: Bash")
    chip.locator("button").click()
    assert len(shown(page)) == 13
    # the week of 12-18 Oct 2026: claude-code and crush on the 14th, codex the 12th, gemini the 13th
    page.goto(index + "?from=2026-10-12&to=2026-10-18")
    assert len(shown(page)) == 4
    page.goto(index + "?model=claude-sonnet-4-5")
    assert sorted(r.split("/")[1].split("-")[0] for r in shown(page)) == ["amp", "cline", "opencode"]
    page.goto(index + "?project=webapp&file=app%2Fauth.py")
    assert shown(page) == [f"sessions/{CLAUDE_CODE}.html"]
    assert page.locator("select[name=project]").input_value() == "webapp"
    page.goto(index + "?agent=sage&tool=edit_file")
    assert len(shown(page)) == 1
    page.goto(index + "?tool=no-such-tool")
    assert shown(page) == [] and page.locator("[data-empty]").is_visible()
    assert problems == []


def test_a_chart_bar_opens_the_sessions_it_counts(example_site, page):
    _, site = example_site
    page.goto((site / "insights.html").as_uri())
    bar = page.locator("#ch-tools > a").filter(has=page.locator("text.label", has_text="exec_command"))
    bar.click()
    page.wait_for_load_state("load")
    assert page.url.endswith("index.html?tool=exec_command")
    assert shown(page) == ["sessions/codex-019e2b7c-4a10-7c3e-9d21-5f8a0b6c1e42.html"]
    page.goto((site / "insights.html").as_uri())
    busiest = page.locator("#ch-sessions > a").last
    title = busiest.locator("title").text_content()
    busiest.click(force=True)
    page.wait_for_load_state("load")
    count = int(title.split(": ")[1].split(" ")[0])
    assert len(shown(page)) == count
