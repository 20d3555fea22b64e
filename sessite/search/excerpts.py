"""Excerpts of a long event around the words its head does not show, kept in the snippet files.

The snippet files keep the start of every event; ``events.session_counts``
names, per event, the raw tokens that occur only further down it and nowhere
visible in the session. For those the snippet of a result must still show the
word, so the event's entry also keeps a short window of text around the first
occurrence of each (windows that touch are merged, and an event keeps at most
``EXCERPT_BUDGET`` characters of them: a huge file listing does not become a
copy of itself).
"""

from __future__ import annotations

from sessite.search.terms import INDEX_CHARS, normalize, spaced

EXCERPT_CONTEXT = 60  # characters kept on each side of the word
TIGHT_CONTEXT = 24  # ... when that would go over the budget
EXCERPT_BUDGET = 8_000  # characters of excerpts one event keeps at most
_JOIN = 12  # windows closer than this become one


def _is_word(char: str) -> bool:
    return char == "_" or char.isalnum()


def _first(text: str, raw: str) -> int:
    """Where ``raw`` first occurs as a whole ``\\w+`` token of ``text`` (-1: nowhere)."""
    at = text.find(raw)
    while at >= 0:
        end = at + len(raw)
        if (at == 0 or not _is_word(text[at - 1])) and (end == len(text) or not _is_word(text[end])):
            return at
        at = text.find(raw, at + 1)
    return -1


def _firsts(text: str, raws: set[str], after: int) -> list[tuple[int, int]]:
    """``(position, length)`` of the first whole-token occurrence of each of ``raws`` found in ``text``,
    none of them being a token wholly within its first ``after`` characters."""
    words = spaced(text)
    if words is None:
        found = ((_first(text, raw), len(raw)) for raw in raws)
    else:  # ASCII: a whole token is one found between spaces, in one C search from the first token after the head
        padded = f" {words} "
        start = words.rfind(" ", 0, after) + 1
        found = ((padded.find(f" {raw} ", start), len(raw)) for raw in raws)
    return sorted(at for at in found if at[0] >= 0)


def _window(text: str, start: int, end: int, context: int) -> tuple[int, int]:
    """``start:end`` widened by ``context`` and cut at spaces, never inside a word: a run with no
    space nearby is not widened into (a part of a token cut out of its run could read as a key)."""
    left = max(0, start - context)
    right = min(len(text), end + context)
    if left > 0:
        space = text.find(" ", left, start)
        left = space + 1 if space >= 0 else start
    if right < len(text):
        space = text.rfind(" ", end, right)
        right = space if space >= 0 else end
    return left, right


def _spans(text: str, found: list[tuple[int, int]], context: int) -> list[list[int]]:
    """Merged windows around ``(position, length)`` occurrences in text order."""
    spans: list[list[int]] = []
    for at, length in found:
        left, right = _window(text, at, at + length, context)
        if spans and left <= spans[-1][1] + _JOIN:
            spans[-1][1] = max(spans[-1][1], right)
        else:
            spans.append([left, right])
    return spans


def excerpts(text: str, raws: set[str], after: int = 0) -> list[str]:
    """Windows of ``text`` around the first occurrence of each of ``raws``, in text order, one line each.

    None of ``raws`` is a token wholly within the first ``after`` characters (the head the
    snippet files keep anyway): the search for them starts past it.

    When the windows would hold more than ``EXCERPT_BUDGET`` characters (a long listing
    where every line has a word of its own), they are narrowed; then plain numbers (line
    numbers, mostly) lose theirs; then the last windows are dropped.
    """
    text = normalize(text[:INDEX_CHARS])  # the tokens were found in the normalized text
    found = _firsts(text, raws, after)
    spans = _spans(text, found, EXCERPT_CONTEXT)
    if sum(right - left for left, right in spans) > EXCERPT_BUDGET:
        spans = _spans(text, found, TIGHT_CONTEXT)
    if sum(right - left for left, right in spans) > EXCERPT_BUDGET:
        words = [(at, length) for at, length in found if not text[at : at + length].isdigit()]
        spans = _spans(text, words, TIGHT_CONTEXT)
    out: list[str] = []
    used = 0
    for left, right in spans:
        piece = " ".join(text[left:right].split())
        if used + len(piece) > EXCERPT_BUDGET:  # keep what fits of the last one
            cut = piece.rfind(" ", 0, EXCERPT_BUDGET - used)
            if cut > 0:
                out.append(piece[:cut])
            break
        out.append(piece)
        used += len(piece)
    return out
