"""The query side of the search index in Python: ``static/search-core.js``'s ranking, for agents.

The MCP server (``sessite.serve.mcp_server``) answers searches from the site's own
``search/`` files, so an agent gets the results, in the order and the groups, a reader
gets on ``search.html``: the query is read as the browser reads it (``query_words``),
only the term chunks its words need are read (``plan`` and ``serialize`` in
search-core.js), the sessions are ranked as ``search()`` ranks them (``ranking``), and
typed filters apply after ranking, with ``search/facts.js``, as on the results page. Quoted
phrases of several words are checked on the snippet files' text (``check_phrases``), as the
results page checks them.
tests/search/test_query.py and benchmarks/query_parity.py check it against node running
search-core.js.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from sessite.search.item import unpacked
from sessite.search.query_words import Filter, Syntax, Word, filter_test, parse_query, phrases, syntax
from sessite.search.ranking import Hit, Nearest, Ranking, check_phrases, nearest
from sessite.search.terms import utf16_key

__all__ = ["Filter", "Hit", "Nearest", "SearchIndex", "Syntax", "Word", "parse_query", "phrases", "syntax"]

MAX_PREFIX_CHUNKS = 6  # a prefix spanning more chunks than this is matched exactly only
MAX_EXPANSIONS = 100  # ... and so is one that expands to more terms than this

_CALL = re.compile(rb"sessiteSearch\.(\w+)\((.*)\);\n?", re.DOTALL)

Loader = Callable[[str], bytes | None]  # a site-relative URL's bytes, None when missing


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

    def entry(self, doc: int, event: int) -> Any:
        """The event's entry in the snippet files (0 when they keep none of it), None when its file
        is missing: what the phrase check reads."""
        size = int(self.meta.get("pack", 128))
        data = self.pack(doc, event // size)
        events = data.get("ev")
        if not isinstance(events, list):
            return None
        at = event - data.get("i", 0)
        return events[at] if 0 <= at < len(events) else None

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

    def _ranked(self, words: list[Word], chunks: list[int]) -> list[Hit]:
        """search-core.js's ``search`` on the index ``serialize`` builds: grouped, best first."""
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
        return Ranking(words, entries, self.fields).hits()

    def run(self, query: str) -> tuple[list[Hit], list[Nearest]]:
        """The results ``search.html`` lists for ``query`` (ranked, then its typed filters applied)
        and, when the words found nothing, the index terms nearest the words it lacks."""
        words = parse_query(query)
        chunks = self._plan(words)  # first: a prefix spanning too many chunks is matched whole only
        # quoted phrases of several words (search-phrase.js, loaded when a word is of one)
        checked = phrases(query) if any(w.chain for w in words) else []
        hits = check_phrases(self._ranked(words, chunks), checked, self.entry)
        near = [] if hits else nearest(words, [e for n in chunks for e in self.chunk(n)])
        tests = [filter_test(f, self.meta, self.facts()) for f in syntax(query).filters]
        return [h for h in hits if all(test(h.doc) for test in tests)], near

    def search(self, query: str) -> list[Hit]:
        return self.run(query)[0]


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
