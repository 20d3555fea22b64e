"""The query side of the search index in Python: ``static/search-core.js``'s ranking, for agents.

The MCP server (``sessite.serve.mcp_server``) answers searches from the site's own
``search/`` files, so an agent gets the results, in the order and the groups, a reader
gets on ``search.html``: the search box's syntax ("quoted phrases", ``-word``, filters)
and the words are parsed as the browser parses them, only the term chunks the words need
are read, and sessions are grouped (every word whole, every word with an identifier
through its parts, some of the words) and scored per word by the BM25 weight of its best
term (the index's own, lunr.py's length-normalised weights) as ``search()`` in
search-core.js does. lunr.js itself is not run: the matching is set arithmetic on the
postings, and the score reads the postings' weights only. Typed filters (``agent:``,
``project:``, ``model:``, ``tool:``, ``after:``, ``before:``) apply after ranking, with
``search/facts.js``, as ``filterTest`` on the results page. tests/search/test_query.py
checks all of it against node running search-core.js.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from sessite.search.item import unpacked
from sessite.search.terms import MAX_TERM, TOKEN, finish, normalize, terms_for, utf16_key

PREFIX_MIN = 3  # shorter words are matched exactly only
MAX_PREFIX_CHUNKS = 6  # a prefix spanning more chunks than this is matched exactly only
MAX_EXPANSIONS = 100  # ... and so is one that expands to more terms than this
MAX_PAIRS = 8
MAX_WORDS = 24
MAX_PARTIAL = 200  # results with some of the words kept (the best)
MORE_EVENTS = 2  # events a result shows besides its own, for words its own lacks
EXACT, SPELLING, PREFIX, APART = 4, 3, 2, 1  # how well a word matched (search-core.js)
SHARE = (0.0, 0.4, 0.5, 0.9, 1.0)  # of a term's weight, by how it matched
PAIR_SHARE, FILLER_SHARE = 0.3, 0.2
WHOLE, APART_ONLY, PARTIAL = 0, 1, 2
MATCHES = ("whole", "apart", "partial")
FILTERS = ("agent", "project", "model", "tool", "after", "before")
# a question's words that say little about which session it means (search-core.js FILLERS)
FILLERS = (
    "ask", "asked", "asking", "tell", "told", "want", "wanted", "need", "needed", "help", "please", "thing",
    "things", "something", "way", "use", "used", "using", "make", "made", "work", "worked", "question", "find",
    "found", "show", "know", "look", "try", "tried", "session", "sessions", "chat", "conversation", "talk",
    "talked", "remember", "earlier", "once", "again", "one",
)  # fmt: skip
_FILLER_TERMS = frozenset(filter(None, map(finish, FILLERS)))

_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"  # JavaScript's \s
_SYNTAX = re.compile(f'(-?)"([^"]*)"?|([^{_JS_SPACE}]+)')
_FILTER = re.compile(r"([A-Za-z]+):(.+)", re.DOTALL)
_DAY = re.compile(r"[0-9]{4}(-[0-9]{2}){0,2}")
_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_CALL = re.compile(rb"sessiteSearch\.(\w+)\((.*)\);\n?", re.DOTALL)
_STRIP = "".join(chr(c) for c in (9, 10, 11, 12, 13, 32, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029))
_STRIP += "\u202f\u205f\u3000\ufeff"

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
    phrase: bool = False  # in a quoted phrase: required
    exclude: bool = False  # -word: sessions holding it are no result
    filler: bool = False  # a question's filler ("asked"): weighs little, never required
    pieces: list[str] = field(default_factory=list)
    broad: bool = False  # a prefix matched as a whole word only (too many terms)


@dataclass(frozen=True)
class Filter:
    key: str
    value: str
    raw: str


@dataclass
class Syntax:
    """A search box's parts: other words, "quoted phrases", -exclusions, filters."""

    text: list[str] = field(default_factory=list)
    phrases: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    filters: list[Filter] = field(default_factory=list)


@dataclass(frozen=True)
class Hit:
    """One ranked session: its number in the index, score, group (``match``), tier, the event it
    opens at, further events for words that one lacks (``also``: (event, keys)), the terms shown."""

    doc: int
    score: float
    match: str
    tier: int
    event: int
    terms: tuple[str, ...]
    also: tuple[tuple[int, tuple[int, ...]], ...] = ()

    @property
    def every_word(self) -> bool:
        """Every word matched (as a whole, or an identifier through its parts)."""
        return self.match != "partial"


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


def syntax(query: str) -> Syntax:
    """``syntax`` in search-core.js: phrases, -word and -"phrase", filters, other words."""
    out = Syntax()
    for m in _SYNTAX.finditer(query or ""):
        if m.group(2) is not None:
            inner = m.group(2).strip(_STRIP)
            if inner:
                (out.exclude if m.group(1) else out.phrases).append(inner)
            continue
        token = m.group(3)
        f = _FILTER.fullmatch(token)
        if f and f.group(1).lower() in FILTERS:
            out.filters.append(Filter(f.group(1).lower(), f.group(2), token))
        elif len(token) > 1 and token[0] == "-" and TOKEN.match(token[1]):
            out.exclude.append(token[1:])
        else:
            out.text.append(token)
    return out


def parse_query(query: str) -> list[Word]:
    """The words of a query, as ``parseQuery`` in search-core.js makes them."""
    words: list[Word] = []
    pairs: list[Word] = []
    seen: dict[tuple[str, str, bool], int] = {}

    def add(target: list[Word], w: Word) -> int:
        key = (w.exact, w.text, w.exclude)
        if key not in seen and len(words) + len(pairs) < MAX_WORDS:
            seen[key] = len(target)
            target.append(w)
        elif key in seen and w.phrase and seen[key] < len(target):
            target[seen[key]].phrase = True  # (the list it was seen in may be the other one, as in JS)
        return seen.get(key, -1)

    def stream(text: str, phrase: bool) -> None:
        last: str | None = None
        last_at = -1
        for raw in TOKEN.findall(normalize(text)):
            low = raw.lower()
            if len(low) > MAX_TERM:
                for t in terms_for(raw):
                    add(words, Word(t, t, False, phrase=phrase))
                last = None
                continue
            exact = finish(raw)
            if not exact:
                last = None
                continue
            w = Word(low, exact, len(low) >= PREFIX_MIN, phrase=phrase)
            pieces = [p.lower() for p in token_parts(raw)[1:]]
            if len(pieces) >= 2:
                w.pieces = pieces
                w.alts = _others(["_".join(pieces), "".join(pieces)], exact)
                parts = _others(pieces, exact)
                if len(parts) >= 2:
                    w.parts = parts
            w.filler = exact in _FILLER_TERMS and not w.pieces and not phrase
            at = add(words, w)
            if last and at >= 0 and last_at >= 0 and len(pairs) < MAX_PAIRS:
                joined = _others([f"{last}_{low}", last + low], None)
                if joined:
                    add(pairs, Word(f"{last} {low}", joined[0], False, joined[1:], optional=True, joins=(last_at, at)))
            last, last_at = low, at

    parsed = syntax(query)
    stream(" ".join(parsed.text), False)
    for phrase in parsed.phrases:
        stream(phrase, True)
    for text in parsed.exclude:
        for raw in TOKEN.findall(normalize(text)):
            exact = finish(raw)
            if exact:
                add(words, Word(raw.lower(), exact, False, exclude=True))
    sought = [w for w in words if not w.exclude]
    if all(w.filler for w in sought):  # a query of nothing but fillers means them
        for w in sought:
            w.filler = False
    return words + pairs if sought else []


def _named(names: list[Any], value: str) -> list[int]:
    """Names a typed filter value means: the same name (any case), else those containing it."""
    low = value.lower()
    same = [n for n, name in enumerate(names) if str(name).lower() == low]
    return same or [n for n, name in enumerate(names) if low in str(name).lower()]


def filter_test(f: Filter, meta: dict[str, Any], facts: dict[str, Any] | None) -> Callable[[int], bool]:
    """``filterTest`` in search-core.js: a typed filter as a test of a session number."""
    if f.key in ("agent", "project"):
        slot = 0 if f.key == "agent" else 1
        wanted = set(_named(meta["agents" if slot == 0 else "projects"], f.value))
        return lambda ref: meta["docs"][2 * ref + slot] in wanted
    if facts is None:
        return lambda ref: False  # its facts could not load: nothing passes unchecked
    if f.key in ("model", "tool"):
        names = set(_named(facts["models" if f.key == "model" else "tools"], f.value))
        lists = facts["m" if f.key == "model" else "t"]
        return lambda ref: any(n in names for n in (lists[ref] if ref < len(lists) else None) or [])
    day = f.value if _DAY.fullmatch(f.value) else ""
    days = facts["days"]

    def dated(ref: int) -> bool:
        start = (days[ref] if ref < len(days) else "") or ""
        if not day or not start:
            return False
        return start[: len(day)] >= day if f.key == "after" else start[: len(day)] <= day

    return dated


class SearchIndex:
    """A built site's ``search/`` files, read through ``load`` as a query needs them."""

    def __init__(self, load: Loader) -> None:
        self._load = load
        self.meta: dict[str, Any] = _registered(load("search/meta.js"), "meta") or {}
        if not self.meta:
            raise FileNotFoundError("search/meta.js")
        self.bounds: list[str] = self.meta["bounds"]
        self.fields: list[str] = self.meta.get("fields") or ["title", "body"]
        self._keys = [utf16_key(b) for b in self.bounds]
        self._facts: dict[str, Any] | None = None
        self._facts_read = False
        self.chunk = lru_cache(maxsize=256)(self._chunk)
        self.pack = lru_cache(maxsize=256)(self._pack)

    @property
    def count(self) -> int:
        return int(self.meta["n"])

    def agent_of(self, doc: int) -> str:
        return str(self.meta["agents"][self.meta["docs"][2 * doc]])

    def project_of(self, doc: int) -> str:
        return str(self.meta["projects"][self.meta["docs"][2 * doc + 1]])

    def facts(self) -> dict[str, Any] | None:
        """``search/facts.js`` (start days, models, tools), read once when a filter needs it."""
        if not self._facts_read:
            self._facts = _registered(self._load("search/facts.js"), "facts")
            self._facts_read = True
        return self._facts

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
                w.prefix, w.broad = False, True
                continue
            ids.update(range(lo, hi + 1))
        return sorted(ids)

    def ranked(self, words: list[Word]) -> list[Hit]:
        """search-core.js's ``run``: the sessions holding the words, grouped and best first."""
        chunks = self._plan(words)  # first: a prefix spanning too many chunks is matched whole only
        if not chunks or not any(not w.exclude for w in words):
            return []
        wanted = _wanted_by(words)
        entries = [e for n in chunks for e in self.chunk(n) if wanted(e[0])]
        # a prefix adding no term, or very many, is matched as a whole word only (as in the browser)
        narrowed = []
        for w in words:
            n = _expansions(w, entries) if w.prefix else 1
            w.broad = w.broad or n > MAX_EXPANSIONS
            if not 0 < n <= MAX_EXPANSIONS:
                narrowed.append(w)
        if narrowed:
            for w in narrowed:
                w.prefix = False
            keep = _wanted_by(words)
            entries = [e for e in entries if keep(e[0])]
        entries.sort(key=lambda e: utf16_key(e[0]))
        return _Ranking(words, entries, self.fields).hits()

    def search(self, query: str) -> list[Hit]:
        """The results ``search.html`` lists for ``query``: ranked, then its typed filters applied."""
        hits = self.ranked(parse_query(query))
        tests = [filter_test(f, self.meta, self.facts()) for f in syntax(query).filters]
        return [h for h in hits if all(test(h.doc) for test in tests)]


def _registered(data: bytes | None, kind: str) -> dict[str, Any] | None:
    """The data of a ``sessiteSearch.<kind>(...)`` file (None when missing or another kind)."""
    m = _CALL.fullmatch(data or b"")
    if m is None or m.group(1) != kind.encode():
        return None
    value = json.loads(m.group(2))
    return value if isinstance(value, dict) else None


def _expansions(w: Word, entries: list[list[Any]]) -> int:
    return sum(1 for e in entries if e[0] != w.exact and e[0].startswith(w.text))


def _wanted_by(words: list[Word]) -> Callable[[str], bool]:
    exact = {t for w in words for t in (w.exact, *w.alts, *w.parts)}
    prefixes = tuple(w.text for w in words if w.prefix)
    return lambda term: term in exact or (bool(prefixes) and term.startswith(prefixes))


def _key(i: int, part: int | None = None) -> int:
    """What a term shows of a query: word i whole, or part ``part`` of word i matched apart."""
    return i * 32 if part is None else i * 32 + 1 + part


class _Ranking:
    """search-core.js's ``search`` and ``explain`` over the postings of the query's terms."""

    def __init__(self, words: list[Word], entries: list[list[Any]], fields: list[str]) -> None:
        self.words = words
        # per field, per term: {session: weight}, and per term its entry (the body's events)
        self.postings: list[dict[str, dict[int, float]]] = []
        for f in range(len(fields)):
            by_term: dict[str, dict[int, float]] = {}
            for entry in entries:
                docs = by_term[entry[0]] = {}
                doc = 0
                for delta, weight in zip(entry[1 + 2 * f] or [], entry[2 + 2 * f] or []):
                    doc += delta
                    docs[doc] = weight / 1000
            self.postings.append(by_term)
        self.entries = {e[0]: e for e in entries}
        # where a session sits in a term's body postings: the column of its events
        self.at: dict[str, dict[int, int]] = {}
        body = fields.index("body") if "body" in fields else -1
        for entry in entries if body >= 0 else []:
            self.at[entry[0]] = {doc: k for k, doc in enumerate(itertools.accumulate(entry[1 + 2 * body] or []))}
        self._described: dict[str, tuple[list[int], list[int]]] = {}

    def describe(self, term: str) -> tuple[list[int], list[int]]:
        """Per word, how the term matches it (EXACT, SPELLING, PREFIX or 0) and its part bit."""
        hit = self._described.get(term)
        if hit is None:
            levels, parts = [], []
            for w in self.words:
                if term == w.exact:
                    levels.append(EXACT)
                elif term in w.alts:
                    levels.append(SPELLING)
                else:
                    levels.append(PREFIX if w.prefix and term.startswith(w.text) else 0)
                parts.append(1 << w.parts.index(term) if term in w.parts else 0)
            hit = self._described[term] = (levels, parts)
        return hit

    def matching(self) -> tuple[dict[int, list[str]], set[int]]:
        """lunr's query: each session's matched terms, in clause order, and the excluded sessions."""
        matched: dict[int, list[str]] = {}
        excluded: set[int] = set()
        known = list(self.entries)
        for w in self.words:
            if w.exclude:
                for by_term in self.postings:
                    excluded.update(by_term.get(w.exact, ()))
                continue
            clauses = [w.exact, *w.alts]
            if w.prefix:
                clauses += [t for t in known if t.startswith(w.text)]
            clauses += w.parts
            for term in clauses:
                for by_term in self.postings:
                    for doc in by_term.get(term, ()):
                        terms = matched.setdefault(doc, [])
                        if term not in terms:
                            terms.append(term)
        return matched, excluded

    def weight(self, term: str, doc: int) -> float:
        total = 0.0
        for by_term in self.postings:
            total += by_term.get(term, {}).get(doc, 0.0)
        return total

    def hits(self) -> list[Hit]:
        words = self.words
        matched, excluded = self.matching()
        found: list[tuple[int, int, int, int, float, list[int], list[str]]] = []
        for doc, terms in matched.items():
            if doc in excluded:
                continue
            levels = self.levels(terms)
            tier, group, content, lacks = 0, WHOLE, False, False
            for w, level in zip(words, levels):
                if w.optional or w.exclude:
                    continue
                lacks = lacks or (w.phrase and not level)
                content = content or bool(level and not w.filler)
                if w.filler:
                    continue
                if not level:
                    group = PARTIAL
                elif level == APART and group == WHOLE:
                    group = APART_ONLY
                tier += level
            if not content or lacks:
                continue
            best = [0.0] * len(words)
            for term in terms:
                described, parts = self.describe(term)
                weight = -1.0
                for i, w in enumerate(words):
                    share = (
                        0.0
                        if w.exclude
                        else SHARE[described[i]]
                        if described[i]
                        else SHARE[APART]
                        if parts[i] and levels[i] == APART
                        else 0.0
                    )
                    if not share:
                        continue
                    if weight < 0:
                        weight = self.weight(term, doc)
                    best[i] = max(best[i], weight * share)
            score = 0.0
            for w, b in zip(words, best):
                score += b * (PAIR_SHARE if w.optional else FILLER_SHARE if w.filler else 1)
            key = math.floor(score * 1e8 + 0.5)  # JavaScript's Math.round
            found.append((group, 0 if group == PARTIAL else tier, key, doc, score, levels, terms))
        found.sort(key=lambda r: (r[0], -r[1], -r[2], r[3]))
        partial = [r for r in found if r[0] == PARTIAL][MAX_PARTIAL:]
        if partial:
            found = found[: len(found) - len(partial)]
        return [self.explain(d, score, g, tier, levels, terms) for g, tier, _, d, score, levels, terms in found]

    def levels(self, terms: list[str]) -> list[int]:
        """Each word's level in a session: its best term's, APART when an identifier's parts all are there."""
        out = []
        for i, w in enumerate(self.words):
            best, parts = 0, 0
            for term in terms:
                levels, bits = self.describe(term)
                best, parts = max(best, levels[i]), parts | bits[i]
            if not best and w.parts and parts == (1 << len(w.parts)) - 1:
                best = APART
            out.append(best)
        return out

    def explain(self, doc: int, score: float, group: int, tier: int, levels: list[int], matched: list[str]) -> Hit:
        """The terms each word matched by (what a snippet marks) and the events to show."""
        terms: list[str] = []
        weights: list[int] = []
        keys_of: list[list[int]] = []
        for term in matched:
            mine, bits = self.describe(term)
            shown, of = 0, []
            for i, w in enumerate(self.words):
                level = levels[i]
                if level >= SPELLING:
                    shows = mine[i] >= SPELLING
                elif level == PREFIX:
                    shows = mine[i] == PREFIX
                else:
                    shows = level == APART and bits[i] != 0
                if not shows:
                    continue
                of.append(_key(i, w.parts.index(term)) if level == APART else _key(i))
                if w.joins:
                    of += [_key(w.joins[0]), _key(w.joins[1])]
                shown = max(shown, APART if level == APART else mine[i])
            if of:
                terms.append(term)
                weights.append(shown)
                keys_of.append(of)
        picked = self.pick_events(doc, terms, weights, keys_of)
        also = tuple((ev, tuple(keys)) for ev, keys in picked[1:])
        return Hit(doc, score, MATCHES[group], tier, picked[0][0], tuple(terms), also)

    def pick_events(
        self, doc: int, terms: list[str], weights: list[int], keys_of: list[list[int]]
    ) -> list[tuple[int, list[int]]]:
        """``pickEvents``: where a result opens (the event where its words' shown terms weigh most,
        a real event before the header, the earliest of equals), then up to MORE_EVENTS events
        for words the first lacks."""
        evs: list[int] = []
        rows: list[list[tuple[int, int]]] = []
        for term, weight, keys in zip(terms, weights, keys_of):
            for ev in self.events_of(term, doc):
                if ev not in evs:
                    evs.append(ev)
                    rows.append([])
                rows[evs.index(ev)] += [(key, weight) for key in keys]
        picked: list[tuple[int, list[int]]] = []
        have: set[int] = set()
        while len(picked) <= MORE_EVENTS:
            best, best_score, best_keys = -1, 0, []
            for ev, row in zip(evs, rows):
                score: dict[int, int] = {}
                for key, weight in row:
                    if key not in have:
                        score[key] = max(score.get(key, 0), weight)
                total = sum(score.values())
                if total > best_score or (total == best_score and total > 0 and ev != 0 and (best == 0 or ev < best)):
                    best, best_score, best_keys = ev, total, list(score)
            if best < 0:
                break
            picked.append((best, best_keys))
            have.update(best_keys)
        return picked or [(0, [])]

    def events_of(self, term: str, doc: int) -> list[int]:
        """The events (up to three) a term occurs in in a session: the postings' side table."""
        entry, at = self.entries.get(term), self.at.get(term, {}).get(doc)
        if entry is None or at is None or len(entry) <= 5:
            return []
        chain = [entry[5][at]]
        for column in entry[6:]:
            if at < len(column) and column[at] > 0:
                chain.append(chain[-1] + column[at])
            else:
                break
        return chain
