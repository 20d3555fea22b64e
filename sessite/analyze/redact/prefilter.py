"""Which hints a (lower-cased) string holds, found as cheaply as plain Python allows.

Each test of a hint is a C search over the whole string, so the cost is the number
of tests. Two things cut it down:

- Hints with punctuation (``sk-``, ``hf_``, ``sig=``, ``-----begin``…) are looked
  for together, with one regex that starts at the punctuation and checks the rest
  around it (a lookbehind for what precedes): the engine only stops at ``-_.:=~``,
  so one pass costs about what two ``in`` tests do. Only when it finds something
  (rarely) is each of them tested.
- Other hints sit in a tree: a hint is tested only where a hint it holds was found,
  and rare single letters (``q``, ``z``, ``k``…) gate the ones holding them (a
  single character is found with memchr, ten times as fast as a longer hint).
"""

from __future__ import annotations

import re
from collections import defaultdict

_PUNCTUATION = "-_.:=~"
# Hints no rule asks for, there to gate the hints holding them (rarest first).
_GATES = ("q", "z", "j", "x", "k", "w")
# (hint, the hints holding it): a hint is looked for only where the one it holds was found.
HintTree = tuple[tuple[str, "HintTree"], ...]


class HintFinder:
    """Finds which of ``hints`` a lower-cased string holds. URLs (``://``) are too common
    to share the punctuation pass: it stays a plain hint."""

    def __init__(self, hints: set[str]) -> None:
        punctuated = {h for h in hints if h != "://" and any(c in h for c in _PUNCTUATION)}
        self._punctuated = tuple(sorted(punctuated))
        self._punctuation_pass = _punctuation_regex(punctuated) if punctuated else None
        tree = _hint_tree((hints - punctuated) | set(_GATES))
        self._roots = tuple(hint for hint, _ in tree)
        self._children: dict[str, tuple[str, ...]] = {}
        pending = list(tree)
        while pending:
            hint, below = pending.pop()
            if below:
                self._children[hint] = tuple(h for h, _ in below)
                pending.extend(below)

    def found(self, lowered: str) -> list[str]:
        found = [hint for hint in self._roots if hint in lowered]
        children = self._children
        for hint in found:  # (grows as it goes: the children of children too)
            if hint in children:
                found.extend(h for h in children[hint] if h in lowered)
        if self._punctuation_pass is not None and self._punctuation_pass.search(lowered):
            found.extend(h for h in self._punctuated if h in lowered)
        return found


def _punctuation_regex(hints: set[str]) -> re.Pattern[str]:
    """One regex matching any of ``hints``, each from its first punctuation character, what
    precedes it checked by a lookbehind, first a one-character one that turns most
    punctuation away: ``-(?:(?<=[gk]-)(?:(?<=sk-)|(?<=glpat-))|----begin)|_(?:…)|…``."""
    before_it: dict[str, list[tuple[str, str]]] = defaultdict(list)
    first: dict[str, list[str]] = defaultdict(list)
    for hint in sorted(hints):
        at = min(hint.index(c) for c in _PUNCTUATION if c in hint)
        before, char, after = hint[:at], hint[at], hint[at + 1 :]
        if before:
            before_it[char].append((before, after))
        else:
            first[char].append(re.escape(after))
    branches = []
    for char in sorted(set(before_it) | set(first)):
        c = re.escape(char)
        alternatives = list(first[char])
        if before_it[char]:
            last = "".join(sorted({re.escape(before[-1]) for before, _ in before_it[char]}))
            behind = "|".join(f"(?<={re.escape(before)}{c}){re.escape(after)}" for before, after in before_it[char])
            alternatives.insert(0, f"(?<=[{last}]{c})(?:{behind})")
        branches.append(f"{c}(?:{'|'.join(alternatives)})")
    return re.compile("|".join(branches))


def _hint_tree(hints: set[str]) -> HintTree:
    """Each hint under the longest other hint it holds (the rarest gate among single letters)."""

    def rank(hint: str) -> tuple[int, int]:
        return len(hint), -_GATES.index(hint) if hint in _GATES else 0

    parent = {h: max((p for p in hints if p != h and p in h), key=rank, default=None) for h in hints}

    def below(top: str | None) -> HintTree:
        return tuple((h, below(h)) for h in sorted(hints) if parent[h] == top)

    return below(None)
