"""The query side of the search index in Python: ``static/search-core.js``'s ranking, for agents.

The MCP server (``sessite.serve.mcp_server``) answers searches from the site's own
``search/`` files, so an agent gets the results, in the order, a reader gets on
``search.html``: the query is parsed into words as the browser parses it (exact
term boost 10, other spellings of an identifier, prefix boost 1, identifier parts
boost 1, optional two-word identifiers), only the term chunks the words need are
read, and each session is scored the way lunr.js 2.3.9 scores it (per field, the
query vector's dot product with the field vector over the query vector's length,
summed over fields), then ranked by how well its words matched first. lunr.js
itself is not run: its scoring is a few lines, and its TokenSet needs the patch the
browser applies (``patchTokenSet``) which lunr.py lacks.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from sessite.search.item import unpacked
from sessite.search.terms import MAX_TERM, TOKEN, finish, normalize, utf16_key

PREFIX_MIN = 3  # shorter words are matched exactly only
MAX_PREFIX_CHUNKS = 6  # a prefix spanning more chunks than this is matched exactly only
MAX_EXPANSIONS = 100  # ... and so is one that expands to more terms than this
EXACT_BOOST, PREFIX_BOOST, PART_BOOST = 10, 1, 1
MAX_PAIRS = 8
MAX_WORDS = 24
EXACT, SPELLING, PREFIX, APART = 4, 3, 2, 1  # how well a word matched (search-core.js)

_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_META = re.compile(rb"sessiteSearch\.meta\((.*)\);\n?", re.DOTALL)

Loader = Callable[[str], bytes | None]  # a site-relative URL's bytes, None when missing


@dataclass
class Word:
    text: str
    exact: str
    prefix: bool
    alts: list[str] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)
    optional: bool = False
    joins: tuple[int, int] | None = None  # a two-word identifier: the words it is made of


@dataclass(frozen=True)
class Hit:
    """One ranked session: its number in the index, lunr's score, its match tier, the event it opens at."""

    doc: int
    score: float
    tier: int
    event: int
    terms: tuple[str, ...]


def token_parts(raw: str) -> list[str]:
    """The raw pieces of one token: itself, then its ``_`` and camelCase parts when it has any."""
    parts = [p for piece in raw.split("_") if piece for p in _HUMP.split(piece) if p]
    return [raw] if parts == [raw] else [raw, *parts]


def _others(candidates: list[str], exact: str | None) -> list[str]:
    out: list[str] = []
    for c in candidates:
        t = finish(c)
        if t and t != exact and t not in out:
            out.append(t)
    return out


def parse_query(query: str) -> list[Word]:
    """The words of a query, as ``parseQuery`` in search-core.js makes them."""
    words: list[Word] = []
    pairs: list[Word] = []
    seen: dict[tuple[str, str], int] = {}

    def add(target: list[Word], w: Word) -> int:
        key = (w.exact, w.text)
        if key not in seen and len(words) + len(pairs) < MAX_WORDS:
            seen[key] = len(target)
            target.append(w)
        return seen.get(key, -1)

    last: str | None = None
    last_at = -1
    for raw in TOKEN.findall(normalize(query)):
        low = raw.lower()
        if len(low) > MAX_TERM:
            for t in filter(None, map(finish, token_parts(raw))):
                add(words, Word(t, t, False))
            last = None
            continue
        exact = finish(raw)
        if not exact:
            last = None
            continue
        w = Word(low, exact, len(low) >= PREFIX_MIN)
        pieces = [p.lower() for p in token_parts(raw)[1:]]
        if len(pieces) >= 2:
            w.alts = _others(["_".join(pieces), "".join(pieces)], exact)
            parts = _others(pieces, exact)
            if len(parts) >= 2:
                w.parts = parts
        at = add(words, w)
        if last and at >= 0 and last_at >= 0 and len(pairs) < MAX_PAIRS:
            joined = _others([f"{last}_{low}", last + low], None)
            if joined:
                add(pairs, Word(f"{last} {low}", joined[0], False, joined[1:], optional=True, joins=(last_at, at)))
        last, last_at = low, at
    return words + pairs


class SearchIndex:
    """A built site's ``search/`` files, read through ``load`` as a query needs them."""

    def __init__(self, load: Loader) -> None:
        self._load = load
        data = load("search/meta.js")
        m = _META.fullmatch(data or b"")
        if m is None:
            raise FileNotFoundError("search/meta.js")
        self.meta: dict[str, Any] = json.loads(m.group(1))
        self.bounds: list[str] = self.meta["bounds"]
        self._keys = [utf16_key(b) for b in self.bounds]
        self.chunk = lru_cache(maxsize=256)(self._chunk)
        self.pack = lru_cache(maxsize=256)(self._pack)

    @property
    def count(self) -> int:
        return int(self.meta["n"])

    def agent_of(self, doc: int) -> str:
        return str(self.meta["agents"][self.meta["docs"][2 * doc]])

    def project_of(self, doc: int) -> str:
        return str(self.meta["projects"][self.meta["docs"][2 * doc + 1]])

    def _chunk(self, number: int) -> list[list[Any]]:
        body = unpacked(self._load(f"search/t/{number}.js") or b"")
        return json.loads(body) if body is not None else []

    def _pack(self, doc: int, pack: int) -> dict[str, Any]:
        body = unpacked(self._load(f"search/f/{doc // 1000}/{doc}-{pack}.js") or b"")
        return json.loads(body) if body is not None else {}

    def snippet(self, doc: int, event: int) -> tuple[dict[str, Any], list[Any] | None]:
        """The session's head (t title, a agent, p project, d date, u url) and the event's entry
        ``[anchor, label, text head, page?, excerpts?]`` (None when the index kept none)."""
        size = int(self.meta.get("pack", 128))
        data = self.pack(doc, event // size)
        events = data.get("ev") or []
        entry = events[event - data.get("i", 0)] if 0 <= event - data.get("i", 0) < len(events) else None
        head = {k: data.get(k) for k in ("t", "a", "p", "d", "u")}
        return head, entry if isinstance(entry, list) else None

    def _chunk_of(self, term: str) -> int:
        key, lo, hi, found = utf16_key(term), 0, len(self._keys) - 1, 0
        while lo <= hi:
            mid = (lo + hi) // 2
            if self._keys[mid] <= key:
                found, lo = mid, mid + 1
            else:
                hi = mid - 1
        return found

    def _plan(self, words: list[Word]) -> list[int]:
        ids: set[int] = set()
        if not self.bounds:
            return []
        for w in words:
            ids.update(self._chunk_of(t) for t in [w.exact, *w.alts, *w.parts])
            if not w.prefix:
                continue
            lo = hi = self._chunk_of(w.text)
            while hi + 1 < len(self.bounds) and self.bounds[hi + 1].startswith(w.text):
                hi += 1
            if hi - lo + 1 > MAX_PREFIX_CHUNKS:
                w.prefix = False
                continue
            ids.update(range(lo, hi + 1))
        return sorted(ids)

    def search(self, query: str) -> list[Hit]:
        """Every session matching each word of ``query``, best first (search-core.js's order)."""
        words = parse_query(query)
        if not words:
            return []
        chunks = self._plan(words)  # first: a prefix spanning too many chunks is matched whole only
        wanted = _wanted_by(words)
        entries = [e for n in chunks for e in self.chunk(n) if wanted(e[0])]
        # a prefix adding no term, or very many, is matched as a whole word only (as in the browser)
        narrowed = [w for w in words if w.prefix and not 0 < _expansions(w, entries) <= MAX_EXPANSIONS]
        if narrowed:
            for w in narrowed:
                w.prefix = False
            keep = _wanted_by(words)
            entries = [e for e in entries if keep(e[0])]
        entries.sort(key=lambda e: utf16_key(e[0]))
        return _rank(words, entries)


def _expansions(w: Word, entries: list[list[Any]]) -> int:
    return sum(1 for e in entries if e[0] != w.exact and e[0].startswith(w.text))


def _wanted_by(words: list[Word]) -> Callable[[str], bool]:
    exact = {t for w in words for t in (w.exact, *w.alts, *w.parts)}
    prefixes = tuple(w.text for w in words if w.prefix)
    return lambda term: term in exact or (bool(prefixes) and term.startswith(prefixes))


def _level(term: str, w: Word) -> int:
    if term == w.exact:
        return EXACT
    if term in w.alts:
        return SPELLING
    if w.prefix and term.startswith(w.text):
        return PREFIX
    return 0


def _rank(words: list[Word], entries: list[list[Any]]) -> list[Hit]:
    """lunr.js's ``Index.query`` with search-core.js's clauses, then its tiers and order."""
    fields = ("title", "body")
    query_vec: dict[str, dict[int, float]] = {f: {} for f in fields}
    # per field and document: {term index: weight}; per document: matched terms
    field_vec: dict[str, dict[int, dict[int, float]]] = {f: {} for f in fields}
    matched: dict[int, list[str]] = {}
    events: dict[str, dict[int, list[int]]] = {}
    index_of = {e[0]: i for i, e in enumerate(entries)}
    for i, entry in enumerate(entries):
        for f, name in enumerate(fields):
            doc = 0
            for delta, weight in zip(entry[1 + 2 * f] or [], entry[2 + 2 * f] or []):
                doc += delta
                field_vec[name].setdefault(doc, {})[i] = weight / 1000
        body_docs = _absolute(entry[3] or [])
        if body_docs and len(entry) > 5:
            columns = entry[5:]
            per_doc: dict[int, list[int]] = {}
            for k, doc in enumerate(body_docs):
                first = columns[0][k]
                chain = [first]
                for col in columns[1:]:
                    if k < len(col) and col[k] > 0:
                        chain.append(chain[-1] + col[k])
                    else:
                        break
                per_doc[doc] = chain
            events[entry[0]] = per_doc
    for w in words:
        clauses = [(w.exact, EXACT_BOOST, False), *((a, EXACT_BOOST, False) for a in w.alts)]
        if w.prefix:
            clauses.append((w.text, PREFIX_BOOST, True))
        clauses += [(p, PART_BOOST, False) for p in w.parts]
        for text, boost, wildcard in clauses:
            expanded = [e[0] for e in entries if e[0].startswith(text)] if wildcard else [text]
            for term in expanded:
                t = index_of.get(term)
                if t is None:
                    continue
                for f, name in enumerate(fields):
                    query_vec[name][t] = query_vec[name].get(t, 0) + boost
                    doc = 0
                    for delta in entries[t][1 + 2 * f] or []:
                        doc += delta
                        terms = matched.setdefault(doc, [])
                        if term not in terms:
                            terms.append(term)
    scores: dict[int, float] = {}
    for name in fields:
        qv = query_vec[name]
        magnitude = math.sqrt(sum(v * v for _, v in sorted(qv.items())))
        for doc, fv in field_vec[name].items():
            common = sorted(set(fv) & set(qv))
            if not common:
                continue
            similarity = sum(qv[t] * fv[t] for t in common) / magnitude if magnitude else 0.0
            scores[doc] = scores[doc] + similarity if doc in scores else similarity
    hits: list[Hit] = []
    for doc, score in scores.items():
        terms = matched.get(doc, [])
        levels = []
        for w in words:
            best = max((_level(t, w) for t in terms), default=0)
            if not best and w.parts and all(p in terms for p in w.parts):
                best = APART
            levels.append(best)
        if any(not level for w, level in zip(words, levels) if not w.optional):
            continue
        hits.append(Hit(doc, score, sum(levels), _first_event(doc, terms, words, levels, events), tuple(terms)))
    hits.sort(key=lambda h: (-h.tier, -round(h.score * 1e8), h.doc))
    return hits


def _absolute(deltas: list[int]) -> list[int]:
    out, doc = [], 0
    for d in deltas:
        doc += d
        out.append(doc)
    return out


def _first_event(
    doc: int, terms: list[str], words: list[Word], levels: list[int], events: dict[str, dict[int, list[int]]]
) -> int:
    """Where a result opens (``pickEvents``'s first pick): the event where the words its terms
    show weigh most (a word, or each part of an identifier matched apart, counted once by its
    best term there), a real event before the header (0), the earliest of equals."""
    rows: dict[int, dict[int, int]] = {}  # event -> {key: best weight}, events in first-seen order
    for term in terms:
        keys, weight = [], 0
        for i, w in enumerate(words):
            level, mine = levels[i], _level(term, w)
            part = term in w.parts
            if level >= SPELLING:
                shows = mine >= SPELLING
            elif level == PREFIX:
                shows = mine == PREFIX
            else:
                shows = level == APART and part
            if not shows:
                continue
            keys.append(i * 32 + 1 + w.parts.index(term) if level == APART else i * 32)
            if w.joins:
                keys += [w.joins[0] * 32, w.joins[1] * 32]
            weight = max(weight, APART if level == APART else mine)
        if not keys:
            continue
        for ev in events.get(term, {}).get(doc, []):
            row = rows.setdefault(ev, {})
            for key in keys:
                row[key] = max(row.get(key, 0), weight)
    best, best_score = -1, 0
    for ev, row in rows.items():
        score = sum(row.values())
        if score > best_score or (score == best_score and score > 0 and ev != 0 and (best == 0 or ev < best)):
            best, best_score = ev, score
    return max(best, 0)
