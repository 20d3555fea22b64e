#!/usr/bin/env python3
"""Benchmark ``sessite build`` on any archive: wall time, peak RSS, output size and file count,
side by side with claude-code-transcripts and claude-code-log when they are installed.

    python benchmarks/bench.py ARCHIVE [--runs 3] [--keep SITE] [--cct PATH] [--ccl PATH]
                                       [--setup-peers DIR] [--no-peers] [-- EXTRA SESSITE ARGS]

Each run is a cold build (``--clean`` and a fresh ``--cache-dir``) in a fresh
child process, into a fresh output folder. The peers run on the same archive
in the same run, alternating with sessite in a rotating order, so that load
from other work on the machine hits every tool alike; only ratios between
tools are worth quoting, absolute times drift.

Every tool is measured the same way: wall time around the child process, CPU
time and peak RSS from ``os.wait4`` on that child. On Linux that ru_maxrss is
the largest single process of the tree (the child or a worker it reaped), not
their sum, so the tree's summed RSS is also sampled from /proc every 50 ms
("tree", never below the largest process; it counts pages shared by forked
workers once per process, so it overstates them, and it can miss spikes
shorter than the interval), and every 250 ms the tree's summed PSS ("PSS",
which splits a shared page between the processes sharing it: what the tree
really holds).

Peers (each in its own venv; missing ones are skipped with a note):
  claude-code-transcripts 0.6   --cct PATH, $SESSITE_BENCH_CCT, or on PATH
  claude-code-log 1.7.0         --ccl PATH, $SESSITE_BENCH_CCL, or on PATH
  --setup-peers DIR creates DIR/cct and DIR/ccl with those versions and uses them.
claude-code-transcripts gets ARCHIVE/projects (or ARCHIVE when it has no
projects/ folder). claude-code-log writes its cache into its input folder, so
it gets a fresh copy of the archive every run (the copy is not timed).

Yardstick corpora (synthetic Claude Code archives, from the repo root):
    python3 ../shared/bench/gen_claude.py --out /tmp/corpus100 --target-mb 100 --projects 12 --seed 2
    python3 ../shared/bench/gen_claude.py --out /tmp/corpus60x1 --target-mb 60 --projects 1 --seed 4 \\
        --min-turns 2000 --max-turns 2000        # one huge session

Prints one line per run and tool, a table of medians, the ratios sessite/peer,
the 1-minute load average at start and end, and a final JSON line for scripts.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

PEERS = {  # name -> (short venv folder, pip requirement, env var)
    "claude-code-transcripts": ("cct", "claude-code-transcripts==0.6", "SESSITE_BENCH_CCT"),
    "claude-code-log": ("ccl", "claude-code-log==1.7.0", "SESSITE_BENCH_CCL"),
}
MEDIAN_KEYS = ("wall_s", "cpu_s", "peak_rss_mb", "tree_rss_mb", "tree_pss_mb", "output_mb", "files")
SAMPLE_INTERVAL_S = 0.05
PSS_EVERY = 5  # samples between PSS readings: smaps_rollup costs a few ms per process


def tree_size(root: Path) -> tuple[int, int]:
    total = files = 0
    for path in root.rglob("*"):
        if path.is_file():
            files += 1
            total += path.stat().st_size
    return total, files


# --- measuring one child process -------------------------------------------------------------


def _parents() -> dict[int, int]:
    """pid -> ppid for every process, read from /proc (empty where there is no /proc)."""
    table: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return table
    for entry in entries:
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue  # exited meanwhile
            table[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    return table


def tree_pids(root: int) -> list[int]:
    """``root`` and all its descendants right now."""
    children: dict[int, list[int]] = {}
    for pid, ppid in _parents().items():
        children.setdefault(ppid, []).append(pid)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


def tree_rss(pids: list[int]) -> int:
    """Summed resident bytes of these processes (pages shared by forked workers count once per process)."""
    total, page = 0, os.sysconf("SC_PAGE_SIZE")
    for pid in pids:
        with contextlib.suppress(OSError, IndexError, ValueError):
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * page
    return total


def tree_pss(pids: list[int]) -> int:
    """Summed proportional set size: a page shared by n processes counts 1/n in each, so
    forked workers sharing their parent's memory are not counted several times."""
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1]) * 1024
                    break
        except (OSError, IndexError, ValueError):
            pass
    return total


class TreeRssSampler(threading.Thread):
    """Peaks of the summed RSS and PSS of a process tree: wait4 only sees the largest single process."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self.peak_pss = pid, 0, 0
        self._stop_event = threading.Event()

    def run(self) -> None:
        tick = 0
        while True:
            pids = tree_pids(self.pid)
            self.peak = max(self.peak, tree_rss(pids))
            if tick % PSS_EVERY == 0:
                self.peak_pss = max(self.peak_pss, tree_pss(pids))
            tick += 1
            if self._stop_event.wait(SAMPLE_INTERVAL_S):
                return

    def stop(self) -> tuple[int, int]:
        self._stop_event.set()
        self.join()
        return self.peak, self.peak_pss


def maxrss_bytes(usage: resource.struct_rusage) -> int:
    """ru_maxrss is in KiB on Linux, bytes on macOS."""
    return usage.ru_maxrss if sys.platform == "darwin" else usage.ru_maxrss * 1024


def measure(cmd: list[str], log: Path, cwd: Path | None = None) -> dict:
    """Run ``cmd`` as a child and return its wall time, CPU time and peak RSS (own and tree).

    os.wait4 on the Popen'd pid gives this child's rusage (plus the workers it reaped),
    unlike RUSAGE_CHILDREN, whose ru_maxrss is a maximum over every child so far.
    """
    with log.open("wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=cwd)
        sampler = TreeRssSampler(proc.pid)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
    # the sampler can miss a short spike, but the tree holds at least its largest process
    own = maxrss_bytes(usage)
    tree, pss = sampler.stop()
    tree = max(tree, own)
    return {
        "returncode": proc.returncode,
        "wall_s": round(wall, 3),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
        "peak_rss_mb": round(own / 2**20, 1),
        "tree_rss_mb": round(tree / 2**20, 1),
        "tree_pss_mb": round(pss / 2**20, 1) if pss else None,  # None where there is no /proc
    }


# --- the tools -------------------------------------------------------------------------------


@dataclass
class Tool:
    """How to build ``archive`` into ``out``; ``command`` may prepare ``scratch`` (not timed)."""

    name: str
    command: Callable[[Path, Path, Path], list[str]]
    ok_codes: tuple[int, ...] = (0,)
    cwd_scratch: bool = True  # run in the scratch folder, so stray files land there


def projects_dir(archive: Path) -> Path:
    """The peers read a ~/.claude/projects folder; ARCHIVE may be ~/.claude or that folder."""
    return archive / "projects" if (archive / "projects").is_dir() else archive


def sessite_tool(extra: list[str]) -> Tool:
    def command(archive: Path, out: Path, scratch: Path) -> list[str]:
        cache = scratch / "cache"  # fresh per run: --clean alone still writes the cache and reuses compiled templates
        return [
            sys.executable,
            "-m",
            "sessite.cli",
            "build",
            str(archive),
            "-o",
            str(out),
            "-q",
            "--clean",
            "--cache-dir",
            str(cache),
            *extra,
        ]

    # exit 2 = built with input problems; runs in the caller's folder like before (sessite importable)
    return Tool("sessite", command, ok_codes=(0, 2), cwd_scratch=False)


def compile_sessite() -> None:
    """Byte-compile sessite as ``pip install`` does for an installed package (the peers' venvs
    have theirs): a source checkout run with PYTHONDONTWRITEBYTECODE set would otherwise
    compile every module on every run (0.6 s of a build that is not sessite's work)."""
    package = Path(__file__).resolve().parents[1] / "sessite"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=False, stdout=subprocess.DEVNULL)


def cct_tool(exe: Path) -> Tool:
    def command(archive: Path, out: Path, scratch: Path) -> list[str]:
        return [str(exe), "all", "-s", str(projects_dir(archive)), "-o", str(out), "-q"]

    return Tool("claude-code-transcripts", command)


def ccl_tool(exe: Path) -> Tool:
    def command(archive: Path, out: Path, scratch: Path) -> list[str]:
        copy = scratch / "archive"  # it writes claude-code-log-cache.db into its input folder
        shutil.copytree(archive, copy)
        # no --open-browser: it opens none by default; it has no quiet flag (log goes to a file)
        return [str(exe), str(projects_dir(copy)), "--all-projects", "-o", str(out)]

    return Tool("claude-code-log", command)


def settle(seconds: float = 5.0) -> None:
    """Let the disk catch up before a timed run: the previous run's dirty pages and, on a
    file system mounted with ``discard``, the trims of the output just deleted would
    otherwise slow the next tool's file creation (seen here: 17.8 s vs 23.5 s)."""
    os.sync()
    time.sleep(seconds)


def run_tool(tool: Tool, archive: Path, out: Path, work: Path) -> dict:
    """One cold build with fresh output and scratch folders; the preparation is not timed."""
    scratch = work / "scratch"
    for folder in (out, scratch):
        if folder.exists():
            shutil.rmtree(folder)
    scratch.mkdir(parents=True)
    cmd = tool.command(archive, out, scratch)
    settle()
    log = work / "log.txt"
    result = measure(cmd, log, cwd=scratch if tool.cwd_scratch else None)
    text = log.read_text(errors="replace").strip()
    result["ok"] = result["returncode"] in tool.ok_codes
    result["summary"] = text.splitlines()[-1] if text else ""
    size, files = tree_size(out) if out.is_dir() else (0, 0)
    result.update(output_mb=round(size / 1e6, 2), files=files)
    shutil.rmtree(scratch, ignore_errors=True)
    return result


# --- finding and installing the peers --------------------------------------------------------


def setup_peers(root: Path) -> None:
    """Create one venv per peer under ``root`` with the pinned version (skipped if present)."""
    for name, (short, requirement, _) in PEERS.items():
        venv = root / short
        if (venv / "bin" / name).exists():
            print(f"peer venv exists: {venv}")
            continue
        print(f"installing {requirement} into {venv} …", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", requirement], check=True)


def is_executable(path: str | Path) -> bool:
    return Path(path).is_file() and os.access(path, os.X_OK)


def find_peer(name: str, option: Path | None, setup_dir: Path | None) -> tuple[Path | None, str]:
    """The option, else the environment variable, else the --setup-peers venv, else PATH.

    Returns the executable, or None and why. A path given explicitly is never silently
    replaced by another install (its version may differ).
    """
    short, _, env = PEERS[name]
    explicit = option or os.environ.get(env)
    if explicit:
        return (Path(explicit), "") if is_executable(explicit) else (None, f"{explicit} is not an executable file")
    for candidate in (setup_dir / short / "bin" / name if setup_dir else None, shutil.which(name)):
        if candidate and is_executable(candidate):
            return Path(candidate), ""
    return None, f"not found (--{short} PATH, ${env}, --setup-peers DIR or PATH)"


def peer_version(exe: Path) -> str:
    proc = subprocess.run([str(exe), "--version"], capture_output=True, text=True)
    return (proc.stdout.strip() or proc.stderr.strip()).splitlines()[-1] if proc.returncode == 0 else "?"


def peer_tools(args: argparse.Namespace) -> list[Tool]:
    if args.no_peers:
        return []
    if not args.archive.is_dir():
        print("note: peers skipped: they read a folder, ARCHIVE is a file")
        return []
    if args.setup_peers:
        setup_peers(args.setup_peers)
    tools = []
    for name, option, make in (
        ("claude-code-transcripts", args.cct, cct_tool),
        ("claude-code-log", args.ccl, ccl_tool),
    ):
        exe, why = find_peer(name, option, args.setup_peers)
        if exe is None:
            print(f"note: {name} skipped: {why}")
            continue
        print(f"peer: {peer_version(exe)} ({exe})")
        tools.append(make(exe))
    return tools


# --- reporting -------------------------------------------------------------------------------


def run_line(i: int, name: str, r: dict) -> str:
    return (
        f"run {i} {name}: {r['wall_s']:.2f}s wall, {r['cpu_s']:.2f}s cpu, "
        f"peak RSS {r['peak_rss_mb']:.0f} MB (tree {r['tree_rss_mb']:.0f} MB, PSS {fmt(r['tree_pss_mb'], '.0f')} MB), "
        f"output {r['output_mb']:.1f} MB in {r['files']} files"
    )


def medians(runs: list[dict], input_size: int) -> dict:
    med: dict = {}
    for key in MEDIAN_KEYS:
        values = [r[key] for r in runs if r[key] is not None]
        med[key] = statistics.median(values) if values else None
    med["output_ratio"] = round(med["output_mb"] * 1e6 / input_size, 3) if input_size else None
    med["input_mb"] = round(input_size / 1e6, 2)
    return med


def ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a is not None and b else None


def fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def print_table(meds: dict[str, dict]) -> None:
    print(
        f"{'median':<24} {'wall s':>8} {'cpu s':>8} {'RSS MB':>8} {'tree MB':>8} {'PSS MB':>8} "
        f"{'out MB':>8} {'out/in':>7} {'files':>7}"
    )
    for name, m in meds.items():
        print(
            f"{name:<24} {fmt(m['wall_s'], '.2f'):>8} {fmt(m['cpu_s'], '.2f'):>8} {fmt(m['peak_rss_mb'], '.0f'):>8} "
            f"{fmt(m['tree_rss_mb'], '.0f'):>8} {fmt(m['tree_pss_mb'], '.0f'):>8} {fmt(m['output_mb'], '.1f'):>8} "
            f"{fmt(m['output_ratio'], '.2f'):>7} {fmt(m['files'], '.0f'):>7}"
        )


def peer_ratios(meds: dict[str, dict]) -> dict[str, dict]:
    """sessite / peer for wall time, peak RSS (own and tree) and output size: < 1 means sessite is smaller."""
    own = meds["sessite"]
    keys = {
        "wall": "wall_s",
        "rss": "peak_rss_mb",
        "tree_rss": "tree_rss_mb",
        "tree_pss": "tree_pss_mb",
        "output": "output_mb",
    }
    return {
        name: {label: ratio(own[key], m[key]) for label, key in keys.items()}
        for name, m in meds.items()
        if name != "sessite"
    }


def print_ratios(ratios: dict[str, dict]) -> None:
    if not ratios:
        return
    print(f"{'sessite / peer':<24} {'wall':>8} {'RSS':>8} {'tree RSS':>8} {'tree PSS':>8} {'output':>8}")
    for name, r in ratios.items():
        print(
            f"{name:<24} "
            + " ".join(f"{fmt(r[k], '.2f') + '×':>8}" for k in ("wall", "rss", "tree_rss", "tree_pss", "output"))
        )


# --- main ------------------------------------------------------------------------------------


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("archive", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="leave the last site sessite built here")
    parser.add_argument("--cct", type=Path, help="claude-code-transcripts executable (else $SESSITE_BENCH_CCT)")
    parser.add_argument("--ccl", type=Path, help="claude-code-log executable (else $SESSITE_BENCH_CCL)")
    parser.add_argument("--setup-peers", type=Path, metavar="DIR", help="create the peers' venvs in DIR and use them")
    parser.add_argument("--no-peers", action="store_true", help="benchmark sessite alone")
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    args.extra = argv[split + 1 :]  # split here: argparse rejects "--" once ARCHIVE is followed by options
    return args


def main() -> None:
    args = parse_args()
    input_size, input_files = tree_size(args.archive) if args.archive.is_dir() else (args.archive.stat().st_size, 1)
    load_start = os.getloadavg()[0]
    print(f"archive: {args.archive} ({input_size / 1e6:.1f} MB in {input_files} files)")
    print(f"load average (1 min) at start: {load_start:.2f} on {os.cpu_count()} cores")
    tools = [sessite_tool(args.extra), *peer_tools(args)]
    compile_sessite()
    runs: dict[str, list[dict]] = {t.name: [] for t in tools}
    with tempfile.TemporaryDirectory(prefix="sessite-bench-") as tmp:
        for i in range(args.runs):
            shift = i % len(tools)
            for tool in tools[shift:] + tools[:shift]:  # rotate who goes first
                if tool.name != "sessite" and runs[tool.name] and not runs[tool.name][-1]["ok"]:
                    continue  # a failed peer is not retried
                work = Path(tmp) / tool.name
                out = args.keep if args.keep and tool.name == "sessite" else work / "out"
                r = run_tool(tool, args.archive, out, work)
                if not r["ok"]:
                    message = f"{tool.name} failed ({r['returncode']}): {r['summary']}"
                    if tool.name == "sessite":
                        sys.exit(f"build {message}\n{(work / 'log.txt').read_text(errors='replace')}")
                    print(f"note: {message}; dropped")
                runs[tool.name].append(r)
                if r["ok"]:
                    print(run_line(i + 1, tool.name, r), flush=True)
        print(f"  {runs['sessite'][-1]['summary']}")
    meds = {
        name: medians([r for r in rs if r["ok"]], input_size) for name, rs in runs.items() if any(r["ok"] for r in rs)
    }
    med = meds["sessite"]
    load_end = os.getloadavg()[0]
    print(
        f"median: {med['wall_s']:.2f}s wall, peak RSS {med['peak_rss_mb']:.0f} MB, "
        f"output {med['output_mb']:.1f} MB ({med['output_ratio']}× input)"
    )
    print_table(meds)
    ratios = peer_ratios(meds)
    print_ratios(ratios)
    print(f"load average (1 min) at end: {load_end:.2f}")
    if args.archive.is_dir() and tree_size(args.archive) != (input_size, input_files):
        print("warning: the archive changed during the benchmark")
    med.update(
        runs=args.runs,
        load_1m=[load_start, load_end],
        peers={name: m for name, m in meds.items() if name != "sessite"},
        ratios=ratios,
    )
    print(json.dumps(med))


if __name__ == "__main__":
    main()
