#!/usr/bin/env python3
"""What ``--repo`` costs on a big history: a synthetic repository of N commits (default 50,000,
made with ``git fast-import``: each commit adds a few lines to one of 500 files; one in 50 is a
bot's, one in 20 carries an agent co-author), a small archive (a session that wrote and
committed the last commit, and one whose edits a human committed), built three ways:

    python benchmarks/commits_bench.py [--commits 50000] [--keep DIR] [--jobs 2]

1. without ``--repo`` (the baseline), 2. with ``--repo`` and a cold gitlinks cache, 3. again
with the repository unchanged (the cache keyed by ref tips). Each build is ``--clean`` for the
sessions, so the difference is the repository's cost (wall seconds, and CPU seconds of the
build, its workers and git: steadier on a busy machine). Prints the seconds, the pages under
``commits/``, the largest of them, and a JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from timeline_archive import Transcript  # noqa: E402

from sessite.config import SiteConfig  # noqa: E402
from sessite.pipeline import build  # noqa: E402

T0 = 1_700_000_000


def make_repo(repo: Path, commits: int) -> None:
    """``commits`` commits on main, streamed to ``git fast-import`` (seconds, not minutes)."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    lines = []
    files: dict[int, list[str]] = {}
    for n in range(commits):
        f = n % 500
        body = files.setdefault(f, [])
        body.extend(f"value_{n}_{k} = compute({n}, {k})" for k in range(3))
        content = "\n".join(body[-60:]) + "\n"
        bot = n % 50 == 7
        who = "dependabot[bot] <bot@users.noreply.github.com>" if bot else f"Dev {n % 7} <dev{n % 7}@example.com>"
        message = f"Change {n} of module {f}\n"
        if n % 20 == 3:
            message += "\nCo-Authored-By: Claude Opus 5 <noreply@anthropic.com>\n"
        data = message.encode()
        blob = content.encode()
        lines.append(b"commit refs/heads/main\n")
        lines.append(f"author {who} {T0 + n * 60} +0000\ncommitter {who} {T0 + n * 60} +0000\n".encode())
        lines.append(b"data %d\n%s\n" % (len(data), data))
        lines.append(b"M 644 inline src/module_%d.py\ndata %d\n%s\n" % (f, len(blob), blob))
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"], input=b"".join(lines), check=True)
    subprocess.run(["git", "-C", str(repo), "reset", "-q", "--hard", "main"], check=True)


def make_archive(archive: Path, repo: Path, commits: int) -> None:
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    from datetime import UTC, datetime

    last = commits - 1
    f = last % 500
    t = Transcript("b0000000-0000-4000-8000-000000000001", datetime.fromtimestamp(T0 + last * 60 - 30, UTC))
    t.user("Change the module")
    new = "\n".join(f"value_{last}_{k} = compute({last}, {k})" for k in range(3))
    t.call("e", "toolu_e", "Edit", {"file_path": f"{t.cwd}/src/module_{f}.py", "old_string": "", "new_string": new})
    t.result("toolu_e", "ok")
    t.call("c", "toolu_c", "Bash", {"command": "git commit -am x"})
    t.result("toolu_c", f"[main {head[:7]}] Change {last} of module {f}\n")
    t.write(archive / "p" / f"{t.sid}.jsonl")
    g = commits - 2
    t = Transcript("b0000000-0000-4000-8000-000000000002", datetime.fromtimestamp(T0 + g * 60 - 600, UTC))
    t.user("Another change")
    new = "\n".join(f"value_{g}_{k} = compute({g}, {k})" for k in range(3))
    t.call(
        "e", "toolu_e", "Edit", {"file_path": f"{t.cwd}/src/module_{g % 500}.py", "old_string": "", "new_string": new}
    )
    t.result("toolu_e", "ok")
    t.write(archive / "p" / f"{t.sid}.jsonl")


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def timed_build(archive: Path, out: Path, cache: Path, repos: tuple[Path, ...], jobs: int) -> tuple[float, float]:
    """Wall seconds and CPU seconds (this process, its workers and git) of one build."""
    started, cpu = time.perf_counter(), _cpu()
    report = build(
        SiteConfig(archive=archive, output=out, repos=repos, cache_dir=cache, clean=True, jobs=jobs, progress=False)
    )
    assert report.published, [str(p) for p in report.problems]
    return time.perf_counter() - started, _cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--commits", type=int, default=50_000)
    parser.add_argument("--keep", type=Path, help="make the repository and sites here and keep them")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="commits-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    repo, archive = work / "repo", work / "archive"
    started = time.perf_counter()
    if not repo.exists():
        make_repo(repo, args.commits)
    shutil.rmtree(archive, ignore_errors=True)
    make_archive(archive, repo, args.commits)
    made = time.perf_counter() - started
    cache = work / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    base = timed_build(archive, work / "site0", cache, (), args.jobs)
    cold = timed_build(archive, work / "site1", cache, (repo,), args.jobs)
    warm = timed_build(archive, work / "site1", cache, (repo,), args.jobs)
    pages = [p for p in (work / "site1" / "commits").rglob("*") if p.is_file()]
    biggest = max((p.stat().st_size for p in pages), default=0)
    result = {
        "commits": args.commits,
        "repo_seconds": round(made, 2),
        "load_average": os.getloadavg()[0],
        "baseline_s": round(base[0], 2),
        "repo_cold_s": round(cold[0], 2),
        "repo_warm_s": round(warm[0], 2),
        "added_cold_s": round(cold[0] - base[0], 2),
        "added_warm_s": round(warm[0] - base[0], 2),
        "added_cold_cpu_s": round(cold[1] - base[1], 2),
        "added_warm_cpu_s": round(warm[1] - base[1], 2),
        "commit_files": len(pages),
        "largest_page_bytes": biggest,
    }
    for key, value in result.items():
        print(f"{key:>20}: {value}")
    print(json.dumps(result))
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
