"""The redaction tables in the order they run, and the check of user-supplied patterns.

Order matters: specific before generic, and the rules sessite always had before
the ones added for issue 16, so that text those redacted comes out as it did. The vendor
table (``vendors``: prefix and body, the kinds a maintained peer rule set knows) runs
after the other shapes and before the later context rules.
"""

from __future__ import annotations

import re

from sessite.analyze.redact.by_place import KNOWN_CONTEXT, MORE_CONTEXT
from sessite.analyze.redact.by_shape import KNOWN_SHAPES, MORE_SHAPES
from sessite.analyze.redact.commands import TOKEN_OUTPUT
from sessite.analyze.redact.pii import PII_RULE
from sessite.analyze.redact.scanners import SCANS
from sessite.analyze.redact.types import RuleSpec, ScanSpec
from sessite.analyze.redact.vendors import VENDOR_SHAPES

PATTERNS: tuple[RuleSpec, ...] = (
    *KNOWN_SHAPES,
    *KNOWN_CONTEXT,
    PII_RULE,
    *MORE_SHAPES,
    *VENDOR_SHAPES,
    *MORE_CONTEXT,
    TOKEN_OUTPUT,
)
SHAPES: tuple[RuleSpec, ...] = (*KNOWN_SHAPES, *MORE_SHAPES, *VENDOR_SHAPES)  # known by their shape alone

__all__ = ["PATTERNS", "SCANS", "SHAPES", "RedactionConfigError", "compile_extra", "ScanSpec"]


class RedactionConfigError(ValueError):
    """A user-supplied pattern that cannot be used."""


def compile_extra(kind: str, pattern: str) -> re.Pattern[str]:
    """A user pattern, checked: a bad regex or one that matches the empty string is an error."""
    if not kind or not isinstance(kind, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.\-]*", kind):
        raise RedactionConfigError(f"redaction pattern kind {kind!r} must be a short name (letters, digits, - _ .)")
    try:
        regex = re.compile(pattern)
    except (re.error, TypeError) as exc:
        raise RedactionConfigError(f"redaction pattern {kind!r} is not a valid regular expression: {exc}") from None
    if regex.search("") is not None:
        raise RedactionConfigError(f"redaction pattern {kind!r} matches the empty string")
    return regex
