"""Is a file a Gemini chat, and is it one JSON document or a JSONL stream?"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sessite.readers.regular import open_regular
from sessite.readers.safejson import loads, raw_decode

_WS = re.compile(r"[ \t\r\n]*")


def is_document(obj: dict[str, Any]) -> bool:
    """A whole chat as one JSON object (the older form)."""
    return isinstance(obj.get("sessionId"), str) and "projectHash" in obj and isinstance(obj.get("messages"), list)


def is_header(obj: dict[str, Any]) -> bool:
    """The first line of a JSONL chat: the session's details without messages."""
    return (
        isinstance(obj.get("sessionId"), str)
        and isinstance(obj.get("projectHash"), str)
        and ("kind" in obj or "startTime" in obj)
        and "id" not in obj
        and "type" not in obj
    )


def is_jsonl(path: Path) -> bool:
    """JSONL (a header line) rather than one JSON document: decided by the first line."""
    try:
        with open_regular(path) as fh:
            first = fh.readline(8 * 1024 * 1024)
            second = fh.readline(1024).strip()
    except OSError:
        return path.suffix.lower() == ".jsonl"
    text = first.decode("utf-8", errors="replace").lstrip("\ufeff").strip()
    try:
        obj = loads(text)
    except ValueError:
        # "{" alone starts a pretty-printed document; anything else is a (damaged) line stream.
        return not text.startswith("{") or (text != "{" and path.suffix.lower() == ".jsonl")
    if isinstance(obj, dict) and isinstance(obj.get("messages"), list):
        return bool(second)  # one-line document, unless more lines follow it
    return True


def _skip_ws(text: str, pos: int) -> int:
    match = _WS.match(text, pos)
    return match.end() if match else pos  # the pattern matches the empty string, so always a match


def top_level_keys(text: str) -> tuple[dict[str, Any], bool]:
    """The top-level keys of a (possibly cut) JSON object with their values where complete.

    Returns (keys, complete): a key whose value is cut maps to None, and
    ``complete`` is False when the text ends before the object does.
    """
    keys: dict[str, Any] = {}
    pos = _skip_ws(text, 0)
    if not text.startswith("{", pos):
        return keys, True
    pos += 1
    while True:
        pos = _skip_ws(text, pos)
        if pos >= len(text):
            return keys, False
        if text[pos] == "}":
            return keys, True
        try:
            key, pos = raw_decode(text, pos)
        except ValueError:
            return keys, False
        pos = _skip_ws(text, pos)
        if not text.startswith(":", pos) or not isinstance(key, str):
            return keys, pos >= len(text)
        pos = _skip_ws(text, pos + 1)
        try:
            value, pos = raw_decode(text, pos)
        except ValueError:
            keys[key] = None
            return keys, False
        keys[key] = value
        pos = _skip_ws(text, pos)
        if text.startswith(",", pos):
            pos += 1
        elif text.startswith("}", pos):
            return keys, True
        else:
            return keys, False
