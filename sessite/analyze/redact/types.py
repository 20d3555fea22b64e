"""The shapes of the redaction tables, shared by the rule modules and the engine."""

from __future__ import annotations

import re
from collections.abc import Callable

# (needle, offsets from it where a match can start[, the characters that may follow the needle]):
# where to try a costly pattern.
Anchor = tuple[str, tuple[int, ...]] | tuple[str, tuple[int, ...], str]
Anchors = tuple[Anchor, ...]
# (kind, start, end): a span of the string to replace by ``[REDACTED:kind]``.
Span = tuple[str, int, int]
# Looks at a match and says which spans of it to replace (none: the match is not a secret).
Check = Callable[[re.Match[str]], list[Span]]
# Looks at a whole string and says which spans of it to replace.
Scan = Callable[[str], list[Span]]

# (kind, hints, pattern[, anchors[, check]]): hints are lower-case substrings one of which
# every match contains (() means the pattern runs on every string).
RuleSpec = (
    tuple[str, tuple[str, ...], str]
    | tuple[str, tuple[str, ...], str, Anchors]
    | tuple[str, tuple[str, ...], str, Anchors, Check]
)
# (kind, hints, scan): a rule that reads the whole string (a YAML document, a key's last lines).
ScanSpec = tuple[str, tuple[str, ...], Scan]
