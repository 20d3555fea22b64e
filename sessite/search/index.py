"""The search index: postings of every session, written out as chunk and snippet files.

The search package knows nothing about HTML: ``item.session_item`` takes a
session's title, a few facts and its ``(anchor, label, text)`` events and
tokenizes and counts them (``terms.py``; in the build's worker processes,
beside the rendering); ``IndexState`` gathers those items in the main process
and at the end yields the files of ``search/`` as ``(url, bytes)``, with
lunr.py's weights (``weights.py``).

Design (see also ``output.py``):

- One lunr document per session, ``ref`` = its number in build order; fields
  ``title`` (boost 2) and ``body`` (boost 1). Each body posting also records
  up to ``EVENTS_PER_POSTING`` events the term occurs in, chosen so that a
  snippet can show it (``events.py``: events whose kept start shows it, else
  one that keeps an excerpt around it, else the header); kept beside the
  lunr index in the browser, not as lunr metadata, which lunr would copy for
  every match, so a result opens the session at the event where most of the
  query's words occur.
- The vocabulary, in UTF-16 order, is cut into chunks; a term's complete
  posting list lives in one chunk. Weights are lunr.py's BM25 field-vector
  entries computed with the archive's document count and average field
  lengths (``weights.ChunkWeights``), i.e. exactly those of one monolithic lunr.py
  index. The browser loads the chunks a query touches and rebuilds a small
  lunr index from them; lunr.js scores a query only from the field-vector
  entries of the query's own terms, so ranking equals the monolithic index's.
- Text normalization is the same here and in ``static/search-core.js``
  (``terms.py``).
"""

from __future__ import annotations

import struct
import tempfile
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import sub
from typing import Any, BinaryIO

from sessite.parallel import parallel_map
from sessite.search.item import (
    PACK_EVENTS,
    RECORD,
    SessionItem,
    fragment_url,
    js_call,
    json_bytes,
    packed,
    packed_call,
    session_item,
    terms_url,
)
from sessite.search.terms import utf16_sorted
from sessite.search.weights import FIELDS, ChunkWeights

FORMAT_VERSION = 1
LUNR_JS_VERSION = "2.3.9"
CHUNK_BYTES = 12_000  # target size of one term chunk before gzip (estimated)
MAX_CHUNKS = 4_000  # beyond this, chunks grow instead (the boundary list is part of every first query)
# Below this many postings, encoding in forked processes costs more than it saves: at
# 100 MB of sessions (~250k postings) they take ~0.15 s more CPU than the ~0.45 s of
# encoding here (copy-on-write faults, start-up), to save at best half of it in time.
FORK_POSTINGS = 400_000
SPANS_PER_JOB = 8  # spans of chunks per encoding process: enough to even out slow spans


@dataclass(frozen=True)
class _Encoding:
    """What the encoding processes inherit: the complete postings, their chunks and weights."""

    state: IndexState
    chunks: list[list[str]]
    weights: ChunkWeights
    norms: dict[str, list[float]]


def _encode_span(encoding: _Encoding, span: range) -> list[bytes]:
    """The chunk files numbered ``span``."""
    state, chunks, weights, norms = encoding.state, encoding.chunks, encoding.weights, encoding.norms
    return [
        packed_call("chunk", (n,), packed(json_bytes([state.encode(t, weights, norms) for t in chunks[n]])))
        for n in span
    ]


class IndexState:
    """Postings of every term, filled one session at a time; ``files()`` writes them out.

    Memory: per term one integer array of fixed-size records ``(session,
    title tf, body tf, event, event, event)``; per session two lengths and
    two filter numbers. Snippet files are encoded as each session arrives and
    kept, compressed, in an anonymous temporary file.
    """

    RECORD = RECORD

    def __init__(self, chunk_bytes: int = CHUNK_BYTES, max_chunks: int = MAX_CHUNKS) -> None:
        self.chunk_bytes = chunk_bytes
        self.max_chunks = max_chunks
        self.postings: dict[str, array] = {}
        self.title_lengths = array("i")
        self.body_lengths = array("i")
        self.docs = array("i")  # agent number, project number per session
        self.agents: dict[str, int] = {}
        self.projects: dict[str, int] = {"": 0}
        self.count = 0
        self.spill: BinaryIO | None = None

    def add(
        self,
        title: str,
        agent: str,
        project: str,
        date: str,
        url: str,
        events: list[tuple[str, str, str]],
        pages: dict[str, str] | None = None,
    ) -> None:
        """One session: its title, facts, and events as (anchor, label, text); event 0 is its header."""
        self.add_item(session_item(title, agent, project, date, url, events, pages))

    def add_item(self, item: SessionItem) -> None:
        """One session as ``session_item`` prepared it: append its postings and snippet files."""
        agent, project, title_length, body_length, terms, records, sizes, blob = item
        doc = self.count
        self.count += 1
        self.docs.append(self.agents.setdefault(agent, len(self.agents)))
        self.docs.append(self.projects.setdefault(project, len(self.projects)))
        self.title_lengths.append(title_length)
        self.body_lengths.append(body_length)
        postings, r = self.postings, self.RECORD
        for i, term in enumerate(terms):
            record = records[i * r : i * r + r]
            record[0] = doc
            arr = postings.get(term)
            if arr is None:
                postings[term] = record
            else:
                arr.extend(record)
        if self.spill is None:  # closed by files()
            self.spill = tempfile.TemporaryFile(prefix="sessite-search-")  # noqa: SIM115
        self.spill.write(struct.pack(f"<III{len(sizes)}I", doc, len(sizes), len(blob), *sizes))
        self.spill.write(blob)

    # ---- output

    def files(self, jobs: int = 1) -> Iterator[tuple[str, bytes]]:
        """Every file of ``search/``: snippets, term chunks, then meta.js. Consumes the state.

        With ``jobs`` > 1 and a large index, the chunks are encoded by forked
        processes (they read the postings copy-on-write) while this one writes
        the snippet files.
        """
        try:
            weights = ChunkWeights(self.count, {"title": sum(self.title_lengths), "body": sum(self.body_lengths)})
            norms = {
                "title": weights.norms("title", self.title_lengths),
                "body": weights.norms("body", self.body_lengths),
            }
            chunks = self.chunks()
            encoded = self._encoded(chunks, weights, norms, jobs)
            yield from self._fragments()
            number = 0
            for batch in encoded:
                for data in batch:
                    yield terms_url(number), data
                    number += 1
            self.postings.clear()
            yield "search/meta.js", js_call("meta", self._meta([terms[0] for terms in chunks]))
        finally:
            if self.spill is not None:
                self.spill.close()

    def _encoded(
        self, chunks: list[list[str]], weights: ChunkWeights, norms: dict[str, list[float]], jobs: int
    ) -> Iterator[list[bytes]]:
        """The chunk files in order, a span of chunks at a time: encoded by ``jobs`` forked
        processes, which start now, when the index is big enough to pay for them; else
        here, one chunk at a time, as they are taken."""
        if jobs > 1 and sum(len(a) for a in self.postings.values()) // self.RECORD < FORK_POSTINGS:
            jobs = 1
        step = max(1, len(chunks) // (jobs * SPANS_PER_JOB)) if jobs > 1 else 1
        spans = [range(start, min(start + step, len(chunks))) for start in range(0, len(chunks), step)]
        return parallel_map(_encode_span, spans, jobs, context=_Encoding(self, chunks, weights, norms))

    def _fragments(self) -> Iterator[tuple[str, bytes]]:
        if self.spill is None:
            return
        self.spill.flush()
        self.spill.seek(0)
        while header := self.spill.read(12):
            doc, count, size = struct.unpack("<III", header)
            sizes = struct.unpack(f"<{count}I", self.spill.read(4 * count))
            data = self.spill.read(size)
            offset = 0
            for pack, length in enumerate(sizes):
                body = data[offset : offset + length]  # the packed snippets; the session's number is known only here
                yield fragment_url(doc, pack), packed_call("frag", (doc, pack), body)
                offset += length

    def chunks(self) -> list[list[str]]:
        """The vocabulary in UTF-16 order, cut into chunks of about ``chunk_bytes``.

        Large archives get larger chunks so that the list of chunk boundaries
        (which every first query loads) stays under ``max_chunks`` entries.
        """
        postings, r = self.postings, self.RECORD
        terms = utf16_sorted(postings)
        estimates = [len(t) + 16 + len(postings[t]) * 12 // r for t in terms]  # ~12 bytes a posting
        target = max(self.chunk_bytes, sum(estimates) // self.max_chunks + 1)
        chunks: list[list[str]] = []
        current: list[str] = []
        size = 0
        for term, estimate in zip(terms, estimates):
            if current and size + estimate > target:
                chunks.append(current)
                current, size = [], 0
            current.append(term)
            size += estimate
        if current:
            chunks.append(current)
        return chunks

    def _meta(self, bounds: list[str]) -> dict[str, Any]:
        return {
            "v": FORMAT_VERSION,
            "lunr": LUNR_JS_VERSION,
            "fields": [name for name, _ in FIELDS],
            "n": self.count,
            "bounds": bounds,
            "agents": sorted(self.agents, key=lambda name: self.agents[name]),
            "projects": sorted(self.projects, key=lambda name: self.projects[name]),
            "docs": self.docs.tolist(),
            "pack": PACK_EVENTS,
        }

    def encode(self, term: str, weights: ChunkWeights, norms: dict[str, list[float]]) -> list[Any]:
        """``[term, title docs, title weights, body docs, body weights, e1, (e2, (e3))]``; frees the term.

        Docs are delta-coded session numbers; weights are lunr.py's, in
        thousandths; ``e1`` holds, per body posting, the first event the term
        occurs in, ``e2``/``e3`` (present when any posting has them) the
        distance to the next, 0 meaning none.
        """
        arr = self.postings.pop(term)
        if len(arr) == RECORD:  # one session: most of the vocabulary
            return _encode_one(term, arr, weights, norms)
        return _encode_many(term, arr, weights, norms)


def _encode_one(term: str, arr: array, weights: ChunkWeights, norms: dict[str, list[float]]) -> list[Any]:
    """``IndexState.encode`` for a term of one session."""
    doc, ttf, btf, first, *later = arr
    idf = weights.idf((ttf > 0) + (btf > 0))
    title = [[doc], [weights.milli_one("title", idf, ttf, norms["title"][doc])]] if ttf else [[], []]
    if not btf:
        return [term, *title, [], [], []]
    entry = [term, *title, [doc], [weights.milli_one("body", idf, btf, norms["body"][doc])], [first]]
    previous = first
    for e in later:
        if e < 0:
            break
        entry.append([e - previous])
        previous = e
    return entry


def _encode_many(term: str, arr: array, weights: ChunkWeights, norms: dict[str, list[float]]) -> list[Any]:
    """``IndexState.encode`` for a term of several sessions."""
    r = RECORD
    docs, ttfs, btfs = arr[0::r], arr[1::r], arr[2::r]
    n_title = len(ttfs) - ttfs.count(0)
    n_body = len(btfs) - btfs.count(0)
    idf = weights.idf(n_title + n_body)
    entry: list[Any] = [term]
    body_rows = None
    for field, tfs, count in (("title", ttfs, n_title), ("body", btfs, n_body)):
        if not count:
            entry += ([], [])
            continue
        field_docs: Sequence[int] = docs
        field_tfs: Sequence[int] = tfs
        if count != len(tfs):
            rows = [i for i, tf in enumerate(tfs) if tf]
            field_docs, field_tfs = [docs[i] for i in rows], [tfs[i] for i in rows]
            if field == "body":
                body_rows = rows
        entry.append(list(map(sub, field_docs, chain((0,), field_docs))))  # deltas
        entry.append(weights.milli(field, idf, field_docs, field_tfs, norms[field]))
    previous: Sequence[int] = arr[3::r]
    if body_rows is not None:
        previous = [previous[i] for i in body_rows]
    entry.append(list(previous) if n_body else [])
    for slot in range(4, r):
        column: Sequence[int] = arr[slot::r]
        if body_rows is not None:
            column = [column[i] for i in body_rows]
        if not n_body or column.count(-1) == len(column):
            break
        entry.append([e - p if e >= 0 else 0 for e, p in zip(column, previous)])
        previous = column
    return entry
