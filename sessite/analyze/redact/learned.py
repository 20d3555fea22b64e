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

from sessite.analyze.redact.ruleset import literals

_MIN_CHARS = 8
# A learnt value this long is found glued to other text too (``mcp__<value>__run``,
# ``Type<value>Error``): sixteen mixed characters do not occur by chance inside a word.
_GLUED_CHARS = 16
_MAX_VALUES = 2_000  # learnt by one source's rules
# Learnt archive-wide (``know``): every source's values, found bare in another's page. Not counted
# against one source's cap: the planted benchmark's archive learns 2,983, and with the one cap the
# values past the 2,000th were never looked for elsewhere (its 55 id-known and title-known cells leaked).
_MAX_KNOWN = 50_000
_SET_SIZE = 2_000  # values per compiled literal set: 20,000 in one fall back to substring tests (5 s a page)
_FEW = 16  # a source with more distinct secrets than this learns no more
_MIXED = re.compile(r"[0-9].*[A-Za-z]|[A-Za-z].*[0-9]|[^A-Za-z0-9_\s]", re.S)
_PLAIN_NAME = re.compile(r"[A-Za-z_]+[0-9]{0,2}|[0-9]+|[A-Za-z0-9_.]+\.[a-z]{2,4}")
# Kinds that are not credentials (personal data has its own learning: see ``personal``).
_NOT_LEARNT = frozenset({"home", "user", "email", "host", "ip-address", "credit-card", "us-ssn"})


class Learned:
    """The values replaced so far, and one pattern that finds any of them as a whole word."""

    def __init__(self) -> None:
        self.kinds: dict[str, str] = {}
        self._known = 0  # of them, given by ``know``
        self._pattern: re.Pattern[str] | None = None

    def note(self, kind: str, value: str) -> None:
        """A value a rule of this source replaced."""
        if len(self.kinds) - self._known < _MAX_VALUES:
            self._add(kind, value)

    def know(self, kind: str, value: str) -> None:
        """A value learnt anywhere in the archive (``SiteConfig.redact_known``, the output scan's list):
        kept apart from this source's own cap, so a big archive's learning does not crowd out its own."""
        if self._known < _MAX_KNOWN and self._add(kind, value):
            self._known += 1

    def _add(self, kind: str, value: str) -> bool:
        if kind in _NOT_LEARNT or value in self.kinds or not learnable(value):
            return False
        self.kinds[value] = kind
        self._pattern = None
        return True

    def __bool__(self) -> bool:
        return bool(self.kinds)

    def replace(self, text: str, counts: Counter[str]) -> str:
        """``text`` with every learnt value that stands there replaced by its marker: as a whole word,
        or anywhere when it is long (``_GLUED_CHARS``)."""
        if len(self.kinds) <= _FEW and not any(value in text for value in self.kinds):
            return text  # (a substring test per value is far cheaper than the pattern's scan)

        def marker(match: re.Match[str]) -> str:
            kind = self.kinds[match.group()]
            counts[kind] += 1
            return f"[REDACTED:{kind}]"

        return self.pattern().sub(marker, text)

    def may_hold(self) -> Callable[[str], bool]:
        """A cheap test of whether a text can hold any learnt value: one RE2 pass over all of them as
        literals (``pattern`` in ``re`` tries each value at each position: slow on whole pages)."""
        values = list(self.kinds)
        tests = [literals(values[i : i + _SET_SIZE]) for i in range(0, len(values), _SET_SIZE)]
        if tests and all(test is not None for test in tests):
            compiled = [test for test in tests if test is not None]
            return compiled[0] if len(compiled) == 1 else (lambda text: any(test(text) for test in compiled))
        return lambda text: any(value in text for value in values)

    def pattern(self) -> re.Pattern[str]:
        if self._pattern is None:
            values = sorted(self.kinds, key=len, reverse=True)
            glued = [re.escape(v) for v in values if len(v) >= _GLUED_CHARS]
            words = [re.escape(v) for v in values if len(v) < _GLUED_CHARS]
            self._pattern = re.compile(
                "|".join(
                    ([f"(?:{'|'.join(glued)})"] if glued else [])
                    + ([f"(?<![A-Za-z0-9_])(?:{'|'.join(words)})(?![A-Za-z0-9_])"] if words else [])
                )
            )
        return self._pattern


def learnable(value: str) -> bool:
    """A value worth looking for elsewhere: long enough, mixed like a credential, not a name or a marker."""
    return (
        len(value) >= _MIN_CHARS
        and "REDACTED" not in value
        and not value.isspace()
        and "\n" not in value
        and _MIXED.search(value) is not None
        and _PLAIN_NAME.fullmatch(value) is None
        and len(set(value)) >= 5  # (a rule of === or ---, a row of ***: never a credential)
    )
