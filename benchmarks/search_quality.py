#!/usr/bin/env python3
"""Does search find the session a question means? sessite's real search page against plain BM25.

    python benchmarks/search_quality.py [--site SITE] [--keep SITE] [--split tune|held_aside|all] [--json FILE]
                                        [--baseline OLD_SITE] [--misses]

1. Copies ``../shared/formats/real`` and ``../shared/formats/real-agents`` into one
   temporary archive (``real/``, ``agents/``) and builds it with ``sessite build``
   (or measures an already built ``--site``).
2. Serves the site over HTTP and types every question of
   ``benchmarks/search_questions/questions.jsonl`` into the built site's search
   page in headless Chromium (Debian's, through Playwright), each from a cold
   page (a fresh browser context), and reads the ranked list from the DOM.
3. Ranks the same sessions with plain Okapi BM25 (k1 1.2, b 0.75) over each
   session page's visible text (its parts joined), tokenized like the index.
4. Prints hit@1, hit@5, hit@20 and MRR per kind and overall, for the tuning
   half and the held-aside half, for sessite and for BM25, the questions that
   got no result, and the median time from a cold page to the ranked list.
   ``--baseline`` runs the same questions, interleaved, on a site an older sessite
   built (before/after in one run, on one machine load).

Each question names one intended session. A third of the questions
(``split: held_aside``, fixed by a seeded hash of their id before any ranking
change) is never looked at while tuning; report both halves.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from urllib.parse import quote, urlsplit

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

QUESTIONS = HERE / "search_questions" / "questions.jsonl"
CORPORA = {
    "real": REPO.parent / "shared" / "formats" / "real",
    "agents": REPO.parent / "shared" / "formats" / "real-agents",
}
KINDS = ("keyword", "nl", "identifier", "needle")
DEPTH = 20  # the results page shows 20 results before "more"
PART = re.compile(r"^(sessions/[^/]+)/p\d+\.html$")


# ---------------------------------------------------------------------------
# the site


def build(site: Path) -> None:
    """The two corpora as one archive, built into ``site``."""
    missing = [str(p) for p in CORPORA.values() if not p.is_dir()]
    if missing:
        sys.exit(f"corpus not found: {', '.join(missing)}")
    with tempfile.TemporaryDirectory(prefix="sessite-quality-") as tmp:
        archive = Path(tmp) / "archive"
        for name, source in CORPORA.items():
            shutil.copytree(source, archive / name)
        t = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "sessite", "build", str(archive), "-o", str(site)], capture_output=True, text=True
        )
        if proc.returncode:
            sys.exit(f"build failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
        print(f"built {site} in {time.perf_counter() - t:.1f}s: {proc.stdout.strip().splitlines()[-1:]}")


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


def session_of(href: str) -> str:
    """The session page a result links to (a later part of a split session counts as the session)."""
    path = urlsplit(href).path.lstrip("/")
    m = PART.match(path)
    return m.group(1) + ".html" if m else path


# ---------------------------------------------------------------------------
# sessite: the real search page in Chromium

WAIT_RANKED = """() => {
  const s = document.querySelector('[data-search-status]');
  return s && ['done', 'empty', 'error'].includes(s.dataset.state);
}"""

WAIT_DONE = """() => {
  const s = document.querySelector('[data-search-status]');
  if (!s || !['done', 'empty', 'error'].includes(s.dataset.state)) return false;
  const items = document.querySelectorAll('.search-result');
  return Array.prototype.every.call(items, (li) => li.querySelector('.result-title a') || !li.querySelector('.muted'));
}"""

READ_LIST = """() => ({
  state: document.querySelector('[data-search-status]').dataset.state,
  status: document.querySelector('[data-search-status]').textContent,
  hrefs: Array.from(document.querySelectorAll('.search-result')).map((li) => {
    const a = li.querySelector('.result-title a');
    return a ? a.getAttribute('href') : '';
  }),
  whole: Array.from(document.querySelectorAll('.search-result')).map((li) => li.dataset.match || ''),
})"""


def sessite_rankings(
    sites: list[Path], questions: list[dict], chromium: str
) -> tuple[list[dict[str, list[str]]], list[list[float]]]:
    """Per site, every question's ranked sessions and the times from a cold page to its ranked list.

    With several sites (``--baseline``), each question goes to each site in turn (in turns
    alternating order), so that a busy machine slows both alike."""
    from playwright.sync_api import sync_playwright

    servers = [serve(site) for site in sites]
    ranked: list[dict[str, list[str]]] = [{} for _ in sites]
    times: list[list[float]] = [[] for _ in sites]
    filled: list[list[float]] = [[] for _ in sites]
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
            for number, question in enumerate(questions):
                order = list(enumerate(servers))
                for n, (_, base) in order if number % 2 == 0 else order[::-1]:  # neither site always goes first
                    context = browser.new_context()  # a cold page: nothing cached
                    page = context.new_page()
                    page.set_default_timeout(30_000)
                    errors: list[str] = []
                    page.on("pageerror", lambda exc, errors=errors: errors.append(str(exc)))
                    page.goto(base + "search.html?q=" + quote(question["q"]))
                    page.wait_for_function(WAIT_RANKED, polling="raf")
                    times[n].append(page.evaluate("() => performance.now()"))  # the ranked list is known
                    page.wait_for_function(WAIT_DONE, polling="raf")  # ... and its snippets are on screen
                    filled[n].append(page.evaluate("() => performance.now()"))
                    found = page.evaluate(READ_LIST)
                    if errors or found["state"] == "error":
                        print(f"  {question['id']}: page error {errors or found['status']}", file=sys.stderr)
                    ranked[n][question["id"]] = [session_of(h) for h in found["hrefs"] if h]
                    context.close()
            browser.close()
    finally:
        for httpd, _ in servers:
            httpd.shutdown()
    for n, site in enumerate(sites):
        print(f"  {site}: snippets of the first 20 on screen, median {statistics.median(filled[n]):.0f} ms")
    return ranked, times


# ---------------------------------------------------------------------------
# BM25 over each session page's visible text


def page_texts(site: Path) -> dict[str, str]:
    from bs4 import BeautifulSoup

    texts: dict[str, list[str]] = defaultdict(list)
    for path in sorted((site / "sessions").rglob("*.html")):
        rel = path.relative_to(site).as_posix()
        soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
        for hidden in soup(["script", "style", "template", "noscript", "head"]):
            hidden.decompose()
        texts[session_of(rel)].append(soup.get_text(" "))
    return {url: " ".join(parts) for url, parts in texts.items()}


class Okapi:
    """Plain Okapi BM25 (k1 1.2, b 0.75, the Lucene idf), terms as the index makes them."""

    def __init__(self, texts: dict[str, str]) -> None:
        from sessite.search.terms import tokens

        self.tokens = tokens
        self.docs = {url: Counter(tokens(text)) for url, text in texts.items()}
        self.lengths = {url: sum(c.values()) for url, c in self.docs.items()}
        self.average = sum(self.lengths.values()) / max(1, len(self.docs))
        self.df: Counter = Counter()
        for counts in self.docs.values():
            self.df.update(counts.keys())

    def rank(self, query: str, k1: float = 1.2, b: float = 0.75) -> list[str]:
        terms = set(self.tokens(query))
        n = len(self.docs)
        scores: dict[str, float] = {}
        for url, counts in self.docs.items():
            norm = k1 * (1 - b + b * self.lengths[url] / self.average)
            score = 0.0
            for term in terms:
                tf = counts.get(term, 0)
                if tf:
                    idf = math.log(1 + (n - self.df[term] + 0.5) / (self.df[term] + 0.5))
                    score += idf * tf * (k1 + 1) / (tf + norm)
            if score > 0:
                scores[url] = score
        return sorted(scores, key=lambda url: (-scores[url], url))


# ---------------------------------------------------------------------------
# figures


def figures(rows: list[tuple[dict, list[str]]]) -> dict[str, float]:
    ranks = [(ranked.index(q["session"]) + 1 if q["session"] in ranked[:DEPTH] else 0) for q, ranked in rows]
    n = len(rows) or 1
    return {
        "n": len(rows),
        "hit1": sum(1 for r in ranks if r == 1) / n,
        "hit5": sum(1 for r in ranks if 0 < r <= 5) / n,
        "hit20": sum(1 for r in ranks if r) / n,
        "mrr": sum(1 / r for r in ranks if r) / n,
        "none": sum(1 for _, ranked in rows if not ranked),
    }


def table(questions: list[dict], engines: dict[str, dict[str, list[str]]]) -> dict:
    out: dict = {}
    for split in ("tune", "held_aside", "all"):
        chosen = [q for q in questions if split == "all" or q["split"] == split]
        if not chosen:
            continue
        print(f"\n{split} ({len(chosen)} questions)    hit@1  hit@5  hit@20   MRR  no result")
        for kind in (*KINDS, "overall"):
            subset = [q for q in chosen if kind == "overall" or q["kind"] == kind]
            for engine, ranked in engines.items():
                f = figures([(q, ranked[q["id"]]) for q in subset])
                out[f"{split}/{kind}/{engine}"] = f
                print(
                    f"  {kind:10} {engine:7} ({f['n']:3})  {f['hit1']:5.0%}  {f['hit5']:5.0%}  {f['hit20']:5.0%}"
                    f"  {f['mrr']:5.2f}  {f['none']:3}"
                )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, help="measure this built site (of the two corpora) instead of building")
    parser.add_argument("--keep", type=Path, help="build the site here and keep it")
    parser.add_argument("--split", choices=("tune", "held_aside", "all"), default="all", help="questions to run")
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--json", type=Path, help="write every question's rankings and the figures here")
    parser.add_argument("--misses", action="store_true", help="list the questions sessite ranks below 5")
    parser.add_argument(
        "--baseline", type=Path, help="also run the questions on this site (built by an older sessite), interleaved"
    )
    args = parser.parse_args()
    chromium = os.environ.get("SESSITE_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        sys.exit("Chromium is needed (Debian's chromium package)")
    questions = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    if args.split != "all":
        questions = [q for q in questions if q["split"] == args.split]

    with tempfile.TemporaryDirectory(prefix="sessite-quality-site-") as tmp:
        site = args.site or args.keep or Path(tmp) / "site"
        if not args.site:
            build(site)
        known = {session_of(p.relative_to(site).as_posix()) for p in (site / "sessions").rglob("*.html")}
        for q in questions:
            if q["session"] not in known:
                sys.exit(f"{q['id']}: {q['session']} is not a session of this site")
        t = time.perf_counter()
        sites = [site] + ([args.baseline] if args.baseline else [])
        rankings, timings = sessite_rankings(sites, questions, chromium)
        ranked, times = rankings[0], timings[0]
        print(f"sessite: {len(questions)} questions in {time.perf_counter() - t:.0f}s in Chromium")
        okapi = Okapi(page_texts(site))
        bm25 = {q["id"]: okapi.rank(q["q"]) for q in questions}

    engines = {"sessite": ranked, "bm25": bm25}
    if args.baseline:
        engines["before"] = rankings[1]
    result = table(questions, engines)
    median = statistics.median(times)
    print(f"\ncold page to ranked list: median {median:.0f} ms, max {max(times):.0f} ms (Chromium, over HTTP)")
    if args.baseline:
        print(
            f"  before ({args.baseline}): median {statistics.median(timings[1]):.0f} ms, max {max(timings[1]):.0f} ms"
        )
    for kind in KINDS:
        at = [n for n, q in enumerate(questions) if q["kind"] == kind]
        medians = [f"{statistics.median([t[n] for n in at]):.0f} ms" for t in timings]
        print(f"  {kind:10} median {' / before '.join(medians)}")
    if args.misses:
        print("\nsessite below 5:")
        for q in questions:
            r = ranked[q["id"]]
            rank = r.index(q["session"]) + 1 if q["session"] in r else None
            if rank is None or rank > 5:
                b = bm25[q["id"]]
                brank = b.index(q["session"]) + 1 if q["session"] in b else None
                print(
                    f"  {q['id']} {q['kind']:10} {q['split']:10} rank {rank} (bm25 {brank}) {len(r)} results  {q['q']}"
                )
    if args.json:
        times_by_id = [{q["id"]: t[n] for n, q in enumerate(questions)} for t in timings]
        args.json.write_text(
            json.dumps({"figures": result, "cold_ms_median": median, "rankings": engines, "ms": times_by_id}, indent=1)
        )


if __name__ == "__main__":
    main()
