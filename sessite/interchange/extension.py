"""The JSON form of model values and the ``sessite`` extension both writers carry.

What AICS and HAIL have no field for travels in their extension slot, under the
vendor-prefixed key ``sessite`` (AICS ``metadata``, HAIL ``attributes``): the
event kind, tool category, usage, titles, per-event metadata, sub-agent
nesting. This module writes that slot; sessite's AICS and HAIL readers
(``sessite.readers.sessite_extension``) read it back with the same tables, so
the two directions cannot drift apart.
"""

from __future__ import annotations

import json
from dataclasses import fields, is_dataclass
from datetime import UTC, datetime
from enum import Enum
from typing import Any

from sessite.model import Block, Event, Session, Usage

EXT = "sessite"  # the extension key
EXT_VERSION = 1

# Event fields with their defaults: a field left at its default is not written.
EVENT_DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(Event) if f.name not in ("meta",)}
# Event fields the extension never holds: the format's own structure carries them.
STRUCTURAL_EVENT_FIELDS = ("children", "blocks", "id")
BLOCK_FIELDS = tuple(f.name for f in fields(Block))
# Usage field -> HAIL event attribute (opensession's names), in the order they are written.
HAIL_USAGE_ATTRS = (
    ("input_tokens", "input_tokens"),
    ("output_tokens", "output_tokens"),
    ("cache_read_tokens", "cache_read_input_tokens"),
    ("cache_write_tokens", "cache_creation_input_tokens"),
    ("reasoning_tokens", "reasoning_tokens"),
)
# GitRefs fields in their declared order (the order HAIL's extension writes and the readers rebuild).
GIT_FIELDS = ("branches", "commits", "issues", "tags", "repos")


def jsonable(value: Any) -> Any:
    """The JSON form of a value a reader kept (tuples → lists, datetimes → ISO strings, …)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else str(value)
    if isinstance(value, dict):
        return {str(k) if not isinstance(k, str) else k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((jsonable(v) for v in value), key=repr)
    if isinstance(value, datetime):
        return iso(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in fields(value)}
    if hasattr(value, "items"):
        return {str(k): jsonable(v) for k, v in value.items()}
    return str(value)


def iso(dt: datetime) -> str:
    """ISO 8601 with the offset the reader gave (naive times are UTC)."""
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    text = dt.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def rfc3339(dt: datetime) -> str:
    """chrono's serde form for DateTime<Utc>: UTC, 'Z', 0/3/6 fraction digits (AutoSi)."""
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    dt = dt.astimezone(UTC)
    us = dt.microsecond
    frac = "" if not us else f".{us // 1000:03d}" if us % 1000 == 0 else f".{us:06d}"
    return f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}T{dt.hour:02d}:{dt.minute:02d}:{dt.second:02d}{frac}Z"


def dumps(value: Any) -> str:
    """Compact JSON (serde_json's form: no spaces, UTF-8 kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def encode(text: str, value: Any = None) -> bytes:
    """UTF-8 bytes; a lone surrogate (from a damaged source) is written as a JSON escape instead."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        if value is None:
            return text.encode("utf-8", "replace")
        return json.dumps(value, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def usage_dict(usage: Usage | None) -> dict[str, int] | None:
    """The non-zero counts of ``usage``; None when there is none."""
    if not usage:
        return None
    return {f.name: getattr(usage, f.name) for f in fields(Usage) if getattr(usage, f.name)}


def event_ext(event: Event, native: set[str]) -> dict[str, Any]:
    """Every field of ``event`` that differs from its default and has no place in the format."""
    ext: dict[str, Any] = {"kind": event.kind.value}
    for name, default in EVENT_DEFAULTS.items():
        if name in native or name == "kind" or name in STRUCTURAL_EVENT_FIELDS:
            continue
        value = getattr(event, name)
        if value is None or value == default:
            continue
        if name == "category":
            ext[name] = value.value
        elif name == "usage":
            ext[name] = usage_dict(value)
        elif name == "timestamp":
            ext[name] = iso(value)
        else:
            ext[name] = jsonable(value)
    if event.meta:
        ext["meta"] = jsonable(dict(event.meta))
    return ext


def session_ext(session: Session) -> dict[str, Any]:
    """The session-level extension: what neither format's header can say."""
    ext: dict[str, Any] = {"v": EXT_VERSION, "agent": session.agent}
    if session.cwd is not None:
        ext["cwd"] = session.cwd
    if session.project is not None:
        ext["project"] = session.project
    if session.models:
        ext["models"] = list(session.models)
    if session.usage is not None:
        ext["usage"] = usage_dict(session.usage) or {}
    if session.meta:
        ext["meta"] = jsonable(dict(session.meta))
    if session.skipped:
        ext["skipped"] = dict(session.skipped)
    if session.subagent_log:
        ext["subagent_log"] = True
    # The formats always carry a title and times: an explicit null says the session had none.
    if session.title is None:
        ext["title"] = None
    if session.started is None:
        ext["started"] = None
    if session.ended is None:
        ext["ended"] = None
    return ext


def block_desc(block: Block, field: str) -> dict[str, Any]:
    """A block's fields except ``field`` (which the format holds), for the extension."""
    desc: dict[str, Any] = {"b": block.type, "f": field}
    for name in BLOCK_FIELDS:
        if name in ("type", field):
            continue
        value = getattr(block, name)
        if value is not None and value != "":
            desc[name] = jsonable(value)
    return desc
