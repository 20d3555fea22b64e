"""The Python query side (``sessite/search/query.py``) ranks as the browser's search-core.js does."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import EXAMPLE, build_site
from search_support import run_node

from sessite.search.query import SearchIndex, parse_query

QUERIES = [
    "test", "readme", "pytest failing", "git commit", "def", "error", "config file", "file", "run tests",
    "add", "main py", "import", "login form", "csv parser", "amounts", "stream_queue", "tabular", "xyz0nothing",
]  # fmt: skip


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("query") / "site"
    build_site(EXAMPLE, out)
    return out


def _index(site: Path) -> SearchIndex:
    return SearchIndex(lambda url: (site / url).read_bytes() if (site / url).is_file() else None)


def test_ranking_and_events_equal_the_browsers(site, node):
    answer = run_node(node, {"op": "query", "site": str(site), "queries": QUERIES, "top": 20})
    index = _index(site)
    found = 0
    for query, browser in zip(QUERIES, answer["results"]):
        hits = index.search(query)
        assert len(hits) == browser["total"], query
        assert [(h.doc, round(h.score, 9), h.event) for h in hits[:20]] == [
            (r["ref"], round(r["score"], 9), r["ev"]) for r in browser["top"]
        ], query
        found += len(hits)
    assert found > 40  # the queries do find sessions


def test_words_are_parsed_like_the_browsers(node):
    queries = ["StreamQueue fixing a bug", "std::vector<int>", "stream queue", "HTTPServer_error x", "é café naïve"]
    answer = run_node(node, {"op": "tokens", "texts": queries})
    for query, browser in zip(queries, answer["words"]):
        mine = parse_query(query)
        assert [(w.text, w.exact, w.prefix, w.alts, w.parts, w.optional) for w in mine] == [
            (w["text"], w["exact"], w["prefix"], w.get("alts", []), w.get("parts", []), bool(w.get("optional")))
            for w in browser
        ], query
    assert any(w.optional for w in parse_query("stream queue"))  # the words joined: an optional identifier


def test_snippets_name_the_session_and_event(site):
    index = _index(site)
    hit = index.search("pytest failing")[0]
    head, entry = index.snippet(hit.doc, hit.event)
    assert head["u"].startswith("sessions/") and head["t"]
    assert entry is not None and entry[0] and "pytest" in entry[2].lower()
