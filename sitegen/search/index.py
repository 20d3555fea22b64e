"""The search index itself: text normalization, postings, lunr.py weights, chunk files.

This module knows nothing about sessions or HTML: ``session_item`` takes a
session's title, a few facts and its ``(anchor, label, text)`` events and
tokenizes and counts them (in the build's worker processes, beside the
rendering); ``IndexState`` gathers those items in the main process and at the
end yields the files of ``search/`` as ``(url, bytes)``.

Design (see also ``sitegen/search.py``):

- One lunr document per session, ``ref`` = its number in build order; fields
  ``title`` (boost 2) and ``body`` (boost 1). Each body posting also records
  the first ``EVENTS_PER_POSTING`` events the term occurs in (kept beside the
  lunr index in the browser, not as lunr metadata, which lunr would copy for
  every match), so a result opens the session at the event where most of the
  query's words occur.
- The vocabulary, in UTF-16 order, is cut into chunks; a term's complete
  posting list lives in one chunk. Weights are lunr.py's BM25 field-vector
  entries computed with the archive's document count and average field
  lengths (``ChunkWeights``), i.e. exactly those of one monolithic lunr.py
  index. The browser loads the chunks a query touches and rebuilds a small
  lunr index from them; lunr.js scores a query only from the field-vector
  entries of the query's own terms, so ranking equals the monolithic index's.
- Text normalization is the same here and in ``static/search-core.js``: NFC,
  ``\\w+`` tokens, identifiers also split at ``_`` and camelCase humps,
  lower case, lunr's stop words and one-letter or over-long tokens dropped,
  pure a-z words stemmed like lunr.js does (``LunrJsStemmer``). lunr.py's own
  pipeline is not used: its trimmer and stemmer disagree with lunr.js.
"""

from __future__ import annotations

import base64
import json
import multiprocessing
import re
import struct
import tempfile
import unicodedata
import zlib
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from typing import Any, BinaryIO

from lunr.builder import Builder
from lunr.idf import idf as lunr_idf
from lunr.stemmer import PorterStemmer
from lunr.stop_word_filter import WORDS as STOP_WORDS

FORMAT_VERSION = 1
LUNR_JS_VERSION = "2.3.9"
FIELDS: tuple[tuple[str, int], ...] = (("title", 2), ("body", 1))  # name, lunr field boost
CHUNK_BYTES = 12_000  # target size of one term chunk before gzip (estimated)
MAX_CHUNKS = 4_000  # beyond this, chunks grow instead (the boundary list is part of every first query)
PACK_EVENTS = 24  # events per snippet file
SNIPPET_CHARS = 2_000  # text kept per event for snippets
SNIPPET_LEVEL = 6  # zlib level of snippet packs (built in the workers; level 1 is 10% bigger)
INDEX_CHARS = 200_000  # text indexed per event (a huge tool output is indexed up to here)
EVENTS_PER_POSTING = 3  # events remembered per (term, session)
MIN_TERM, MAX_TERM = 2, 40

# --------------------------------------------------------------------------
# Normalization (mirrored by static/search-core.js)

_TOKEN = re.compile(r"\w+")
_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_ASCII_WORD = re.compile(r"[a-z]+")


class LunrJsStemmer(PorterStemmer):
    """lunr.py's Porter stemmer with lunr.js's step 1c.

    lunr.py (like the reference C/Python Porter) turns a final y into i when
    the stem has a vowel ("key" -> "kei"); lunr.js only when the letter before
    the y is not a vowel and not the word's first letter ("key" stays, "try"
    -> "tri"). A term stemmed one way at build time and the other way in the
    browser is never found, so the build stems as lunr.js does. (Step 1a also
    differs, for the bare words "sses" and "ies" only.)
    """

    def step1ab(self) -> None:
        # lunr.js's step 1a wants a letter before "sses"/"ies": the bare words only lose their s.
        if self.b[self.k0 : self.k + 1] in ("sses", "ies"):
            self.k -= 1
            return
        # lunr.js's step 1b wants a letter before "eed" too (/^(.+?)eed$/): a bare "eed"
        # (or "eeds") falls to the -ed rule instead and becomes "e".
        if self.b[self.k0 : self.k + 1] in ("eed", "eeds"):
            self.k = self.k0
            return
        super().step1ab()

    def step1c(self) -> None:
        # lunr.js: /^(.+[^aeiou][^aeiouy]*)y$/ -> stem + "i"
        if self.b[self.k] == "y" and self.k - self.k0 >= 2 and self.b[self.k - 1] not in "aeiou":
            self.b = self.b[: self.k] + "i" + self.b[self.k + 1 :]


_stemmer = LunrJsStemmer()


@lru_cache(maxsize=1 << 18)
def stem(word: str) -> str:
    """lunr.js's stem of a lower-case a-z word (other strings come back unchanged)."""
    if len(word) < 3 or not _ASCII_WORD.fullmatch(word):
        return word
    return _stemmer.stem(word)


def _finish(candidate: str) -> str | None:
    term = candidate.lower()
    if not MIN_TERM <= len(term) <= MAX_TERM or term in STOP_WORDS:
        return None
    return stem(term) if _ASCII_WORD.fullmatch(term) else term


_TERMS: dict[str, tuple[str, ...]] = {}
_TERMS_LIMIT = 1 << 19


def _terms_uncached(raw: str) -> tuple[str, ...]:
    if _ASCII_WORD.fullmatch(raw):  # the common case: a plain lower-case word
        term = _finish(raw)
        return (term,) if term else ()
    parts = [p for piece in raw.split("_") if piece for p in _HUMP.split(piece) if p]
    candidates = [raw, *parts] if parts != [raw] else [raw]
    return tuple(t for t in map(_finish, candidates) if t)


def terms_for(raw: str) -> tuple[str, ...]:
    """The index terms of one ``\\w+`` token: itself and, for identifiers, its parts."""
    terms = _TERMS.get(raw)
    if terms is None:
        if len(_TERMS) >= _TERMS_LIMIT:
            _TERMS.clear()
        terms = _TERMS[raw] = _terms_uncached(raw)
    return terms


def normalize(text: str) -> str:
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def tokens(text: str) -> Iterator[str]:
    """Every index term of ``text`` in order (what lunr's tokenizer and pipeline would give)."""
    for raw in _TOKEN.findall(normalize(text)):
        yield from terms_for(raw)


def count_terms(text: str) -> Counter:
    counts: Counter = Counter()
    for raw, n in Counter(_TOKEN.findall(normalize(text))).items():
        for term in terms_for(raw):
            counts[term] += n
    return counts


def utf16_key(term: str) -> bytes:
    """Sort key giving JavaScript's string order (UTF-16 code units), which lunr.js needs."""
    return term.encode("utf-16-be", "surrogatepass")


def session_counts(texts: list[str]) -> tuple[dict[str, int], dict[str, tuple[int, ...]]]:
    """Term frequencies over a session's event texts, and the first events each term occurs in.

    Events come as ``(first, second, third)``, -1 where there is none. The
    per-event bookkeeping is done with set operations on raw tokens (C speed);
    Python loops once per distinct raw token of the session.
    """
    assert EVENTS_PER_POSTING == 3
    findall = _TOKEN.findall
    raw_counts: Counter = Counter()
    update = raw_counts.update
    f1: dict[str, int] = {}
    f2: dict[str, int] = {}
    f3: dict[str, int] = {}
    s1: set[str] = set()
    s2: set[str] = set()
    s3: set[str] = set()
    for index, text in enumerate(texts):
        if not text:
            continue
        text = text[:INDEX_CHARS]
        raws = findall(text if text.isascii() else unicodedata.normalize("NFC", text))
        if not raws:
            continue
        update(raws)
        rest = set(raws)
        new = rest - s1
        if new:
            f1.update(dict.fromkeys(new, index))
            s1 |= new
            rest -= new
            if not rest:
                continue
        new = rest - s2
        if new:
            f2.update(dict.fromkeys(new, index))
            s2 |= new
            rest -= new
            if not rest:
                continue
        new = rest - s3
        if new:
            f3.update(dict.fromkeys(new, index))
            s3 |= new
    body: dict[str, int] = {}
    events: dict[str, tuple[int, ...]] = {}
    cached, get2, get3, count_of = _TERMS.get, f2.get, f3.get, body.get
    for raw, n in raw_counts.items():
        terms = cached(raw)
        if terms is None:
            terms = terms_for(raw)
        if not terms:
            continue
        e2 = get2(raw)
        found = (f1[raw], -1, -1) if e2 is None else (f1[raw], e2, get3(raw, -1))
        for term in terms:
            count = count_of(term)
            if count is None:
                body[term] = n
                events[term] = found
            else:  # several raw tokens give this term ("Config", "configs", "config_path")
                body[term] = count + n
                known = events[term]
                if known != found:
                    merged = sorted({e for e in known + found if e >= 0})[:3]
                    events[term] = (*merged, *(-1,) * (3 - len(merged)))
    return body, events


# --------------------------------------------------------------------------
# lunr.py weights


class _Count:
    """Stands in for a posting's ``{doc_ref: metadata}`` where lunr.py only counts the keys."""

    def __init__(self, n: int) -> None:
        self.n = n

    def keys(self) -> range:
        return range(self.n)


class ChunkWeights:
    """lunr.py's ``Builder._create_field_vectors``, batched per term.

    A field-vector entry is lunr.py's BM25 weight of one term in one field of
    one document: ``idf`` (lunr.py's own ``lunr.idf.idf``) times a saturated
    term frequency normalized by the field's length against the average,
    times the field boost, rounded to 3 places. Computed over a term's whole
    posting list with the archive's document count and average field lengths,
    it equals a monolithic lunr.py build's entry exactly (the tests compare
    every weight with a plain lunr.py ``Builder``). Batching only avoids
    lunr.py's per-posting objects (~10 microseconds each: minutes at scale).
    """

    def __init__(self, document_count: int, total_lengths: dict[str, int]) -> None:
        reference = Builder()  # lunr.py's defaults for k1 and b, its field boosts
        for name, boost in FIELDS:
            reference.field(name, boost)
        self.k1 = reference._k1
        self.b = reference._b
        self.boost = {name: field.boost for name, field in reference._fields.items()}
        self.document_count = document_count
        # lunr.py: sum of a field's lengths / number of documents with the field (every document has every field)
        self.average = {name: (total_lengths[name] / document_count if document_count else 0.0) for name, _ in FIELDS}
        self._idf: dict[int, float] = {}

    def idf(self, documents_with_term: int) -> float:
        """lunr.py's idf; like lunr.py, a document counts once per field holding the term."""
        idf = self._idf.get(documents_with_term)
        if idf is None:
            idf = self._idf[documents_with_term] = lunr_idf({"docs": _Count(documents_with_term)}, self.document_count)
        return idf

    def norms(self, field: str, lengths: Iterable[int]) -> list[float]:
        """Per document, the length part of the BM25 denominator, as lunr.py computes it."""
        k1, b, average = self.k1, self.b, self.average[field]
        if not average:  # no document has a term in this field: nothing will be weighed
            return [k1 for _ in lengths]
        return [k1 * (1 - b + b * (length / average)) for length in lengths]

    def milli(self, field: str, idf: float, docs: Iterable[int], tfs: Iterable[int], norms: list[float]) -> list[int]:
        """lunr.py's rounded weights, in thousandths, of one term's postings in one field."""
        k1_1, boost = self.k1 + 1, self.boost[field]
        out = []
        for doc, tf in zip(docs, tfs):
            # lunr.py: score = idf * ((k1 + 1) * tf) / (k1 * (1 - b + b * (length / avg)) + tf); score *= boost
            score = idf * (k1_1 * tf) / (norms[doc] + tf) * boost
            # then round(score, 3). Away from a half-thousandth, that is round(score * 1000) / 1000;
            # near one, ask round() itself (it rounds the exact binary value, half to even).
            scaled = score * 1000
            milli = round(scaled)
            out.append(milli if abs(scaled - milli) < 0.4999 else round(round(score, 3) * 1000))
        return out


def lunr_json(serialized: dict) -> dict:
    """A lunr.py ``Index.serialize()`` that lunr.js 2.3.9 can load.

    lunr.py sorts the inverted index by code point; lunr.js's TokenSet builder
    needs UTF-16 order and throws "Out of order word insertion" otherwise
    (one term with an astral-plane character next to one with a character
    from U+E000-U+FFFF is enough).
    """
    fixed = dict(serialized)
    fixed["invertedIndex"] = sorted(serialized["invertedIndex"], key=lambda item: utf16_key(item[0]))
    return fixed


# --------------------------------------------------------------------------
# The index state


def _json(value: Any) -> bytes:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    # U+2028/2029 are valid in JSON but not in pre-2019 JavaScript string literals.
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return text.encode("utf-8", "replace")  # a lone surrogate becomes "?"


def js_call(kind: str, *args: Any) -> bytes:
    """``sessiteSearch.<kind>(<json>, ...);``: data that loads by <script src>, from file:// too."""
    return b"sessiteSearch.%s(%s);\n" % (kind.encode(), b",".join(_json(a) for a in args))


def _one_line(text: str, limit: int) -> str:
    return " ".join(text[: limit * 2].split())[:limit]


FORK_POSTINGS = 100_000  # below this many postings, encoding in forked processes costs more than it saves (100 MB of sessions: ~250k, 0.35 s saved)
_FORKED: tuple | None = None  # (state, chunks, weights, norms) for forked encoders, set just before they fork


def _encode_range(span: tuple[int, int]) -> list[bytes]:
    """In a forked process: the chunk files ``span`` of the parent's index."""
    assert _FORKED is not None, "only runs in a process forked by IndexState.files"
    state, chunks, weights, norms = _FORKED
    return [js_call("chunk", n, [state.encode(t, weights, norms) for t in chunks[n]]) for n in range(*span)]


def fragment_url(doc: int, pack: int) -> str:
    return f"search/f/{doc // 1000}/{doc}-{pack}.js"


def session_item(
    title: str,
    agent: str,
    project: str,
    date: str,
    url: str,
    events: list[tuple[str, str, str]],
    pages: dict[str, str] | None = None,
) -> tuple:
    """Everything the index needs of one session, tokenized and counted: compact and picklable.

    ``pages`` maps the anchors of events drawn on another page than ``url``
    (the later parts of a split session) to that page; their snippet entries
    carry it as a fourth item, which ``static/search.js`` links to.

    Runs where the session is rendered (a worker process of the build), so the
    main process only appends postings. Returns ``(agent, project, title
    length, body length, terms, records, snippet sizes, snippet blob)`` where
    ``records`` holds, per term, ``IndexState.RECORD`` integers ``(0, title
    tf, body tf, event, event, event)`` (-1: no event; the 0 becomes the
    session's number) and the blob of its snippet packs (``packed_snippets``).
    """
    title_counts = count_terms(title)
    body, firsts = session_counts([text for _, _, text in events])
    terms = list(body)
    extra = [t for t in title_counts if t not in body]  # title words the body lacks
    r, n = IndexState.RECORD, len(terms)
    records = array("i", bytes(4 * r * (n + len(extra))))
    if n:
        records[1 : r * n : r] = array("i", [title_counts.get(t, 0) for t in terms])
        records[2 : r * n : r] = array("i", body.values())
        seen = [firsts[t] for t in terms]
        for k in range(EVENTS_PER_POSTING):
            records[3 + k : r * n : r] = array("i", [e[k] for e in seen])
    if extra:
        records[r * n + 1 :: r] = array("i", [title_counts[t] for t in extra])
        for k in range(EVENTS_PER_POSTING):
            records[r * n + 3 + k :: r] = array("i", [-1] * len(extra))
        terms += extra
    head = {"t": title, "a": agent, "p": project, "d": date, "u": url}
    packs = []
    for start in range(0, len(events), PACK_EVENTS):
        ev = [_snippet_entry(anchor, label, text, pages) for anchor, label, text in events[start : start + PACK_EVENTS]]
        packs.append(
            packed_snippets(_json(dict(head, i=start, ev=ev)))
        )  # packed at once: a huge session's text is held once, not twice
    return (
        agent,
        project,
        sum(title_counts.values()),
        sum(body.values()),
        terms,
        records,
        tuple(map(len, packs)),
        b"".join(packs),
    )


def packed_snippets(pack_json: bytes) -> bytes:
    """A snippet pack as it is published: its JSON deflated and in base64 (a JSON string,
    so the file stays one inert ``sessiteSearch.frag(...)`` call that loads by <script src>,
    from file:// too). Snippets are most of the index; this makes them a third as big.
    ``static/search.js`` inflates them with the browser's DecompressionStream."""
    return b'"%s"' % base64.b64encode(zlib.compress(pack_json, SNIPPET_LEVEL))


def _snippet_entry(anchor: str, label: str, text: str, pages: dict[str, str] | None) -> list[str]:
    entry = [anchor, label, _one_line(text, SNIPPET_CHARS)]
    page = pages.get(anchor) if pages and anchor else None
    if page:
        entry.append(page)
    return entry


class IndexState:
    """Postings of every term, filled one session at a time; ``files()`` writes them out.

    Memory: per term one integer array of fixed-size records ``(session,
    title tf, body tf, event, event, event)``; per session two lengths and
    two filter numbers. Snippet files are encoded as each session arrives and
    kept, compressed, in an anonymous temporary file.
    """

    RECORD = 3 + EVENTS_PER_POSTING

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

    def add_item(self, item: tuple) -> None:
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
        if self.spill is None:
            self.spill = tempfile.TemporaryFile(prefix="sessite-search-")
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
            encoded = self._encode_forked(chunks, weights, norms, jobs)
            yield from self._fragments()
            if encoded is None:
                encoded = (
                    [js_call("chunk", n, [self.encode(t, weights, norms) for t in terms])]
                    for n, terms in enumerate(chunks)
                )
            number = 0
            for batch in encoded:
                for data in batch:
                    yield f"search/t/{number}.js", data
                    number += 1
            self.postings.clear()
            yield "search/meta.js", js_call("meta", self._meta([terms[0] for terms in chunks]))
        finally:
            if self.spill is not None:
                self.spill.close()

    def _encode_forked(
        self, chunks: list[list[str]], weights: ChunkWeights, norms: dict, jobs: int
    ) -> Iterator[list[bytes]] | None:
        """Chunk files in order, encoded by ``jobs`` forked processes; None where that is not worth it or possible."""
        postings = sum(len(a) for a in self.postings.values()) // self.RECORD
        if jobs < 2 or postings < FORK_POSTINGS or "fork" not in multiprocessing.get_all_start_methods():
            return None
        global _FORKED
        _FORKED = (self, chunks, weights, norms)
        step = max(1, len(chunks) // (jobs * 8))
        ranges = [(start, min(start + step, len(chunks))) for start in range(0, len(chunks), step)]
        try:
            pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork"))
            futures = [
                pool.submit(_encode_range, r) for r in ranges
            ]  # the workers fork now, with the postings complete
        except (OSError, RuntimeError):
            _FORKED = None
            return None

        def results() -> Iterator[list[bytes]]:
            global _FORKED
            try:
                for (start, end), future in zip(ranges, futures):
                    try:
                        batch = future.result()
                    except Exception:  # noqa: BLE001 - a lost worker: encode its part here
                        batch = [
                            js_call("chunk", n, [self.encode(t, weights, norms) for t in chunks[n]])
                            for n in range(start, end)
                        ]
                    yield batch
            finally:
                pool.shutdown(cancel_futures=True)
                _FORKED = None

        return results()

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
                yield fragment_url(doc, pack), b"sessiteSearch.frag(%d,%d,%s);\n" % (doc, pack, body)
                offset += length

    def chunks(self) -> list[list[str]]:
        """The vocabulary in UTF-16 order, cut into chunks of about ``chunk_bytes``.

        Large archives get larger chunks so that the list of chunk boundaries
        (which every first query loads) stays under ``max_chunks`` entries.
        """
        terms = sorted(self.postings, key=utf16_key)
        r = self.RECORD
        estimates = [len(t) + 16 + len(self.postings[t]) * 12 // r for t in terms]  # ~12 bytes a posting
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

    def _meta(self, bounds: list[str]) -> dict:
        return {
            "v": FORMAT_VERSION,
            "lunr": LUNR_JS_VERSION,
            "fields": [name for name, _ in FIELDS],
            "n": self.count,
            "bounds": bounds,
            "agents": sorted(self.agents, key=self.agents.get),
            "projects": sorted(self.projects, key=self.projects.get),
            "docs": self.docs.tolist(),
            "pack": PACK_EVENTS,
        }

    def encode(self, term: str, weights: ChunkWeights, norms: dict[str, list[float]]) -> list:
        """``[term, title docs, title weights, body docs, body weights, e1, (e2, (e3))]``; frees the term.

        Docs are delta-coded session numbers; weights are lunr.py's, in
        thousandths; ``e1`` holds, per body posting, the first event the term
        occurs in, ``e2``/``e3`` (present when any posting has them) the
        distance to the next, 0 meaning none.
        """
        arr = self.postings.pop(term)
        r = self.RECORD
        if len(arr) == r:  # one session: most of the vocabulary
            doc, ttf, btf, *events = arr
            idf = weights.idf((ttf > 0) + (btf > 0))
            entry: list[Any] = [term]
            entry += ([doc], weights.milli("title", idf, (doc,), (ttf,), norms["title"])) if ttf else ([], [])
            if not btf:
                return entry + [[], [], []]
            entry += ([doc], weights.milli("body", idf, (doc,), (btf,), norms["body"]), [events[0]])
            previous = events[0]
            for e in events[1:]:
                if e < 0:
                    break
                entry.append([e - previous])
                previous = e
            return entry
        docs, ttfs, btfs = arr[0::r], arr[1::r], arr[2::r]
        n_title = len(ttfs) - ttfs.count(0)
        n_body = len(btfs) - btfs.count(0)
        idf = weights.idf(n_title + n_body)
        entry = [term]
        body_rows = None
        for field, tfs, count in (("title", ttfs, n_title), ("body", btfs, n_body)):
            if not count:
                entry += ([], [])
                continue
            if count == len(tfs):
                field_docs, field_tfs = docs, tfs
            else:
                rows = [i for i, tf in enumerate(tfs) if tf]
                field_docs, field_tfs = [docs[i] for i in rows], [tfs[i] for i in rows]
                if field == "body":
                    body_rows = rows
            entry.append([d - p for d, p in zip(field_docs, [0, *field_docs[:-1]])])
            entry.append(weights.milli(field, idf, field_docs, field_tfs, norms[field]))
        previous = arr[3::r]
        if body_rows is not None:
            previous = [previous[i] for i in body_rows]
        entry.append(list(previous) if n_body else [])
        for slot in range(4, r):
            column = arr[slot::r]
            if body_rows is not None:
                column = [column[i] for i in body_rows]
            if not n_body or column.count(-1) == len(column):
                break
            entry.append([e - p if e >= 0 else 0 for e, p in zip(column, previous)])
            previous = column
        return entry
