"""``json.dumps(value, ensure_ascii=False, indent=2)`` for JSON's own types, with the C string encoder.

json.dumps has no C encoder once ``indent`` is set; a tool call's input is printed for every
call on a session page, so this walks the value itself and encodes each string with the C
``encode_basestring``. Same text out (tests/render/test_markup.py compares the two); ``dumps`` gives
None for anything it does not handle (a key that is not a string, an object) and the caller
uses json.dumps.
"""

from __future__ import annotations

import math
from json.encoder import encode_basestring as _encode_string
from typing import Any


def dumps(value: Any) -> str | None:
    """``value`` as json.dumps(ensure_ascii=False, indent=2) writes it, or None: ask json.dumps."""
    out: list[str] = []
    try:
        _pretty(value, "\n", out)
    except _NotPlain:
        return None
    return "".join(out)


class _NotPlain(Exception):
    """A value ``_pretty`` leaves to json.dumps (a key that is not a string, an object)."""


def _pretty(value: Any, newline: str, out: list[str]) -> None:
    """What ``json.dumps(value, ensure_ascii=False, indent=2)`` writes, for JSON's own types.

    json.dumps has no C encoder once ``indent`` is set; a tool call's input is printed
    for every call, so this walks it with the C string encoder instead."""
    kind = type(value)
    if kind is str:
        out.append(_encode_string(value))
    elif kind is dict or kind is list or kind is tuple:
        _pretty_container(value, newline, out)
    elif value is None or value is True or value is False:
        out.append("null" if value is None else ("true" if value else "false"))
    elif kind is int:
        out.append(int.__repr__(value))
    elif kind is float and math.isfinite(value):
        out.append(float.__repr__(value))
    else:
        raise _NotPlain


def _pretty_container(value: dict[Any, Any] | list[Any] | tuple[Any, ...], newline: str, out: list[str]) -> None:
    if not value:
        out.append("{}" if type(value) is dict else "[]")
        return
    inner = newline + "  "
    comma = "," + inner
    if type(value) is dict:
        out.append("{" + inner)
        for i, (key, item) in enumerate(value.items()):
            if type(key) is not str:
                raise _NotPlain
            out.append(_encode_string(key) + ": " if i == 0 else comma + _encode_string(key) + ": ")
            _pretty(item, inner, out)
        out.append(newline + "}")
    else:
        out.append("[" + inner)
        for i, item in enumerate(value):
            if i:
                out.append(comma)
            _pretty(item, inner, out)
        out.append(newline + "]")
