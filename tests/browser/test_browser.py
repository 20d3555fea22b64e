"""The built pages in a real headless Chromium, opened from file:// as a user would."""

from bs4 import BeautifulSoup
from helpers import build_site
from xss_archive import write


def test_collapsed_tool_output_expands(example_site, page):
    _, site = example_site
    url = (site / "sessions" / "aics-01927a3e-5b1c-7def-8123-456789abcdef.html").as_uri()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    box = page.locator(".result [data-collapsible]").first
    pre = box.locator("pre")
    button = box.locator("[data-expand]")
    box.locator("xpath=ancestor::details[1]/summary").click()  # the call is one folded line now
    assert button.is_visible()
    assert "Show all 122 lines" in button.inner_text()
    clipped = pre.evaluate("el => el.scrollHeight > el.clientHeight + 5")
    assert clipped, "long output starts collapsed"
    button.click()
    assert "collapsed" not in box.get_attribute("class")
    assert pre.evaluate("el => el.scrollHeight <= el.clientHeight + 1"), "all of the output is shown"
    assert button.inner_text() == "Collapse"
    assert page.get_by_text("120 passed in 3.21s").is_visible()
    assert errors == []


def test_permalink_opens_closed_details(example_site, page):
    _, site = example_site
    path = site / "sessions" / "aics-01927a3e-5b1c-7def-8123-456789abcdef.html"
    doc = BeautifulSoup(path.read_text(), "html.parser")
    thinking = doc.select_one("li.k-thinking")["id"]
    page.goto(path.as_uri() + "#" + thinking)
    assert page.locator(f"#{thinking} details.thinking").evaluate("d => d.open")


def test_index_filters_and_sorts(example_site, page):
    _, site = example_site
    page.goto((site / "index.html").as_uri())
    rows = page.locator("table.sessions tbody tr")
    total = rows.count()
    page.select_option("select[name=agent]", "sage")
    visible = [r for r in rows.all() if r.is_visible()]
    assert 0 < len(visible) < total
    assert all(r.get_attribute("data-agent") == "sage" for r in visible)
    assert f"{len(visible)} of {total} shown" in page.locator("output[name=shown]").inner_text()
    page.select_option("select[name=agent]", "")
    page.fill("input[name=q]", "zzzz-no-such-session")
    assert page.locator("[data-empty]").is_visible()
    page.fill("input[name=q]", "")
    page.locator("th", has_text="Tokens").locator("button").click()
    values = [
        int(v) for v in page.locator("tbody tr td:nth-child(9)").evaluate_all("els => els.map(e => e.dataset.value)")
    ]
    assert values == sorted(values)


def test_no_script_from_a_session_runs(tmp_path, page):
    site = tmp_path / "site"
    build_site(write(tmp_path / "archive"), site)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    for html in sorted(site.rglob("*.html")):
        page.goto(html.as_uri())
        page.wait_for_load_state("load")
        # click every link that stays on the page to trigger any javascript: href
        assert page.evaluate("() => window.__xss") is None, html.name
        for link in page.locator("a[href]").all()[:200]:
            href = link.get_attribute("href") or ""
            assert not href.strip().lower().startswith("javascript"), href
    assert dialogs == []


# Every element's computed style, but the custom properties (--name): a sheet's variables are
# listed on every element, used or not; where one is used, the property using it differs.
_COMPUTED_STYLES = """() => Array.from(document.querySelectorAll("body *"), (el) => {
  const style = getComputedStyle(el);
  const names = Array.from(style).filter((name) => !name.startsWith("--"));
  return el.tagName + " " + names.map((name) => name + ":" + style.getPropertyValue(name)).join(";");
})"""


def test_a_ref_page_needs_only_the_site_stylesheet(example_site, page):
    """Ref pages (thousands in a big archive) link style.css alone: the highlighting and
    insights sheets the session pages link would not change how anything on them looks."""
    _, site = example_site
    ref = next((site / "refs").glob("*/commit/*.html"))
    page.goto(ref.as_uri())
    sheets = page.evaluate("() => Array.from(document.styleSheets, (s) => s.href.split('/').pop())")
    assert sheets == ["style.css"]
    alone = page.evaluate(_COMPUTED_STYLES)
    page.evaluate(
        """() => Promise.all(["pygments.css", "insights.css"].map((name) => new Promise((done, fail) => {
          const link = document.createElement("link");
          Object.assign(link, { rel: "stylesheet", href: "../../../static/" + name });
          link.onload = done;
          link.onerror = fail;
          document.head.append(link);
        })))"""
    )
    assert page.evaluate("() => document.styleSheets.length") == 3
    assert page.evaluate(_COMPUTED_STYLES) == alone
