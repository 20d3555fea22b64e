#!/usr/bin/env python3
"""Check the MCP server's Python search (``sessite/search/query.py``) against the browser's on a built site.

    python benchmarks/query_parity.py SITE

Runs the same queries (plain, partial, questions, phrases, exclusions, filters) through
node with search-core.js (``tests/search_node.js``) and through ``SearchIndex.search``,
compares every result (session, score, group, events, terms; the phrase check's events
and verdict) and the nearest
terms offered for words that find nothing, and times the Python
ranking warm. On the 100 MB yardstick (``sessite build /tmp/corpus100 -o SITE``): 28
queries, 4,089 results, none differ; 3 ms median, 8 ms at most per plain query at load 6.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from search_support import run_node  # noqa: E402

from sessite.search.query import Hit, SearchIndex  # noqa: E402

QUERIES = [
    "test", "error", "config file", "rate limiter", "how did i fix the flaky test", "pytest failing", "stream_queue",
    "database migration rollback", "auth token refresh", "docker compose", '"run tests" error', "test -pytest",
    "fix agent:claude", "error tool:bash", "deploy after:2026-01", "refactor before:2025-06", "cache model:opus",
    "memory leak in the worker", "what did we decide about logging", "readme -docs", "api endpoint pagination",
    "ci pipeline failing on main", "asked session", "xyz0nothing", "parser", "the", "pagnation", "databse migraton",
    '"connection refused"', '"file not found" error', 'test -"run tests"', '"the tests pass" -"no such file"',
]  # fmt: skip


def _mine(h: Hit) -> tuple:
    also = [(e, sorted(k)) for e, k in h.also]
    return (h.doc, round(h.score, 9), h.match, h.event, sorted(h.terms), also, list(h.check), h.phrase, h.checked)


def _theirs(r: dict) -> tuple:
    also = [(a["ev"], sorted(a["keys"])) for a in r["also"]]
    phrase = (r["check"], r["phrase"], r["checked"])
    return (r["ref"], round(r["score"], 9), r["match"], r["ev"], sorted(r["terms"]), also, *phrase)


def main(site: Path) -> int:
    answer = run_node(
        "node", {"op": "query", "filters": True, "site": str(site), "queries": QUERIES, "top": 100_000}, timeout=900
    )
    index = SearchIndex(lambda url: (site / url).read_bytes() if (site / url).is_file() else None)
    differ, total, groups = 0, 0, dict.fromkeys(("whole", "apart", "partial"), 0)
    for query, browser in zip(QUERIES, answer["results"]):
        hits, near = index.run(query)
        total += len(hits)
        for h in hits:
            groups[h.match] += 1
        if [_mine(h) for h in hits] != [_theirs(r) for r in browser["top"]] or near != [
            (n["word"], n["terms"]) for n in browser["nearest"]
        ]:
            differ += 1
            print(f"differs: {query!r} ({len(hits)} in Python, {browser['total']} in node)")
    print(f"{len(QUERIES)} queries, {total} results ({groups}), {differ} differ")
    times = []
    for query in (q for q in QUERIES if not any(c in q for c in ':"-')):
        index.search(query)  # its chunks read
        started = time.perf_counter()
        index.search(query)
        times.append((time.perf_counter() - started) * 1000)
    print(f"Python ranking, warm: {statistics.median(times):.1f} ms median, {max(times):.1f} ms at most")
    return 1 if differ else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    sys.exit(main(parser.parse_args().site))
