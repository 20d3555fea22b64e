"""Search in a real headless Chromium: type a word in the header box, follow a result to its event.

Run from file:// (no worker, scripts only) and over HTTP (search in a Web Worker).
"""

from __future__ import annotations

import re
import shutil
import time
from urllib.parse import quote

import pytest
from helpers import EXAMPLE, build_site
from search_support import StaticServer, read_views

from sessite.outputs.search import session_events
from sessite.search.terms import tokens
from sessite.site.urls import session_url

WORD = "CSRFProtect"  # occurs in one session of the example archive, first in a sub-agent's tool output


@pytest.fixture(scope="module")
def expected():
    """(session page, anchor) of the first event of the example archive whose text has WORD."""
    term = next(iter(tokens(WORD)))
    for view in read_views(EXAMPLE):
        for anchor, _, text in session_events(view):
            if term in tokens(text):
                return session_url(view.session.id), anchor
    raise AssertionError(f"{WORD} is not in the example archive")


def _search_from_header(page, start_url: str, query: str):
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(start_url)
    box = page.locator("form[data-site-search] input[type=search]")
    box.fill(query)
    box.press("Enter")
    page.wait_for_url(re.compile(r"search\.html\?q="))
    page.wait_for_function(
        "() => { const s = document.querySelector('[data-search-status]');"
        " return s && ['done', 'empty', 'error'].includes(s.dataset.state); }"
    )
    return errors


def _follow_first_result(page, expected, errors):
    url, anchor = expected
    status = page.locator("[data-search-status]")
    assert status.get_attribute("data-state") == "done", status.inner_text()
    first = page.locator(".search-result .result-title a").first
    first.wait_for()
    assert url in first.get_attribute("href")
    snippet = page.locator(".search-result .snippet").first
    assert WORD in snippet.locator("mark").first.inner_text()
    first.click()
    page.wait_for_url(re.compile(re.escape(url.split("/")[-1]) + r"\?hl=.*#" + re.escape(anchor) + "$"))
    target = page.locator(f"[id='{anchor}']")
    mark = target.locator("mark.search-hit").first
    mark.wait_for()
    assert mark.inner_text() == WORD
    assert mark.is_visible()
    assert page.evaluate("() => document.querySelector(':target') && document.querySelector(':target').id") == anchor
    assert errors == []


def test_search_from_file_url_opens_the_event(example_site, page, expected):
    _, site = example_site
    errors = _search_from_header(page, (site / "index.html").as_uri(), WORD)
    assert page.locator("[data-search-status]").get_attribute("data-engine") == "page"
    _follow_first_result(page, expected, errors)


def test_search_over_http_runs_in_a_worker(example_site, page, expected):
    _, site = example_site
    with StaticServer(site) as server:
        url, _ = expected
        errors = _search_from_header(page, server.url + url, WORD)  # start on a session page: root is ../
        assert page.locator("[data-search-status]").get_attribute("data-engine") == "worker"
        _follow_first_result(page, expected, errors)


def test_a_worker_that_cannot_start_leaves_the_search_to_the_page(example_site, page, expected, tmp_path):
    """The worker starts as soon as the query is known, before the index's meta has loaded: if its
    script fails then, the search still answers, on the page."""
    _, site = example_site
    broken = tmp_path / "site"
    shutil.copytree(site, broken)
    (broken / "static" / "search-worker.js").unlink()

    def late(route):  # the worker's failure comes before the meta, so before the engine takes the worker
        time.sleep(0.5)
        route.continue_()

    page.route("**/search/meta.js", late)
    with StaticServer(broken) as server:
        url, _ = expected
        errors = _search_from_header(page, server.url + url, WORD)
        assert page.locator("[data-search-status]").get_attribute("data-engine") == "page"
        _follow_first_result(page, expected, errors)


def test_filters_and_empty_results(example_site, page):
    _, site = example_site
    search = (site / "search.html").as_uri()
    page.goto(search + "?q=" + quote("test"))
    page.wait_for_function("() => document.querySelector('[data-search-status]').dataset.state === 'done'")
    results = page.locator(".search-result")
    total = results.count()
    agents = page.locator(".search-result .result-meta .agent").all_inner_texts()
    assert total > 1 and len(set(agents)) > 1
    agent = agents[0]
    page.select_option("select[name=agent]", agent)
    page.wait_for_function("(n) => document.querySelectorAll('.search-result').length < n", arg=total)
    assert set(page.locator(".search-result .result-meta .agent").all_inner_texts()) == {agent}
    assert "agent=" in page.url
    projects = page.locator("select[name=project] option").all_inner_texts()[1:]
    other = next(p for p in projects if p not in page.locator(".search-result .result-project").all_inner_texts())
    page.select_option("select[name=project]", other)
    status = page.locator("[data-search-status]")
    assert "No results" in status.inner_text() and "without them" in status.inner_text()
    page.goto(search + "?q=" + quote("zzqqxxnothinglikethis"))
    page.wait_for_function("() => document.querySelector('[data-search-status]').dataset.state === 'empty'")
    assert "No results for “zzqqxxnothinglikethis”" in status.inner_text()
    assert page.locator(".search-result").count() == 0
    page.goto(search + "?q=" + quote("the of and"))
    page.wait_for_function("() => document.querySelector('[data-search-status]').dataset.state === 'empty'")
    assert "very common words" in status.inner_text()


@pytest.mark.parametrize(
    "query", ["std::vector", "application/json", "snake_case", "api/server.py", "http://", '"*~^:']
)
def test_code_queries_do_not_break_the_page(example_site, page, query):
    _, site = example_site
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto((site / "search.html").as_uri() + "?q=" + quote(query))
    page.wait_for_function(
        "() => ['done', 'empty'].includes(document.querySelector('[data-search-status]').dataset.state)"
    )
    assert errors == []
    if query == "api/server.py":
        assert page.locator(".search-result").count() >= 1


def test_results_are_text_not_markup(tmp_path, page):
    from xss_archive import write

    site = tmp_path / "site"
    build_site(write(tmp_path / "archive"), site)
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto((site / "search.html").as_uri() + "?q=" + quote("onerror iframe"))
    page.wait_for_function("() => document.querySelector('[data-search-status]').dataset.state === 'done'")
    assert page.locator(".search-result").count() >= 3
    page.wait_for_function("() => document.querySelectorAll('.search-result .snippet').length > 0")
    snippets = page.locator(".search-result .snippet").all_inner_texts()
    assert any("<img" in s or "<iframe" in s for s in snippets)
    assert (
        page.locator(".search-results img, .search-results iframe, .search-results script, .search-results svg").count()
        == 0
    )
    page.locator(".search-result .result-title a").first.click()
    page.wait_for_load_state("load")
    assert page.evaluate("() => window.__xss") is None
    assert dialogs == []


# ---------------------------------------------------------------------------
# ranking that degrades gracefully, and the search box's syntax


def _run(page, site, query: str) -> dict:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto((site / "search.html").as_uri() + "?q=" + quote(query))
    page.wait_for_function(
        "() => ['done', 'empty'].includes(document.querySelector('[data-search-status]').dataset.state)"
    )
    page.wait_for_function("() => !document.querySelector('.search-result .muted')")  # results filled in
    found = page.evaluate(
        """() => ({
        status: document.querySelector('[data-search-status]').textContent,
        items: Array.from(document.querySelectorAll('.search-results > li')).map(li => ({
            divider: li.dataset.divider || (li.classList.contains('search-divider') ? 'apart' : null),
            match: li.dataset.match || null,
            href: li.querySelector('.result-title a') && li.querySelector('.result-title a').getAttribute('href'),
            agent: li.querySelector('.result-meta .agent') && li.querySelector('.result-meta .agent').textContent,
            links: Array.from(li.querySelectorAll('.search-suggest a'))
                .map(a => [a.textContent, a.getAttribute('href')]),
        })),
        chips: Array.from(document.querySelectorAll('.search-chip')).map(c => ({
            kind: c.dataset.chip, text: c.firstChild.textContent, remove: c.querySelector('a').getAttribute('href'),
        })),
    })"""
    )
    assert errors == []
    found["results"] = [i for i in found["items"] if i["href"]]
    return found


def test_sessions_with_some_of_the_words_come_below_a_divider(example_site, page, expected):
    _, site = example_site
    url, _ = expected
    found = _run(page, site, f"{WORD} test")
    results, items = found["results"], found["items"]
    assert url in results[0]["href"] and results[0]["match"] == "whole"
    whole = [r for r in results if r["match"] == "whole"]
    partial = [r for r in results if r["match"] == "partial"]
    assert whole and partial and len(whole) + len(partial) == len(results)
    at = [n for n, i in enumerate(items) if i["divider"] == "partial"]
    assert at == [len(whole)], "one divider, between every word and some of the words"
    assert all(i["match"] == "partial" for i in items[at[0] + 1 :])
    assert f"{len(whole)} session matches every word of" in found["status"]
    assert f"{len(partial)} more match some of the words" in found["status"]
    # a word no session holds no longer empties the page
    missing = _run(page, site, f"{WORD} zzqqxxnothing")
    assert missing["results"] and url in missing["results"][0]["href"]
    assert all(r["match"] == "partial" for r in missing["results"])
    assert missing["status"].startswith("No session matches every word of")


def test_a_quoted_phrase_requires_its_words(example_site, page, expected):
    _, site = example_site
    url, _ = expected
    loose = _run(page, site, f"{WORD} test")
    phrase = _run(page, site, f'"{WORD} test"')
    assert len(phrase["results"]) == 1 < len(loose["results"]), "sessions lacking a word of the phrase are no results"
    assert url in phrase["results"][0]["href"] and phrase["results"][0]["match"] == "whole"
    assert phrase["chips"] == [{"kind": "phrase", "text": f"“{WORD} test”", "remove": "search.html?q="}]


def test_a_minus_word_excludes_its_sessions(example_site, page, expected):
    _, site = example_site
    url, _ = expected
    plain = _run(page, site, "test")
    excluded = _run(page, site, f"test -{WORD}")
    assert any(url in r["href"] for r in plain["results"])
    assert excluded["results"] and not any(url in r["href"] for r in excluded["results"])
    assert len(excluded["results"]) == len(plain["results"]) - 1
    assert excluded["chips"] == [{"kind": "exclude", "text": f"not {WORD}", "remove": "search.html?q=test"}]


def test_a_typed_filter_is_a_removable_chip_kept_in_the_url(example_site, page):
    _, site = example_site
    everyone = _run(page, site, "test")
    found = _run(page, site, "agent:codex test")
    assert "q=agent%3Acodex%20test" in page.url
    assert found["results"] and {r["agent"] for r in found["results"]} == {"codex"}
    assert len(found["results"]) < len(everyone["results"])
    assert "more without the filters" in found["status"]
    (chip,) = found["chips"]
    assert chip["kind"] == "agent" and chip["text"] == "agent: codex" and chip["remove"] == "search.html?q=test"
    page.locator(".search-chip a").click()
    page.wait_for_url(re.compile(r"search\.html\?q=test$"))
    page.wait_for_function("() => document.querySelector('[data-search-status]').dataset.state === 'done'")
    assert page.locator(".search-chip").count() == 0
    assert page.locator(".search-result").count() == len(everyone["results"])
    # model:, tool:, after: and before: read the sessions' facts, loaded for them only
    tools = _run(page, site, "tool:Bash test")
    assert 0 < len(tools["results"]) < len(everyone["results"])
    later = _run(page, site, "after:2100-01-01 test")
    assert later["results"] == [] and "without them" in later["status"]
    assert _run(page, site, "agent:codex")["status"] == "Type a word to look for with these filters."


def test_no_results_suggest_nearest_words_and_dropping_one(example_site, page):
    _, site = example_site
    found = _run(page, site, "zzqqxxnothing flaskk")
    assert found["results"] == [] and found["status"].startswith("No results for")
    (suggest,) = [i for i in found["items"] if i["links"]]
    links = dict(suggest["links"])
    assert links["flask"] == "search.html?q=zzqqxxnothing%20flask"
    assert links["“zzqqxxnothing”"] == "search.html?q=flaskk"
