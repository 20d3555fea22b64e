"""Hints no substring test can give: runs of digits (card and social security numbers),
of upper-case letters and digits (AWS access keys) and of hex digits (Twilio's SIDs and
tokens), told by one C pass each.

Given as a rule's hint, a run name says "run only where the text holds such a run".
Each test maps the (UTF-8) text to a skeleton with ``bytes.translate`` and looks
for the run there: far cheaper than the rules' own regexes on text full of short
numbers and capitalised words.
"""

from __future__ import annotations

DIGIT_RUN = "\x00digit-run"  # 9 digits in a row once spaces and dashes are dropped
UPPER_RUN = "\x00upper-run"  # 20 upper-case letters and digits in a row
HEX_RUN = "\x00hex-run"  # 32 hex digits in a row
RUNS = (DIGIT_RUN, UPPER_RUN, HEX_RUN)
# The same runs as patterns, for the compiled rule set (``ruleset``).
RUN_PATTERNS = {DIGIT_RUN: r"[0-9](?:[ \-]*[0-9]){8}", UPPER_RUN: "[A-Z0-9]{20}", HEX_RUN: "[0-9a-f]{32}"}

_DIGITS = bytes(0x30 if 0x30 <= b <= 0x39 else 0x78 for b in range(256))
_UPPER = bytes(0x41 if 0x30 <= b <= 0x39 or 0x41 <= b <= 0x5A else 0x78 for b in range(256))
_HEX = bytes(0x68 if 0x30 <= b <= 0x39 or 0x61 <= b <= 0x66 else 0x78 for b in range(256))


def runs_in(text: str, wanted: tuple[str, ...] = RUNS) -> list[str]:
    """Which of the runs ``wanted`` (those some rule asks for: a pass each) ``text`` holds."""
    if not wanted:
        return []
    data = text.encode("utf-8", "surrogatepass")
    found = []
    if DIGIT_RUN in wanted and b"000000000" in data.translate(_DIGITS, b" -"):
        found.append(DIGIT_RUN)
    if UPPER_RUN in wanted and b"AAAAAAAAAAAAAAAAAAAA" in data.translate(_UPPER):
        found.append(UPPER_RUN)
    if HEX_RUN in wanted and b"h" * 32 in data.translate(_HEX):
        found.append(HEX_RUN)
    return found
