"""Which rules can match a string, asked once per string of a compiled set of every rule.

Most strings hold no secret. The rules' own patterns need Python's ``re``
(lookarounds, possessive repeats), so each is loosened into a pattern RE2 takes
(lookarounds dropped, long repeats unbounded, groups unnamed): it matches
wherever the rule's pattern does, and more. One RE2 set of all of them answers,
in one pass over the string in C, which rules are worth running; on real
archives about one string in a hundred has any, where the hint words (``key``,
``token``…) sent six strings in ten to the rules.

A rule's hint words are a condition of their own (the Twilio rule runs only where
"twilio" is written): a rule is a candidate where its loosened pattern and one of
its hint words are both found. Scans (Python functions over the whole string)
give their hint words. A rule RE2 cannot take is run on every string. The answer is a
superset of the rules that match, so redaction is the same with or without the
set; without google-re2 (or with ``SESSITE_REDACT_ENGINE=re``) the engine falls
back to its hint words (``prefilter``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from typing import Any

try:  # google-re2 is a dependency; a platform without its wheel falls back to the hint words
    import re2
except ImportError:  # pragma: no cover - exercised by SESSITE_REDACT_ENGINE=re in the tests
    re2 = None

ENGINE_VARIABLE = "SESSITE_REDACT_ENGINE"
_LOOKAROUND_OPENERS = ("(?<=", "(?<!", "(?=", "(?!")
_JOIN = "\n"  # what joins texts asked at once (``RuleSet.none_in``): no word character


def available() -> bool:
    """Whether the compiled set is used: google-re2 installed and not turned off."""
    return re2 is not None and os.environ.get(ENGINE_VARIABLE, "re2").lower() != "re"


@cache
def loosen(pattern: str) -> str:
    """``pattern`` without what RE2 lacks, matching wherever ``pattern`` does (and more):
    lookarounds dropped, possessive repeats made plain, repeats beyond RE2's 1,000 left
    open, group names dropped, ``\\uXXXX`` written as RE2 writes it, ``\\Z`` as ``\\z``."""
    out: list[str] = []
    i, size = 0, len(pattern)
    while i < size:
        if pattern.startswith(_LOOKAROUND_OPENERS, i):
            i = _group_end(pattern, i)
            continue
        char = pattern[i]
        if char == "\\":
            out.append(pattern[i : i + 2])
            i += 2
        elif char == "[":
            end = _class_end(pattern, i)
            out.append(pattern[i:end])
            i = end
        else:
            out.append(char)
            i += 1
    loose = "".join(out)
    loose = re.sub(r"\(\?P<\w+>", "(", loose)
    loose = re.sub(r"([}*+?])\+", r"\1", loose)  # (a possessive repeat)
    loose = re.sub(r"\{(\d+),\d{4,}\}", r"{\1,}", loose)
    loose = re.sub(r"\{(\d{4,})(?:,\d*)?\}", "{1000,}", loose)
    loose = re.sub(r"\\u([0-9a-fA-F]{4})", r"\\x{\1}", loose)
    return loose.replace("\\Z", "\\z")


def anchored(pattern: str) -> bool:
    """Whether ``pattern`` holds an anchor to a text's start or end (``^``, ``$``, ``\\A``, ``\\z``):
    then it may match in a text alone and not where that text stands among others."""
    i, size = 0, len(pattern)
    while i < size:
        char = pattern[i]
        if char == "\\":
            if pattern[i + 1 : i + 2] in ("A", "z", "Z"):
                return True
            i += 2
        elif char == "[":
            i = _class_end(pattern, i)
        elif char in "^$":
            return True
        else:
            i += 1
    return False


def _class_end(pattern: str, start: int) -> int:
    """Where the character class opening at ``start`` ends (one past its ``]``)."""
    j = start + 1
    if j < len(pattern) and pattern[j] == "^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        j += 2 if pattern[j] == "\\" else 1
    return j + 1


def _group_end(pattern: str, start: int) -> int:
    """One past the ``)`` closing the group that opens at ``start``."""
    depth, j = 0, start
    while j < len(pattern):
        char = pattern[j]
        if char == "\\":
            j += 2
            continue
        if char == "[":
            j = _class_end(pattern, j)
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return j


def _options() -> re2.Options:
    """RE2's options for redaction: no error logging, room for a large set."""
    options = re2.Options()
    options.log_errors = False
    options.max_mem = 64 << 20
    return options


def literal_pattern(values: Sequence[str]) -> Any | None:
    """``values`` as written, longest first, in one compiled RE2 pattern (``search``, ``findall``):
    one pass over a text for all of them. None: no compiled set here (or RE2 refused them); each
    value's own substring test then, which is slower for many values."""
    if not values or not available():
        return None
    try:
        return re2.compile("|".join(re.escape(v) for v in sorted(values, key=len, reverse=True)), _options())
    except re2.error:
        return None


class RuleSet:
    """One compiled set of the loosened rules: ``candidates(text)`` lists, in rule order, the
    rules that can match ``text`` (None: the set could not read the text; ask the hints)."""

    def __init__(self, requirements: Sequence[tuple[str, ...]]) -> None:
        """``requirements``: one per rule, in rule order: the patterns that must all be found for
        it to run (none: run it on every string)."""
        self._set = re2.Set.SearchSet(_options())
        # (no anchors: what matches in one of several texts matches where they stand joined: ``none_in``)
        self.joinable = not any(anchored(p) for patterns in requirements for p in patterns)
        numbers: dict[str, int] = {}
        self.always: list[int] = []
        self._by_pattern: dict[int, list[tuple[int, frozenset[int]]]] = {}  # a pattern: the rules needing it
        for rule, patterns in enumerate(requirements):
            try:
                needs = frozenset(
                    numbers[p] if p in numbers else numbers.setdefault(p, self._set.Add(p)) for p in patterns
                )
            except re2.error:
                needs = frozenset()
            if needs:
                for pattern in needs:
                    self._by_pattern.setdefault(pattern, []).append((rule, needs))
            else:
                self.always.append(rule)
        self._set.Compile()
        compiled = getattr(self._set, "_set", None)  # (the C++ set itself: its wrapper costs a call per string)
        self._match = compiled.Match if compiled is not None else self._set.Match

    def candidates(self, text: str) -> list[int] | None:
        try:
            found = self._match(text.encode())  # (bytes: the wrapper's own encoding costs a call more)
        except UnicodeEncodeError:  # (lone surrogates: a file name that was not UTF-8)
            return None
        if not found:
            return self.always
        present = set(found)
        rules = {rule for pattern in present for rule, needs in self._by_pattern.get(pattern, ()) if needs <= present}
        rules.update(self.always)
        return sorted(rules)

    def none_in(self, texts: list[str], also: Callable[[str], bool]) -> bool:
        """Whether no rule can match any of ``texts``, nor ``also`` hold for any: asked of them
        joined by line breaks, in one call instead of one a text (a line break is no word
        character, so a ``\\b`` at a text's edge reads the same). Only for a ``joinable`` set;
        ``also`` must hold for the joined text where it holds for one of them (a substring test)."""
        joined = _JOIN.join(texts)
        if also(joined):
            return False
        found = self.candidates(joined)
        return found is not None and not found


@lru_cache(maxsize=8)
def rule_set(requirements: tuple[tuple[str, ...], ...]) -> RuleSet:
    """The set for these rules, compiled once a process (a worker makes a redactor per source)."""
    return RuleSet(requirements)
