"""What redaction replaced, told by comparing a value with its redacted copy.

``sessite check`` and the build's scan of its own output need to say what a
redaction would hide without changing how it hides it: the Redactor replaces
as always, and ``differences`` walks the original and the redacted value side
by side (the Redactor returns untouched parts as the very same objects, so only
changed branches are visited). Nothing here runs on a build's redaction path.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from sessite.analyze.redact.markers import MARKER, secret_spans
from sessite.model import Event, Kind

# Prefixes vendors publish (a key's kind, not its secret part): a masked preview may show them.
_PUBLIC_PREFIX = re.compile(
    r"-----BEGIN[A-Z ]*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-|AGE-SECRET-KEY-1|https://hooks\.slack\.com/"
    r"|sk-ant-(?:api|admin|sid)?\d*-?|sk-(?:proj|svcacct|admin|None|or-v1)-|sk-|[sr]k_(?:live|test)_|gh[pousr]_|github_pat_"
    r"|glpat-|xox[abposrce]-|hf_|npm_|pypi-|SG\.|do[por]_v1_|shp(?:at|ca|pa|ss)_|AKIA|ASIA|ABIA|ACCA|AIza|eyJ|gsk_|xai-"
    r"|hvs\.|whsec_|GOCSPX-|ya29\.|key-|org-"
)


@dataclass(frozen=True)
class Difference:
    """One replaced value: its kind, the value as it was, where it was (``field``: a path such as
    ``events[3].tool_input.command``), and the innermost event holding it (None: the session's own fields)."""

    kind: str
    value: str
    field: str
    event: Event | None
    source: str | None = None  # the file the event came from, when not the session's (a sub-agent's, relative)
    context: str = ""  # the redacted line around the value, the value itself masked (see ``around``)


def mask(value: str) -> str:
    """A preview that names a secret without giving it away: a public vendor prefix at most,
    and the length (``sk-ant-…[48 chars]``; ``…[12 chars]`` when there is no such prefix)."""
    if not value:
        return "…"
    found = _PUBLIC_PREFIX.match(value)
    prefix = found.group(0) if found and found.end() < len(value) else ""
    return f"{prefix}…[{len(value) - len(prefix)} chars]"


def text_differences(original: str, redacted: str) -> list[tuple[str, str]]:
    """(kind, value replaced) for each marker ``redacted`` holds that ``original`` does not."""
    return [(kind, value) for kind, value, _ in _replaced(original, redacted)]


_CONTEXT_CHARS = 60


def around(redacted: str, marker: tuple[int, int], shown: str) -> str:
    """The line of ``redacted`` that holds ``marker`` (a span), that marker shown as ``shown``, at
    most about 60 characters either side: enough to find the value in its file, nothing more
    of it (the other secrets on the line are markers)."""
    start, end = marker
    line_start = max(redacted.rfind("\n", 0, start) + 1, start - _CONTEXT_CHARS)
    line_end = redacted.find("\n", end)
    line_end = min(len(redacted) if line_end < 0 else line_end, end + _CONTEXT_CHARS)
    head = ("…" if line_start > 0 and redacted[line_start - 1] != "\n" else "") + redacted[line_start:start]
    tail = redacted[end:line_end] + ("…" if line_end < len(redacted) and redacted[line_end] != "\n" else "")
    return " ".join(f"{head}«{shown}»{tail}".split("\r"))


def _replaced(original: str, redacted: str) -> list[tuple[str, str, tuple[int, int]]]:
    """(kind, value replaced, where its marker stands in ``redacted``) for each new marker."""
    if original == redacted:
        return []
    markers = list(MARKER.finditer(redacted))
    if not markers:  # no marker: a home folder became ~ (personal data), or an id that held a secret was rebuilt
        before, after = _changed_stretch(original, redacted)
        head = original.find(before) if before else 0
        return [("home" if after.startswith("~") else "id", before, (head, head + len(after)))]
    pieces = MARKER.split(redacted)  # literal, kind, literal, kind, …, literal
    spans = secret_spans(original, pieces[::2])
    values = None if spans is None else [original[start:end] for start, end in spans]
    if values is None:  # the text around a secret was unescaped too (normalize.NormalView): kinds only
        return [(m.group(1), "", m.span()) for m in markers]
    return [(m.group(1), value, m.span()) for m, value in zip(markers, values) if MARKER.fullmatch(value) is None]
    # (a marker the original already held is not a new finding)


def _changed_stretch(original: str, redacted: str) -> tuple[str, str]:
    """The stretch where the two differ (what they share at the start and at the end left out), in each."""
    shortest = min(len(original), len(redacted))
    head = 0
    while head < shortest and original[head] == redacted[head]:
        head += 1
    tail = 0
    while tail < shortest - head and original[-1 - tail] == redacted[-1 - tail]:
        tail += 1
    return original[head : len(original) - tail], redacted[head : len(redacted) - tail]


def differences(
    original: Any, redacted: Any, field: str = "", event: Event | None = None, source: str | None = None
) -> Iterator[Difference]:
    """Every value ``redacted`` (a Redactor's copy of ``original``) replaced, in walking order.
    A sub-agent event whose ``meta["source"]`` names a file of its own is the source of what it holds."""
    if original is redacted:
        return
    if isinstance(redacted, str):
        before = original if isinstance(original, str) else _as_text(original)
        for kind, value, marker in _replaced(before, redacted):
            yield Difference(kind, value, field, event, source, around(redacted, marker, mask(value)))
    elif isinstance(original, (list, tuple)) and isinstance(redacted, (list, tuple)):
        for i, (a, b) in enumerate(zip(original, redacted)):
            yield from differences(a, b, f"{field}[{i}]", event, source)
    elif isinstance(original, dict) and isinstance(redacted, dict):
        for (key_a, a), (key_b, b) in zip(original.items(), redacted.items()):
            name = f"{field}.{key_a}" if field else str(key_a)
            if isinstance(key_a, str) and isinstance(key_b, str):
                for kind, value, marker in _replaced(key_a, key_b):
                    yield Difference(kind, value, name, event, source, around(key_b, marker, mask(value)))
            yield from differences(a, b, name, event, source)
    elif is_dataclass(original) and type(original) is type(redacted):
        here = original if isinstance(original, Event) else event
        if (
            isinstance(original, Event)
            and original.kind == Kind.SUBAGENT
            and isinstance(original.meta.get("source"), str)
        ):
            source = original.meta["source"]
        for f in fields(original):
            a, b = getattr(original, f.name), getattr(redacted, f.name)
            yield from differences(a, b, f"{field}.{f.name}" if field else f.name, here, source)


def _as_text(value: Any) -> str:
    """A non-string value the Redactor turned into a string (a card number held as a number, bytes, a path)."""
    return value.decode("utf-8", "replace") if isinstance(value, (bytes, bytearray)) else str(value)
