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
_MAX_VALUES = 2_000
_FEW = 16  # a source with more distinct secrets than this learns no more
_MIXED = re.compile(r"[0-9].*[A-Za-z]|[A-Za-z].*[0-9]|[^A-Za-z0-9_\s]", re.S)
_PLAIN_NAME = re.compile(r"[A-Za-z_]+[0-9]{0,2}|[0-9]+|[A-Za-z0-9_.]+\.[a-z]{2,4}")
# Kinds that are not credentials (personal data has its own learning: see ``personal``).
_NOT_LEARNT = frozenset({"home", "user", "email", "host", "ip-address", "credit-card", "us-ssn"})


class Learned:
    """The values replaced so far, and one pattern that finds any of them as a whole word."""

    def __init__(self) -> None:
        self.kinds: dict[str, str] = {}
        self._pattern: re.Pattern[str] | None = None

    def note(self, kind: str, value: str) -> None:
        if kind in _NOT_LEARNT or value in self.kinds or not learnable(value) or len(self.kinds) >= _MAX_VALUES:
            return
        self.kinds[value] = kind
        self._pattern = None

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
        return literals(values) or (lambda text: any(value in text for value in values))

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
