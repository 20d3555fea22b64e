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
from collections.abc import Iterator
from functools import lru_cache

from lunr.stemmer import PorterStemmer
from lunr.stop_word_filter import WORDS as STOP_WORDS

__all__ = [
    "EVENTS_PER_POSTING",
    "INDEX_CHARS",
    "STOP_WORDS",
    "TOKEN",
    "count_terms",
    "stem",
    "terms_for",
    "tokens",
    "utf16_key",
]

INDEX_CHARS = 200_000  # text indexed per event (a huge tool output is indexed up to here)
EVENTS_PER_POSTING = 3  # events remembered per (term, session)
MIN_TERM, MAX_TERM = 2, 40

TOKEN = re.compile(r"\w+")  # a raw token: what ``terms_for`` takes
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
    for raw in TOKEN.findall(normalize(text)):
        yield from terms_for(raw)


def count_terms(text: str) -> Counter:
    counts: Counter = Counter()
    for raw, n in Counter(TOKEN.findall(normalize(text))).items():
        for term in terms_for(raw):
            counts[term] += n
    return counts


def utf16_key(term: str) -> bytes:
    """Sort key giving JavaScript's string order (UTF-16 code units), which lunr.js needs."""
    return term.encode("utf-16-be", "surrogatepass")
