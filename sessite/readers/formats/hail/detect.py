"""Telling HAIL from other JSON: a JSONL header or event line, or a HAIL JSON document,
from the first bytes only (a header line can be longer than the sniff)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sessite.readers.base import Sniff, sniff
from sessite.readers.formats.hail.acp import is_acp_header
from sessite.readers.safejson import loads

DETECT_BYTES = 16 * 1024
_HAIL_VERSION_KEY = re.compile(r'"version"\s*:\s*"hail-')


def looks_like_hail(sniffed: Sniff) -> bool:
    line = sniffed.object_line(DETECT_BYTES)
    if line is None:
        return False
    head, first, obj = line
    if obj is not None:
        return is_hail_record(obj) or is_hail_document(obj)
    # Either a pretty-printed HAIL JSON document or a header line longer than the sniff.
    if '"type":"header"' in first.replace(" ", "") and _HAIL_VERSION_KEY.search(first):
        return True
    keys = top_level_keys(head)
    version = keys.get("version")
    if not (isinstance(version, str) and version.startswith("hail-") and "session_id" in keys):
        # A damaged version still leaves a document of HAIL events.
        return "version" in keys and "session_id" in keys and "events" in keys and '"event_type"' in head
    # serde writes version, session_id, agent, context, events: a long context can push
    # "events" past the sniffed bytes, and then agent/context must do.
    return "events" in keys or (len(head) >= DETECT_BYTES // 2 and ("agent" in keys or "context" in keys))


def is_hail_record(obj: dict[str, Any]) -> bool:
    """A HAIL JSONL line: the header, or (header missing) an event with an adjacently tagged type,
    or the ``session.new`` line of opensession's ACP-shaped storage (``acp``)."""
    if is_acp_header(obj):
        return True
    if obj.get("type") == "header":
        return isinstance(obj.get("version"), str) and obj["version"].startswith("hail-")
    if obj.get("type") == "event":
        event_type = obj.get("event_type")
        return "event_id" in obj and isinstance(event_type, dict) and isinstance(event_type.get("type"), str)
    return False


def is_hail_document(obj: dict[str, Any]) -> bool:
    version = obj.get("version")
    if not ("session_id" in obj and "events" in obj):
        return False
    if isinstance(version, str) and version.startswith("hail-"):
        return True
    # A damaged version (a bad value) still leaves a document whose events are HAIL's.
    events = obj.get("events")
    return "version" in obj and isinstance(events, list) and any(_is_hail_event(e) for e in events[:3])


def _is_hail_event(value: Any) -> bool:
    return isinstance(value, dict) and "event_id" in value and isinstance(value.get("event_type"), dict)


def is_acp_file(path: Path) -> bool:
    """opensession's ACP-shaped storage: its first line is ``session.new``."""
    line = Sniff(path).object_line(DETECT_BYTES)
    return line is not None and is_acp_header(line[2])


def is_json_document(path: Path) -> bool:
    """HAIL JSON (one object) rather than JSONL: decided by the first line, then the suffix."""
    head = sniff(path, 16 * 1024).lstrip()
    first = head.split("\n", 1)[0].strip()
    try:
        obj = loads(first)
    except ValueError:
        return path.suffix.lower() == ".json" or (first == "{" and '"events"' in head)
    if isinstance(obj, dict):
        return "type" not in obj and "events" in obj
    return False


def top_level_keys(text: str) -> dict[str, Any]:
    """Keys at depth 1 of a (possibly cut) JSON object, with string values where they are short."""
    keys: dict[str, Any] = {}
    depth = 0
    i = 0
    n = len(text)
    pending_key: str | None = None
    while i < n:
        ch = text[i]
        if ch == '"':
            end = _string_end(text, i)
            if end >= n:
                break
            if depth == 1:
                pending_key = _take_string(text, i, end, keys, pending_key)
            i = end + 1
            continue
        if ch in "{[":
            depth += 1
            if depth == 2:
                pending_key = None
        elif ch in "}]":
            depth -= 1
            if depth <= 0:
                break
        elif ch == "," and depth == 1:
            pending_key = None
        i += 1
    return keys


def _string_end(text: str, start: int) -> int:
    """The index of the quote closing the string that opens at ``start`` (``len(text)`` or past it if cut)."""
    end = start + 1
    while end < len(text) and text[end] != '"':
        end += 2 if text[end] == "\\" else 1
    return end


def _take_string(text: str, start: int, end: int, keys: dict[str, Any], pending_key: str | None) -> str | None:
    """A depth-1 string: a key (when a colon follows) or the value of the pending key.
    Records it in ``keys``; returns the key now waiting for its value."""
    try:
        value = loads(text[start : end + 1])
    except ValueError:
        value = None
    rest = text[end + 1 : end + 64].lstrip()
    if pending_key is None and rest.startswith(":"):
        pending_key = value if isinstance(value, str) else None
        if pending_key is not None:
            keys[pending_key] = None
        return pending_key
    if pending_key is not None:
        keys[pending_key] = value
    return None
