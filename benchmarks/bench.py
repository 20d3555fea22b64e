#!/usr/bin/env python3
"""Benchmark ``sessite build`` on any archive: wall time, peak RSS, output size and file count.

    python benchmarks/bench.py ARCHIVE [--runs 3] [--keep SITE]

Each run is a cold build in a fresh child process (peak RSS is the child's
ru_maxrss), into a fresh output folder. Prints one line per run and the
median, and a JSON line for scripts.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def tree_size(root: Path) -> tuple[int, int]:
    total = files = 0
    for path in root.rglob("*"):
        if path.is_file():
            files += 1
            total += path.stat().st_size
    return total, files


def one_run(archive: Path, output: Path, extra: list[str]) -> dict:
    if output.exists():
        shutil.rmtree(output)
    cmd = [sys.executable, "-m", "sitegen.cli", "build", str(archive), "-o", str(output), "-q", *extra]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 2):
        sys.exit(f"build failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    size, files = tree_size(output)
    return {
        "wall_s": round(wall, 3),
        "cpu_s": round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 3),
        "peak_rss_mb": round(after.ru_maxrss / 1024, 1),  # max over children so far; runs are sequential and alike
        "output_mb": round(size / 1e6, 2),
        "files": files,
        "summary": proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("archive", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="leave the last built site here")
    parser.add_argument("extra", nargs="*", help="extra arguments for sessite build (after --)")
    args = parser.parse_args()
    input_size, input_files = tree_size(args.archive) if args.archive.is_dir() else (args.archive.stat().st_size, 1)
    print(f"archive: {args.archive} ({input_size / 1e6:.1f} MB in {input_files} files)")
    with tempfile.TemporaryDirectory(prefix="sessite-bench-") as tmp:
        output = args.keep or Path(tmp) / "site"
        runs = []
        for i in range(args.runs):
            r = one_run(args.archive, output, args.extra)
            runs.append(r)
            print(f"run {i + 1}: {r['wall_s']:.2f}s wall, {r['cpu_s']:.2f}s cpu, peak RSS {r['peak_rss_mb']:.0f} MB, output {r['output_mb']:.1f} MB in {r['files']} files")
        print(f"  {runs[-1]['summary']}")
    med = {k: statistics.median(r[k] for r in runs) for k in ("wall_s", "cpu_s", "peak_rss_mb", "output_mb", "files")}
    med["output_ratio"] = round(med["output_mb"] * 1e6 / input_size, 3) if input_size else None
    med["input_mb"] = round(input_size / 1e6, 2)
    print(f"median: {med['wall_s']:.2f}s wall, peak RSS {med['peak_rss_mb']:.0f} MB, output {med['output_mb']:.1f} MB ({med['output_ratio']}× input)")
    print(json.dumps(med))


if __name__ == "__main__":
    main()
