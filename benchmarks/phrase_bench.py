#!/usr/bin/env python3
"""How well does the phrase check (static/search-phrase.js) find phrases, and what would an index of them cost?

    python benchmarks/phrase_bench.py [--archive DIR] [--sample 150]

1. Builds the archive (default: ``../shared/formats/real`` and ``real-agents``, as
   ``search_quality.py`` does) in this process with one job, recording every session's
   adjacent token pairs as the check compares them (``query_words.token_key``): the truth.
2. Sizes the designs the check was weighed against, beside ``search/`` on disk: bigram
   postings (distinct (session, pair)), and a next-word side file (per term and session, the
   16-bit hashes of the words after it, packed as the term chunks are).
3. Samples adjacent pairs of real words (in 1, 2-5 and 6-40 sessions) and queries each as
   ``"a b"`` through the Python twin (``SearchIndex``, which checks as the page does):
   how many of the sessions truly holding it the check confirms (recall), how many it
   confirms wrongly (must be 0), how many it could not check.
"""

from __future__ import annotations

import argparse
import base64
import collections
import json
import os
import random
import shutil
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

CORPORA = {
    "real": REPO.parent / "shared" / "formats" / "real",
    "agents": REPO.parent / "shared" / "formats" / "real-agents",
}
BANDS = ((1, 1), (2, 5), (6, 40))


def build(archive: Path, site: Path) -> dict[str, set[tuple[str, str]]]:
    """Build ``archive`` into ``site`` (one job, so the sessions are tokenized here) and return each
    session URL's adjacent token-key pairs."""
    import sessite.outputs.search as outputs_search
    from sessite.cli.app import main
    from sessite.search.query_words import token_key
    from sessite.search.terms import INDEX_CHARS, normalize, raw_tokens

    truth: dict[str, set[tuple[str, str]]] = {}
    original = outputs_search.session_item

    def recording(title: str, agent: str, project: str, date: str, url: str, events: Any, pages: Any = None) -> Any:
        pairs: set[tuple[str, str]] = set()
        for _, _, text in events:
            keys = [token_key(raw) for raw in raw_tokens(normalize(text[:INDEX_CHARS]))]
            pairs.update(zip(keys, keys[1:]))
        truth[url] = pairs
        return original(title, agent, project, date, url, events, pages)

    outputs_search.session_item = recording  # type: ignore[assignment]
    try:
        main(["build", str(archive), "-o", str(site), "--jobs", "1"], standalone_mode=False)
    finally:
        outputs_search.session_item = original  # type: ignore[assignment]
    return truth


def side_file_bytes(truth: dict[str, set[tuple[str, str]]]) -> int:
    """A next-word side file: per term, per session, the sorted 16-bit hashes of the words after it,
    delta-coded, as JSON deflated and in base64 (as the term chunks are), 200 terms a file."""
    by_term: dict[str, dict[int, set[int]]] = collections.defaultdict(dict)
    for doc, url in enumerate(sorted(truth)):
        for a, b in truth[url]:
            by_term[a].setdefault(doc, set()).add(zlib.crc32(b.encode()) & 0xFFFF)
    total, chunk = 0, []
    for n, term in enumerate(sorted(by_term), 1):
        docs = sorted(by_term[term])
        rows = []
        for doc in docs:
            hashes = sorted(by_term[term][doc])
            rows.append([h - p for h, p in zip(hashes, [0, *hashes])])
        chunk.append([term, [d - p for d, p in zip(docs, [0, *docs])], rows])
        if n % 200 == 0 or n == len(by_term):
            total += len(base64.b64encode(zlib.compress(json.dumps(chunk, separators=(",", ":")).encode(), 6)))
            chunk = []
    return total


def term_postings(site: Path) -> tuple[int, int]:
    """The index's (session, term) postings and the bytes of its term chunks."""
    from sessite.search.item import unpacked

    postings = size = 0
    for path in (site / "search" / "t").glob("*.js"):
        data = path.read_bytes()
        size += len(data)
        for entry in json.loads(unpacked(data) or b"[]"):
            postings += len(set(_docs(entry[1])) | set(_docs(entry[3])))
    return postings, size


def _docs(deltas: list[int]) -> list[int]:
    out, doc = [], 0
    for d in deltas:
        doc += d
        out.append(doc)
    return out


def folder_bytes(folder: Path) -> int:
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, files in os.walk(folder) for f in files)


def recall(site: Path, truth: dict[str, set[tuple[str, str]]], sample: int) -> None:
    from sessite.search.query import SearchIndex
    from sessite.search.terms import finish

    index = SearchIndex(lambda url: (site / url).read_bytes() if (site / url).is_file() else None)
    url_of = {doc: index.snippet(doc, 0)[0]["u"] for doc in range(index.count)}
    df = collections.Counter(p for pairs in truth.values() for p in pairs)
    raw_of: dict[str, str] = {}
    for pairs in truth.values():  # a typed form of each key: the key itself works for unstemmed words
        for a, b in pairs:
            raw_of.setdefault(a, a)
            raw_of.setdefault(b, b)

    def word(key: str) -> bool:
        return key.isalpha() and len(key) > 3 and finish(key) == key  # a real word, unchanged by stemming

    pool = sorted(p for p in df if p[0] != p[1] and word(p[0]) and word(p[1]))
    rng = random.Random(7)
    for lo, hi in BANDS:
        band = [p for p in pool if lo <= df[p] <= hi]
        chosen = rng.sample(band, min(sample, len(band)))
        holders = confirmed = wrong = unchecked = 0
        for a, b in chosen:
            hits = index.search(f'"{a} {b}"')
            true = {u for u, pairs in truth.items() if (a, b) in pairs}
            yes = {url_of[h.doc] for h in hits if h.phrase is True}
            holders += len(true)
            confirmed += len(yes & true)
            wrong += len(yes - true)
            unchecked += sum(1 for h in hits if h.phrase is None and url_of[h.doc] in true)
        print(
            f"  phrases in {lo}-{hi} sessions: {len(chosen)} phrases, {holders} sessions hold them; "
            f"confirmed {confirmed} ({100 * confirmed / max(1, holders):.0f} %), wrongly confirmed {wrong}, "
            f"missed: {holders - confirmed - unchecked} not in the snippet files' text, {unchecked} not checked "
            "(beyond the first 60 results)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--archive", type=Path, help="an archive to build (default: the real logs)")
    parser.add_argument("--sample", type=int, default=150, help="phrases per band")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sessite-phrase-") as tmp:
        archive = args.archive
        if archive is None:
            missing = [str(p) for p in CORPORA.values() if not p.is_dir()]
            if missing:
                sys.exit(f"corpus not found: {', '.join(missing)}")
            archive = Path(tmp) / "archive"
            for name, source in CORPORA.items():
                shutil.copytree(source, archive / name)
        site = Path(tmp) / "site"
        truth = build(archive, site)
        search = folder_bytes(site / "search")
        postings = sum(len(pairs) for pairs in truth.values())
        side = side_file_bytes(truth)
        print(f"{len(truth)} sessions; search/ {search / 1e6:.2f} MB on disk")
        terms, chunks = term_postings(site)
        print(
            f"  bigram postings (session, adjacent pair): {postings:,}, {postings / terms:.1f} times the index's "
            f"{terms:,} term postings: as lunr terms, ~{postings * chunks / terms / 1e6:.1f} MB more "
            f"(+{100 * postings * chunks / terms / search:.0f} %), at the term chunks' bytes per posting"
        )
        print(f"  next-word side file (16-bit hashes): {side / 1e6:.2f} MB = +{100 * side / search:.0f} % of search/")
        print("the phrase check on the snippet files (0 bytes more):")
        recall(site, truth, args.sample)


if __name__ == "__main__":
    main()
