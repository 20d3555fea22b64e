"""The Python query side (``sessite/search/query.py``) ranks as the browser's search-core.js does."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import EXAMPLE, build_site
from search_support import run_node

from sessite.search.query import SearchIndex, parse_query, syntax
from sessite.search.query_words import phrases

QUERIES = [
    "test", "readme", "pytest failing", "git commit", "def", "error", "config file", "file", "run tests",
    "add", "main py", "import", "login form", "csv parser", "amounts", "stream_queue", "tabular", "xyz0nothing",
    # partial matches (some of the words), fillers
    "login form password", "pytest failing xyz0nothing", "how did i fix the error in that session", "asked session",
    # quoted phrases, exclusions
    '"run tests" readme', '"pytest failing', "test -pytest", '-"config file" error', "error -", "-error",
    # phrases of several words: checked side by side on the snippet files' text
    '"failing test"', '"pytest is failing"', 'test -"run tests"', '"config file" -"file error" readme',
    '"tests pass" file', '"the tests pass"', 'error -"no such thing here"',
    # filters (agent/project from meta.js, model/tool/days from facts.js)
    "test agent:codex", "file project:WEB", "error tool:bash after:2026-01", "test model:opus", "file before:2025",
    "test after:2026-02-07 before:2026-03", "test after:soon", "agent:cline", "test tool:nosuchtool",
    # typos: no result, the nearest index terms instead
    "pytset failng", "confg", "readmee -test", "amounst",
]  # fmt: skip


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("query") / "site"
    build_site(EXAMPLE, out)
    return out


def _index(site: Path) -> SearchIndex:
    return SearchIndex(lambda url: (site / url).read_bytes() if (site / url).is_file() else None)


def test_ranking_and_events_equal_the_browsers(site, node):
    answer = run_node(node, {"op": "query", "filters": True, "site": str(site), "queries": QUERIES, "top": 20})
    index = _index(site)
    found, groups, suggested = 0, set(), 0
    for query, browser in zip(QUERIES, answer["results"]):
        hits, near = index.run(query)
        assert len(hits) == browser["total"], query
        assert near == [(n["word"], n["terms"]) for n in browser["nearest"]], query
        suggested += len(near)
        assert [_shown(h) for h in hits[:20]] == [
            (
                r["ref"],
                round(r["score"], 9),
                r["match"],
                r["ev"],
                sorted(r["terms"]),
                [(a["ev"], sorted(a["keys"])) for a in r["also"]],
                r["check"],
                r["phrase"],
                r["checked"],
            )
            for r in browser["top"]
        ], query
        found += len(hits)
        groups.update(h.match for h in hits)
    assert found > 80  # the queries do find sessions
    assert suggested >= 3  # and typos get index terms to try
    assert groups == {"whole", "partial"}  # both groups are compared (the example has no apart-only match)


def _shown(h):
    return (
        h.doc,
        round(h.score, 9),
        h.match,
        h.event,
        sorted(h.terms),
        [(ev, sorted(keys)) for ev, keys in h.also],
        list(h.check),
        h.phrase,
        h.checked,
    )


def test_syntax_and_filters_change_the_results(site):
    index = _index(site)
    plain = {h.doc for h in index.search("test")}
    assert not {h.doc for h in index.search("test -pytest")} & {h.doc for h in index.search("pytest")}
    assert {h.doc for h in index.search("test -pytest")} < plain
    codex = {h.doc for h in index.search("test agent:codex")}
    assert codex and codex < plain and all(index.agent_of(d) == "codex" for d in codex)
    assert index.search("test tool:nosuchtool") == [] and index.search("test after:soon") == []
    dated = index.search("error tool:bash after:2026-01")
    assert dated and all(index.facts()["days"][h.doc] >= "2026-01" for h in dated)
    some = index.search("login form password")
    assert [h.every_word for h in some] == sorted((h.every_word for h in some), reverse=True)  # every word first
    assert any(h.every_word for h in some) and not all(h.every_word for h in some)
    phrase = {h.doc for h in index.search('"login form password"')}  # a phrase's words are all required
    assert phrase == {h.doc for h in some if h.every_word}


def test_words_are_parsed_like_the_browsers(node):
    queries = [
        "StreamQueue fixing a bug", "std::vector<int>", "stream queue", "HTTPServer_error x", "é café naïve",
        'what did I ask about "stream queue" -foo -"bar baz" agent:codex Tool:Bash after:2026 x:y',
        "asked session", "session StreamQueue", '"asked" help -help', "-", "-- -1 - x", '"unclosed phrase',
        "a b c﻿d", '"  " "" -"" agent: project:a:b',
        '"connection refused" -"not found" connection -"x"',
        '"file not found" "a b" "StreamQueue failed" -"Café naïve"',
    ]  # fmt: skip
    answer = run_node(node, {"op": "tokens", "texts": queries})
    for query, browser in zip(queries, answer["words"]):
        mine = parse_query(query)
        assert [_word(w) for w in mine] == [
            (w["text"], w["exact"], w["prefix"], w.get("alts", []), w.get("parts", []))
            + tuple(bool(w.get(k)) for k in ("optional", "phrase", "exclude", "filler", "avoid", "chain"))
            for w in browser
        ], query
    for query, browser in zip(queries, answer["phrases"]):
        assert [(p.text, list(p.keys), p.avoid) for p in phrases(query)] == [
            (p["text"], p["keys"], p["avoid"]) for p in browser
        ], query
    for query, browser in zip(queries, answer["syntax"]):
        mine = syntax(query)
        assert (mine.text, mine.phrases, mine.exclude) == (browser["text"], browser["phrases"], browser["exclude"])
        assert [(f.key, f.value, f.raw) for f in mine.filters] == [
            (f["key"], f["value"], f["raw"]) for f in browser["filters"]
        ]
    assert any(w.optional for w in parse_query("stream queue"))  # the words joined: an optional identifier


def _word(w):
    return (w.text, w.exact, w.prefix, w.alts, w.parts, w.optional, w.phrase, w.exclude, w.filler, w.avoid, w.chain)


def test_snippets_name_the_session_and_event(site):
    index = _index(site)
    hit = index.search("pytest failing")[0]
    head, entry = index.snippet(hit.doc, hit.event)
    assert head["u"].startswith("sessions/") and head["t"]
    assert entry is not None and entry[0] and "pytest" in entry[2].lower()
