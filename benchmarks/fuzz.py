#!/usr/bin/env python3
"""Fuzz every reader with mutants of the test fixtures and the example archive.

    python benchmarks/fuzz.py [--mutants 40] [--seed 1] [--no-render] [--build SITE] [--corpus DIR ...] [--json]

Each source the corpus holds (a file, or a folder a reader claims, with the files
its read consumes) is a seed. A mutant copies one seed into a fresh archive and
damages one of its files: flipped bytes, a cut, invalid UTF-8, a UTF-16 BOM, a
line dropped or doubled; or one JSON value (a line of a JSONL file, a document,
a JSON cell of a SQLite store) replaced by something hostile: nesting 1,000 to
100,000 deep, ``1e400``, ``NaN``, a 5,000-digit integer, a lone surrogate, ``"²"``
as a time, a value of the wrong type; or the source renamed to bytes that are
not UTF-8. Each mutant is then discovered, read, redacted and rendered (its
pages and exports) as a build would, and judged:

- no reader and no detect may fail (a ``reader failed`` problem costs the rest of a file);
- every problem is one printable line;
- every string in a session encodes as UTF-8, and every page and export renders.

Prints, per format, the inputs tried, the problems reported, the sessions kept
(against what the unmutated seeds hold) and every failure with its traceback.
``--build SITE`` also builds one site of all the mutants with the real pipeline;
``--sweep PLACES`` instead puts every wrong type in turn in PLACES places of each file.
The mutations themselves are in fuzz_mutations.py.
tests/test_fuzz.py runs a few seconds of this with a fixed seed in CI.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from sessite.analyze.redact import Redactor  # noqa: E402
from sessite.config import SiteConfig  # noqa: E402
from sessite.model import Problems, Session  # noqa: E402
from sessite.outputs.downloads import session_exports  # noqa: E402
from sessite.pipeline import build  # noqa: E402
from sessite.readers import Claim, discover, registry  # noqa: E402
from sessite.render.pages import session_pages  # noqa: E402
from sessite.render.renderer import Renderer  # noqa: E402
from sessite.site.view import build_view  # noqa: E402

sys.path.insert(0, str(HERE))
from fuzz_mutations import (  # noqa: E402  (a sibling script, not a package)
    SQLITE_HEADER,
    Mutant,
    Seed,
    materialize,
    mutate,
    sweep,
)

CORPUS = (REPO / "tests" / "fixtures", REPO / "example-archive")

# Problems of a per-record guard: a reader slipped on a value, the record is shown as raw JSON.
SLIPS = ("could not interpret", "unreadable (", "extension unreadable")
# Problems that mean more than one bad value was lost.
FAILURES = ("reader failed", "detect failed", "cannot list the files it reads", "could not render", "could not write")


@dataclass
class Outcome:
    """What reading mutants of one format gave."""

    inputs: int = 0
    problems: int = 0
    sessions: int = 0
    expected: int = 0  # sessions the unmutated seeds hold
    events: int = 0
    failures: list[str] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)
    lost: list[str] = field(default_factory=list)  # one bad value (or a name) cost a whole session
    slips: list[str] = field(default_factory=list)  # a record a reader's own guard caught (kept as raw JSON)


# Formats whose file is a JSON array of sessions (conversations): a mutant that replaces one element (``@[i]``)
# replaced a whole session, so that session is its own bad value, not a loss.
SESSION_ARRAYS = frozenset({"claude_ai", "chatgpt"})
_TOP_ELEMENT = re.compile(r"@\[\d+\]$")


def _whole_sessions_replaced(mutant: Mutant) -> int:
    return int(mutant.seed.fmt in SESSION_ARRAYS and bool(_TOP_ELEMENT.search(mutant.how)))


# ------------------------------------------------------------------------------------------- seeds


def seeds(corpora: tuple[Path, ...] = CORPUS) -> list[Seed]:
    """Every source of every corpus folder, as discovery claims it."""
    found: list[Seed] = []
    for root in corpora:
        if not root.is_dir():
            continue
        for claim in discover(root, Problems(root)).claims:
            found.append(_seed(root, claim))
    return found


def _seed(root: Path, claim: Claim) -> Seed:
    own = [claim.path] if claim.path.is_file() else []
    files = own + [p for p in claim.companions if p.is_file() and p not in own]
    if claim.path.is_dir():
        files += [p for p in sorted(claim.path.rglob("*")) if p.is_file() and p not in files]
    rel = tuple(p.relative_to(root) for p in files)
    return Seed(claim.reader.name, root, claim.path.relative_to(root), rel)


def session_count(seed: Seed) -> int:
    """How many sessions the unmutated seed holds."""
    with tempfile.TemporaryDirectory(prefix="fuzz-seed-") as tmp:
        archive = Path(tmp)
        claim = materialize(Mutant(seed, "original", seed.files[0]), archive)
        reader = {r.name: r for r in registry()}[seed.fmt]
        return sum(1 for _ in reader.read(claim, Problems(archive)))


# ------------------------------------------------------------------------------------------ judging


class Judge:
    """Reads, redacts and renders mutants the way a build does, and collects what went wrong."""

    def __init__(self, render: bool = True) -> None:
        self.render = render
        self.readers = {r.name: r for r in registry()}
        self.config = SiteConfig(archive=Path("."), output=Path("."))
        self.renderer = Renderer({"title": "fuzz", "base_url": "", "forge_url": ()}) if render else None
        self.redactor = Redactor.for_config(self.config)

    def examine(self, archive: Path, mutant: Mutant, outcome: Outcome, originals: int = 0) -> None:
        """Discover and read one mutant's archive; note sessions, problems and failures in ``outcome``."""
        problems = Problems(archive)
        label = f"{mutant.seed.fmt} {mutant.seed.claim} [{mutant.how}]"
        outcome.inputs += 1
        outcome.kinds[mutant.how.split(":")[0]] += 1
        try:
            claims = discover(archive, problems).claims
        except Exception:  # noqa: BLE001 - a fuzz finding
            outcome.failures.append(f"{label}: discovery raised\n{traceback.format_exc()}")
            return
        sessions = 0
        for claim in claims:
            try:
                for session in claim.reader.read(claim.path, problems):
                    sessions += 1
                    self._check_session(session, label, outcome)
            except Exception:  # noqa: BLE001 - a fuzz finding (a build says "reader failed")
                outcome.failures.append(f"{label}: {claim.reader.name} raised\n{traceback.format_exc()}")
        outcome.sessions += sessions
        outcome.expected += originals
        if sessions < originals - _whole_sessions_replaced(mutant) and not mutant.how.startswith("bytes"):
            said = "; ".join(str(p) for p in problems.items[:3])
            outcome.lost.append(f"{label}: {sessions} of {originals} sessions: {said}")
        outcome.problems += len(problems.items)
        for problem in problems.items:
            text = str(problem)
            if any(s in problem.message for s in SLIPS):
                outcome.slips.append(f"{label}: {text}")
            if any(f in problem.message for f in FAILURES):
                outcome.failures.append(f"{label}: {text}\n{self._why(archive, mutant)}")
            if "\n" in text or "\r" in text or not _encodes(text):
                outcome.failures.append(f"{label}: a problem that is not one printable line: {text!r}")

    def _check_session(self, session: Session, label: str, outcome: Outcome) -> None:
        if _holds_lone_surrogate(session):
            outcome.failures.append(f"{label}: session {session.id} holds a lone surrogate")
            return
        try:
            if self.redactor is not None:
                session = self.redactor.value(session)
            view = build_view(session)
            outcome.events += len(view.timeline)
            if self.renderer is None:
                return
            for page in session_pages(view):
                for chunk in self.renderer.stream(page):
                    chunk.encode("utf-8")
            for _url, data in session_exports(view, self.config):
                assert isinstance(data, bytes)
        except Exception:  # noqa: BLE001 - a fuzz finding
            outcome.failures.append(f"{label}: session {session.id} does not render\n{traceback.format_exc()}")

    def _why(self, archive: Path, mutant: Mutant) -> str:
        """The traceback behind a reader failure: read the mutant again without the guard."""
        reader = self.readers[mutant.seed.fmt]
        for claim in discover(archive, Problems(archive)).claims:
            unguarded = getattr(claim.reader, "read_source", claim.reader.read)
            try:
                for _ in unguarded(claim.path, Problems(archive)):
                    pass
            except Exception:  # noqa: BLE001 - what we came for
                return traceback.format_exc()
        return f"(no traceback from {reader.name} on a second read)"


def _holds_lone_surrogate(value: Any) -> bool:
    """Whether a string anywhere in a session (dataclasses, containers) holds a lone surrogate."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not _encodes(item):
                return True
        elif isinstance(item, dict):
            stack += [*item.keys(), *item.values()]
        elif isinstance(item, (list, tuple)):
            stack += item
        elif is_dataclass(item) and not isinstance(item, type):
            stack += [getattr(item, f.name) for f in fields(item)]
    return False


def _is_sqlite(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(16) == SQLITE_HEADER


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# -------------------------------------------------------------------------------------------- runs


def run(
    mutants_per_seed: int,
    seed: int = 1,
    render: bool = True,
    corpora: tuple[Path, ...] = CORPUS,
    deepest: int = 100_000,
    keep: Path | None = None,
) -> dict[str, Outcome]:
    """Fuzz every seed of the corpus; per format, what came out. ``keep`` collects every mutant
    (one folder each) for a build afterwards."""
    rng = random.Random(seed)
    judge = Judge(render)
    outcomes: dict[str, Outcome] = {}
    for one in seeds(corpora):
        outcome = outcomes.setdefault(one.fmt, Outcome())
        originals = session_count(one)
        for index in range(mutants_per_seed):
            mutant = mutate(one, rng, deepest)
            if mutant.data is not None and _is_sqlite(one.root / mutant.target) and rng.random() < 0.7:
                mutant = Mutant(one, "sqlite", mutant.target)  # a JSON cell, once the copy is on disk
            with tempfile.TemporaryDirectory(prefix="fuzz-") as tmp:
                archive = Path(tmp)
                materialize(mutant, archive, rng, deepest)
                judge.examine(archive, mutant, outcome, originals)
                if keep is not None:
                    shutil.copytree(archive, keep / f"{one.fmt}-{len(list(keep.iterdir())):05d}-{index}")
    return outcomes


def run_sweep(
    places: int, seed: int = 1, render: bool = False, corpora: tuple[Path, ...] = CORPUS
) -> dict[str, Outcome]:
    """Every SWEEP value in up to ``places`` places of every seed's own file."""
    rng = random.Random(seed)
    judge = Judge(render)
    outcomes: dict[str, Outcome] = {}
    for one in seeds(corpora):
        outcome = outcomes.setdefault(one.fmt, Outcome())
        originals = session_count(one)
        for mutant in sweep(one, rng, places, 10_000):
            with tempfile.TemporaryDirectory(prefix="fuzz-") as tmp:
                archive = Path(tmp)
                materialize(mutant, archive)
                judge.examine(archive, mutant, outcome, originals)
    return outcomes


def build_all(mutants: Path, site: Path) -> tuple[int, list[str]]:
    """Build one site of every kept mutant with the real pipeline: (sessions, failure problems)."""
    report = build(SiteConfig(archive=mutants, output=site, jobs=1))
    bad = [str(p) for p in report.problems if any(f in p.message for f in FAILURES) or "\n" in str(p)]
    return report.sessions, bad


def _print(outcomes: dict[str, Outcome], seconds: float) -> None:
    print(f"{'format':<12} {'inputs':>7} {'problems':>9} {'sessions':>9} {'of':>6} {'events':>8} {'failures':>9}")
    total = Outcome()
    for fmt, o in sorted(outcomes.items()):
        print(
            f"{fmt:<12} {o.inputs:>7} {o.problems:>9} {o.sessions:>9} {o.expected:>6}"
            f" {o.events:>8} {len(o.failures):>9}"
        )
        total.inputs += o.inputs
        total.problems += o.problems
        total.sessions += o.sessions
        total.expected += o.expected
        total.events += o.events
        total.failures += o.failures
        total.kinds.update(o.kinds)
    print(
        f"{'all':<12} {total.inputs:>7} {total.problems:>9} {total.sessions:>9} {total.expected:>6}"
        f" {total.events:>8} {len(total.failures):>9}   ({seconds:.1f}s)"
    )
    print("mutations:", ", ".join(f"{k} {v}" for k, v in sorted(total.kinds.items())))
    slips = [line for o in outcomes.values() for line in o.slips]
    print(f"records a reader slipped on (kept as raw JSON): {len(slips)}")
    for line in slips:
        print("  SLIP", line)
    lost = [line for o in outcomes.values() for line in o.lost]
    print(f"sessions lost to one bad value or a name: {len(lost)}")
    for line in lost:
        print("  LOST", line)
    for failure in total.failures:
        print("\nFAILURE", failure)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mutants", type=int, default=40, help="mutants per seed (default 40)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--no-render", action="store_true", help="read only: no pages, no exports")
    parser.add_argument("--deepest", type=int, default=100_000, help="deepest nesting tried (default 100,000)")
    parser.add_argument("--corpus", type=Path, action="append", help="corpus folder (default: fixtures, example)")
    parser.add_argument("--build", type=Path, metavar="SITE", help="also build one site of all mutants there")
    parser.add_argument("--json", action="store_true", help="print one JSON line of figures at the end")
    parser.add_argument("--sweep", type=int, metavar="PLACES", help="instead: every wrong type in PLACES places a file")
    args = parser.parse_args(argv)
    corpora = tuple(args.corpus) if args.corpus else CORPUS
    started = time.perf_counter()
    if args.sweep:
        outcomes = run_sweep(args.sweep, args.seed, not args.no_render, corpora)
        _print(outcomes, time.perf_counter() - started)
        return 1 if any(o.failures for o in outcomes.values()) else 0
    with tempfile.TemporaryDirectory(prefix="fuzz-keep-") as keep_dir:
        keep = Path(keep_dir) if args.build else None
        outcomes = run(args.mutants, args.seed, not args.no_render, corpora, args.deepest, keep)
        _print(outcomes, time.perf_counter() - started)
        failures = sum(len(o.failures) for o in outcomes.values())
        if keep is not None:
            sessions, bad = build_all(keep, args.build)
            print(f"\nbuild of all mutants: {sessions} sessions, {len(bad)} failure problems → {args.build}")
            for line in bad:
                print("  ", line)
            failures += len(bad)
    if args.json:
        figures = {
            fmt: {"inputs": o.inputs, "problems": o.problems, "sessions": o.sessions, "of": o.expected}
            for fmt, o in sorted(outcomes.items())
        }
        print(json.dumps({"seed": args.seed, "mutants_per_seed": args.mutants, "formats": figures}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
