"""Secrets learnt where they stand, redacted wherever else they appear.

A password is recognisable where a name says what it is (``DB_PASSWORD=…`` in a
``.env``, ``-p…`` after ``mysql``), and nowhere else: the session's prose that
repeats it ("I set the password to …") has no such name. Every value a rule
replaced is remembered here, by the redactor of one source, and a second look
at each session replaces its other appearances (see ``Redactor``).

Only values that look like credentials are learnt: eight characters or more,
letters and digits or symbols mixed, not a marker. A false positive of a
context rule (an identifier taken for a value) would otherwise spread through
the whole session.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from sessite.analyze.redact.ruleset import literal_pattern

_MIN_CHARS = 8
# A learnt value this long is found glued to other text too (``mcp__<value>__run``,
# ``Type<value>Error``): sixteen mixed characters do not occur by chance inside a word.
_GLUED_CHARS = 16
_MAX_VALUES = 2_000  # learnt by one source's rules
# Learnt archive-wide (``know``): every source's values, found bare in another's page. Not counted
# against one source's cap: the planted benchmark's archive learns 2,983, and with the one cap the
# values past the 2,000th were never looked for elsewhere (22 of its id-known and title-known cells leaked).
_MAX_KNOWN = 50_000
_SET_SIZE = 2_000  # values per compiled literal set: 20,000 in one fall back to substring tests (5 s a page)
_FEW = 16  # a source with more distinct secrets than this learns no more
_MIXED = re.compile(r"[0-9].*[A-Za-z]|[A-Za-z].*[0-9]|[^A-Za-z0-9_\s]", re.S)
# Letters alone, mixed as no word or camelCase name is (``KnVgJTPankmamnLAGR``): long, the case
# switching often, few vowels (a fifth of random letters are; a third or more of words').
_CASE_SWITCH = re.compile(r"[a-z](?=[A-Z])|[A-Z](?=[a-z])")
_RANDOM_LETTERS_CHARS = 12
_MIN_SWITCHES = 4
_MAX_VOWELS = 0.25
_PLAIN_NAME = re.compile(r"[A-Za-z_]+[0-9]{0,2}|[0-9]+|[A-Za-z0-9_.]+\.[a-z]{2,4}")
# Kinds that are not credentials (personal data has its own learning: see ``personal``).
_NOT_LEARNT = frozenset({"home", "user", "email", "host", "ip-address", "credit-card", "us-ssn"})


class Learned:
    """The values replaced so far, and one pattern that finds any of them as a whole word."""

    def __init__(self) -> None:
        self.kinds: dict[str, str] = {}
        self._known = 0  # of them, given by ``know``
        self._known_values: tuple[tuple[str, str], ...] = ()  # (as given: their RE2 sets are shared)
        self._pattern: re.Pattern[str] | None = None
        self._sets: list[Any] | None = None  # compiled RE2 literal sets (made when first needed)

    def note(self, kind: str, value: str) -> None:
        """A value a rule of this source replaced."""
        if len(self.kinds) - self._known < _MAX_VALUES:
            self._add(kind, value)

    def know(self, known: tuple[tuple[str, str], ...]) -> None:
        """Values (value, kind) learnt anywhere in the archive (``SiteConfig.redact_known``, the output
        scan's list): kept apart from this source's own cap, so a big archive's learning does not
        crowd out its own. Every source's redactor is given the same ones: checked once."""
        table = _known_table(known)
        if not table:
            return
        fresh = {value: kind for value, kind in table.items() if value not in self.kinds}
        self.kinds.update(fresh)
        self._known += len(fresh)
        self._known_values = known if not self._known_values else (*self._known_values, *known)
        self._pattern = self._sets = None

    def _add(self, kind: str, value: str) -> bool:
        if kind in _NOT_LEARNT or value in self.kinds or not learnable(value):
            return False
        self.kinds[value] = kind
        self._pattern = self._sets = None
        return True

    def __bool__(self) -> bool:
        return bool(self.kinds)

    def replace(self, text: str, counts: Counter[str]) -> str:
        """``text`` with every learnt value that stands there replaced by its marker: as a whole word,
        or anywhere when it is long (``_GLUED_CHARS``)."""
        if len(self.kinds) <= _FEW:
            if not any(value in text for value in self.kinds):
                return text  # (a substring test per value is far cheaper than the pattern's scan)
            pattern = self.pattern()
        else:  # many (learnt archive-wide): RE2 lists those present, ``re`` replaces only them
            present = self._present(text)
            if present is not None and not present:
                return text
            pattern = self.pattern() if present is None else _pattern(tuple(sorted(present)))

        def marker(match: re.Match[str]) -> str:
            kind = self.kinds[match.group()]
            counts[kind] += 1
            return f"[REDACTED:{kind}]"

        return pattern.sub(marker, text)

    def may_hold(self) -> Callable[[str], bool]:
        """A cheap test of whether a text can hold any learnt value: one RE2 pass over all of them as
        literals (``pattern`` in ``re`` tries each value at each position: slow on whole pages)."""
        sets = self._compiled()
        if sets is None:
            values = list(self.kinds)
            return lambda text: any(value in text for value in values)
        if len(sets) == 1:
            return lambda text: sets[0].search(text) is not None
        return lambda text: any(found.search(text) is not None for found in sets)

    def _present(self, text: str) -> set[str] | None:
        """The learnt values written in ``text`` (None: no RE2 here)."""
        sets = self._compiled()
        if sets is None:
            return None
        return {value for found in sets for value in found.findall(text)}

    def _compiled(self) -> list[Any] | None:
        """The learnt values as RE2 literal sets of ``_SET_SIZE`` each (None: RE2 is not used, or
        could not take them)."""
        if self._sets is None:
            known = _known_table(self._known_values)
            own = tuple(value for value in self.kinds if value not in known)
            shared = _literal_sets(tuple(known)) if known else []
            mine = _literal_sets(own) if own else []
            if shared is None or mine is None:
                return None
            self._sets = [*shared, *mine]
        return self._sets

    def pattern(self) -> re.Pattern[str]:
        if self._pattern is None:
            self._pattern = _pattern(tuple(sorted(self.kinds)))
        return self._pattern


@lru_cache(maxsize=256)
def _pattern(values: tuple[str, ...]) -> re.Pattern[str]:
    """Any of ``values``: anywhere when long, as a whole word when short (longest first)."""
    ordered = sorted(values, key=len, reverse=True)
    glued = [re.escape(v) for v in ordered if len(v) >= _GLUED_CHARS]
    words = [re.escape(v) for v in ordered if len(v) < _GLUED_CHARS]
    return re.compile(
        "|".join(
            ([f"(?:{'|'.join(glued)})"] if glued else [])
            + ([f"(?<![A-Za-z0-9_])(?:{'|'.join(words)})(?![A-Za-z0-9_])"] if words else [])
        )
    )


@lru_cache(maxsize=8)
def _known_table(known: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """The values of ``known`` worth looking for (``learnable``), at most ``_MAX_KNOWN``."""
    table: dict[str, str] = {}
    for value, kind in known:
        if len(table) >= _MAX_KNOWN:
            break
        if kind not in _NOT_LEARNT and learnable(value):
            table.setdefault(value, kind)
    return table


@lru_cache(maxsize=64)
def _literal_sets(values: tuple[str, ...]) -> list[Any] | None:
    """``values`` as compiled literal patterns of ``_SET_SIZE`` each, longest first (None: no RE2
    here, or it refused them)."""
    ordered = sorted(values, key=len, reverse=True)
    sets = [literal_pattern(ordered[i : i + _SET_SIZE]) for i in range(0, len(ordered), _SET_SIZE)]
    return None if any(found is None for found in sets) else sets


def learnable(value: str) -> bool:
    """A value worth looking for elsewhere: long enough, mixed like a credential, not a name or a marker."""
    return (
        len(value) >= _MIN_CHARS
        and "REDACTED" not in value
        and not value.isspace()
        and "\n" not in value
        and (_random_letters(value) or (_MIXED.search(value) is not None and _PLAIN_NAME.fullmatch(value) is None))
        and len(set(value)) >= 5  # (a rule of === or ---, a row of ***: never a credential)
    )


def _random_letters(value: str) -> bool:
    """Letters that look random, maybe with a digit or two after them (``gXieqThTzvvDmBQHp8``: a
    name's shape, ``_PLAIN_NAME``, which such letters do not make one)."""
    letters = value.rstrip("0123456789")
    value = letters if len(value) - len(letters) <= 2 else value
    if len(value) < _RANDOM_LETTERS_CHARS or not value.isascii() or not value.isalpha():
        return False
    vowels = sum(char in "aeiouAEIOU" for char in value)
    return vowels <= _MAX_VOWELS * len(value) and len(_CASE_SWITCH.findall(value)) >= _MIN_SWITCHES
