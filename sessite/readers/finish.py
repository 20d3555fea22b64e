"""The last step of every read: a Session whose every field holds what the model says,
and whose every string encodes as UTF-8.

JSON strings are repaired where they are decoded (``safejson``), and file contents
are decoded with replacement, so the one source of lone surrogates left is a file
or folder name that is not valid UTF-8 (Python keeps its bytes as surrogates), and
readers build ids, titles, paths and working folders from names. A page, an export
or the search index would fail on such a string, so a session that holds one is
rebuilt with each lone surrogate replaced by U+FFFD before it leaves the readers.
"""

from __future__ import annotations

import re
from dataclasses import fields, is_dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from sessite.model import Block, Event, Problems, Session, Usage
from sessite.readers.safejson import as_text

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def without_surrogates(session: Session) -> Session:
    """``session`` itself when every string in it is sound, else a repaired copy."""
    return session if not _tainted(session) else _repaired(session)


def _tainted(value: Any) -> bool:
    """Whether a lone surrogate hides anywhere in ``value`` (dataclasses, containers, strings)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not item.isascii() and _LONE_SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            stack += item.keys()
            stack += item.values()
        elif isinstance(item, (list, tuple)):
            stack += item
        elif is_dataclass(item) and not isinstance(item, type):
            stack += [getattr(item, name) for name in _field_names(type(item))]
    return False


_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _NAMES.get(cls)
    if names is None:
        names = _NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


def _repaired(value: Any) -> Any:
    """A copy of ``value`` with lone surrogates replaced (only what holds one is rebuilt).

    Recursive: values are as deep as safejson allows plus sub-agent nesting, far from the limit.
    """
    if not _tainted(value):
        return value  # untouched: an enum member (``Kind``, a ``str``) stays one
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_repaired(k): _repaired(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_repaired(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_repaired(v) for v in value)
    if is_dataclass(value) and not isinstance(value, type):
        changes = {name: _repaired(getattr(value, name)) for name in _field_names(type(value))}
        return replace(value, **changes)
    return value


# ------------------------------------------------------------------ field types


def with_sound_fields(session: Session, problems: Problems, path: Path) -> Session:
    """``session`` with every field of the type the model promises, so that no page, export
    or search chunk trips over a reader's slip on odd input (``title: true``, a list for a
    role, a number for a path). A wrong value is kept as well as it can be (as text, or
    left out) and said once per field and session; a sound session is returned as it is.
    """
    notes: dict[str, str] = {}
    events = _sound_events(session.events, notes)
    changes = _changes(session, _SESSION_TEXT, _SESSION_OPTIONAL_TEXT, notes, "session")
    if events is not session.events:
        changes["events"] = events
    if not all(isinstance(m, str) for m in session.models):
        changes["models"] = tuple(m for m in session.models if isinstance(m, str))
        notes.setdefault("models", "a model name that is not text; left out")
    if session.usage is not None and not _sound_usage(session.usage):
        changes["usage"] = None
        notes.setdefault("usage", "token counts that are not whole numbers; left out")
    for stamp in ("started", "ended"):
        if getattr(session, stamp) is not None and not isinstance(getattr(session, stamp), datetime):
            changes[stamp] = None
            notes.setdefault(stamp, f"{stamp} is not a time; left out")
    if not changes:
        return session
    for note in notes.values():
        problems.add(path, None, f"session {session.id}: {note}")
    return replace(session, **changes)


_SESSION_TEXT = ("agent",)
_SESSION_OPTIONAL_TEXT = ("title", "cwd", "project")
_EVENT_TEXT = ("text",)
_EVENT_OPTIONAL_TEXT = ("tool_name", "command", "path", "diff", "call_id", "model", "title")
_BLOCK_TEXT = ("type", "text")
_BLOCK_OPTIONAL_TEXT = ("language", "uri", "mime", "title")


def _sound_events(events: tuple[Event, ...], notes: dict[str, str]) -> tuple[Event, ...]:
    """``events`` itself when every one is sound, else a tuple with the unsound ones repaired."""
    fixed: list[Event] | None = None
    for index, event in enumerate(events):
        changes = _event_changes(event, notes)
        if changes and fixed is None:
            fixed = list(events[:index])
        if fixed is not None:
            fixed.append(replace(event, **changes) if changes else event)
    return events if fixed is None else tuple(fixed)


def _event_changes(event: Event, notes: dict[str, str]) -> dict[str, Any]:
    changes = _changes(event, _EVENT_TEXT, _EVENT_OPTIONAL_TEXT, notes, "an event's")
    if not isinstance(event.id, str):
        changes["id"] = as_text(event.id)
        notes.setdefault("event id", "an event id that is not text; shown as text")
    if event.timestamp is not None and not isinstance(event.timestamp, datetime):
        changes["timestamp"] = None
        notes.setdefault("timestamp", "an event time that is not a time; left out")
    if event.usage is not None and not _sound_usage(event.usage):
        changes["usage"] = None
        notes.setdefault("usage", "token counts that are not whole numbers; left out")
    if event.exit_code is not None and (isinstance(event.exit_code, bool) or not isinstance(event.exit_code, int)):
        changes["exit_code"] = None
        notes.setdefault("exit_code", "an exit code that is not a whole number; left out")
    if not isinstance(event.is_error, bool):
        changes["is_error"] = bool(event.is_error)
    blocks = _sound_blocks(event.blocks, notes)
    if blocks is not event.blocks:
        changes["blocks"] = blocks
    if event.children:
        children = _sound_events(event.children, notes)
        if children is not event.children:
            changes["children"] = children
    return changes


def _sound_blocks(blocks: tuple[Block, ...], notes: dict[str, str]) -> tuple[Block, ...]:
    fixed: list[Block] | None = None
    for index, block in enumerate(blocks):
        changes = _changes(block, _BLOCK_TEXT, _BLOCK_OPTIONAL_TEXT, notes, "a block's")
        if changes and fixed is None:
            fixed = list(blocks[:index])
        if fixed is not None:
            fixed.append(replace(block, **changes) if changes else block)
    return blocks if fixed is None else tuple(fixed)


def _changes(
    item: Any, text: tuple[str, ...], optional_text: tuple[str, ...], notes: dict[str, str], whose: str
) -> dict[str, Any]:
    """Replacements for the text fields of ``item`` that hold something else (shown as text)."""
    changes: dict[str, Any] = {}
    for name in text:
        value = getattr(item, name)
        if not isinstance(value, str):
            changes[name] = as_text(value)
            notes.setdefault(name, f"{whose} {name} is a {type(value).__name__}, not text; shown as text")
    for name in optional_text:
        value = getattr(item, name)
        if value is not None and not isinstance(value, str):
            changes[name] = as_text(value) or None
            notes.setdefault(name, f"{whose} {name} is a {type(value).__name__}, not text; shown as text")
    return changes


def _sound_usage(usage: Usage) -> bool:
    counts = (
        usage.input_tokens,
        usage.output_tokens,
        usage.cache_read_tokens,
        usage.cache_write_tokens,
        usage.reasoning_tokens,
    )
    return all(isinstance(n, int) and not isinstance(n, bool) and -_COUNT_LIMIT < n < _COUNT_LIMIT for n in counts)


_COUNT_LIMIT = 2**63


def with_unread_lines(session: Session, problems: Problems) -> Session:
    """Count the lines of its files that were past the read limit (``files.MAX_FILE_LINES``)
    among the session's records not shown, so its page says so; each file's count goes to
    the first session read after it was cut."""
    if not problems.unread_lines:
        return session
    skipped = dict(session.skipped)
    skipped[UNREAD_REASON] = skipped.get(UNREAD_REASON, 0) + sum(problems.unread_lines.values())
    problems.unread_lines.clear()
    return replace(session, skipped=skipped)


UNREAD_REASON = "line past the most a file is read to, not read (memory bound; the build says where)"
