"""A session as AICS 1.0 JSON, HAIL 1.0 JSONL or Markdown, and back again.

The exports are written for other tools first: every event goes where the
format's own readers look for it (AICS messages and content parts, HAIL event
types and content blocks), and every file is valid by its format's rules.
What a format has no field for travels in its extension slot, under the
vendor-prefixed key ``sessite`` (AICS ``metadata``, HAIL ``attributes``): the
event kind, tool category, usage, titles, per-event metadata, sub-agent
nesting. sessite's AICS and HAIL readers use that slot (``read_aics_session``,
``read_hail_file``) to give back the same session; other tools ignore it.

What still changes on a round trip (see README "Round trips"): the session id
gains the reader's prefix (``aics-…``/``hail-…``), ``source`` names the export
file, and values the model holds that JSON cannot (tuples inside tool input,
datetimes inside metadata) come back as their JSON form.

The functions here are pure: session in, text out. Each format is one
serializer that yields UTF-8 pieces (``aics_chunks``, ``hail_chunks``,
``markdown_chunks``: a message, a line, an event at a time); ``aics_bytes``,
``to_hail``, ``to_markdown`` … join them. ``session_exports`` plugs them into
the build (``outputs.SESSION_OUTPUTS``), streaming the pieces through gzip so a
huge session's text is never held whole: the files land beside the session's
page as ``sessions/<id>.aics.json.gz``, ``.hail.jsonl.gz`` and ``.md.gz``.
"""

from __future__ import annotations

import json
import re
import struct
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import fields, is_dataclass
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from typing import Any

from sitegen import __version__
from sitegen.model import Block, Event, GitRefs, Kind, Session, SourceRef, ToolCategory, Usage, make_session_id

EXT = "sessite"  # the extension key
EXT_VERSION = 1
HAIL_VERSION = "hail-1.0.0"
SUFFIXES = {"aics": ".aics.json", "hail": ".hail.jsonl", "markdown": ".md"}

# -------------------------------------------------------------------- shared

_EVENT_DEFAULTS = {f.name: f.default for f in fields(Event) if f.name not in ("meta",)}
_BLOCK_FIELDS = tuple(f.name for f in fields(Block))


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
        return _iso(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in fields(value)}
    if hasattr(value, "items"):
        return {str(k): jsonable(v) for k, v in value.items()}
    return str(value)


def _iso(dt: datetime) -> str:
    """ISO 8601 with the offset the reader gave (naive times are UTC)."""
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    text = dt.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def _rfc3339(dt: datetime) -> str:
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


def _usage_dict(usage: Usage | None) -> dict[str, int] | None:
    if not usage:
        return None
    return {f.name: getattr(usage, f.name) for f in fields(Usage) if getattr(usage, f.name)}


def _event_ext(event: Event, native: set[str]) -> dict[str, Any]:
    """Every field of ``event`` that differs from its default and has no place in the format."""
    ext: dict[str, Any] = {"kind": event.kind.value}
    for name, default in _EVENT_DEFAULTS.items():
        if name in native or name in ("kind", "children", "blocks", "id"):
            continue
        value = getattr(event, name)
        if value is None or value == default:
            continue
        if name == "category":
            ext[name] = value.value
        elif name == "usage":
            ext[name] = _usage_dict(value)
        elif name == "timestamp":
            ext[name] = _iso(value)
        else:
            ext[name] = jsonable(value)
    if event.meta:
        ext["meta"] = jsonable(dict(event.meta))
    return ext


def _fields_from_ext(ext: dict[str, Any]) -> dict[str, Any]:
    """Event keyword arguments from an extension dict (the inverse of _event_ext)."""
    out: dict[str, Any] = {}
    for name, value in ext.items():
        if name == "kind":
            out["kind"] = Kind(value)
        elif name == "category":
            out["category"] = ToolCategory(value) if value is not None else None
        elif name == "usage":
            out["usage"] = (
                Usage(**{k: int(v) for k, v in value.items() if k in Usage.__dataclass_fields__}) if value else None
            )
        elif name == "timestamp":
            out["timestamp"] = _parse_time(value) if value else None
        elif name == "meta":
            out["meta"] = dict(value) if isinstance(value, dict) else {}
        elif name in _EVENT_DEFAULTS and name not in ("children", "blocks", "id"):
            out[name] = value
    return out


def _parse_time(value: Any) -> datetime | None:
    from sitegen.readers.base import parse_time

    return parse_time(value)


def _session_ext(session: Session) -> dict[str, Any]:
    ext: dict[str, Any] = {"v": EXT_VERSION, "agent": session.agent}
    if session.cwd is not None:
        ext["cwd"] = session.cwd
    if session.project is not None:
        ext["project"] = session.project
    if session.models:
        ext["models"] = list(session.models)
    if session.usage is not None:
        ext["usage"] = _usage_dict(session.usage) or {}
    if session.meta:
        ext["meta"] = jsonable(dict(session.meta))
    if session.skipped:
        ext["skipped"] = dict(session.skipped)
    if session.title is None:
        ext["title"] = None
    if session.started is None:
        ext["started"] = None
    if session.ended is None:
        ext["ended"] = None
    return ext


def _session_fields(ext: dict[str, Any]) -> dict[str, Any]:
    usage = ext.get("usage")
    return dict(
        agent=str(ext.get("agent") or "unknown"),
        cwd=ext.get("cwd"),
        project=ext.get("project"),
        models=tuple(str(m) for m in ext.get("models") or ()),
        usage=Usage(**{k: int(v) for k, v in usage.items() if k in Usage.__dataclass_fields__})
        if isinstance(usage, dict)
        else None,
        meta=dict(ext["meta"]) if isinstance(ext.get("meta"), dict) else {},
        skipped={str(k): int(v) for k, v in (ext.get("skipped") or {}).items()},
    )


def _block_desc(block: Block, field: str) -> dict[str, Any]:
    """A block's fields except ``field`` (which the format holds), for the extension."""
    desc: dict[str, Any] = {"b": block.type, "f": field}
    for name in _BLOCK_FIELDS:
        if name in ("type", field):
            continue
        value = getattr(block, name)
        if value is not None and value != "":
            desc[name] = jsonable(value)
    return desc


def _block_from_desc(desc: dict[str, Any], value: Any) -> Block:
    kwargs = {k: v for k, v in desc.items() if k in _BLOCK_FIELDS and k != "type"}
    field = desc.get("f", "text")
    if field in _BLOCK_FIELDS:
        kwargs[field] = value
    return Block(type=str(desc.get("b") or "text"), **kwargs)


def _walk(events: Iterable[Event]) -> Iterator[Event]:
    for event in events:
        yield event
        yield from _walk(event.children)


def _provider(session: Session) -> str:
    text = " ".join([*session.models, session.agent]).lower()
    for needle, provider in (
        ("claude", "anthropic"),
        ("anthropic", "anthropic"),
        ("gpt", "openai"),
        ("codex", "openai"),
        ("o3", "openai"),
        ("o4", "openai"),
        ("openai", "openai"),
        ("gemini", "google"),
        ("google", "google"),
    ):
        if needle in text:
            return provider
    return "unknown"


# -------------------------------------------------------------------- AICS

_AICS_ROLE = {
    Kind.USER: "user",
    Kind.ASSISTANT: "assistant",
    Kind.THINKING: "assistant",
    Kind.TOOL_CALL: "assistant",
    Kind.TOOL_RESULT: "tool",
    Kind.SUBAGENT: "assistant",
}


def to_aics(session: Session) -> dict[str, Any]:
    """One session as a complete AICS 1.0 document."""
    return aics_document([session])


def aics_document(sessions: Iterable[Session]) -> dict[str, Any]:
    """Several sessions in one AICS 1.0 document (log.sessions)."""
    sessions = list(sessions)
    doc, log = _aics_frame(sessions)
    log["sessions"] = [_aics_session(s) for s in sessions]
    doc["log"] = log
    return doc


def aics_bytes(sessions: Iterable[Session]) -> bytes:
    return b"".join(aics_chunks(sessions))


def aics_chunks(sessions: Iterable[Session]) -> Iterator[bytes]:
    """The AICS document of ``aics_document`` as UTF-8 pieces, one message at a time, so a
    huge session is never held as one string. Same bytes as ``dumps(aics_document(...))``."""
    for text in _aics_texts(list(sessions)):
        yield _encode_json(text)


def _aics_frame(sessions: list[Session]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The document and its log without ``log`` / ``sessions`` (both come last)."""
    creator = {"name": "sessite", "version": __version__}
    agents = sorted({s.agent for s in sessions})
    doc: dict[str, Any] = {"version": "1.0", "creator": creator}
    log: dict[str, Any] = {"version": "1.0", "creator": creator}
    if len(agents) == 1:
        doc["browser"] = log["browser"] = {"name": agents[0]}
    return doc, log


def _aics_texts(sessions: list[Session]) -> Iterator[str]:
    doc, log = _aics_frame(sessions)
    yield _open_object(doc) + '"log":' + _open_object(log) + '"sessions":['
    for index, session in enumerate(sessions):
        if index:
            yield ","
        yield from _aics_session_texts(session)
    yield "]}}"


def _aics_session_texts(session: Session) -> Iterator[str]:
    """``dumps(_aics_session(session))`` in pieces: head, each message, tail."""
    yield _open_object(_aics_session_head(session)) + '"messages":['
    count = 0
    for message in _aics_session_messages(session):
        yield ("," if count else "") + dumps(message)
        count += 1
    yield "]," + dumps(_aics_session_tail(session, count))[1:]


def _open_object(value: dict[str, Any]) -> str:
    """A non-empty object's JSON without its closing brace, ready for more keys."""
    return dumps(value)[:-1] + ","


def _encode_json(text: str) -> bytes:
    """UTF-8 of JSON text; a lone surrogate (from a damaged source) becomes its ``\\uXXXX`` escape,
    which is valid JSON since dumps leaves such characters only inside strings."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace")


def _aics_session(session: Session) -> dict[str, Any]:
    messages = list(_aics_session_messages(session))
    return {**_aics_session_head(session), "messages": messages, **_aics_session_tail(session, len(messages))}


def _aics_session_head(session: Session) -> dict[str, Any]:
    out: dict[str, Any] = {"id": session.id}
    if session.title is not None:
        out["title"] = session.title
    if session.started:
        out["startedAt"] = _iso(session.started)
    if session.ended:
        out["updatedAt"] = _iso(session.ended)
    return out


def _aics_session_messages(session: Session) -> Iterator[dict[str, Any]]:
    empty = True
    for event in session.events:
        for message in _aics_messages(event, None):
            empty = False
            yield message
    if empty:  # AICS requires one message; an empty session gets a marked placeholder
        yield {
            "id": "empty",
            "role": "system",
            "content": [{"type": "text", "text": ""}],
            "metadata": {EXT: {"placeholder": True}},
        }


def _aics_session_tail(session: Session, message_count: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    refs = {
        name: list(getattr(session.git, name))
        for name in ("branches", "issues", "commits", "tags", "repos")
        if getattr(session.git, name)
    }
    if refs:
        out["gitRefs"] = refs
    metadata: dict[str, Any] = {"message_count": message_count}
    if session.project:
        metadata["project"] = session.project
    metadata[EXT] = _session_ext(session)
    out["metadata"] = metadata
    return out


def _aics_messages(event: Event, parent: str | None) -> Iterator[dict[str, Any]]:
    """The event's message, then its children's (flat, each naming its parent)."""
    parts: list[dict[str, Any]] = []
    roles: list[Any] = []  # what each content part holds, for the way back
    native = {"id", "timestamp", "model", "text", "diff", "raw"}
    kind = event.kind
    if kind == Kind.THINKING:
        parts.append({"type": "thinking", "text": event.text})
        roles.append("text")
    elif kind == Kind.TOOL_CALL:
        data: dict[str, Any] = {"name": event.tool_name or "tool"}
        if event.call_id is not None:
            data["id"] = event.call_id
        if event.tool_input is not None:
            data["input"] = jsonable(event.tool_input)
        parts.append({"type": "tool_call", "data": data})
        roles.append("call")
        native |= {"tool_name", "call_id", "tool_input"}
        if event.text:
            parts.append({"type": "text", "text": event.text})
            roles.append("text")
    elif kind == Kind.TOOL_RESULT:
        data = {}
        if event.call_id is not None:
            data["tool_call_id"] = event.call_id
        if event.tool_name is not None:
            data["name"] = event.tool_name
        if event.is_error:
            data["is_error"] = True
        part: dict[str, Any] = {"type": "tool_result", "text": event.text}
        if data:
            part["data"] = data
        parts.append(part)
        roles.append("result")
        native |= {"tool_name", "call_id", "is_error"}
    elif event.text or not (event.blocks or event.diff is not None or event.raw is not None):
        parts.append({"type": "text", "text": event.text})
        roles.append("text")
    if event.diff is not None:
        parts.append({"type": "code", "text": event.diff, "mimeType": "text/x-diff", "data": {"language": "diff"}})
        roles.append("diff")
    if event.raw is not None:
        parts.append(
            {
                "type": "code",
                "text": dumps(jsonable(event.raw)),
                "mimeType": "application/json",
                "data": {"language": "json"},
            }
        )
        roles.append("raw")
    for block in event.blocks:
        part, field = _aics_part(block)
        parts.append(part)
        roles.append(_block_desc(block, field))
    message: dict[str, Any] = {"id": event.id}
    if event.timestamp is not None:
        message["timestamp"] = _iso(event.timestamp)
    message["role"] = _AICS_ROLE.get(kind, "system")
    message["content"] = parts
    if event.model is not None:
        message["model"] = event.model
    ext = _event_ext(event, native)
    if kind == Kind.TOOL_CALL and event.tool_name is None:
        ext["tool_name"] = None  # the part says "tool"
    ext["p"] = roles
    if parent is not None:
        ext["parent"] = parent
    message["metadata"] = {EXT: ext}
    yield message
    for child in event.children:
        yield from _aics_messages(child, event.id)


def _aics_part(block: Block) -> tuple[dict[str, Any], str]:
    """A content part for a block, and which block field its ``text`` holds."""
    if block.type == "code":
        part: dict[str, Any] = {"type": "code", "text": block.text}
        if block.language:
            part["data"] = {"language": block.language}
        return part, "text"
    if block.type == "image" and block.uri:
        part = {"type": "image", "text": block.uri}
        if block.mime:
            part["mimeType"] = block.mime
        return part, "uri"
    if block.type == "json":
        return {
            "type": "code",
            "text": dumps(jsonable(block.data)),
            "mimeType": "application/json",
            "data": {"language": "json"},
        }, "data"
    if block.text or not block.uri:
        part = {"type": "code" if block.type == "file" else "text", "text": block.text}
        if block.type == "file" and block.uri:
            part["data"] = {"path": block.uri}
        return part, "text"
    part = {"type": "text", "text": block.uri}
    if block.mime:
        part["mimeType"] = block.mime
    return part, "uri"


def is_sessite_aics(raw_session: Any) -> bool:
    meta = raw_session.get("metadata") if isinstance(raw_session, dict) else None
    ext = meta.get(EXT) if isinstance(meta, dict) else None
    return isinstance(ext, dict) and ext.get("v") == EXT_VERSION


def read_aics_session(
    raw: dict[str, Any], path: Path, problems: Any, native: Callable[[dict[str, Any], str, int], Iterator[Event]]
) -> Session:
    """A session sessite wrote as AICS, given back as it was (``native`` reads a message without our extension)."""
    ext = raw["metadata"][EXT]
    flat: list[tuple[Event, str | None]] = []
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
        started=None if "started" in ext else _parse_time(raw.get("startedAt")),
        ended=None if "ended" in ext else _parse_time(raw.get("updatedAt")),
        git=GitRefs(
            *(tuple(str(x) for x in refs.get(k) or ()) for k in ("branches", "commits", "issues", "tags", "repos"))
        ),
        **_session_fields(ext),
    )


def _aics_event(message: dict[str, Any], ext: dict[str, Any]) -> Event:
    kwargs: dict[str, Any] = {
        "id": str(message.get("id")),
        "timestamp": _parse_time(message.get("timestamp")),
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
            kwargs["raw"] = json.loads(text)
        elif isinstance(role, dict):
            blocks.append(_block_from_desc(role, json.loads(text) if role.get("f") == "data" else text))
    kwargs["blocks"] = tuple(blocks)
    kwargs.update(_fields_from_ext(ext))
    return Event(**kwargs)


def _nest(flat: list[tuple[Event, str | None]]) -> tuple[Event, ...]:
    """Put each event under the event its ``parent`` names (sub-agent transcripts)."""
    from dataclasses import replace

    children: dict[str, list[Event]] = {}
    order: list[tuple[Event, str | None]] = []
    ids = {e.id for e, _ in flat}
    for event, parent in flat:
        if parent is not None and parent in ids:
            children.setdefault(parent, []).append(event)
        order.append((event, parent if parent in ids else None))

    def build(event: Event, depth: int = 0) -> Event:
        kids = children.pop(event.id, None)
        if not kids or depth > 100:
            return event
        return replace(event, children=tuple(build(k, depth + 1) for k in kids))

    return tuple(build(e) for e, parent in order if parent is None)


# -------------------------------------------------------------------- HAIL


def to_hail(session: Session) -> str:
    """One session as HAIL 1.0 JSONL: header, events, stats (opensession's exact serialization)."""
    return "".join(line + "\n" for line in hail_lines(session))


def hail_bytes(session: Session) -> bytes:
    return b"".join(hail_chunks(session))


def hail_chunks(session: Session) -> Iterator[bytes]:
    """The HAIL file line by line, as UTF-8 (each line ends in a newline)."""
    for line, value in _hail_records(session):
        yield encode(line, value) + b"\n"


def hail_lines(session: Session) -> Iterator[str]:
    for line, _ in _hail_records(session):
        yield line


def _hail_records(session: Session) -> Iterator[tuple[str, Any]]:
    stamps = [e.timestamp for e in _walk(session.events) if e.timestamp]
    started = session.started or (min(stamps) if stamps else None)
    ended = session.ended or (max(stamps) if stamps else None) or started
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    context: dict[str, Any] = {}
    if session.title is not None:
        context["title"] = session.title
    context["tags"] = [session.agent]
    context["created_at"] = _rfc3339(started or epoch)
    context["updated_at"] = _rfc3339(ended or epoch)
    attributes: dict[str, Any] = {}
    if session.cwd:
        attributes["cwd"] = session.cwd
    git = {
        k: v
        for k, v in (
            ("branch", session.git.branches[:1]),
            ("commit_hash", session.git.commits[:1]),
            ("repository_url", session.git.repos[:1]),
        )
        if v
    }
    if git:
        attributes["git"] = {k: v[0] for k, v in git.items()}
    ext = _session_ext(session)
    if session.git:
        ext["git"] = {
            name: list(getattr(session.git, name))
            for name in ("branches", "commits", "issues", "tags", "repos")
            if getattr(session.git, name)
        }
    attributes[EXT] = ext
    context["attributes"] = attributes
    header = {
        "type": "header",
        "version": HAIL_VERSION,
        "session_id": session.id,
        "agent": {
            "provider": _provider(session),
            "model": session.models[0] if session.models else "unknown",
            "tool": session.agent,
        },
        "context": context,
    }
    yield dumps(header), header

    calls = {e.call_id: e for e in _walk(session.events) if e.kind == Kind.TOOL_CALL and e.call_id}
    stats = _HailStats()
    last = [started or epoch]
    for record in _hail_events(session.events, None, calls, last):
        stats.add(record)
        yield dumps(record), record
    record = stats.line(started, ended)
    yield dumps(record), record


def _hail_events(
    events: Iterable[Event], parent: Event | None, calls: dict[str, Event], last: list[datetime]
) -> Iterator[dict[str, Any]]:
    for event in events:
        yield _hail_event(event, parent, calls, last)
        if event.children:
            yield from _hail_events(event.children, event, calls, last)
            if event.kind == Kind.SUBAGENT:
                # HAIL's merged sub-agent: TaskStart … events with its task_id … TaskEnd.
                end = {
                    "type": "event",
                    "event_id": f"{event.id}/end",
                    "timestamp": _rfc3339(last[0]),
                    "event_type": {"type": "TaskEnd", "data": {}},
                    "task_id": event.id,
                    "content": {"blocks": []},
                    "attributes": {EXT: {"end": True}},
                }
                yield end


def _hail_event(event: Event, parent: Event | None, calls: dict[str, Event], last: list[datetime]) -> dict[str, Any]:
    kind = event.kind
    native = {"id", "timestamp", "model", "usage", "text", "diff", "raw"}
    blocks: list[dict[str, Any]] = []
    roles: list[Any] = []

    def text_block() -> None:
        if event.text:
            blocks.append({"type": "Text", "text": event.text})
            roles.append("text")

    data: dict[str, Any] | None = None
    if kind in (Kind.USER, Kind.ASSISTANT, Kind.SYSTEM, Kind.THINKING):
        etype = {
            Kind.USER: "UserMessage",
            Kind.ASSISTANT: "AgentMessage",
            Kind.SYSTEM: "SystemMessage",
            Kind.THINKING: "Thinking",
        }[kind]
        text_block()
    elif kind == Kind.TOOL_CALL:
        command_native = event.category == ToolCategory.SHELL and event.command is not None
        path_native = event.category in (ToolCategory.EDIT, ToolCategory.READ) and event.path is not None
        if command_native:
            etype, data = "ShellCommand", {"command": event.command}
            if event.exit_code is not None:
                data["exit_code"] = event.exit_code
                native.add("exit_code")
            native.add("command")
        elif path_native and event.category == ToolCategory.EDIT:
            etype, data = "FileEdit", {"path": event.path}
            if event.diff is not None:
                data["diff"] = event.diff
            native.add("path")
        elif path_native:
            etype, data = "FileRead", {"path": event.path}
            native.add("path")
        else:
            etype, data = "ToolCall", {"name": event.tool_name or "tool"}
            native.add("tool_name")
        text_block()
        if event.tool_input is not None:
            blocks.append({"type": "Json", "data": jsonable(event.tool_input)})
            roles.append("input")
            native.add("tool_input")
    elif kind == Kind.TOOL_RESULT:
        call = calls.get(event.call_id) if event.call_id else None
        etype, data = (
            "ToolResult",
            {"name": event.tool_name or (call.tool_name if call else None) or "tool", "is_error": event.is_error},
        )
        if event.call_id is not None:
            data["call_id"] = call.id if call is not None else event.call_id
        native |= {"is_error"}
        text_block()
    elif kind in (Kind.TASK_START, Kind.SUBAGENT):
        etype, data = "TaskStart", ({"title": event.title} if event.title is not None else {})
        native.add("title")
        text_block()
    elif kind == Kind.TASK_END:
        etype, data = "TaskEnd", {}
        text_block()
    else:  # compaction, unknown, anything new
        etype, data = "Custom", {"kind": kind.value}
        text_block()
    if event.diff is not None and not (etype == "FileEdit"):
        blocks.append({"type": "Code", "code": event.diff, "language": "diff"})
        roles.append("diff")
    if event.raw is not None:
        blocks.append({"type": "Json", "data": jsonable(event.raw)})
        roles.append("raw")
    for block in event.blocks:
        hail_block, field = _hail_block(block)
        blocks.append(hail_block)
        roles.append(_block_desc(block, field))

    attributes: dict[str, Any] = {}
    if event.model is not None:
        attributes["model"] = event.model
    if event.usage:
        for name, key in (
            ("input_tokens", "input_tokens"),
            ("output_tokens", "output_tokens"),
            ("cache_read_tokens", "cache_read_input_tokens"),
            ("cache_write_tokens", "cache_creation_input_tokens"),
            ("reasoning_tokens", "reasoning_tokens"),
        ):
            value = getattr(event.usage, name)
            if value:
                attributes[key] = value
    if event.call_id is not None:
        attributes["semantic.call_id"] = event.call_id
    ext = _event_ext(event, native)
    if kind == Kind.TOOL_RESULT and event.tool_name is None:
        ext["tool_name"] = None
    if kind == Kind.TOOL_CALL and data is not None and "name" in data and event.tool_name is None:
        ext["tool_name"] = None
    if event.call_id is not None:
        ext["call_id"] = event.call_id
    if event.timestamp is None:
        ext["timestamp"] = None
    ext["p"] = roles
    if parent is not None:
        ext["parent"] = parent.id
    attributes[EXT] = ext

    if event.timestamp is not None:
        last[0] = event.timestamp
    record: dict[str, Any] = {"type": "event", "event_id": event.id, "timestamp": _rfc3339(event.timestamp or last[0])}
    record["event_type"] = {"type": etype} if data is None else {"type": etype, "data": data}
    task_id = event.id if kind == Kind.SUBAGENT else parent.id if parent is not None else None
    if task_id is not None:
        record["task_id"] = task_id
    record["content"] = {"blocks": blocks}
    record["attributes"] = attributes
    return record


def _hail_block(block: Block) -> tuple[dict[str, Any], str]:
    """A HAIL content block for a model block, and which block field it holds in full."""
    if block.type == "code":
        out: dict[str, Any] = {"type": "Code", "code": block.text}
        if block.language:
            out["language"] = block.language
        return out, "text"
    if block.type in ("image", "video", "audio") and block.uri is not None:
        out = {"type": block.type.capitalize(), "url": block.uri}
        if block.type == "image" and block.title:
            out["alt"] = block.title
        out["mime"] = block.mime or ""
        return out, "uri"
    if block.type == "file":
        out = {"type": "File", "path": block.uri or block.title or ""}
        if block.text:
            out["content"] = block.text
        return out, "text"
    if block.type == "json":
        return {"type": "Json", "data": jsonable(block.data)}, "data"
    if block.type == "reference" and block.uri is not None:
        return {"type": "Reference", "uri": block.uri, "media_type": block.mime or ""}, "uri"
    return {"type": "Text", "text": block.text}, "text"


class _HailStats:
    """opensession's stats line, recomputed from the events written."""

    def __init__(self) -> None:
        self.events = self.messages = self.users = self.tools = 0
        self.tasks: set[str] = set()
        self.files: set[str] = set()
        self.added = self.removed = self.input = self.output = 0

    def add(self, record: dict[str, Any]) -> None:
        self.events += 1
        etype = record["event_type"]["type"]
        if etype == "UserMessage":
            self.messages += 1
            self.users += 1
        elif etype == "AgentMessage":
            self.messages += 1
        elif etype == "ToolCall":
            self.tools += 1
        elif etype == "FileEdit":
            data = record["event_type"]["data"]
            self.files.add(data.get("path", ""))
            for line in (data.get("diff") or "").splitlines():
                if line.startswith("+") and not line.startswith("+++"):
                    self.added += 1
                elif line.startswith("-") and not line.startswith("---"):
                    self.removed += 1
        if record.get("task_id"):
            self.tasks.add(record["task_id"])
        attrs = record.get("attributes") or {}
        self.input += int(attrs.get("input_tokens") or 0)
        self.output += int(attrs.get("output_tokens") or 0)

    def line(self, started: datetime | None, ended: datetime | None) -> dict[str, Any]:
        duration = int((ended - started).total_seconds()) if started and ended and ended >= started else 0
        return {
            "type": "stats",
            "event_count": self.events,
            "message_count": self.messages,
            "tool_call_count": self.tools,
            "task_count": len(self.tasks),
            "duration_seconds": duration,
            "total_input_tokens": self.input,
            "total_output_tokens": self.output,
            "user_message_count": self.users,
            "files_changed": len(self.files),
            "lines_added": self.added,
            "lines_removed": self.removed,
        }


def is_sessite_hail_header(header: Any) -> bool:
    context = header.get("context") if isinstance(header, dict) else None
    attributes = context.get("attributes") if isinstance(context, dict) else None
    ext = attributes.get(EXT) if isinstance(attributes, dict) else None
    return header.get("type") == "header" and isinstance(ext, dict) and ext.get("v") == EXT_VERSION


def read_hail_file(path: Path, problems: Any) -> Session | None:
    """A session sessite wrote as HAIL JSONL, given back as it was; None when the file is
    not one (or its extension is unusable: the caller then reads it as plain HAIL)."""
    from sitegen.model import Problems
    from sitegen.readers.base import iter_jsonl

    scratch = Problems()
    lines = iter_jsonl(path, scratch)
    first = next(lines, None)
    if first is None or not is_sessite_hail_header(first[1]):
        return None
    header = first[1]
    try:
        flat: list[tuple[Event, str | None]] = []
        for lineno, record in lines:
            if record.get("type") != "event":
                continue
            attrs = record.get("attributes") or {}
            ext = attrs.get(EXT)
            if not isinstance(ext, dict) or ext.get("end"):
                continue
            flat.append((_hail_event_back(record, attrs, ext, lineno), ext.get("parent")))
        context = header["context"]
        sext = context["attributes"][EXT]
        git = sext.get("git") or {}
        session = Session(
            id=make_session_id("hail", str(header.get("session_id"))),
            source=SourceRef(str(path), "hail"),
            events=_nest(flat),
            title=None if "title" in sext else context.get("title"),
            started=None if "started" in sext else _parse_time(context.get("created_at")),
            ended=None if "ended" in sext else _parse_time(context.get("updated_at")),
            git=GitRefs(
                *(tuple(str(x) for x in git.get(k) or ()) for k in ("branches", "commits", "issues", "tags", "repos"))
            ),
            **_session_fields(sext),
        )
    except Exception as exc:  # noqa: BLE001 - a damaged extension: read the file as plain HAIL instead
        problems.add(
            path, None, f"HAIL: sessite extension unreadable ({type(exc).__name__}: {exc}); read as plain HAIL"
        )
        return None
    for problem in scratch.items:
        problems.add(path, problem.line, problem.message)
    return session


def _hail_event_back(record: dict[str, Any], attrs: dict[str, Any], ext: dict[str, Any], lineno: int) -> Event:
    etype = record.get("event_type") or {}
    data = etype.get("data") if isinstance(etype.get("data"), dict) else {}
    kwargs: dict[str, Any] = {
        "id": str(record.get("event_id")),
        "timestamp": _parse_time(record.get("timestamp")),
        "model": attrs.get("model"),
    }
    usage = {
        name: attrs[key]
        for name, key in (
            ("input_tokens", "input_tokens"),
            ("output_tokens", "output_tokens"),
            ("cache_read_tokens", "cache_read_input_tokens"),
            ("cache_write_tokens", "cache_creation_input_tokens"),
            ("reasoning_tokens", "reasoning_tokens"),
        )
        if attrs.get(key)
    }
    kwargs["usage"] = Usage(**usage) if usage else None
    kind = etype.get("type")
    if kind == "ShellCommand":
        kwargs["command"] = data.get("command")
        if "exit_code" in data:
            kwargs["exit_code"] = data["exit_code"]
    elif kind in ("FileEdit", "FileRead"):
        kwargs["path"] = data.get("path")
        if "diff" in data:
            kwargs["diff"] = data["diff"]
    elif kind == "ToolCall":
        kwargs["tool_name"] = data.get("name")
    elif kind == "ToolResult":
        kwargs["is_error"] = bool(data.get("is_error"))
        kwargs["tool_name"] = data.get("name")
    elif kind == "TaskStart":
        kwargs["title"] = data.get("title")
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
            key = {
                "Code": "code",
                "Text": "text",
                "File": "content",
                "Json": "data",
                "Image": "url",
                "Video": "url",
                "Audio": "url",
                "Reference": "uri",
            }.get(block.get("type"), "text")
            value = block.get(key, "" if field == "text" else None)
            blocks.append(_block_from_desc(role, value))
    kwargs["blocks"] = tuple(blocks)
    kwargs["line"] = None
    kwargs.update(_fields_from_ext(ext))
    return Event(**kwargs)


# -------------------------------------------------------------------- Markdown


def to_markdown(session: Session) -> str:
    """A readable Markdown transcript: facts, then every event (tool results under their call)."""
    return "".join(markdown_texts(session))


def markdown_chunks(session: Session) -> Iterator[bytes]:
    """``to_markdown`` as UTF-8 pieces (one per event), for writing without the whole text."""
    for text in markdown_texts(session):
        yield encode(text)


def markdown_texts(session: Session) -> Iterator[str]:
    """The transcript's text in pieces: the lines joined by newlines, trailing newlines trimmed to one."""
    return _trim_end(_joined(_md_groups(session)))


def _md_groups(session: Session) -> Iterator[list[str]]:
    """The transcript's lines, a group at a time: the title and facts, then each event."""
    from sitegen.model import session_title

    out: list[str] = [f"# {_md_line(session_title(session, 200))}", ""]
    facts = [("Agent", f"{session.agent} ({session.source.format})"), ("Session", session.id)]
    if session.models:
        facts.append(("Model", ", ".join(session.models)))
    if session.project or session.cwd:
        facts.append(
            ("Project", " ".join(x for x in (session.project, f"`{session.cwd}`" if session.cwd else None) if x))
        )
    if session.started:
        facts.append(("Started", _md_time(session.started)))
    if session.ended:
        facts.append(("Ended", _md_time(session.ended)))
    for name in ("branches", "commits", "issues", "tags", "repos"):
        values = getattr(session.git, name)
        if values:
            facts.append((f"Git {name}", ", ".join(values)))
    facts.append(("Source", f"`{session.source.path}`"))
    out += [f"- **{k}:** {_md_line(v)}" for k, v in facts]
    out.append("")
    yield out
    results: dict[str, list[Event]] = {}
    calls = {e.call_id for e in _walk(session.events) if e.kind == Kind.TOOL_CALL and e.call_id}
    for event in _walk(session.events):
        if event.kind == Kind.TOOL_RESULT and event.call_id in calls:
            results.setdefault(event.call_id, []).append(event)
    yield from _md_events(session.events, 2, results)


def _joined(groups: Iterable[list[str]]) -> Iterator[str]:
    """``"\\n".join`` of every group's lines, one group at a time."""
    first = True
    for lines in groups:
        if lines:
            yield ("" if first else "\n") + "\n".join(lines)
            first = False


def _trim_end(pieces: Iterable[str]) -> Iterator[str]:
    """``text.rstrip("\\n") + "\\n"`` over pieces, holding back only a run of trailing newlines."""
    pending = ""
    for piece in pieces:
        body = piece.rstrip("\n")
        if body:
            if pending:
                yield pending
            yield body
            pending = piece[len(body) :]
        else:
            pending += piece
    yield "\n"


_MD_TITLES = {
    Kind.USER: "User",
    Kind.ASSISTANT: "Assistant",
    Kind.SYSTEM: "System",
    Kind.THINKING: "Thinking",
    Kind.COMPACTION: "Compaction",
    Kind.TASK_START: "Task start",
    Kind.TASK_END: "Task end",
    Kind.UNKNOWN: "Unrecognized record",
}


def _md_events(events: Iterable[Event], level: int, results: dict[str, list[Event]]) -> Iterator[list[str]]:
    """Each event's lines, then its children's, one event at a time."""
    hashes = "#" * min(level, 6)
    for event in events:
        if event.kind == Kind.TOOL_RESULT and event.call_id in results and event in results[event.call_id]:
            continue  # shown under its call
        out: list[str] = []
        if event.kind == Kind.TOOL_CALL:
            head = f"Tool call: {event.tool_name or 'tool'}"
        elif event.kind == Kind.TOOL_RESULT:
            head = f"Tool result{': ' + event.tool_name if event.tool_name else ''}"
        elif event.kind == Kind.SUBAGENT:
            head = f"Sub-agent: {event.title or event.id}"
        else:
            head = _MD_TITLES.get(event.kind, event.kind.value.title())
            if event.title and event.kind != Kind.SUBAGENT:
                head += f": {event.title}"
        extras = [
            x
            for x in (
                event.model if event.kind == Kind.ASSISTANT else None,
                _md_time(event.timestamp) if event.timestamp else None,
            )
            if x
        ]
        out += [f"{hashes} {_md_line(head)}{' · ' + _md_line(' · '.join(extras)) if extras else ''}", ""]
        if event.kind == Kind.TOOL_CALL:
            if event.command:
                out += [_fence(event.command, "sh"), ""]
            elif event.path:
                out += [f"`{_md_line(event.path)}`", ""]
            if event.tool_input is not None and not (event.command and _only_command(event.tool_input)):
                out += [_fence(json.dumps(jsonable(event.tool_input), ensure_ascii=False, indent=2), "json"), ""]
            if event.text:
                out += [event.text, ""]
            if event.diff:
                out += [_fence(event.diff, "diff"), ""]
            for result in results.get(event.call_id or "", []):
                label = (
                    "Result"
                    + (" (error)" if result.is_error else "")
                    + (f" · exit {result.exit_code}" if result.exit_code is not None else "")
                )
                out += [f"**{label}:**", "", _fence(result.text, "text"), ""]
                _md_blocks(result.blocks, out)
        elif event.kind == Kind.TOOL_RESULT:
            label = ("Error" if event.is_error else "Output") + (
                f" · exit {event.exit_code}" if event.exit_code is not None else ""
            )
            out += [f"**{label}:**", "", _fence(event.text, "text"), ""]
        elif event.kind == Kind.UNKNOWN and event.raw is not None:
            out += [_fence(json.dumps(jsonable(event.raw), ensure_ascii=False, indent=2), "json"), ""]
        elif event.kind == Kind.THINKING and event.text:
            out += ["\n".join("> " + line if line else ">" for line in event.text.splitlines()), ""]
        elif event.text:
            out += [event.text, ""]
        if event.diff and event.kind != Kind.TOOL_CALL:
            out += [_fence(event.diff, "diff"), ""]
        _md_blocks(event.blocks, out)
        yield out
        if event.children:
            yield from _md_events(event.children, level + 1, results)


def _md_blocks(blocks: Iterable[Block], out: list[str]) -> None:
    for block in blocks:
        if block.type == "code":
            out += [_fence(block.text, block.language or ""), ""]
        elif block.type == "json":
            out += [_fence(json.dumps(jsonable(block.data), ensure_ascii=False, indent=2), "json"), ""]
        elif block.type == "file":
            out += [f"File `{_md_line(block.uri or block.title or '')}`:", "", _fence(block.text, ""), ""]
        elif block.type in ("image", "video", "audio", "reference"):
            uri = block.uri or ""
            label = _md_line(block.title or block.type)
            # Only plain web links become links; anything else (data:, javascript:) stays code.
            out += [
                f"[{label}](<{uri}>)"
                if re.match(r"https?://[^\s<>]+$", uri)
                else f"{block.type}: `{_md_line(uri[:200])}`",
                "",
            ]
        elif block.text:
            out += [_fence(block.text, "text"), ""]


def _only_command(tool_input: Any) -> bool:
    return isinstance(tool_input, dict) and set(tool_input) <= {"command", "cmd", "description"}


def _fence(text: str, language: str) -> str:
    text = text or ""
    # The substring test first: scanning every position with the regex is the slow part of a big export.
    longest = (
        max((len(m) for m in re.findall(r"`{3,}|~{3,}", text)), default=0) if "```" in text or "~~~" in text else 0
    )
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text or ''}\n{fence}"


def _md_line(text: str) -> str:
    return " ".join(str(text).split())


def _md_time(dt: datetime | None) -> str:
    return dt.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC") if dt else ""


# -------------------------------------------------------------------- the build's per-session files

GZIP_LEVEL = 2  # see gzip_bytes
_GZIP_BATCH = 256 * 1024


def export_chunks(session: Session, fmt: str) -> Iterator[bytes]:
    """One session in ``fmt`` as UTF-8 pieces; joined, they are ``export_session(session, fmt)``."""
    if fmt == "aics":
        return aics_chunks([session])
    if fmt == "hail":
        return hail_chunks(session)
    if fmt == "markdown":
        return markdown_chunks(session)
    raise ValueError(f"unknown export format {fmt!r}")


def export_session(session: Session, fmt: str) -> bytes:
    return b"".join(export_chunks(session, fmt))


def gzip_bytes(chunks: Iterable[bytes], level: int = GZIP_LEVEL) -> bytes:
    """A gzip file of the chunks, the same bytes for the same input on any machine: mtime 0,
    no file name, OS byte "unknown", so an unchanged session gives an unchanged file.

    Level 2: on 168 MB of benchmark exports it gave 5.3x at 150 MB/s; level 1 5.0x at
    160 MB/s, level 3 5.5x at 115 MB/s, the default level 6 6.5x at 47 MB/s."""
    deflate = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
    xfl = b"\x04" if level == 1 else b"\x02" if level == 9 else b"\x00"
    out = [b"\x1f\x8b\x08\x00\x00\x00\x00\x00" + xfl + b"\xff"]
    crc = size = 0
    for batch in _batched(chunks, _GZIP_BATCH):
        crc = zlib.crc32(batch, crc)
        size += len(batch)
        out.append(deflate.compress(batch))
    out.append(deflate.flush())
    out.append(struct.pack("<II", crc, size & 0xFFFFFFFF))
    return b"".join(out)


def _batched(chunks: Iterable[bytes], size: int) -> Iterator[bytes]:
    """Small chunks gathered to about ``size`` bytes (fewer zlib calls); a big chunk passes as it is."""
    batch: list[bytes] = []
    held = 0
    for chunk in chunks:
        if len(chunk) >= size:
            if batch:
                yield b"".join(batch)
                batch, held = [], 0
            yield chunk
            continue
        batch.append(chunk)
        held += len(chunk)
        if held >= size:
            yield b"".join(batch)
            batch, held = [], 0
    if batch:
        yield b"".join(batch)
