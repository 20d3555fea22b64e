"""The marker redaction leaves (``[REDACTED:kind]``), and where the values it replaced were.

A redacted string is the original with some stretches replaced by markers: the text
between the markers is the original's, in order. Lining those literals up against
the original tells what each marker hides (``sessite check``) and where (the second
look through escapes, ``normalize``, which maps each stretch back to the text as written).
"""

from __future__ import annotations

import re

MARKER = re.compile(r"\[REDACTED:([A-Za-z0-9][A-Za-z0-9_.\-]*)\]")


def fill_holes(original: str, literals: list[str]) -> list[str] | None:
    """What fills the gaps between ``literals`` in ``original`` (see ``hole_spans``), or None."""
    spans = hole_spans(original, literals)
    return None if spans is None else [original[start:end] for start, end in spans]


def hole_spans(original: str, literals: list[str]) -> list[tuple[int, int]] | None:
    """Where each gap between ``literals`` lies in ``original`` (each gap taken as short as it can
    be, left to right: one pass, no backtracking), or None when they do not line it up.

    A rule may redact a stretch that holds the start of an earlier rule's marker
    (``url: postgres://u:[REDACTED:url-password`` as a whole), which leaves that marker's
    closing bracket behind: a literal is also looked for without its leading brackets."""
    first, last = literals[0], literals[-1]
    if not original.endswith(last):
        last = last.lstrip("]")
    if not original.startswith(first) or not original.endswith(last):
        return None
    pos, end = len(first), len(original) - len(last)
    spans = []
    for literal in literals[1:-1]:
        found = original.find(literal, pos + 1, end) if literal else pos + 1
        if found < 0 and literal.startswith("]"):
            literal = literal.lstrip("]")
            found = original.find(literal, pos + 1, end) if literal else pos + 1
        if found < 0:
            return None
        spans.append((pos, found))
        pos = found + len(literal)
    if end <= pos:
        return None
    spans.append((pos, end))
    return spans


# What a secret of several lines leaves after its marker (``engine.line_breaks``: each line break, with
# the diff mark that began the next line), and the line breaks a gap then ends with.
_LINE_RESIDUE = re.compile(r"\A(?:\n[+-]?)+")
_TRAILING_BREAKS = re.compile(r"(?:\n[+-]?)+\Z")


def secret_spans(original: str, literals: list[str]) -> list[tuple[int, int]] | None:
    """``hole_spans``, or, when a secret of several lines (a key block) left its line breaks after
    its marker, the spans found with each literal taken without them, each without the breaks after it."""
    spans = hole_spans(original, literals)
    if spans is not None:
        return spans
    bare = [literals[0], *(_LINE_RESIDUE.sub("", literal, count=1) for literal in literals[1:])]
    if bare == literals:
        return None
    spans = hole_spans(original, bare)
    if spans is None:
        return None
    out = []
    for (start, end), without, literal in zip(spans, bare[1:], literals[1:]):
        breaks = _TRAILING_BREAKS.search(original, start, end) if without != literal else None
        out.append((start, breaks.start() if breaks is not None and breaks.start() > start else end))
    return out
