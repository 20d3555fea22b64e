"""A few seconds of fuzzing in CI: mutants of every fixture of every format (benchmarks/fuzz.py
does more of them, and reports figures). A fixed seed, so a failure reproduces."""

from __future__ import annotations

import random
import sys
from pathlib import Path

from helpers import REPO

from sessite.readers import registry

sys.path.insert(0, str(REPO / "benchmarks"))

import fuzz  # noqa: E402  (benchmarks/ is not a package)
import fuzz_mutations  # noqa: E402


def test_the_corpus_has_every_reader() -> None:
    assert {seed.fmt for seed in fuzz.seeds()} == {reader.name for reader in registry()}


def test_random_mutants_of_every_format_read_and_render(tmp_path: Path) -> None:
    keep = tmp_path / "mutants"
    keep.mkdir()
    outcomes = fuzz.run(mutants_per_seed=2, seed=16, render=True, deepest=20_000, keep=keep)
    failures = [f for o in outcomes.values() for f in o.failures]
    assert not failures, "\n\n".join(failures)
    assert set(outcomes) == {reader.name for reader in registry()}
    assert sum(o.sessions for o in outcomes.values()) > 0.6 * sum(o.expected for o in outcomes.values())
    sessions, bad = fuzz.build_all(keep, tmp_path / "site")
    assert not bad, bad
    assert sessions > 0 and (tmp_path / "site" / "index.html").is_file()


def test_every_wrong_type_in_a_few_places_of_every_format() -> None:
    outcomes = fuzz.run_sweep(places=1, seed=16, render=False)
    failures = [f for o in outcomes.values() for f in o.failures]
    assert not failures, "\n\n".join(failures)
    assert sum(o.inputs for o in outcomes.values()) >= 10 * 40


def test_hostile_values_replace_one_value_only() -> None:
    doc = {"a": [1, 2, {"b": "c"}], "d": "e"}
    name, text = fuzz_mutations.mutate_json_value(doc, random.Random(3), 1000)
    assert "@" in name and text.startswith("{")
