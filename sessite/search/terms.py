"""Text to index terms, the same way the browser turns a query into terms.

Normalization is mirrored by ``static/search-core.js``: NFC, ``\\w+`` tokens,
identifiers also split at ``_`` and camelCase humps, lower case, lunr's stop
words and one-letter or over-long tokens dropped, pure a-z words stemmed like
lunr.js does (``LunrJsStemmer``). lunr.py's own pipeline is not used: its
trimmer and stemmer disagree with lunr.js.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from functools import lru_cache
from itertools import chain

from lunr.stemmer import PorterStemmer
from lunr.stop_word_filter import WORDS as STOP_WORDS

__all__ = [
    "EVENTS_PER_POSTING",
    "INDEX_CHARS",
    "STOP_WORDS",
    "TOKEN",
    "count_terms",
    "finish",
    "raw_tokens",
    "spaced",
    "stem",
    "terms_for",
    "TermTable",
    "tokens",
    "utf16_key",
    "utf16_sorted",
]

INDEX_CHARS = 200_000  # text indexed per event (a huge tool output is indexed up to here)
EVENTS_PER_POSTING = 3  # events remembered per (term, session)
MIN_TERM, MAX_TERM = 2, 40

TOKEN = re.compile(r"\w+")  # a raw token: what ``terms_for`` takes
_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_ASCII_WORD = re.compile(r"[a-z]+")
# ASCII bytes with every non-\w byte made a space: for ASCII text, ``\w+`` tokens are then
# plain ``split()`` pieces, which C finds 2-3 times faster than the regular expression.
_SPACES = bytes(c if chr(c).isalnum() or c == ord("_") else ord(" ") for c in range(256))


class LunrJsStemmer(PorterStemmer):
    """lunr.py's Porter stemmer with lunr.js's step 1c.

    lunr.py (like the reference C/Python Porter) turns a final y into i when
    the stem has a vowel ("key" -> "kei"); lunr.js only when the letter before
    the y is not a vowel and not the word's first letter ("key" stays, "try"
    -> "tri"). A term stemmed one way at build time and the other way in the
    browser is never found, so the build stems as lunr.js does. (Step 1a also
    differs, for the bare words "sses" and "ies" only.)
    """

    b: str  # lunr.py's state while stemming: the word, and the bounds of its stem
    k: int
    k0: int

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


def finish(candidate: str) -> str | None:
    """The index term of one raw token or part (None: too short, too long or a stop word); the
    query side (``query.py``) makes its words with it, as the build made the index's terms."""
    return _finish(candidate)


@lru_cache(maxsize=1 << 16)
def _finish_part(part: str) -> str | None:
    """``_finish`` of a part of an identifier: parts recur in many identifiers."""
    return _finish(part)


_TERMS: dict[str, tuple[str, ...]] = {}
_TERMS_LIMIT = 1 << 19


def _terms_uncached(raw: str) -> tuple[str, ...]:
    if not _ASCII_WORD.fullmatch(raw):  # (the common case, a plain lower-case word, has no parts)
        parts = list(filter(None, raw.split("_")))
        if raw != raw.lower():  # camelCase humps: each starts at an A-Z letter
            parts = [p for piece in parts for p in _HUMP.split(piece) if p]
        if parts != [raw]:
            return tuple(filter(None, (_finish(raw), *map(_finish_part, parts))))
    term = _finish(raw)
    return (term,) if term else ()


def terms_for(raw: str) -> tuple[str, ...]:
    """The index terms of one ``\\w+`` token: itself and, for identifiers, its parts."""
    terms = _TERMS.get(raw)
    if terms is None:
        if len(_TERMS) >= _TERMS_LIMIT:
            _TERMS.clear()
        terms = _TERMS[raw] = _terms_uncached(raw)
    return terms


class TermTable:
    """``terms_for`` of a session's raw tokens, looked up a set of them at a time in C-level passes.

    Made from every raw token of the session: each is looked up in the shared cache (or
    computed) once, into a table of the session's own.
    """

    def __init__(self, raws: set[str]) -> None:
        if len(_TERMS) >= _TERMS_LIMIT:
            _TERMS.clear()
        for raw in raws.difference(_TERMS):
            _TERMS[raw] = _terms_uncached(raw)
        self.known = dict(zip(raws, map(_TERMS.__getitem__, raws)))

    def terms(self, raws: set[str]) -> set[str]:
        """Every term of ``raws``."""
        return set(chain.from_iterable(map(self.known.__getitem__, raws)))

    def lists(self, raws: list[str]) -> list[tuple[str, ...]]:
        """The terms of each of ``raws``."""
        return list(map(self.known.__getitem__, raws))


def normalize(text: str) -> str:
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def spaced(text: str) -> str | None:
    """ASCII ``text`` with every non-word character made a space (its ``\\w+`` tokens are then its
    ``split()``), None when it is not ASCII."""
    if not text.isascii():
        return None
    return text.encode("ascii").translate(_SPACES).decode("ascii")


def raw_tokens(text: str) -> list[str]:
    """``TOKEN.findall(text)``, faster for ASCII text (nearly all of a session's text)."""
    words = spaced(text)
    return TOKEN.findall(text) if words is None else words.split()


def tokens(text: str) -> Iterator[str]:
    """Every index term of ``text`` in order (what lunr's tokenizer and pipeline would give)."""
    for raw in raw_tokens(normalize(text)):
        yield from terms_for(raw)


def count_terms(text: str) -> Counter:
    counts: Counter = Counter()
    for raw, n in Counter(raw_tokens(normalize(text))).items():
        for term in terms_for(raw):
            counts[term] += n
    return counts


def utf16_key(term: str) -> bytes:
    """Sort key giving JavaScript's string order (UTF-16 code units), which lunr.js needs."""
    return term.encode("utf-16-be", "surrogatepass")


def utf16_sorted(words: Iterable[str]) -> list[str]:
    """``words`` in JavaScript's order. Without astral-plane characters (whose UTF-16 surrogates
    sort below U+E000-U+FFFF) that is code point order: a plain sort, several times faster."""
    listed = list(words)
    joined = "".join(listed)
    if joined.isascii() or len(joined.encode("utf-16-le", "surrogatepass")) == 2 * len(joined):
        return sorted(listed)
    return sorted(listed, key=utf16_key)
