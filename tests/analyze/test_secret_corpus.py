"""Secrets in their natural places (``secret_corpus``) never reach a built site.

The corpus is built into a site with exports, feed and sitemap; every file (its
bytes, its visible text, a gzip's content, its name) is scanned for every core
of every planted secret and for any 12 characters of a longer one. Built again
with redaction off, every core is found, so the scan can fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ALL_EXPORTS, build_site, scan_site
from secret_corpus import CORPUS, Planted, write

from sessite.analyze.redact import Redactor
from sessite.model import Problems, Session
from sessite.readers import discover

WINDOW = 12


def _needles(core: str) -> list[str]:
    core = core.lower()
    if len(core) <= WINDOW:
        return [core]
    return [core[i : i + WINDOW] for i in range(len(core) - WINDOW + 1)]


NEEDLES = {entry.label: [n for core in entry.cores for n in _needles(core)] for entry in CORPUS}


def scan(site: Path) -> dict[str, list[str]]:
    """label -> files (and names) where a piece of that entry's secrets was found."""
    return scan_site(site, NEEDLES)


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    return write(tmp_path_factory.mktemp("corpus") / "archive")


@pytest.fixture(scope="module")
def sessions(archive) -> dict[str, Session]:
    """The corpus as its readers give it, by session id."""
    problems = Problems()
    out = {}
    for claim in discover(archive, problems).claims:
        for session in claim.reader.read(claim.path, problems):
            out[session.id] = session
    assert not problems.items, problems.items[:3]
    return out


def _session_of(sessions: dict[str, Session], index: int) -> Session:
    return next(s for sid, s in sessions.items() if f"{index:08d}-0000" in sid)


@pytest.mark.parametrize("index", range(len(CORPUS)), ids=[e.label for e in CORPUS])
def test_each_planted_secret_is_redacted_where_it_was_pasted(sessions, index):
    entry: Planted = CORPUS[index]
    session = _session_of(sessions, index)
    assert any(n in repr(session).lower() for n in NEEDLES[entry.label]), "the reader must carry the secret"
    redactor = Redactor()
    shown = repr(redactor.value(session)).lower()
    left = [core for core in entry.cores if any(n in shown for n in _needles(core))]
    assert not left, f"{entry.label}: {left}"
    assert redactor.counts, entry.label


def test_no_planted_secret_survives_anywhere_in_the_site(archive, tmp_path_factory):
    out = tmp_path_factory.mktemp("corpus-site") / "site"
    report = build_site(
        archive,
        out,
        base_url="https://example.github.io/s/",
        exports=ALL_EXPORTS,
        jobs=1,
        cache_dir=out.parent / "cache",
    )
    assert report.published, report.problems[:5]
    kinds = {p.name.split(".", 1)[1] for p in (out / "sessions").iterdir() if "." in p.name}
    assert {"html", "aics.json.gz", "hail.jsonl.gz", "md.gz"} <= kinds, "the exports must be in the scanned site"
    leaks = scan(out)
    assert not leaks, "published: " + "; ".join(f"{label} in {', '.join(where[:3])}" for label, where in leaks.items())
    assert report.sessions == len(CORPUS) + 1


def test_without_redaction_every_planted_secret_is_published(archive, tmp_path):
    """The scan can fail: with redaction off, every entry is found in the pages and in the exports."""
    out = tmp_path / "site"
    report = build_site(
        archive, out, base_url="https://example.github.io/s/", exports=ALL_EXPORTS, redact=False, jobs=1
    )
    assert report.published
    found = scan(out)
    assert set(found) == set(NEEDLES), sorted(set(NEEDLES) - set(found))
    for label, where in found.items():
        for suffix in (".html", ".aics.json.gz", ".md.gz"):
            assert any(f.endswith(suffix) for f in where), (label, suffix)
