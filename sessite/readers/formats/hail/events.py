"""One HAIL event record as a model event: its id, time, attributes, type and content.

``event_type`` is adjacently tagged (``{"type": "ToolCall", "data": {"name": …}}``);
anything that does not fit is reported and kept (in ``meta``, or as an UNKNOWN
event shown as raw JSON), never dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sessite.model import Event, Kind, Usage
from sessite.readers._util import text_of
from sessite.readers.base import as_text, parse_time
from sessite.readers.formats.hail.blocks import read_blocks
from sessite.readers.formats.hail.event_types import EventData, typed_fields
from sessite.readers.formats.hail.state import ReadState
from sessite.readers.formats.hail.vocabulary import CALL_ID_ATTRS, EVENT_FIELDS, KNOWN_EVENT_TYPES, USAGE_ATTRS

# (the event, the task_id it carries, its HAIL event type or "?")
EventRecord = tuple[Event, str | None, str]


@dataclass
class _Record:
    """The event record being read: where it is, its ids, and the facts it kept for ``meta``."""

    state: ReadState
    obj: dict[str, Any]
    line: int
    raw_id: str
    event_id: str
    meta: dict[str, Any]

    def report(self, message: str) -> None:
        self.state.report(self.line, message)

    def warn(self, message: str) -> None:
        """A problem with one part of the event."""
        self.state.report(self.line, f"event {self.raw_id!r}: {message}")

    def unknown(self, timestamp: datetime | None, title: str) -> Event:
        """The whole record as an UNKNOWN event (shown as raw JSON)."""
        return Event(
            id=self.event_id,
            kind=Kind.UNKNOWN,
            timestamp=timestamp,
            title=title,
            raw=self.obj,
            line=self.line,
            meta=self.meta,
        )


def read_event(state: ReadState, obj: dict[str, Any], line: int) -> EventRecord:
    """One event record; a reader bug in it costs only that record (shown as raw JSON)."""
    try:
        return _event(state, obj, line)
    except Exception as exc:  # a reader bug must not lose the record
        state.report(line, f"could not read event ({type(exc).__name__}: {exc}); shown as raw JSON")
        event = Event(
            id=state.unique(f"line-{line}", line),
            kind=Kind.UNKNOWN,
            title="unreadable HAIL event",
            raw=obj,
            line=line,
        )
        return event, None, "?"


def _event(state: ReadState, obj: dict[str, Any], line: int) -> EventRecord:
    raw_id = obj.get("event_id")
    if isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)) or not str(raw_id).strip():
        state.report(line, f"event has no usable event_id ({raw_id!r})")
        raw_id = f"line-{line}"
    raw_id = str(raw_id)
    record = _Record(state, obj, line, raw_id, state.unique(raw_id, line, report=True), {})
    timestamp = _timestamp(record)
    attrs = _attributes(record)
    task_id = _task_id(record)
    typed = _event_type(record)
    if typed is None:
        record.report(f"event {raw_id!r} has no event_type; shown as raw JSON")
        return record.unknown(timestamp, "HAIL event without a type"), task_id, "?"
    hail_type, data = typed
    if hail_type not in KNOWN_EVENT_TYPES:
        record.report(f"unknown event type {hail_type!r}; shown as raw JSON")
        return record.unknown(timestamp, f"HAIL event {hail_type!r}"), task_id, hail_type

    parts = read_blocks(_raw_blocks(record), record.warn)
    model = text_of(attrs.get("model"))
    if model:
        state.add_model(model)
    usage = _usage(record, attrs)
    meta = record.meta
    meta.update({k: v for k, v in attrs.items() if not (k == "model" and model) and k not in USAGE_ATTRS})

    fields: dict[str, Any] = dict(
        id=record.event_id, timestamp=timestamp, line=line, model=model, usage=usage, meta=meta
    )
    fields.update(typed_fields(EventData(state, record.warn, hail_type, data, parts, attrs, meta, record.event_id)))
    if fields.get("kind") == Kind.ASSISTANT and not fields.get("model"):
        fields["model"] = state.header_model
    event = Event(**fields)
    if event.kind == Kind.TOOL_CALL:
        state.call_ids[raw_id] = record.event_id
        for key in CALL_ID_ATTRS:
            if isinstance(attrs.get(key), str):
                state.semantic_calls[attrs[key]] = record.event_id
    return event, task_id, hail_type


def _timestamp(record: _Record) -> datetime | None:
    ts_raw = record.obj.get("timestamp")
    timestamp = parse_time(ts_raw) if isinstance(ts_raw, str) else None
    if ts_raw is None:
        record.report(f"event {record.raw_id!r} has no timestamp")
    elif timestamp is None:
        record.report(f"event {record.raw_id!r} has an invalid timestamp {ts_raw!r} (expected RFC 3339)")
        record.meta["timestamp"] = ts_raw
    return timestamp


def _attributes(record: _Record) -> dict[str, Any]:
    attrs = record.obj.get("attributes")
    if attrs is None:
        return {}
    if not isinstance(attrs, dict):
        record.warn("'attributes' is not an object")
        record.meta["attributes"] = attrs
        return {}
    return attrs


def _task_id(record: _Record) -> str | None:
    """The task_id (the sub-agent or turn the event belongs to); keeps it and any unknown keys in meta."""
    obj, meta = record.obj, record.meta
    task_id = obj.get("task_id")
    if task_id is not None and not isinstance(task_id, str):
        record.warn("'task_id' is not a string")
        task_id = as_text(task_id)
    task_id = task_id or None
    if task_id:
        meta["task_id"] = task_id
    if "duration_ms" in obj:
        meta["duration_ms"] = obj["duration_ms"]
    for key, value in obj.items():
        if key not in EVENT_FIELDS:
            meta[key] = value
    return task_id


def _event_type(record: _Record) -> tuple[str, dict[str, Any]] | None:
    """The HAIL event type and its data; None when the record has no type at all."""
    event_type = record.obj.get("event_type")
    if isinstance(event_type, dict) and isinstance(event_type.get("type"), str):
        raw_data = event_type.get("data")
        if isinstance(raw_data, dict):
            return event_type["type"], raw_data
        if raw_data is not None:
            record.warn("event_type.data is not an object")
            record.meta["event_type.data"] = raw_data
        return event_type["type"], {}
    if isinstance(event_type, str):
        record.warn('event_type is a bare string, expected {"type": …}')
        return event_type, {}
    return None


def _raw_blocks(record: _Record) -> list[Any]:
    """The record's content blocks, as found (a bare string content becomes one Text block)."""
    content, meta = record.obj.get("content"), record.meta
    raw_blocks: Any = []
    if isinstance(content, dict):
        raw_blocks = content.get("blocks", [])
        for key, value in content.items():
            if key != "blocks":
                meta[f"content.{key}"] = value
    elif content is not None:
        record.warn("'content' is not an object")
        raw_blocks = [{"type": "Text", "text": content}] if isinstance(content, str) else []
        if not isinstance(content, str):
            meta["content"] = content
    if not isinstance(raw_blocks, list):
        record.warn("content.blocks is not an array")
        meta["content.blocks"] = raw_blocks
        raw_blocks = []
    return raw_blocks


def _usage(record: _Record, attrs: dict[str, Any]) -> Usage | None:
    """The event's token counts; None when it has none, or repeats the last report (Codex)."""
    state, meta = record.state, record.meta
    counts: dict[str, int] = {}
    for key, target in USAGE_ATTRS.items():
        if key not in attrs:
            continue
        value = attrs[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            record.warn(f"attribute {key} is not a token count ({value!r})")
            meta[key] = value
            continue
        counts[target] = counts.get(target, 0) + value
    if not counts:
        return None
    totals = (attrs.get("input_tokens_total"), attrs.get("output_tokens_total"))
    if totals != (None, None):
        # Codex reports each turn's token_count more than once; the cumulative
        # totals only move when a new response was counted.
        if totals == state.last_totals:
            meta["usage"] = "repeated report, not counted again"
            meta.update({k: attrs[k] for k in USAGE_ATTRS if k in attrs})
            return None
        state.last_totals = totals
    usage = Usage(**counts)
    if usage:
        state.has_event_usage = True
    return usage or None
