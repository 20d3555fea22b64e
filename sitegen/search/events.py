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

Tokens are compared as raw ``\\w+`` tokens (a term is visible where one of
the raw tokens that give it is); the per-event bookkeeping is set operations
on raw tokens (C speed), Python loops once per distinct raw token.
"""

from __future__ import annotations

from collections import Counter

from sitegen.search.terms import EVENTS_PER_POSTING, INDEX_CHARS, TOKEN, normalize, terms_for

NONE = -1  # no event


def _split(text: str, head_chars: int) -> tuple[list[str], list[str]]:
    """The raw tokens of ``text`` wholly within its first ``head_chars`` characters, and the rest.

    The snippet files keep at least those characters of an event (collapsing whitespace only
    shortens text), so these tokens are surely shown. Cutting before the word that straddles
    the limit keeps every token whole, and the text is tokenized once, as without a cut.
    """
    cut = head_chars
    while cut > 0 and (text[cut - 1] == "_" or text[cut - 1].isalnum()):  # Python's \w
        cut -= 1
    return TOKEN.findall(text, 0, cut), TOKEN.findall(text, cut)


class _Levels:
    """The first ``EVENTS_PER_POSTING`` events each raw token is seen in, kept as set operations."""

    def __init__(self) -> None:
        self.firsts: list[dict[str, int]] = [{} for _ in range(EVENTS_PER_POSTING)]
        self.seen: list[set[str]] = [set() for _ in range(EVENTS_PER_POSTING)]

    def add(self, index: int, tokens: set[str]) -> None:
        rest = tokens
        for firsts, seen in zip(self.firsts, self.seen):
            new = rest - seen
            if new:
                firsts.update(dict.fromkeys(new, index))
                seen |= new
                rest = rest - new
            if not rest:
                return

    def events(self, raw: str) -> tuple[int, ...] | None:
        """The events of ``raw`` in order, None when it was never seen."""
        first, *more = self.firsts
        e = first.get(raw)
        if e is None:
            return None
        out = [e]
        for firsts in more:
            e = firsts.get(raw)
            if e is None:
                break
            out.append(e)
        return tuple(out)


def session_counts(
    texts: list[str], head_chars: int | None = None
) -> tuple[dict[str, int], dict[str, tuple[int, ...]], dict[int, set[str]]]:
    """Term frequencies over a session's event texts, the events each term's results open at,
    and the raw tokens each event needs an excerpt of.

    ``texts[0]`` is the session header; the snippet files keep at least the first
    ``head_chars`` characters of every event (all of it when None). Events come as a tuple
    of ``EVENTS_PER_POSTING`` numbers in increasing order, -1 where there is none.
    """
    raw_counts: Counter = Counter()
    visible = _Levels()
    deep: dict[str, int] = {}  # raw token -> the first event holding it beyond its head only
    for index, text in enumerate(texts):
        if not text:
            continue
        text = normalize(text[:INDEX_CHARS])
        if index == 0 or head_chars is None or len(text) <= head_chars:
            raws = TOKEN.findall(text)
            raw_counts.update(raws)
            if index and raws:  # the header's tokens are counted, it is never a place to open a result at
                visible.add(index, set(raws))
            continue
        front, back = _split(text, head_chars)
        raw_counts.update(front)
        raw_counts.update(back)
        tokens = set(front)
        hidden = set(back) - tokens
        if hidden:
            for raw in hidden - deep.keys():
                deep[raw] = index
        if tokens:
            visible.add(index, tokens)
    return _per_term(raw_counts, visible, deep)


def _per_term(
    raw_counts: Counter, visible: _Levels, deep: dict[str, int]
) -> tuple[dict[str, int], dict[str, tuple[int, ...]], dict[int, set[str]]]:
    """Raw tokens' counts and events folded into their terms' (several raw tokens give one term:
    "Config", "configs", "config_path" all give "config"). Most terms come from one raw token:
    that path does no merging."""
    body: dict[str, int] = {}
    events: dict[str, tuple[int, ...]] = {}
    hidden: dict[str, tuple[int, str]] = {}  # term -> (first event holding it deep, the raw token there)
    lookup = visible.events
    count_of, hidden_of = body.get, hidden.get
    for raw, n in raw_counts.items():
        terms = terms_for(raw)
        if not terms:
            continue
        seen = lookup(raw)
        far = deep.get(raw)
        for term in terms:
            count = count_of(term)
            if count is None:
                body[term] = n
                if seen:
                    events[term] = seen
                if far is not None:
                    hidden[term] = (far, raw)
                continue
            body[term] = count + n
            if seen:
                known = events.get(term)
                if known is None:
                    events[term] = seen
                elif known != seen:
                    events[term] = tuple(sorted(set(known + seen))[:EVENTS_PER_POSTING])
            if far is not None:
                known_far = hidden_of(term)
                if known_far is None or far < known_far[0]:
                    hidden[term] = (far, raw)
    wanted: dict[int, set[str]] = {}
    pad = (NONE,) * EVENTS_PER_POSTING
    header = (0, *pad[1:])  # a term only in the header (whose terms are always shown whole)
    for term in body:
        at = events.get(term)
        if at is not None:
            if len(at) < EVENTS_PER_POSTING:
                events[term] = (at + pad)[:EVENTS_PER_POSTING]
        elif term in hidden:
            far, raw = hidden[term]
            events[term] = (far, *pad[1:])
            wanted.setdefault(far, set()).add(raw)
        else:
            events[term] = header
    return body, events, wanted
