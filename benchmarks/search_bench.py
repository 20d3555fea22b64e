#!/usr/bin/env python3
"""Benchmark full-text search on a generated archive (10,000 sessions by default).

    python benchmarks/search_bench.py [--sessions 10000] [--archive DIR] [--keep SITE] [--jobs N] [--sequential]

1. Generates a Claude Code archive with ``gen_archive.py`` (or reuses ``--archive``).
2. Builds it twice, each a clean build in a fresh child process: without the
   search aggregate and with it (worker processes as ``sessite build`` uses
   them). ``--sequential`` adds the same pair with one process (jobs=1).
3. Reports the index size per 1,000 sessions, the gzipped bytes a first
   query downloads (page scripts, meta.js, the term chunks of its words and
   the snippet files of the first 20 results), the query time in node once
   that data has arrived (lunr index rebuilt from the chunks + query +
   ranking), the build-time share of search and the peak memory.
4. Cuts the snippets of every query's top 10 results as the results page
   does (static/search-snippet.js) and counts those that show a match
   (a <mark>). ``--snippet-core`` measures an older search-core.js instead
   (one with its own ``snippet()``), on a site built by its version.

Needs node (for the vendored lunr.js). Prints a summary and one JSON line.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

PAGE_ASSETS = [
    "search.html",
    "static/style.css",
    "static/pygments.css",
    "static/app.js",
    "static/search.js",
    "static/search-core.js",
    "static/search-snippet.js",
    "static/search.css",
    "static/vendor/lunr/lunr.min.js",
]
SNIPPET_QUERIES = ["stream_queue"]  # the identifier issue 17 measures (100 MB yardstick, seed 2)
RESULTS_SHOWN = 20  # the results page renders 20 results, loading their snippet files


# ---------------------------------------------------------------------------
# child: one build


def child(mode: str, archive: Path, output: Path, jobs: int) -> None:
    from sessite.config import SiteConfig
    from sessite.outputs import search as S
    from sessite.outputs.registry import DEFAULT_AGGREGATES
    from sessite.pipeline import pipeline as B

    timings = {"search_add_s": 0.0, "search_write_s": 0.0}
    aggregates = DEFAULT_AGGREGATES
    if mode == "nosearch":
        aggregates = tuple(a for a in DEFAULT_AGGREGATES if a is not S.SearchIndex)  # passed to build()
    else:
        add, write = S.SearchIndex.add, S.SearchIndex.write

        def timed_add(self, item):
            t = time.perf_counter()
            add(self, item)
            timings["search_add_s"] += time.perf_counter() - t

        def timed_write(self, *args):
            t = time.perf_counter()
            write(self, *args)
            timings["search_write_s"] += time.perf_counter() - t

        S.SearchIndex.add, S.SearchIndex.write = timed_add, timed_write
    wall = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="sessite-bench-cache-") as cache:
        report = B.build(
            SiteConfig(archive=archive, output=output, progress=False, jobs=jobs, cache_dir=Path(cache), clean=True),
            outputs=aggregates,
        )
    wall = time.perf_counter() - wall
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        json.dumps(
            {
                "mode": mode,
                "jobs": jobs,
                "sessions": report.sessions,
                "problems": len(report.problems),
                "wall_s": round(wall, 2),
                "cpu_s": round(me.ru_utime + me.ru_stime, 2),
                "workers_cpu_s": round(kids.ru_utime + kids.ru_stime, 2),
                "peak_rss_mb": round(me.ru_maxrss / 1024),
                "workers_peak_rss_mb": round(kids.ru_maxrss / 1024),
                **{k: round(v, 2) for k, v in timings.items()},
            }
        )
    )


def run_build(mode: str, archive: Path, output: Path, jobs: int) -> dict:
    if output.exists():
        shutil.rmtree(output)
    proc = subprocess.run(
        [sys.executable, __file__, "--child", mode, str(archive), str(output), str(jobs)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        sys.exit(f"build ({mode}) failed:\n{proc.stdout}\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------
# measurements on the built site


def gz_size(path: Path, cache: dict) -> int:
    if path not in cache:
        cache[path] = len(gzip.compress(path.read_bytes(), 6))
    return cache[path]


def tree(root: Path, pattern: str) -> tuple[int, int, int]:
    raw = packed = files = 0
    for path in root.glob(pattern):
        data = path.read_bytes()
        raw += len(data)
        packed += len(gzip.compress(data, 6))
        files += 1
    return raw, packed, files


def sample_queries(archive: Path, count: int, seed: int = 1) -> list[str]:
    """Words a user could remember: picked from random events of random sessions."""
    from sessite.model import Problems
    from sessite.outputs.search import session_payload
    from sessite.readers import discover
    from sessite.site.view import build_view

    rng = random.Random(seed)
    problems = Problems(archive)
    claims = discover(archive, problems).claims
    payloads = []
    for claim in rng.sample(claims, min(150, len(claims))):
        for session in claim.reader.read(claim.path, problems):
            payloads.append(session_payload(build_view(session)))
    words, code = [], []
    for _, _, _, _, _, events in payloads:
        text = rng.choice([t for _, _, t in events[1:] if t] or [""])
        prose = re.findall(r"\b[a-z]{4,}\b", text)
        idents = re.findall(r"\b[A-Za-z]+(?:_[A-Za-z]+)+\b|\b[a-z]+[A-Z][A-Za-z]+\b", text)
        if prose:
            words.append(rng.choice(prose))
        if idents:
            code.append(rng.choice(idents))
    n1 = count // 2
    queries = words[:n1]
    queries += [f"{a} {b}" for a, b in zip(words[n1::2], words[n1 + 1 :: 2])][: count // 5]
    queries += code[: count // 10]
    queries += ["std::vector", "application/json", "snake_case", "TypeError", "localhost:8080"][: max(1, count // 8)]
    queries += [w[:4] for w in words[-count // 8 :]]  # prefixes
    return queries


def run_node(script: str, request: dict) -> dict:
    """What a node script of tests/ answers to one JSON request (the vendored lunr.js runs in node)."""
    node = os.environ.get("SESSITE_NODE") or shutil.which("node")
    if not node:
        sys.exit("node is needed to time queries with the vendored lunr.js")
    proc = subprocess.run(
        [node, str(REPO / "tests" / script)], input=json.dumps(request), capture_output=True, text=True
    )
    if proc.returncode:
        sys.exit(proc.stderr)
    return json.loads(proc.stdout)


def node_queries(site: Path, queries: list[str]) -> list[dict]:
    request = {"op": "query", "site": str(site), "queries": queries, "top": RESULTS_SHOWN}
    return run_node("search_node.js", request)["results"]


def snippet_counts(site: Path, queries: list[str], core: Path | None) -> list[dict]:
    """Per query, how many of its top 10 snippets show a match (tests/search_snippets_node.js)."""
    request: dict = {"site": str(site), "queries": queries, "top": 10}
    if core:
        request["core"] = str(core.resolve())
    return [
        {"query": r["query"], "shown": sum(1 for t in r["top"] if t["marks"]), "top": len(r["top"])}
        for r in run_node("search_snippets_node.js", request)["results"]
    ]


def first_query_bytes(site: Path, result: dict, pack: int, cache: dict) -> tuple[int, int]:
    """(gzipped bytes of index data, of index data + page) a first query downloads."""
    from sessite.search.item import fragment_url

    data = [site / "search" / "meta.js"]
    data += [site / "search" / "t" / f"{c}.js" for c in result["chunks"]]
    data += sorted({site / fragment_url(r["ref"], r["ev"] // pack) for r in result["top"]})
    index_bytes = sum(gz_size(p, cache) for p in data)
    page_bytes = sum(gz_size(site / p, cache) for p in PAGE_ASSETS if (site / p).exists())  # an older site lacks some
    return index_bytes, index_bytes + page_bytes


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--archive", type=Path, help="reuse (or create and keep) the generated archive here")
    parser.add_argument("--keep", type=Path, help="leave the site built with search here")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=0, help="worker processes for the builds (default: one per core)")
    parser.add_argument("--sequential", action="store_true", help="also build both ways with one process (jobs=1)")
    parser.add_argument(
        "--queries-only",
        type=Path,
        metavar="SITE",
        help="skip the builds: measure sizes and queries of this built site (needs --archive)",
    )
    parser.add_argument(
        "--snippet-core",
        type=Path,
        metavar="FILE",
        help="count snippets with this (older) search-core.js and its own snippet()",
    )
    parser.add_argument("--child", nargs=4, metavar=("MODE", "ARCHIVE", "OUT", "JOBS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]), Path(args.child[2]), int(args.child[3]))
        return

    import gen_archive

    with tempfile.TemporaryDirectory(prefix="sessite-search-bench-") as tmp:
        tmp = Path(tmp)
        archive = args.archive or tmp / "archive"
        if not archive.exists() or not any(archive.iterdir()):
            t = time.perf_counter()
            gen_archive.generate(archive, args.sessions)
            print(f"generated {args.sessions} sessions in {time.perf_counter() - t:.0f}s → {archive}")
        size = sum(p.stat().st_size for p in archive.rglob("*") if p.is_file())
        print(f"archive: {archive} ({size / 1e6:.0f} MB), {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")

        builds = {}
        plan = [("nosearch", args.jobs), ("search", args.jobs)] + (
            [("nosearch-1", 1), ("search-1", 1)] if args.sequential else []
        )
        if args.queries_only:
            plan = []
            args.keep = args.queries_only
            meta_text = (args.queries_only / "search" / "meta.js").read_text()
            builds["search"] = {"sessions": json.loads(meta_text[len("sessiteSearch.meta(") : -3])["n"]}
        for name, jobs in plan:
            out = args.keep if name == "search" and args.keep else tmp / f"site-{name}"
            builds[name] = b = run_build(name.split("-")[0], archive, out, jobs)
            print(
                f"build {name:>10} (jobs {jobs or 'auto'}): {b['wall_s']:7.1f}s wall, "
                f"{b['cpu_s']:6.1f}s cpu main + {b['workers_cpu_s']:.1f}s workers, "
                f"peak RSS {b['peak_rss_mb']} MB main, {b['workers_peak_rss_mb']} MB largest worker; "
                f"search add {b['search_add_s']:.1f}s, write {b['search_write_s']:.1f}s"
            )
        site = args.keep or tmp / "site-search"
        n = builds["search"]["sessions"]

        t_raw, t_gz, t_files = tree(site / "search", "t/*.js")
        f_raw, f_gz, f_files = tree(site / "search", "f/*/*.js")
        meta = site / "search" / "meta.js"
        meta_raw, meta_gz = meta.stat().st_size, len(gzip.compress(meta.read_bytes(), 6))
        per_k = 1000 / n
        print(
            f"index: {t_files} term chunks, {t_raw / 1e6:.1f} MB ({t_gz / 1e6:.1f} MB gzipped) "
            f"= {t_raw * per_k / 1e6:.2f} MB ({t_gz * per_k / 1e6:.2f} MB gzipped) per 1,000 sessions; "
            f"meta.js {meta_raw / 1e3:.0f} KB ({meta_gz / 1e3:.0f} KB gzipped)"
        )
        print(
            f"snippets: {f_files} files, {f_raw / 1e6:.1f} MB ({f_gz / 1e6:.1f} MB gzipped) "
            f"= {f_raw * per_k / 1e6:.2f} MB per 1,000 sessions"
        )

        queries = sample_queries(archive, args.queries)
        results = node_queries(site, queries)
        meta_data = json.loads(meta.read_text()[len("sessiteSearch.meta(") : -3])
        cache: dict = {}
        rows = []
        for r in results:
            index_bytes, total_bytes = first_query_bytes(site, r, meta_data["pack"], cache)
            rows.append(
                {
                    "query": r["query"],
                    "results": r["total"],
                    "chunks": len(r["chunks"]),
                    "index_kb": index_bytes / 1e3,
                    "first_query_kb": total_bytes / 1e3,
                    "ms": r["ms"],
                }
            )
        for row in rows:
            print(
                f"  {row['query'][:28]:28} {row['results']:6} results  {row['chunks']:2} chunks  "
                f"{row['first_query_kb']:6.0f} KB gz  {row['ms']:6.1f} ms"
            )
        counted = snippet_counts(site, SNIPPET_QUERIES + queries, args.snippet_core)
        shown, total = sum(c["shown"] for c in counted), sum(c["top"] for c in counted)
        for c in counted[: len(SNIPPET_QUERIES)]:
            print(f"snippets for {c['query']}: {c['shown']} of the top {c['top']} show the match")
        print(f"snippets: {shown} of {total} top-10 snippets of {len(counted)} queries show a match")
        kb = [r["first_query_kb"] for r in rows]
        ms = [r["ms"] for r in rows]
        summary = {
            "sessions": n,
            "index_mb_per_1000": round(t_raw * per_k / 1e6, 2),
            "index_gz_mb_per_1000": round(t_gz * per_k / 1e6, 2),
            "snippets_mb_per_1000": round(f_raw * per_k / 1e6, 2),
            "chunks": t_files,
            "meta_gz_kb": round(meta_gz / 1e3, 1),
            "first_query_gz_kb_median": round(statistics.median(kb), 1),
            "first_query_gz_kb_p90": round(pct(kb, 0.9), 1),
            "first_query_gz_kb_max": round(max(kb), 1),
            "query_ms_median": round(statistics.median(ms), 1),
            "query_ms_p90": round(pct(ms, 0.9), 1),
            "query_ms_max": round(max(ms), 1),
            "snippets_shown": [shown, total],
            "load_avg": round(os.getloadavg()[0], 1),
        }
        for suffix in ("", "-1"):
            base, full = builds.get("nosearch" + suffix), builds.get("search" + suffix)
            if not base or not full:
                continue
            key = "parallel" if not suffix else "sequential"
            cpu = lambda b: b["cpu_s"] + b["workers_cpu_s"]  # noqa: E731
            summary[f"build_{key}_wall_s"] = [base["wall_s"], full["wall_s"]]
            summary[f"build_{key}_share_wall"] = round((full["wall_s"] - base["wall_s"]) / base["wall_s"], 3)
            summary[f"build_{key}_share_cpu"] = round((cpu(full) - cpu(base)) / cpu(base), 3)
            summary[f"build_{key}_search_write_s"] = full["search_write_s"]
            summary[f"build_{key}_peak_rss_mb"] = [full["peak_rss_mb"], full["workers_peak_rss_mb"]]
        print(
            f"first query: median {summary['first_query_gz_kb_median']} KB, p90 {summary['first_query_gz_kb_p90']} KB, "
            f"max {summary['first_query_gz_kb_max']} KB gzipped (page + meta + chunks + {RESULTS_SHOWN} snippet files)"
        )
        print(
            f"query after data arrived (node): median {summary['query_ms_median']} ms, "
            f"p90 {summary['query_ms_p90']} ms, max {summary['query_ms_max']} ms"
        )
        for key in ("parallel", "sequential"):
            if f"build_{key}_wall_s" in summary:
                (without, with_), share = summary[f"build_{key}_wall_s"], summary[f"build_{key}_share_wall"]
                print(
                    f"build time ({key}): {without}s without search, {with_}s with "
                    f"(+{share:.0%} wall, +{summary[f'build_{key}_share_cpu']:.0%} CPU); "
                    f"peak RSS main {summary[f'build_{key}_peak_rss_mb'][0]} MB, "
                    f"largest worker {summary[f'build_{key}_peak_rss_mb'][1]} MB"
                )
        print(json.dumps(summary))


if __name__ == "__main__":
    main()
