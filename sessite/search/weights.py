"""lunr.py's weights, computed in batches per term, and a lunr.py index lunr.js can load.

Each term's weights are lunr.py's BM25 field-vector entries computed with the
archive's document count and average field lengths, i.e. exactly those of one
monolithic lunr.py index, though the index is published in chunks.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lunr.builder import Builder
from lunr.idf import idf as lunr_idf

from sessite.search.terms import utf16_key

FIELDS: tuple[tuple[str, int], ...] = (("title", 2), ("body", 1))  # name, lunr field boost


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
        return [self.milli_one(field, idf, tf, norms[doc]) for doc, tf in zip(docs, tfs)]

    def milli_one(self, field: str, idf: float, tf: int, norm: float) -> int:
        """``milli`` of a single posting (most terms have one), without the lists."""
        # lunr.py: score = idf * ((k1 + 1) * tf) / (k1 * (1 - b + b * (length / avg)) + tf); score *= boost
        return _thousandths(idf * ((self.k1 + 1) * tf) / (norm + tf) * self.boost[field])


def _thousandths(score: float) -> int:
    """lunr.py's ``round(score, 3)``, in thousandths. Away from a half-thousandth, that is
    ``round(score * 1000)``; near one, ask round() itself (it rounds the exact binary value,
    half to even)."""
    scaled = score * 1000
    milli = round(scaled)
    return milli if abs(scaled - milli) < 0.4999 else round(round(score, 3) * 1000)


def lunr_json(serialized: dict[str, Any]) -> dict[str, Any]:
    """A lunr.py ``Index.serialize()`` that lunr.js 2.3.9 can load.

    lunr.py sorts the inverted index by code point; lunr.js's TokenSet builder
    needs UTF-16 order and throws "Out of order word insertion" otherwise
    (one term with an astral-plane character next to one with a character
    from U+E000-U+FFFF is enough).
    """
    fixed = dict(serialized)
    fixed["invertedIndex"] = sorted(serialized["invertedIndex"], key=lambda item: utf16_key(item[0]))
    return fixed
