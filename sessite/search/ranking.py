"""search-core.js's ``search`` in Python: which sessions a query's words find, in which group and order.

Every session holding one of the words (not only a filler) is a result, unless it holds
an excluded word or lacks a quoted phrase's word. Results are grouped (every word as a
whole, every word with an identifier through its parts apart, some of the words),
ranked within a group by the sum of the words' match levels, then by the score: per
word, the BM25 weight of its best term in the session (the index's own, lunr.py's
length-normalised weights) times how it matched. lunr.js is not run: its matching here
is set arithmetic on the postings, and the score reads the postings' weights only.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from sessite.search.query_words import Phrase, Word, holds
from sessite.search.terms import utf16_key

MAX_PARTIAL = 200  # results with some of the words kept (the best)
MORE_EVENTS = 2  # events a result shows besides its own, for words its own lacks
EXACT, SPELLING, PREFIX, APART = 4, 3, 2, 1  # how well a word matched; results rank by their sum first
SHARE = (0.0, 0.4, 0.5, 0.9, 1.0)  # of a term's weight, by how it matched
PAIR_SHARE, FILLER_SHARE = 0.3, 0.2  # a two-word identifier guess, a question's filler: a little
WHOLE, APART_ONLY, PARTIAL = 0, 1, 2
MATCHES = ("whole", "apart", "partial")
MAX_CHECKED = 60  # results the phrase check reads the text of at most (search-phrase.js)
MAX_EDITS, NEAREST = 2, 3  # "no results" names up to 3 index terms within 2 edits of a word

Nearest = tuple[str, list[str]]  # a word the index lacks, the index terms nearest it


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
    check: tuple[int, ...] = ()  # with a phrase of several words: the events the phrase check reads
    phrase: bool | None = None  # every quoted phrase found (None: not checked, or no phrase)
    checked: bool = False  # the phrase check read its text

    @property
    def every_word(self) -> bool:
        """Every word matched (as a whole, or an identifier through its parts)."""
        return self.match != "partial"


def _key(i: int, part: int | None = None) -> int:
    """What a term shows of a query: word i whole, or part ``part`` of word i matched apart."""
    return i * 32 if part is None else i * 32 + 1 + part


class Ranking:
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
                if w.avoid:  # read for the phrase check only
                    levels.append(0)
                    parts.append(0)
                    continue
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
            if w.avoid:
                continue
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
                if w.optional or w.exclude or w.avoid:
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
        hits = [self.explain(d, score, g, tier, levels, terms) for g, tier, _, d, score, levels, terms in found]
        if any(w.chain for w in words):
            hits = [replace(h, check=self.phrase_events(h.doc)) for h in hits]
        return hits

    def phrase_events(self, doc: int) -> tuple[int, ...]:
        """``phraseEvents``: the events holding the words of a phrase of several words, and the header."""
        evs = {0}
        for w in self.words:
            if w.chain:
                evs.update(self.events_of(w.exact, doc))
        return tuple(sorted(evs))

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


def nearest(words: list[Word], entries: list[list[Any]]) -> list[Nearest]:
    """search-core.js's ``nearest``: per sought word no term of these chunks matches, up to NEAREST
    terms within MAX_EDITS edits of it (the closest, then the most used)."""
    out: list[Nearest] = []
    for w in words:
        if w.exclude or w.optional or w.avoid:
            continue
        found, known = [], False
        for entry in entries:
            term = entry[0]
            known = known or term == w.exact or term in w.alts or (w.prefix and term.startswith(w.text))
            if term == w.exact or abs(len(term) - len(w.exact)) > MAX_EDITS:
                continue
            d = _distance(term, w.exact)
            if d <= MAX_EDITS:
                found.append((d, -(len(entry[1] or []) + len(entry[3] or [])), utf16_key(term), term))
        if found and not known:
            out.append((w.text, [f[3] for f in sorted(found)[:NEAREST]]))
    return out


def _distance(a: str, b: str) -> int:
    """Edit distance of two short strings (a query word and an index term)."""
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        diagonal, row[0] = row[0], i
        for j in range(1, len(b) + 1):
            diagonal, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1]))
    return row[len(b)]


# An event's entry in the snippet files ([anchor, label, head, page?, excerpts?], 0 when it keeps
# none), None when its file could not be read.
EntryOf = Callable[[int, int], Any]


def check_phrases(hits: list[Hit], phrases: list[Phrase], entry_of: EntryOf) -> list[Hit]:
    """search-phrase.js's ``check``: the first MAX_CHECKED hits' ``check`` events searched
    for each phrase, its words one after the other, in the text the snippet files keep; a hit
    holding a -"phrase" is dropped, the hits holding every quoted phrase come first."""
    if not phrases:
        return hits
    wanted = sum(1 for p in phrases if not p.avoid)
    kept: list[Hit] = []
    for n, h in enumerate(hits):
        if n >= MAX_CHECKED:
            kept.append(replace(h, checked=False, phrase=None))
            continue
        found = [-1] * len(phrases)
        missing = False
        for ev in [h.event, *(e for e in h.check or (0,) if e != h.event)]:
            entry = entry_of(h.doc, ev)
            if entry is None:
                missing = True
                continue
            if not entry:
                continue
            texts = [str(entry[2] or "") if len(entry) > 2 else "", *(entry[4] if len(entry) > 4 else [])]
            for k, p in enumerate(phrases):
                if found[k] < 0 and any(holds(t, p.keys) for t in texts):
                    found[k] = ev
        if any(p.avoid and found[k] >= 0 for k, p in enumerate(phrases)):
            continue
        checked = not missing
        if not wanted:
            kept.append(replace(h, checked=checked))
            continue
        every = all(p.avoid or found[k] >= 0 for k, p in enumerate(phrases))
        at = next(found[k] for k, p in enumerate(phrases) if not p.avoid)
        if every and at != h.event:
            h = replace(h, event=at, also=tuple(a for a in h.also if a[0] != at))
        kept.append(replace(h, checked=checked, phrase=True if every else False if checked else None))
    if not wanted:
        return kept
    return sorted(kept, key=lambda h: h.phrase is not True)  # stable: the found ones first
