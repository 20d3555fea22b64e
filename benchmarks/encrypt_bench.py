#!/usr/bin/env python3
"""What ``--encrypt`` costs: a cold build of ARCHIVE, plain and encrypted, alternating.

    python benchmarks/encrypt_bench.py ARCHIVE [--runs 5]

Each run is ``sessite build ARCHIVE -o SITE -q --clean`` in a fresh child process with a fresh
cache and output folder; plain and encrypted runs alternate, so other load on the machine hits
both alike. Prints the minimum and median wall time of each, the time ratio (of the minima and
of the medians), and the bytes and file counts of the two sites.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PASSWORD = "benchmark passphrase of five words"


def build(archive: Path, work: Path, encrypt: bool) -> float:
    site, cache = work / "site", work / "cache"
    subprocess.run(["rm", "-rf", str(site), str(cache)], check=True)
    command = [sys.executable, "-m", "sessite", "build", str(archive), "-o", str(site), "-q", "--clean"]
    command += ["--cache-dir", str(cache), *(["--encrypt"] if encrypt else [])]
    started = time.perf_counter()
    subprocess.run(
        command,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "SESSITE_PASSWORD": PASSWORD},
    )
    return time.perf_counter() - started


def size(site: Path) -> tuple[int, int]:
    files = [p for p in site.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = {kind: Path(tmp) / kind for kind in ("plain", "encrypted")}
        times: dict[str, list[float]] = {kind: [] for kind in work}
        for _ in range(args.runs):
            for kind, folder in work.items():
                folder.mkdir(exist_ok=True)
                times[kind].append(build(args.archive, folder, kind == "encrypted"))
        sizes = {kind: size(folder / "site") for kind, folder in work.items()}
    for kind in work:
        t = times[kind]
        print(
            f"{kind:9} min {min(t):6.2f} s  median {statistics.median(t):6.2f} s  "
            f"{sizes[kind][0] / 1e6:7.2f} MB  {sizes[kind][1]} files"
        )
    print(
        f"encrypted/plain: time {min(times['encrypted']) / min(times['plain']):.2f}x (minima), "
        f"{statistics.median(times['encrypted']) / statistics.median(times['plain']):.2f}x (medians); "
        f"size {sizes['encrypted'][0] / sizes['plain'][0]:.2f}x"
    )


if __name__ == "__main__":
    main()
