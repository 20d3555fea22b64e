"""JSON decoding that no single value can break.

Every byte a reader decodes is untrusted, and Python's decoder fails a whole
document for one hostile value: nesting a thousand levels deep raises
RecursionError, a 5,000-digit integer raises ValueError. Deep values also break
everything downstream that walks them (exports, redaction). So readers decode
through here, and a bad value costs that value only:

- arrays and objects nested deeper than ``MAX_DEPTH`` are replaced by a short
  placeholder string (found without recursion, however deep the input);
- ``NaN``/``Infinity``, floats beyond the double range (``1e400``) and integers
  too long for Python are read as null;
- lone UTF-16 surrogates (``"\\ud800"``) become U+FFFD, so no string a reader
  hands on can fail to encode as UTF-8.

Each repair adds a one-line note to the caller's list; the caller reports it
where the value was (a file's line). Good input costs one extra scan of the
text, in C.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from sessite.model import cut_words
from sessite.readers.limits import MAX_CONTAINERS

# Deepest array/object nesting kept. Real sessions nest at most ~25 levels; what
# walks values downstream (exports, redaction, rendering) stays far from Python's
# recursion limit at this depth.
MAX_DEPTH = 100
TOO_DEEP = f"[nested deeper than {MAX_DEPTH} levels: not read]"

NOTE_DEEP = f"JSON nested deeper than {MAX_DEPTH} levels; the deeper values are left out"
NOTE_SURROGATE = "lone UTF-16 surrogate in a string; replaced with U+FFFD"

_BRACKET_OR_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_WS = re.compile(r"[ \t\r\n]*")
_WS_CHARS = " \t\r\n"  # "" is in it too: an empty text goes to the pattern
_CONTAINERS = (dict, list)


class TooManyObjects(ValueError):
    """A value holding more than ``MAX_CONTAINERS`` objects: decoding it whole would cost
    gigabytes (a 255 MB zstd frame of 6 million tiny messages), so it is not read."""

    def __init__(self) -> None:
        super().__init__(f"more than {MAX_CONTAINERS:,} JSON objects in one value (the cap on one value); not read")


def too_many_brackets(text: str, start: int = 0, end: int | None = None) -> bool:
    """Cheap (two scans in C): could the text hold more than ``MAX_CONTAINERS`` arrays and objects?"""
    stop = len(text) if end is None else end
    if stop - start < 2 * MAX_CONTAINERS:
        return False
    return text.count("{", start, stop) + text.count("[", start, stop) > MAX_CONTAINERS


def _counting_hook() -> Any:
    """An ``object_hook`` that raises TooManyObjects at the cap's next object."""
    seen = 0

    def hook(obj: dict[str, Any]) -> dict[str, Any]:
        nonlocal seen
        seen += 1
        if seen > MAX_CONTAINERS:
            raise TooManyObjects
        return obj

    return hook


class _Careful(Exception):
    """Raised by the fast decoder's hooks: this text needs the careful one."""


def _refuse_constant(name: str) -> Any:
    raise _Careful(name)


def _finite_float(literal: str) -> float:
    value = float(literal)
    if value in _INFINITIES:
        raise _Careful(literal)
    return value


_INFINITIES = (float("inf"), float("-inf"))
# NaN, Infinity and floats beyond the double range (1e400) are rare: the fast
# decoder hands the text to the careful one when it meets one.
_FAST = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)


def loads(text: str, notes: list[str] | None = None) -> Any:
    """``json.loads`` that survives any value. Raises ValueError only for text that is
    not JSON at all (malformed, truncated) or holds more objects than the cap
    (``TooManyObjects``); repairs are appended to ``notes``."""
    # A line of JSON usually starts with its value and ends with it or a line break: the
    # whitespace pattern runs only when it does not.
    start = 0 if text[:1] not in _WS_CHARS else _WS.match(text).end()  # type: ignore[union-attr]
    heavy = len(text) - start >= 2 * MAX_CONTAINERS and too_many_brackets(text, start)  # most lines: one compare
    value, end = raw_decode(text, start, notes, counted=heavy)
    if end != len(text) and text[end:] != "\n" and _WS.match(text, end).end() != len(text):  # type: ignore[union-attr]
        raise json.JSONDecodeError("Extra data", text, end)
    return value


def raw_decode(text: str, pos: int = 0, notes: list[str] | None = None, counted: bool = False) -> tuple[Any, int]:
    """``JSONDecoder.raw_decode`` that survives any value: (value, end) of the JSON value at ``pos``.

    ``counted``: the text may hold more objects than the cap, so they are counted as they are
    made (a little slower) and TooManyObjects raised past it."""
    found: list[str] = []
    decoder = _FAST
    if counted:
        decoder = json.JSONDecoder(
            parse_constant=_refuse_constant, parse_float=_finite_float, object_hook=_counting_hook()
        )
    try:
        value, end = decoder.raw_decode(text, pos)
    except TooManyObjects:
        raise
    except _Careful:
        value, end = _careful_decode(text, pos, found)
    except RecursionError:
        value, end = _decode_pruned(text, pos, found)
    except ValueError as exc:
        if "Exceeds the limit" not in str(exc):  # an integer too long; anything else is malformed JSON
            raise
        value, end = _careful_decode(text, pos, found)
    else:
        if _may_be_deep(text, pos, end) and _deeper_than(value, MAX_DEPTH):
            value, end = _decode_pruned(text, pos, found)
        elif _has_lone_surrogate(text, pos, end):
            value = scrub_surrogates(value, found)
    if found and notes is not None:
        notes.extend(dict.fromkeys(found))  # each kind of repair once
    return value, end


def _may_be_deep(text: str, start: int, end: int) -> bool:
    """Cheap: fewer brackets than the limit cannot nest past it."""
    return text.count("[", start, end) + text.count("{", start, end) > MAX_DEPTH


def _careful_decode(text: str, pos: int, found: list[str]) -> tuple[Any, int]:
    """Decode with hooks that read out-of-range numbers as null, then scrub surrogates."""

    def constant(name: str) -> None:
        found.append(f"{name} is not a JSON number; read as null")

    def number(literal: str) -> float | None:
        value = float(literal)
        if value in _INFINITIES:
            found.append(f"number out of range ({_clip(literal)}); read as null")
            return None
        return value

    def integer(literal: str) -> int | None:
        if len(literal) > sys.get_int_max_str_digits() > 0:
            found.append(f"integer of {len(literal)} digits; read as null")
            return None
        return int(literal)

    decoder = json.JSONDecoder(parse_constant=constant, parse_float=number, parse_int=integer)
    try:
        value, end = decoder.raw_decode(text, pos)
    except RecursionError:
        pruned, end = _pruned_text(text, pos)
        found.append(NOTE_DEEP)
        value = decoder.raw_decode(pruned)[0]
    else:
        if _may_be_deep(text, pos, end) and _deeper_than(value, MAX_DEPTH):
            pruned, end = _pruned_text(text, pos)
            found.append(NOTE_DEEP)
            value = decoder.raw_decode(pruned)[0]
    return scrub_surrogates(value, found), end


def _decode_pruned(text: str, pos: int, found: list[str]) -> tuple[Any, int]:
    """The value at ``pos`` with every too-deep part replaced (no recursion involved)."""
    pruned, end = _pruned_text(text, pos)
    found.append(NOTE_DEEP)
    return _careful_decode(pruned, 0, found)[0], end


def _pruned_text(text: str, start: int) -> tuple[str, int]:
    """The JSON text of the value at ``start`` with every array/object nested deeper than
    ``MAX_DEPTH`` replaced by the TOO_DEEP string, and where that value ends in ``text``.

    Line breaks inside a cut part are kept, so line numbers after it still hold. A value
    that never closes is cut at the end of the text (the decoder then reports it).
    Raises JSONDecodeError when the value is not an array or object.
    """
    if start >= len(text) or text[start] not in "[{":
        raise json.JSONDecodeError("Expecting value", text, start)
    pieces: list[str] = []
    kept_from, depth, cut_at = start, 0, -1
    placeholder = json.dumps(TOO_DEEP)
    for match in _BRACKET_OR_STRING.finditer(text, start):
        token = match.group()
        if token[0] == '"':
            continue
        if token in "[{":
            depth += 1
            if depth == MAX_DEPTH + 1:
                cut_at = match.start()
            continue
        if depth == MAX_DEPTH + 1:
            pieces += [text[kept_from:cut_at], placeholder, "\n" * text.count("\n", cut_at, match.end())]
            kept_from, cut_at = match.end(), -1
        depth -= 1
        if depth == 0:
            pieces.append(text[kept_from : match.end()])
            return "".join(pieces), match.end()
    pieces.append(text[kept_from:cut_at] if cut_at >= 0 else text[kept_from:])
    return "".join(pieces), len(text)


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether arrays/objects nest more than ``limit`` levels (level by level, no recursion)."""
    level = [value] if isinstance(value, _CONTAINERS) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        below: list[Any] = []
        for container in level:
            items = container.values() if isinstance(container, dict) else container
            below += [item for item in items if isinstance(item, _CONTAINERS)]
        level = below
    return False


def scrub_surrogates(value: Any, found: list[str] | None = None) -> Any:
    """``value`` with every lone surrogate in its strings (keys included) replaced by U+FFFD.

    Containers are repaired in place, without recursion; a note is added when anything changed.
    """
    changed = False

    def fix(text: str) -> str:
        nonlocal changed
        if _LONE_SURROGATE.search(text) is None:
            return text
        changed = True
        return _LONE_SURROGATE.sub("\ufffd", text)

    if isinstance(value, str):
        value = fix(value)
    stack = [value] if isinstance(value, _CONTAINERS) else []
    while stack:
        container = stack.pop()
        if isinstance(container, dict):
            if any(_LONE_SURROGATE.search(key) for key in container):
                items = list(container.items())
                container.clear()
                container.update((fix(key), item) for key, item in items)
            pairs: Any = container.items()
        else:
            pairs = enumerate(container)
        for key, item in list(pairs):
            if isinstance(item, str):
                if _LONE_SURROGATE.search(item):
                    container[key] = fix(item)
            elif isinstance(item, _CONTAINERS):
                stack.append(item)
    if changed and found is not None:
        found.append(NOTE_SURROGATE)
    return value


def scrub_text(text: str) -> str:
    """A string with its lone surrogates replaced by U+FFFD (a file name decoded with
    ``surrogateescape``, say), so it always encodes as UTF-8."""
    return _LONE_SURROGATE.sub("\ufffd", text) if _LONE_SURROGATE.search(text) else text


def _has_lone_surrogate(text: str, start: int, end: int) -> bool:
    """Whether the JSON text holds a ``\\uXXXX`` escape of a surrogate that is not half of a
    pair (pairs, e.g. emoji written by Python's ``json.dumps``, decode to one character)."""
    if text.find("\\u", start, end) < 0:  # one scan for the common text with no escape at all
        return False
    for marker in ("\\ud", "\\uD"):
        at = text.find(marker, start, end)
        while at >= 0:
            if _lone_at(text, at):
                return True
            at = text.find(marker, at + 3, end)
    return False


def _lone_at(text: str, at: int) -> bool:
    unit = _surrogate_unit(text, at)
    if unit is None:
        return False
    if unit < 0xDC00:  # a high half: a low half must follow
        after = _surrogate_unit(text, at + 6)
        return after is None or after < 0xDC00
    before = _surrogate_unit(text, at - 6) if at >= 6 else None
    return before is None or before >= 0xDC00  # a low half: a high half must come before


def _surrogate_unit(text: str, at: int) -> int | None:
    """The surrogate code unit escaped at ``at`` (``\\uD800``…``\\uDFFF``), else None; a
    backslash that is itself escaped (``\\\\ud800``) is no escape."""
    if text[at : at + 2] != "\\u":
        return None
    hexa = text[at + 2 : at + 6]
    if len(hexa) != 4 or not all(c in "0123456789abcdefABCDEF" for c in hexa):
        return None
    unit = int(hexa, 16)
    if not 0xD800 <= unit <= 0xDFFF:
        return None
    slashes = at
    while slashes > 0 and text[slashes - 1] == "\\":
        slashes -= 1
    return unit if (at - slashes) % 2 == 0 else None


def _clip(literal: str, limit: int = 24) -> str:
    return cut_words(literal, limit)


def as_text(value: Any) -> str:
    """Render any JSON value as display text (strings as-is, the rest as JSON; anything
    else a reader may hold, as ``str``)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, indent=2)
    except (TypeError, ValueError, RecursionError):
        return str(value)
