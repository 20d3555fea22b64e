"""Quoted phrases match as phrases: their words side by side and in order, checked on the text the
snippet files keep (static/search-core.js ``checkPhrases``), from file:// and over HTTP."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from urllib.parse import quote

import pytest
from helpers import build_site
from search_support import StaticServer

from sessite.search.item import fragment_url
from sessite.search.query import SearchIndex

SESSIONS = {
    "adjacent": "The dev server said connection refused when curl reached port 8080.",
    "apart": "The proxy refused the request, so the connection to the upstream stayed closed.",
    "one-word": "A connection pool keeps sockets open between requests.",
    "neither": "Nothing about sockets here: the build succeeded on the first try.",
}


def _archive(root: Path) -> Path:
    """One AICS file of four sessions, each one user message (its title is its key)."""
    root.mkdir(parents=True)
    sessions = [
        {
            "id": f"phrase-{key}",
            "title": f"Session {key}",
            "startedAt": f"2026-01-0{n + 1}T00:00:00Z",
            "messages": [
                {"id": "1", "role": "user", "content": [{"type": "text", "text": text}]},
                {"id": "2", "role": "assistant", "content": [{"type": "text", "text": "Noted."}]},
            ],
        }
        for n, (key, text) in enumerate(SESSIONS.items())
    ]
    log = {"version": "1.0", "creator": {"name": "test"}, "log": {"version": "1.0", "sessions": sessions}}
    (root / "phrases.aics.json").write_text(json.dumps(log))
    return root


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("phrases")
    out = tmp / "site"
    build_site(_archive(tmp / "archive"), out)
    return out


def _run(page, url: str) -> dict:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    page.wait_for_function(
        "() => ['done', 'empty'].includes(document.querySelector('[data-search-status]').dataset.state)"
    )
    page.wait_for_function("() => !document.querySelector('.search-result .muted')")  # results filled in
    found = page.evaluate(
        """() => ({
        status: document.querySelector('[data-search-status]').textContent,
        engine: document.querySelector('[data-search-status]').dataset.engine,
        scripts: Array.from(document.scripts).map(s => s.src.split('/').pop()),
        items: Array.from(document.querySelectorAll('.search-results > li')).map(li => ({
            divider: li.dataset.divider || null,
            phrase: li.dataset.phrase || null,
            title: li.querySelector('.result-title a') && li.querySelector('.result-title a').textContent,
            marks: Array.from(li.querySelectorAll('.snippet mark')).map(m => m.textContent),
        })),
    })"""
    )
    assert errors == []
    return found


def _titles(found: dict) -> list[str]:
    return [i["title"] for i in found["items"] if i["title"]]


def _file(site: Path, query: str) -> str:
    return (site / "search.html").as_uri() + "?q=" + quote(query)


def test_a_phrase_ranks_its_words_side_by_side_first(site, page):
    loose = _run(page, _file(site, "connection refused"))
    assert set(_titles(loose)) == {"Session adjacent", "Session apart", "Session one-word"}
    assert "search-phrase.js" not in loose["scripts"], "an ordinary query loads no phrase check"
    found = _run(page, _file(site, '"connection refused"'))
    assert "search-phrase.js" in found["scripts"]
    items = found["items"]
    # both sessions hold the words; only the adjacent one is a phrase match, and it comes first
    assert _titles(found) == ["Session adjacent", "Session apart"]
    assert [i["phrase"] for i in items if i["title"]] == ["yes", "no"]
    assert [i["divider"] for i in items] == [None, "phrase", None], "one divider, before the words apart"
    assert "1 session has “connection refused” word for word, listed first" in found["status"]
    assert "1 has the words, not side by side" in found["status"]
    assert {"connection", "refused"} <= {m.lower() for m in items[0]["marks"]}
    # words in the wrong order are no phrase match either
    reversed_ = _run(page, _file(site, '"refused connection"'))
    assert [i["phrase"] for i in reversed_["items"] if i["title"]] == ["no", "no"]
    assert "None has “refused connection” word for word" in reversed_["status"]


def test_a_minus_phrase_excludes_only_the_sessions_holding_it(site, page):
    found = _run(page, _file(site, 'connection -"connection refused"'))
    assert set(_titles(found)) == {"Session apart", "Session one-word"}
    assert "1 holding “connection refused” left out" in found["status"]
    # a -word still excludes every session holding the word
    assert set(_titles(_run(page, _file(site, "connection -refused")))) == {"Session one-word"}


def test_the_phrase_check_runs_over_http_with_the_worker(site, page):
    with StaticServer(site) as server:
        found = _run(page, server.url + "search.html?q=" + quote('"connection refused"'))
    assert found["engine"] == "worker"
    assert _titles(found) == ["Session adjacent", "Session apart"]
    assert [i["phrase"] for i in found["items"] if i["title"]] == ["yes", "no"]


def test_the_python_twin_checks_phrases_alike(site):
    index = SearchIndex(lambda url: (site / url).read_bytes() if (site / url).is_file() else None)
    hits = index.search('"connection refused"')
    titles = [index.snippet(h.doc, 0)[0]["t"] for h in hits]
    assert titles == ["Session adjacent", "Session apart"]
    assert [h.phrase for h in hits] == [True, False] and all(h.checked for h in hits)
    kept = {index.snippet(h.doc, 0)[0]["t"] for h in index.search('connection -"connection refused"')}
    assert kept == {"Session apart", "Session one-word"}


def test_a_result_whose_text_cannot_load_is_kept_as_not_checked(site, page, tmp_path):
    """The check never drops a result it could not read, nor calls it a phrase match."""
    broken = tmp_path / "site"
    shutil.copytree(site, broken)
    index = SearchIndex(lambda url: (site / url).read_bytes() if (site / url).is_file() else None)
    adjacent = next(h.doc for h in index.search('"connection refused"') if h.phrase)
    (broken / fragment_url(adjacent, 0)).unlink()
    found = _run(page, _file(broken, '"connection refused"'))
    marks = sorted(i["phrase"] for i in found["items"] if i["phrase"])
    assert marks == ["no", "unchecked"], "the unreadable one is kept, and not called a phrase match"
    assert "phrase" not in [i["divider"] for i in found["items"]], "no divider: none was found word for word"
    assert "1 not checked for the phrase" in found["status"]
    assert "None has “connection refused” word for word" in found["status"]


def test_the_python_twin_keeps_what_it_cannot_read(site):
    """Without the snippet files nothing is checked: every result kept, none called a phrase match."""

    def load(url: str) -> bytes | None:
        return None if url.startswith("search/f/") or not (site / url).is_file() else (site / url).read_bytes()

    blind = SearchIndex(load)
    hits = blind.search('"connection refused"')
    assert len(hits) == 2 and [(h.phrase, h.checked) for h in hits] == [(None, False), (None, False)]
    assert len(blind.search('connection -"connection refused"')) == 3  # nothing found, nothing left out
