"""The compiled rule set (google-re2) only chooses which rules run: redaction is the same
with it and without it (``SESSITE_REDACT_ENGINE=re``, the hint words), on planted secrets
of every kind and on real logs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from secret_corpus import CORPUS

from sessite.analyze.redact import Redactor
from sessite.analyze.redact.engine import TextRedactor
from sessite.analyze.redact.ruleset import ENGINE_VARIABLE, available, loosen

REAL = Path(__file__).resolve().parents[3] / "shared" / "formats"


def _texts() -> list[str]:
    texts: list[str] = []

    def strings(value: object) -> None:
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, dict):
            for k, v in value.items():
                texts.append(str(k))
                strings(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                strings(v)

    for entry in CORPUS:
        strings(entry.payload)
        texts.append(json.dumps(entry.payload))  # (escaped, as text that is itself JSON)
    for path in sorted(REAL.glob("real*/**/*.jsonl"))[:60]:
        for line in path.read_text("utf-8", "replace").splitlines()[:400]:
            try:
                strings(json.loads(line))
            except ValueError:
                texts.append(line)
    return texts


def _redacted(texts: list[str], monkeypatch: pytest.MonkeyPatch, engine: str) -> list[list[str]]:
    monkeypatch.setenv(ENGINE_VARIABLE, engine)
    outs = []
    for redactor in (Redactor(), Redactor(pii=True), TextRedactor(shapes_only=True)):
        outs.append([redactor.text(t) for t in texts])
    return outs


@pytest.mark.skipif(not available(), reason="google-re2 is not installed")
def test_both_engines_redact_alike(monkeypatch):
    texts = _texts()
    assert len(texts) > 1000
    with_set = _redacted(texts, monkeypatch, "re2")
    with_hints = _redacted(texts, monkeypatch, "re")
    assert sum(o != t for o, t in zip(with_set[0], texts)) > 50  # (they do find things)
    for a, b in zip(with_set, with_hints):
        assert a == b


@pytest.mark.parametrize(
    ("pattern", "loose"),
    [
        (r"gh[pousr]_(?<![A-Za-z0-9_]gh[pousr]_)[A-Za-z0-9]{36,255}", r"gh[pousr]_[A-Za-z0-9]{36,255}"),
        (r"(?P<secret>[^\s(]{8,}+)(?!\(|[\"']?\s*[:=])", r"([^\s(]{8,})"),
        (r"a[\s\S]{0,16384}?b\Z", r"a[\s\S]{0,}?b\z"),
        (r"(?:[0-9]+(?:\u2192|\t))?[)(]", r"(?:[0-9]+(?:\x{2192}|\t))?[)(]"),
    ],
)
def test_a_pattern_is_loosened_for_re2(pattern, loose):
    assert loosen(pattern) == loose
