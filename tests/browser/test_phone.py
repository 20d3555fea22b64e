"""On a phone (390×844): the search page has one search box, and no time is cut off at the
right edge (every page of the example site, every fold open)."""

from __future__ import annotations

PHONE = {"width": 390, "height": 844}

# each visible time (or a line's time) whose box leaves the screen or the box that clips it
CLIPPED = """() => {
  const out = [];
  for (const t of document.querySelectorAll('time')) {
    const r = t.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    if (r.right > innerWidth + 0.5) { out.push(t.textContent); continue; }
    for (let a = t.parentElement; a && a !== document.body; a = a.parentElement) {
      if (getComputedStyle(a).overflowX === 'visible') continue;
      const box = a.getBoundingClientRect();
      if (r.right > box.right + 0.5 || r.left < box.left - 0.5) out.push(t.textContent);
      break;
    }
  }
  return out;
}"""


def test_the_search_page_has_one_search_box_on_a_phone(example_site, page):
    _, site = example_site
    page.set_viewport_size(PHONE)
    page.goto((site / "search.html").as_uri() + "?q=rate")
    page.wait_for_selector(".search-result")
    boxes = [box for box in page.locator("input[type=search]").all() if box.is_visible()]
    assert len(boxes) == 1
    page.goto((site / "index.html").as_uri())  # elsewhere the header's box stays
    assert page.locator(".site-search input").is_visible()


def test_no_time_is_cut_off_on_a_phone(example_site, page):
    _, site = example_site
    page.set_viewport_size(PHONE)
    cut = {}
    pages = [site / "index.html", site / "insights.html", *sorted((site / "sessions").glob("*.html"))]
    for html in pages:
        page.goto(html.as_uri())
        page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        found = page.evaluate(CLIPPED)
        if found:
            cut[html.name] = found
    assert cut == {}
