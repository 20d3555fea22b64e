#!/usr/bin/env python3
"""What redaction and the output scan cost a build, in CPU: two measures in one run.

    python benchmarks/redact_cost.py ARCHIVE [--rounds 5] [--split-only]

1. **Extra over ``--no-redact``.** Cold builds (fresh output and cache folders,
   ``--jobs 1``) with and without redaction, alternating, each in a fresh child
   process; user + system CPU of the child and everything it forked (its early
   scan), from ``os.wait4``. Prints the median of each and the median extra. Load
   from other work hits both alike, but it still moves single runs by several
   percent: quote medians of five rounds or more.
2. **Split, in one build.** One cold build in this process with the early scan
   done inline, timing the parts redaction adds: the model walk
   (``Redactor.value``), making redactors, and the output scan (``scan_site``, and
   ``snippet_leaks`` where the workers read the search snippets).
   Their share of the same build's CPU does not depend on the machine's load.

The yardstick (from the repo root):
    python3 ../shared/bench/gen_claude.py --out /tmp/corpus100 --target-mb 100 --projects 12 --seed 2
    python benchmarks/redact_cost.py /tmp/corpus100/projects
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any


def child_cpu(args: list[str]) -> float:
    """User + system CPU seconds of ``python -m sessite ARGS`` and its children."""
    proc = subprocess.Popen([sys.executable, "-m", "sessite", *args], stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"sessite {' '.join(args)} failed")
    return usage.ru_utime + usage.ru_stime


def alternating(archive: Path, rounds: int) -> tuple[list[float], list[float]]:
    """CPU of cold builds with and without redaction, ``rounds`` of each, alternating."""
    on: list[float] = []
    off: list[float] = []
    for i in range(rounds):
        for redact in (True, False) if i % 2 == 0 else (False, True):
            with tempfile.TemporaryDirectory() as tmp:
                args = ["build", str(archive), "-o", f"{tmp}/site", "--cache-dir", f"{tmp}/cache", "--quiet"]
                args += ["--jobs", "1"] + ([] if redact else ["--no-redact"])
                (on if redact else off).append(child_cpu(args))
        print(f"round {i + 1}: with {on[-1]:.2f} s, without {off[-1]:.2f} s", flush=True)
    return on, off


def top_level(cls: type, name: str, spent: dict[str, float]) -> Callable[..., Any]:
    """``cls.name`` timed where it is called from outside (the walk of a session, ``spent["walk"]``):
    while it runs, the plain method is back on the class, so its own recursive calls (hundreds of
    thousands a build) go straight to it and a timer's overhead is not counted as the walk's."""
    plain = getattr(cls, name)

    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        setattr(cls, name, plain)
        start = time.process_time()
        try:
            return plain(self, *args, **kwargs)
        finally:
            spent["walk"] += time.process_time() - start
            setattr(cls, name, wrapper)

    return wrapper


def split(archive: Path) -> dict[str, float]:
    """CPU of redaction's parts and of the whole, in one build in this process."""
    from sessite.analyze.redact import redactor
    from sessite.cli import main
    from sessite.pipeline import output_scan, pipeline, worker

    spent: dict[str, float] = defaultdict(float)
    depth = [0]

    def timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if depth[0]:
                return fn(*args, **kwargs)
            depth[0] += 1
            start = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] += time.process_time() - start
                depth[0] -= 1

        return wrapper

    redactor.Redactor.value = top_level(redactor.Redactor, "value", spent)  # type: ignore[method-assign]
    for_config = redactor.Redactor.for_config.__func__  # type: ignore[attr-defined]
    redactor.Redactor.for_config = classmethod(timed("redactors", for_config))  # type: ignore[method-assign,assignment]
    pipeline.start_early_scan = lambda *args, **kwargs: None  # type: ignore[assignment]  # (scanned inline, timed)
    pipeline.scan_site = timed("scan", output_scan.scan_site)  # type: ignore[assignment]
    worker.snippet_leaks = timed("snippets", output_scan.snippet_leaks)  # (the scan of search snippets where made)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.process_time()
        main(
            ["build", str(archive), "-o", f"{tmp}/site", "--cache-dir", f"{tmp}/cache", "--quiet", "--jobs", "1"],
            standalone_mode=False,
        )
        spent["build"] = time.process_time() - start
    return dict(spent)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("archive", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--split-only", action="store_true", help="only the in-process split")
    args = parser.parse_args()
    if not args.split_only:
        on, off = alternating(args.archive, args.rounds)
        extras = [a / b - 1 for a, b in zip(on, off, strict=True)]
        print(
            f"median CPU: with redaction {statistics.median(on):.2f} s, --no-redact {statistics.median(off):.2f} s; "
            f"extra {100 * statistics.median(extras):+.1f} % "
            f"(range {100 * min(extras):+.1f} to {100 * max(extras):+.1f} %)"
        )
    parts = split(args.archive)
    added = sum(v for k, v in parts.items() if k != "build")
    rest = parts["build"] - added
    shown = ", ".join(f"{k} {v:.2f} s" for k, v in parts.items() if k != "build")
    print(
        f"one build: {parts['build']:.2f} s CPU; redaction's parts {added:.2f} s ({shown}): "
        f"{100 * added / rest:.1f} % over the rest of the build, {100 * added / parts['build']:.1f} % of the whole"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
