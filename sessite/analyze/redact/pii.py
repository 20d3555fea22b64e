"""Personal data the sage spec says must never be logged: card numbers (Luhn-checked)
and US social security numbers, in text and as JSON numbers."""

from __future__ import annotations

import re

from sessite.analyze.redact.runs import DIGIT_RUN
from sessite.analyze.redact.types import RuleSpec, Span

# One pass for both: _pii tells which and where.
PII_PATTERN = r"[0-9]{3}(?:-[0-9]{2}-[0-9]{4}|[0-9](?:[ -]?[0-9]){9,15})"


def luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = ord(ch) - 48
        if i % 2:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


# The issuers' number ranges (Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay).
_ISSUER = re.compile(r"4|5[1-5]|2[2-7]|3[47]|6(?:011|5|4[4-9]|2)|35|3[068]")
_URL_BEFORE = re.compile(r"(?:://|[?&#/=])\S*\Z")


def _card(text: str, start: int, run: str) -> tuple[int, int] | None:
    """The span of a card number at ``start``: 13–19 digits in an issuer's range that pass Luhn's
    check and stand alone (no letter, digit, dot or dash around them), written as cards are: 15
    or 16 digits in one run, or in groups of four (Amex: 4-6-5). Not an id in a URL or after
    ``=`` (a Discord or Twitter id has 17–19 digits, and one in ten passes Luhn's check)."""
    if _ISSUER.match(run) is None or (start and (text[start - 1].isalnum() or text[start - 1] in "._-")):
        return None
    if start and _URL_BEFORE.search(text, max(0, start - 200), start):
        return None
    digits = [i for i, ch in enumerate(run) if ch.isdigit()]
    for count in range(min(19, len(digits)), 12, -1):
        end = start + digits[count - 1] + 1
        if end < len(text) and (text[end].isalnum() or text[end] in "_-"):
            continue
        written = run[: digits[count - 1] + 1]
        if not _card_layout(written):
            continue
        if luhn("".join(run[i] for i in digits[:count])):
            return start, end
    return None


def _card_layout(written: str) -> bool:
    """Digits laid out as a card's: one run of 16, or of 15 for an Amex (34, 37: the only issuer of
    15-digit cards; a device's IMEI is 15 digits that pass Luhn's check too), or groups
    4-4-4-4(-3) or 4-6-5."""
    groups = [len(g) for g in re.split(r"[ -]", written)]
    if len(groups) == 1:
        return groups[0] == 16 or (groups[0] == 15 and written[:2] in ("34", "37"))
    return groups in ([4, 4, 4, 4], [4, 6, 5], [4, 4, 4, 4, 3], [4, 6, 4])


def _ssn(text: str, start: int, run: str) -> tuple[int, int] | None:
    end = start + len(run)
    if (start and (text[start - 1].isalnum() or text[start - 1] in "-_.")) or (
        end < len(text) and (text[end].isalnum() or text[end] in "-_")
    ):
        return None
    area, group, serial = run.split("-")
    if area in ("000", "666") or area[0] == "9" or group == "00" or serial == "0000":
        return None
    return start, end


def _pii(match: re.Match[str]) -> list[Span]:
    run = match.group(0)
    if len(run) == 11 and run[3] == "-" and run[6] == "-":
        span = _ssn(match.string, match.start(), run)
        return [("us-ssn", *span)] if span else []
    span = _card(match.string, match.start(), run)
    return [("credit-card", *span)] if span else []


def is_card_number(number: int) -> bool:
    """A JSON number that is a card number ({"card": 4242424242424242})."""
    if not 10**12 <= number < 10**19:
        return False
    digits = str(number)
    return len(digits) in (15, 16) and _ISSUER.match(digits) is not None and luhn(digits)


# Every match holds 9 digits in a row once spaces and dashes are dropped: DIGIT_RUN.
PII_RULE: RuleSpec = ("pii", (DIGIT_RUN,), PII_PATTERN, (), _pii)
