"""A search box's query as search-core.js reads it: its syntax, its words, its typed filters.

``syntax`` splits "quoted phrases", ``-word`` exclusions, filters (``agent:``,
``project:``, ``model:``, ``tool:``, ``after:``, ``before:``) and other words;
``parse_query`` makes the words lunr is asked for (an identifier's other spellings and
parts, two-word identifier guesses, question fillers); ``filter_test`` is a typed filter
as a test of a session number. Each mirrors the JavaScript function of the same name
(``parseQuery``, ``filterTest``): tests/search/test_query.py checks them against node.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sessite.search.terms import MAX_TERM, TOKEN, finish, normalize, terms_for

PREFIX_MIN = 3  # shorter words are matched exactly only
MAX_PAIRS = 8  # optional identifier words made of two typed words
MAX_WORDS = 24  # further words of a pasted paragraph are ignored
FILTERS = ("agent", "project", "model", "tool", "after", "before")
# a question's words that say little about which session it means (search-core.js FILLERS)
FILLERS = (
    "ask", "asked", "asking", "tell", "told", "want", "wanted", "need", "needed", "help", "please", "thing",
    "things", "something", "way", "use", "used", "using", "make", "made", "work", "worked", "question", "find",
    "found", "show", "know", "look", "try", "tried", "session", "sessions", "chat", "conversation", "talk",
    "talked", "remember", "earlier", "once", "again", "one",
)  # fmt: skip
_FILLER_TERMS = frozenset(filter(None, map(finish, FILLERS)))

# JavaScript's \s (what \S and trim() in search-core.js split and strip at)
_JS_SPACES = (
    "\t\n\v\f\r \u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_SYNTAX = re.compile(f'(-?)"([^"]*)"?|([^{re.escape(_JS_SPACES)}]+)')
_FILTER = re.compile(r"([A-Za-z]+):(.+)", re.DOTALL)
_DAY = re.compile(r"[0-9]{4}(-[0-9]{2}){0,2}")
_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


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
    avoid: bool = False  # a word of a -"phrase" of several: no lunr clause, read for the phrase check
    chain: bool = False  # a word of a phrase of several words: the phrase check reads its events
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
            inner = m.group(2).strip(_JS_SPACES)
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
    seen: dict[tuple[str, str, bool, bool], int] = {}

    def add(target: list[Word], w: Word) -> int:
        key = (w.exact, w.text, w.exclude, w.avoid)
        if key not in seen and len(words) + len(pairs) < MAX_WORDS:
            seen[key] = len(target)
            target.append(w)
        elif key in seen and w.phrase and seen[key] < len(target):
            target[seen[key]].phrase = True  # (the list it was seen in may be the other one, as in JS)
            target[seen[key]].chain = target[seen[key]].chain or w.chain
        return seen.get(key, -1)

    def stream(text: str, phrase: bool) -> None:
        last: str | None = None
        last_at = -1
        raws = TOKEN.findall(normalize(text))
        chain = phrase and len(raws) > 1
        for raw in raws:
            low = raw.lower()
            if len(low) > MAX_TERM:
                for t in terms_for(raw):
                    add(words, Word(t, t, False, phrase=phrase, chain=chain))
                last = None
                continue
            exact = finish(raw)
            if not exact:
                last = None
                continue
            w = Word(low, exact, len(low) >= PREFIX_MIN, phrase=phrase, chain=chain)
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
        # -"two words": no lunr clause; the phrase check drops the sessions holding them side by side
        raws = TOKEN.findall(normalize(text))
        several = len(raws) > 1
        for raw in raws:
            exact = finish(raw)
            if exact:
                add(words, Word(raw.lower(), exact, False, exclude=not several, avoid=several, chain=several))
    sought = [w for w in words if not w.exclude and not w.avoid]
    if all(w.filler for w in sought):  # a query of nothing but fillers means them
        for w in sought:
            w.filler = False
    return words + pairs if sought else []


@dataclass(frozen=True)
class Phrase:
    """A quoted phrase of several words as the phrase check compares it (``phrases`` in search-phrase.js)."""

    text: str
    keys: tuple[str, ...]
    avoid: bool  # a -"phrase"


def token_key(raw: str) -> str:
    """A token as the phrase check compares it: its index term, else (a stop word, one letter) itself in lower case."""
    return finish(raw) or raw.lower()


def phrases(query: str) -> list[Phrase]:
    """The quoted phrases of several words of a query, then its -"phrases" of several words."""
    parsed = syntax(query)
    out = []
    for texts, avoid in ((parsed.phrases, False), (parsed.exclude, True)):
        for text in texts:
            raws = TOKEN.findall(normalize(text))
            if len(raws) > 1:
                out.append(Phrase(text, tuple(map(token_key, raws)), avoid))
    return out


def holds(text: str, keys: tuple[str, ...]) -> bool:
    """Does ``text`` hold these token keys one after the other?"""
    toks = [token_key(raw) for raw in TOKEN.findall(normalize(text))]
    n = len(keys)
    return any(tuple(toks[i : i + n]) == keys for i in range(len(toks) - n + 1))


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
