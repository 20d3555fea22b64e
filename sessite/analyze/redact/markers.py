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
