"""The conversation first: on every session page of the real logs (../shared/formats/real and
real-agents), in Chromium at a laptop's and a phone's size, the first prompt starts within the
first screen (and the conversation's first line, where a log starts mid-conversation); the
session's header takes about a fifth of the laptop's; leading startup records are one line; a
very long prompt folds, with all of its text in the page."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from helpers import REPO, build_site, render_session_page

from sessite.model import Event, Kind, Session, SourceRef

REAL = [REPO.parent / "shared" / "formats" / name for name in ("real", "real-agents")]
LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

# the first top-level prompt of a page, and the bottom of the session's own header (title to "Details")
FIRST_PROMPT = """() => {
  const top = (el) => (el ? el.getBoundingClientRect().top : null);
  const skip = document.querySelector('a.skip-link');
  const start = skip ? document.getElementById(skip.getAttribute('href').slice(1)) : null;
  const li = document.querySelector('ol.timeline.tl > li.k-user');
  const h1 = document.querySelector('.session-header h1');
  const details = document.querySelector('.session-header .session-details');
  const answered = li && [...document.querySelectorAll('ol.timeline.tl > li')].slice(0,
    [...document.querySelectorAll('ol.timeline.tl > li')].indexOf(li)).some((x) => x.matches('.k-assistant'));
  return {prompt: top(li), answered: !!answered, start: top(start),
          header: details && h1 ? details.getBoundingClientRect().bottom - top(h1) : null};
}"""


@pytest.fixture(scope="module")
def real_sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Path]]:
    corpora = [root for root in REAL if root.is_dir()]
    if not corpora:
        pytest.skip("../shared/formats/real and real-agents are not here")
    sites = []
    for root in corpora:
        site = tmp_path_factory.mktemp(root.name) / "site"
        build_site(root, site)
        sites.append(site)
    yield sites


@pytest.mark.parametrize("size", [LAPTOP, PHONE], ids=["1280x900", "390x844"])
def test_the_first_prompt_is_on_the_first_screen(real_sites, browser, size):
    context = browser.new_context(viewport=size)
    page = context.new_page()
    late, checked, headers = {}, 0, []
    try:
        for site in real_sites:
            for html in sorted((site / "sessions").glob("*.html")):
                page.goto(html.as_uri())
                found = page.evaluate(FIRST_PROMPT)
                if found["start"] is not None and found["start"] >= size["height"]:
                    late[html.name] = round(found["start"])  # the conversation's first line
                if found["prompt"] is None or found["answered"]:
                    continue  # no prompt, or a log that starts mid-conversation (an answer comes first)
                checked += 1
                if found["prompt"] >= size["height"]:
                    late[html.name] = round(found["prompt"])
                if found["header"] is not None:
                    headers.append(found["header"])
    finally:
        context.close()
    assert checked > 100
    assert late == {}, f"first prompt below the first screen at {size['width']}px"
    if size is LAPTOP:
        headers.sort()
        median = headers[len(headers) // 2]
        assert median <= size["height"] / 5, f"the session header takes {median}px of {size['height']}"


def _session(events: tuple[Event, ...]) -> Session:
    return Session(id="first", source=SourceRef("x.jsonl", "test"), agent="test", events=events, title="First")


def test_startup_records_fold_into_one_line_and_skip_past_them():
    hooks = tuple(Event(id=f"h{i}", kind=Kind.SYSTEM, title="Hook: SessionStart", text=f"hook {i}") for i in range(6))
    prompt = Event(id="p", kind=Kind.USER, text="Fix the parser")
    html = render_session_page(_session((*hooks, prompt, Event(id="a", kind=Kind.ASSISTANT, text="Done"))))
    doc = BeautifulSoup(html, "html.parser")
    lines = doc.select("ol.timeline.tl > li")
    assert [li.get("class") for li in lines][:2] == [
        ["run", "line", "lead", "f-system"],
        ["event", "k-user", "f-prompt"],
    ]
    assert lines[0].summary.get_text(" ", strip=True).startswith("6 startup records: 6 Hook: SessionStart")
    assert len(lines[0].select("li.k-system")) == 6  # each record still there, one click away
    skip = doc.select_one("a.skip-link")["href"]
    assert doc.find(id=skip[1:]) is lines[1]


def test_a_long_prompt_folds_and_its_whole_text_is_in_the_page(tmp_path, page):
    pasted = "\n".join(f"line {i}: pasted context" for i in range(400)) + "\nTHE-LAST-LINE"
    record = {
        "type": "user",
        "uuid": "u1",
        "parentUuid": None,
        "sessionId": "33333333-3333-4333-8333-333333333333",
        "cwd": "/home/dev/app",
        "timestamp": "2026-10-01T10:00:00.000Z",
        "message": {"role": "user", "content": pasted},
    }
    archive = tmp_path / "archive" / "projects" / "-home-dev-app"
    archive.mkdir(parents=True)
    (archive / "33333333-3333-4333-8333-333333333333.jsonl").write_text(json.dumps(record) + "\n")
    build_site(tmp_path / "archive", tmp_path / "site")
    page.set_viewport_size(PHONE)
    page.goto(next((tmp_path / "site" / "sessions").glob("*.html")).as_uri())
    fold = page.locator("li.k-user .prompt-fold")
    body = fold.locator(".body")
    height = body.evaluate("el => el.getBoundingClientRect().height")
    assert height < 2 * PHONE["height"], "folded after a screen or two"
    assert "THE-LAST-LINE" in body.evaluate("el => el.textContent")  # in the DOM: the browser's find reaches it
    button = fold.locator(":scope > [data-expand]")
    assert button.is_visible() and "Show the whole prompt (401 lines)" in button.inner_text()
    button.click()
    assert body.evaluate("el => el.scrollHeight <= el.clientHeight + 1")
    assert page.get_by_text("THE-LAST-LINE").is_visible()
