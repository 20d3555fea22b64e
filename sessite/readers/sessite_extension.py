"""Sessions sessite exported as AICS or HAIL, given back as they were.

sessite's writers (``sessite.interchange``) put what a format has no field for
under the key ``sessite`` (AICS ``metadata``, HAIL ``attributes``), with ``p``
naming what each content part or block holds. The AICS and HAIL readers call
this module first; when the extension is missing or damaged they read the file
as plain AICS or HAIL instead. The tables (field names, usage attributes) are
the writers', so the two directions cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from sessite.interchange.extension import (
    BLOCK_FIELDS,
    EVENT_DEFAULTS,
    EXT,
    EXT_VERSION,
    GIT_FIELDS,
    HAIL_USAGE_ATTRS,
    STRUCTURAL_EVENT_FIELDS,
)
from sessite.model import (
    Block,
    Event,
    GitRefs,
    Kind,
    Problems,
    Session,
    SourceRef,
    ToolCategory,
    Usage,
    make_session_id,
)
from sessite.readers._util import obj, to_int
from sessite.readers.base import parse_time
from sessite.readers.files import iter_jsonl
from sessite.readers.safejson import loads

# Reads one AICS message that carries no extension: (message, where, index) -> events.
NativeMessageReader = Callable[[dict[str, Any], str, int], Iterator[Event]]
# (event, the id of the event it sits under): the flat list both formats write, before nesting.
_FlatEvents = list[tuple[Event, str | None]]

# HAIL block type -> the key that holds its content in full.
_HAIL_BLOCK_VALUE_KEY = {
    "Code": "code",
    "Text": "text",
    "File": "content",
    "Json": "data",
    "Image": "url",
    "Video": "url",
    "Audio": "url",
    "Reference": "uri",
}
_NESTING_LIMIT = 100

# -------------------------------------------------------------------- shared


def _usage(counts: dict[str, Any]) -> Usage:
    return Usage(**{k: to_int(v) for k, v in counts.items() if k in Usage.__dataclass_fields__})


def _fields_from_ext(ext: dict[str, Any]) -> dict[str, Any]:
    """Event keyword arguments from an extension dict (the inverse of ``extension.event_ext``)."""
    out: dict[str, Any] = {}
    for name, value in ext.items():
        if name == "kind":
            out["kind"] = Kind(value)
        elif name == "category":
            out["category"] = ToolCategory(value) if value is not None else None
        elif name == "usage":
            out["usage"] = _usage(value) if value else None
        elif name == "timestamp":
            out["timestamp"] = parse_time(value) if value else None
        elif name == "meta":
            out["meta"] = dict(value) if isinstance(value, dict) else {}
        elif name in EVENT_DEFAULTS and name not in STRUCTURAL_EVENT_FIELDS:
            out[name] = value
    return out


def _session_fields(ext: dict[str, Any]) -> dict[str, Any]:
    """Session keyword arguments from the session-level extension (the inverse of ``extension.session_ext``)."""
    usage = ext.get("usage")
    return dict(
        agent=str(ext.get("agent") or "unknown"),
        cwd=ext.get("cwd"),
        project=ext.get("project"),
        models=tuple(str(m) for m in ext.get("models") or ()),
        usage=_usage(usage) if isinstance(usage, dict) else None,
        meta=dict(ext["meta"]) if isinstance(ext.get("meta"), dict) else {},
        skipped={str(k): to_int(v) for k, v in obj(ext.get("skipped")).items()},
        subagent_log=ext.get("subagent_log") is True,
    )


def _git_refs(refs: dict[str, Any]) -> GitRefs:
    return GitRefs(*(tuple(str(x) for x in refs.get(k) or ()) for k in GIT_FIELDS))


def _block_from_desc(desc: dict[str, Any], value: Any) -> Block:
    """A block from its description in ``p`` and the value the format held for field ``f``."""
    kwargs = {k: v for k, v in desc.items() if k in BLOCK_FIELDS and k != "type"}
    field = desc.get("f", "text")
    if field in BLOCK_FIELDS:
        kwargs[field] = value
    return Block(type=str(desc.get("b") or "text"), **kwargs)


def _nest(flat: _FlatEvents) -> tuple[Event, ...]:
    """Put each event under the event its ``parent`` names (sub-agent transcripts)."""
    children: dict[str, list[Event]] = {}
    order: _FlatEvents = []
    ids = {e.id for e, _ in flat}
    for event, parent in flat:
        if parent is not None and parent in ids:
            children.setdefault(parent, []).append(event)
        order.append((event, parent if parent in ids else None))

    def build(event: Event, depth: int = 0) -> Event:
        kids = children.pop(event.id, None)
        if not kids or depth > _NESTING_LIMIT:
            return event
        return replace(event, children=tuple(build(k, depth + 1) for k in kids))

    return tuple(build(e) for e, parent in order if parent is None)


# -------------------------------------------------------------------- AICS


def is_sessite_aics(raw_session: Any) -> bool:
    """Whether an AICS session carries sessite's extension, in a version this reader knows."""
    meta = raw_session.get("metadata") if isinstance(raw_session, dict) else None
    ext = meta.get(EXT) if isinstance(meta, dict) else None
    return isinstance(ext, dict) and ext.get("v") == EXT_VERSION


def read_aics_session(raw: dict[str, Any], path: Path, native: NativeMessageReader) -> Session:
    """A session sessite wrote as AICS, given back as it was (``native`` reads a message without our extension).

    Raises on a damaged extension: the caller then reads the session as plain AICS."""
    ext = raw["metadata"][EXT]
    flat: _FlatEvents = []
    for index, message in enumerate(raw.get("messages") or []):
        mext = (message.get("metadata") or {}).get(EXT) if isinstance(message, dict) else None
        if isinstance(mext, dict) and mext.get("placeholder"):
            continue
        if not isinstance(mext, dict) or "kind" not in mext:
            flat.extend((e, None) for e in native(message, f"messages[{index}]", index))
            continue
        flat.append((_aics_event(message, mext), mext.get("parent")))
    refs = raw.get("gitRefs") if isinstance(raw.get("gitRefs"), dict) else {}
    return Session(
        id=make_session_id("aics", str(raw.get("id"))),
        source=SourceRef(str(path), "aics"),
        events=_nest(flat),
        title=None if "title" in ext and ext["title"] is None else raw.get("title"),
        started=None if "started" in ext else parse_time(raw.get("startedAt")),
        ended=None if "ended" in ext else parse_time(raw.get("updatedAt")),
        git=_git_refs(refs or {}),
        **_session_fields(ext),
    )


def _aics_event(message: dict[str, Any], ext: dict[str, Any]) -> Event:
    kwargs: dict[str, Any] = {
        "id": str(message.get("id")),
        "timestamp": parse_time(message.get("timestamp")),
        "model": message.get("model"),
    }
    blocks: list[Block] = []
    for part, role in zip(message.get("content") or [], ext.get("p") or []):
        text = part.get("text") if isinstance(part.get("text"), str) else ""
        data = part.get("data") if isinstance(part.get("data"), dict) else {}
        if role == "text":
            kwargs["text"] = text
        elif role == "call":
            kwargs["tool_name"] = data.get("name")
            kwargs["call_id"] = data.get("id")
            kwargs["tool_input"] = data.get("input")
        elif role == "result":
            kwargs["text"] = text
            kwargs["call_id"] = data.get("tool_call_id")
            kwargs["tool_name"] = data.get("name")
            kwargs["is_error"] = bool(data.get("is_error"))
        elif role == "diff":
            kwargs["diff"] = text
        elif role == "raw":
            kwargs["raw"] = loads(text)
        elif isinstance(role, dict):
            blocks.append(_block_from_desc(role, loads(text) if role.get("f") == "data" else text))
    kwargs["blocks"] = tuple(blocks)
    kwargs.update(_fields_from_ext(ext))
    return Event(**kwargs)


# -------------------------------------------------------------------- HAIL


def is_sessite_hail_header(header: Any) -> bool:
    """Whether a HAIL header line carries sessite's extension, in a version this reader knows."""
    context = header.get("context") if isinstance(header, dict) else None
    attributes = context.get("attributes") if isinstance(context, dict) else None
    ext = attributes.get(EXT) if isinstance(attributes, dict) else None
    return (
        isinstance(header, dict)
        and header.get("type") == "header"
        and isinstance(ext, dict)
        and ext.get("v") == EXT_VERSION
    )


def read_hail_file(path: Path, problems: Problems) -> Session | None:
    """A session sessite wrote as HAIL JSONL, given back as it was; None when the file is
    not one (or its extension is unusable: the caller then reads it as plain HAIL)."""
    scratch = Problems()
    lines = iter_jsonl(path, scratch)
    first = next(lines, None)
    if first is None or not is_sessite_hail_header(first[1]):
        return None
    try:
        session = _hail_session(path, first[1], lines)
    except Exception as exc:  # noqa: BLE001 - a damaged extension: read the file as plain HAIL instead
        problems.add(
            path, None, f"HAIL: sessite extension unreadable ({type(exc).__name__}: {exc}); read as plain HAIL"
        )
        return None
    for problem in scratch.items:
        problems.add(path, problem.line, problem.message)
    return session


def _hail_session(path: Path, header: dict[str, Any], lines: Iterator[tuple[int, dict[str, Any]]]) -> Session:
    flat: _FlatEvents = []
    for _, record in lines:
        if record.get("type") != "event":
            continue
        attrs = record.get("attributes") or {}
        ext = attrs.get(EXT)
        if not isinstance(ext, dict) or ext.get("end"):
            continue
        flat.append((_hail_event(record, attrs, ext), ext.get("parent")))
    context = header["context"]
    sext = context["attributes"][EXT]
    return Session(
        id=make_session_id("hail", str(header.get("session_id"))),
        source=SourceRef(str(path), "hail"),
        events=_nest(flat),
        title=None if "title" in sext else context.get("title"),
        started=None if "started" in sext else parse_time(context.get("created_at")),
        ended=None if "ended" in sext else parse_time(context.get("updated_at")),
        git=_git_refs(sext.get("git") or {}),
        **_session_fields(sext),
    )


def _hail_event(record: dict[str, Any], attrs: dict[str, Any], ext: dict[str, Any]) -> Event:
    etype = record.get("event_type") or {}
    data = obj(etype.get("data"))
    kwargs: dict[str, Any] = {
        "id": str(record.get("event_id")),
        "timestamp": parse_time(record.get("timestamp")),
        "model": attrs.get("model"),
    }
    usage = {name: attrs[key] for name, key in HAIL_USAGE_ATTRS if attrs.get(key)}
    kwargs["usage"] = Usage(**usage) if usage else None
    kwargs.update(_hail_type_fields(etype.get("type"), data))
    blocks: list[Block] = []
    content = record.get("content") or {}
    for block, role in zip(content.get("blocks") or [], ext.get("p") or []):
        if role == "text":
            kwargs["text"] = block.get("text", "")
        elif role == "input":
            kwargs["tool_input"] = block.get("data")
        elif role == "diff":
            kwargs["diff"] = block.get("code", "")
        elif role == "raw":
            kwargs["raw"] = block.get("data")
        elif isinstance(role, dict):
            field = role.get("f", "text")
            key = _HAIL_BLOCK_VALUE_KEY.get(block.get("type"), "text")
            blocks.append(_block_from_desc(role, block.get(key, "" if field == "text" else None)))
    kwargs["blocks"] = tuple(blocks)
    kwargs["line"] = None
    kwargs.update(_fields_from_ext(ext))
    return Event(**kwargs)


def _hail_type_fields(kind: Any, data: dict[str, Any]) -> dict[str, Any]:
    """The event fields the HAIL event type's data holds natively."""
    if kind == "ShellCommand":
        out = {"command": data.get("command")}
        if "exit_code" in data:
            out["exit_code"] = data["exit_code"]
        return out
    if kind in ("FileEdit", "FileRead"):
        out = {"path": data.get("path")}
        if "diff" in data:
            out["diff"] = data["diff"]
        return out
    if kind == "ToolCall":
        return {"tool_name": data.get("name")}
    if kind == "ToolResult":
        return {"is_error": bool(data.get("is_error")), "tool_name": data.get("name")}
    if kind == "TaskStart":
        return {"title": data.get("title")}
    return {}
