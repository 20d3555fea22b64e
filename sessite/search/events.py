"""Which events of a session a term's result opens at, chosen so that its snippet can show the term.

A result opens its session at an event where the query's words occur, and its
snippet is cut from that event's text in the snippet files. Those keep only
the start of each event (its *head*, ``item.SNIPPET_CHARS``), so a word that
occurs only far down a long tool result would be invisible: the snippet
would show the start of a file listing. And the session header (event 0:
title, project, folder, id) is no event at all to a reader.

So per (term, session) the index records, in this order of preference:

1. up to ``EVENTS_PER_POSTING`` events whose head holds the term (header excluded);
2. else the first event that holds it further down: the snippet files then
   keep an *excerpt* of that event around the word (``excerpts.py``);
3. else the header.

Tokens are compared as raw ``\\w+`` tokens: a term is visible where one of
the raw tokens that give it is, so the first events of each term are kept from
the terms of each event's visible raw tokens. The work is done in C where it
can be: tokens are split from ASCII text without the regular expression, raw
tokens become terms a set at a time (``TermTable``) and the per-event
bookkeeping is set operations on those terms; Python loops once per distinct
raw token of a session, to add up its terms' frequencies.
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple, cast

from sessite.search.terms import EVENTS_PER_POSTING, INDEX_CHARS, TOKEN, TermTable, normalize, raw_tokens, spaced

NONE = -1  # no event


class SessionCounts(NamedTuple):
    """A session's terms in order of first occurrence, with their frequencies, the events each
    term's results open at (``EVENTS_PER_POSTING`` columns aligned with ``terms``, -1 where
    there is none), and per event the raw tokens it needs an excerpt of."""

    terms: list[str]
    counts: list[int]
    events: list[list[int]]
    wanted: dict[int, set[str]]


def _split(text: str, head_chars: int) -> tuple[list[str], list[str]]:
    """The raw tokens of ``text`` wholly within its first ``head_chars`` characters, and the rest.

    The snippet files keep at least those characters of an event (collapsing whitespace only
    shortens text), so these tokens are surely shown. Cutting before the word that straddles
    the limit keeps every token whole, and the text is tokenized once, as without a cut.
    """
    words = spaced(text)
    if words is not None:  # ASCII: the cut is just after the last non-word character in the head
        cut = words.rfind(" ", 0, head_chars) + 1
        return words[:cut].split(), words[cut:].split()
    cut = head_chars
    while cut > 0 and (text[cut - 1] == "_" or text[cut - 1].isalnum()):  # Python's \w
        cut -= 1
    return TOKEN.findall(text, 0, cut), TOKEN.findall(text, cut)


class _Levels:
    """The first ``EVENTS_PER_POSTING`` events each term is seen in, kept as set operations."""

    def __init__(self) -> None:
        self.firsts: list[dict[str, int]] = [{} for _ in range(EVENTS_PER_POSTING)]

    def add(self, index: int, terms: set[str]) -> None:
        """Event ``index`` holds ``terms``: each enters the first level it is not yet in."""
        rest = terms.difference(self.firsts[-1])  # those in every level already: most, late on
        for firsts in self.firsts:
            new = rest.difference(firsts)  # set minus dict: C, per term
            if new:
                firsts.update(dict.fromkeys(new, index))
                if len(new) == len(rest):
                    return
                rest = rest.difference(new)


def session_counts(texts: list[str], head_chars: int | None = None) -> SessionCounts:
    """Term frequencies over a session's event texts, the events each term's results open at,
    and the raw tokens each event needs an excerpt of.

    ``texts[0]`` is the session header; the snippet files keep at least the first
    ``head_chars`` characters of every event (all of it when None).
    """
    raw_counts: Counter = Counter()
    fronts: list[tuple[int, set[str]]] = []  # per event, the raw tokens its head shows
    deep: dict[str, int] = {}  # raw token -> the first event holding it beyond its head only
    for index, text in enumerate(texts):
        if not text:
            continue
        text = normalize(text[:INDEX_CHARS])
        if index == 0:  # the header's tokens are counted; it is never a place to open a result at
            raw_counts.update(raw_tokens(text))
            continue
        if head_chars is None or len(text) <= head_chars:
            front = set(tokens := raw_tokens(text))
            raw_counts.update(tokens)
        else:
            head, tail = _split(text, head_chars)
            raw_counts.update(head)
            raw_counts.update(tail)
            front = set(head)
            hidden = set(tail) - front
            if hidden and (new := hidden.difference(deep)):
                deep.update(dict.fromkeys(new, index))
        if front:
            fronts.append((index, front))
    vocabulary = TermTable(set(raw_counts))
    visible = _Levels()
    for index, front in fronts:
        visible.add(index, vocabulary.terms(front))
    return _per_term(raw_counts, vocabulary, visible, deep)


def _per_term(raw_counts: Counter, vocabulary: TermTable, visible: _Levels, deep: dict[str, int]) -> SessionCounts:
    """Raw tokens' counts folded into their terms' (several raw tokens give one term: "Config",
    "configs", "config_path" all give "config"), and each term's events."""
    raws = list(raw_counts)
    term_lists = vocabulary.lists(raws)
    body: dict[str, int] = {}
    count_of = body.get
    for raw_terms, n in zip(term_lists, raw_counts.values()):
        for term in raw_terms:
            body[term] = count_of(term, 0) + n
    terms = list(body)
    first, *more = visible.firsts
    opened = list(map(first.get, terms))
    wanted: dict[int, set[str]] = {}
    if None in opened:
        opened, wanted = _unseen(terms, opened, _deep_raws(raws, term_lists, deep, opened, terms))
    events = [cast("list[int]", opened)] + [[NONE if e is None else e for e in map(level.get, terms)] for level in more]
    return SessionCounts(terms, list(body.values()), events, wanted)


def _deep_raws(
    raws: list[str], term_lists: list[tuple[str, ...]], deep: dict[str, int], opened: list[int | None], terms: list[str]
) -> dict[str, tuple[int, str]]:
    """For terms never in a head: the first event holding them further down, and there the first
    raw token (in order of occurrence) giving the term."""
    missing = {term for term, event in zip(terms, opened) if event is None}
    found: dict[str, tuple[int, str]] = {}
    for raw, raw_terms in zip(raws, term_lists):
        far = deep.get(raw)
        if far is None:
            continue
        for term in missing.intersection(raw_terms):
            known = found.get(term)
            if known is None or far < known[0]:
                found[term] = (far, raw)
    return found


def _unseen(
    terms: list[str], opened: list[int | None], found: dict[str, tuple[int, str]]
) -> tuple[list[int | None], dict[int, set[str]]]:
    """The first events with those of the terms never in a head filled in (the excerpt event
    ``found`` gives, else the header, whose terms are always shown whole), and the raw tokens
    each excerpt event must show."""
    wanted: dict[int, set[str]] = {}
    filled = list(opened)
    for at, term in enumerate(terms):
        if filled[at] is None:
            hit = found.get(term)
            if hit is None:
                filled[at] = 0
            else:
                filled[at] = hit[0]
                wanted.setdefault(hit[0], set()).add(hit[1])
    return filled, wanted
