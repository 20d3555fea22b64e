"""Titles made from names a log carries (a tag, a subtype, a message type).

Redaction runs on the model after the readers, so a reader must never reshape an
untrusted value on its way to the page: ``ghp_AbC…`` in a tag name, capitalised
and split at underscores, would no longer look like a token and would be
published. ``humanize`` only reshapes names that cannot hold a secret: a few
short words of lower-case letters. Anything else is shown exactly as the log has it.
"""

from __future__ import annotations

import re

# A few words of lower-case letters joined by "_" or "-" (no digits, no capitals, nothing long).
_PLAIN_NAME = re.compile(r"[a-z]{1,20}(?:[_-][a-z]{1,20}){0,5}")


def humanize(name: str, fallback: str = "", capital: bool = True) -> str:
    """``"compact_boundary"`` → ``"Compact boundary"`` (``"compact boundary"`` without ``capital``);
    any other name unchanged, ``fallback`` when empty."""
    if not name:
        return fallback
    if not _PLAIN_NAME.fullmatch(name):
        return name
    words = name.replace("_", " ").replace("-", " ")
    return words[:1].upper() + words[1:] if capital else words
