"""The vendor table (``sessite/analyze/redact/vendors.py``): every kind redacted where a key of
its documented shape stands (bare in prose, after a name, in escaped tool output), and left
alone where its prefix is only code or a stand-in. Keys are made from each entry's own
pattern with a fixed seed, by the generator of ``benchmarks/peer_rules.py``."""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

import pytest

from sessite.analyze.redact import Redactor
from sessite.analyze.redact.engine import TextRedactor
from sessite.analyze.redact.ruleset import ENGINE_VARIABLE, available, loosen
from sessite.analyze.redact.vendors import VENDOR_KEYS, VENDOR_SHAPES

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from peer_rules import Generator, sre_parse  # noqa: E402  (benchmarks/ is not a package)

_IDS = [f"{kind}:{prefix}" for kind, prefix, _, _ in VENDOR_KEYS]


def _key(prefix: str, body: str, seed: int) -> str:
    """A key of the entry's shape: its prefix and a random body (letters and digits mixed where
    its alphabet has both)."""
    rng = random.Random(seed)
    parsed = sre_parse.parse(body)
    for _ in range(50):
        made = Generator(rng, None).run(parsed)
        if (re.search("[0-9]", made) or "0-9" not in body) and re.search("[A-Za-z]", made):
            return prefix + made
    raise AssertionError(f"no key made for {prefix}")


@pytest.mark.parametrize(("kind", "prefix", "body", "mixed"), VENDOR_KEYS, ids=_IDS)
def test_each_vendor_key_is_redacted_wherever_it_stands(kind, prefix, body, mixed):
    key = _key(prefix, body, seed=len(prefix) * 31 + len(body))
    redactor = Redactor()
    places = [
        f"Using {key} for the request now.",
        f'client = Client(token="{key}")',
        json.dumps({"output": f"config:\n  value: {key}\n"}),
    ]
    for text in places:
        out = redactor.text(text)
        assert key not in out and key[len(prefix) :][:12] not in out, (kind, out)
    assert f"[REDACTED:{kind}]" in redactor.text(places[0])


@pytest.mark.parametrize(("kind", "prefix", "body", "mixed"), VENDOR_KEYS, ids=_IDS)
def test_a_vendor_prefix_in_ordinary_code_is_left_alone(kind, prefix, body, mixed):
    redactor = Redactor()
    stem = prefix.rstrip("-_.:/ ")
    texts = [
        f'KEY_PREFIX = "{prefix}"  # every {stem} key starts so',
        f"if token.startswith('{prefix}'):\n    return '{prefix}' + suffix",
        f"see docs/{stem.lower()}_settings.md and {prefix}your_key_here",
        f"const x = my{prefix}{'a' * 3}Handler.build();",
    ]
    if prefix.startswith("eyJ"):  # (base64 JSON: the older jwt scan reads any eyJ… run, a stand-in too)
        del texts[2]
    for text in texts:
        assert redactor.text(text) == text, (kind, text)


def test_a_body_a_person_typed_is_no_key():
    redactor = Redactor()
    for text in (
        "Using lin_api_abcdefghijklmnopqrstuvwxyz0123456789ABCD now",  # typed runs
        "Using pplx-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx now",
        "Using API-ABCDEFGHIJKLMNOPQRSTUVWXYZ now",  # no digit: a word, not Octopus' key
    ):
        assert redactor.text(text) == text


def test_public_keys_of_these_vendors_are_left_alone():
    redactor = Redactor()
    for text in (
        "posthog.init('phc_k1wfU5af6zaLNvisd3Ozjjjlzi3AUQNVwcxptogzF')",
        "FLWPUBK_TEST-a59d199c952a8c8a62e186748fbdf613-X is the public key",
        "createClient(url, 'sb_publishable_D8S3IpB6cl0MITztUmX0bxalufCth6L')",
    ):
        assert redactor.text(text) == text


def test_a_fine_grained_github_token_needs_no_other_hint():
    # "github" holds no "gh": the token was found only where the text held "gh" elsewhere
    key = (
        "github_pat_11AB2CD3E0"
        + "x7Kq9Lm2Np4Rs6Tv8Wy1Za"
        + "_"
        + "Qb3Dc5Fe7Hk9Jk2Lm4Np6Rq8St1Uv3Wx5Yz7Ab9Cd2Ef4Hj6Ij8K"
    )
    assert "gh" not in key.lower()
    text = f"origin https://{key}@example.com/acme/shop.git (fetch)"
    assert key[11:] not in Redactor().text(text)
    assert Redactor().text(f"token {key} ok") == "token [REDACTED:github-token] ok"


def test_a_routable_gitlab_token_is_redacted_to_its_end():
    key = "glpat-4Kq9Lm2Np4Rs6Tv8Wy1ZaQb3Dc5Fe7H.01.0g1h2j3k4"
    assert Redactor().text(f"Using {key} now") == "Using [REDACTED:gitlab-token] now"


@pytest.mark.skipif(not available(), reason="google-re2 is not installed")
def test_both_engines_find_the_vendor_keys_alike(monkeypatch):
    texts = [f"Using {_key(prefix, body, n)} now" for n, (_, prefix, body, _) in enumerate(VENDOR_KEYS)]
    outs = []
    for engine in ("re2", "re"):
        monkeypatch.setenv(ENGINE_VARIABLE, engine)
        outs.append([TextRedactor(shapes_only=True).text(t) for t in texts])
    assert outs[0] == outs[1]
    assert all("[REDACTED:" in out for out in outs[0])


def test_the_compiled_set_sees_only_each_prefix_and_a_loop():
    # (the cost model: lookaheads are dropped for RE2, so an entry costs the set its literal and a loop)
    for (_, prefix, _, _), spec in zip(VENDOR_KEYS, VENDOR_SHAPES):
        loose = loosen(spec[2])
        assert loose.startswith(re.escape(prefix) + "[") and loose.endswith("]+"), loose
        assert "{" not in loose and "(" not in loose


def test_keys_in_a_list_are_each_redacted():
    # (a match stops at what its key cannot hold: the next key of a comma-joined list is its own)
    keys = [
        "lin_api_" + "Ab3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5nO7q",
        "lin_api_" + "Zy8xW6vU4tS2rQ0pO8nM6lK4jI2hG0fE8dC6bA4z",
    ]
    out = Redactor().text(f"rotated {','.join(keys)} today")
    assert out == "rotated [REDACTED:linear-key],[REDACTED:linear-key] today"
