"""The values a user keeps from redaction (``redact_allow``): exact strings, or their digests.

``sessite check --allow`` writes a finding's digest (``sha256:`` and the hex digest of the
value in lower case), never the value: a settings file may be committed, and a
value worth allowing may still be a credential (a test key). A digest matches the
value in any case, as the search index writes words in lower case.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

PREFIX = "sha256:"


def digest(value: str) -> str:
    """The ``redact_allow`` entry that keeps ``value`` (in any case) without naming it."""
    return PREFIX + hashlib.sha256(value.lower().encode("utf-8", "surrogatepass")).hexdigest()


class AllowList:
    """``value in allow``: an exact entry, or an entry that is the value's digest."""

    def __init__(self, entries: Iterable[str]) -> None:
        entries = [e for e in entries if e]
        self._digests = frozenset(e for e in entries if e.startswith(PREFIX) and len(e) == len(PREFIX) + 64)
        self._exact = frozenset(e for e in entries if e not in self._digests)

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, str):
            return False
        return value in self._exact or (bool(self._digests) and digest(value) in self._digests)

    def __bool__(self) -> bool:
        return bool(self._exact or self._digests)
