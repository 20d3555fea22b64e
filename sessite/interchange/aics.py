"""A session as an AICS 1.0 document (JSON), streamed a message at a time.

Every event becomes a message with the content parts AICS readers look for
(text, thinking, tool_call, tool_result, code, image); what AICS has no field
for rides in ``metadata.sessite``, with ``p`` naming what each content part
holds so sessite's AICS reader can give back the same events.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from sessite import __version__
from sessite.interchange.extension import EXT, block_desc, dumps, event_ext, iso, jsonable, session_ext
from sessite.model import Block, Event, Kind, Session

_AICS_ROLE = {
    Kind.USER: "user",
    Kind.ASSISTANT: "assistant",
    Kind.THINKING: "assistant",
    Kind.TOOL_CALL: "assistant",
    Kind.TOOL_RESULT: "tool",
    Kind.SUBAGENT: "assistant",
}
# The order AICS's gitRefs lists its keys in (kept: it is part of the output's bytes).
_GIT_REFS_ORDER = ("branches", "issues", "commits", "tags", "repos")
# Event fields every message holds in its own keys or parts.
_NATIVE_FIELDS = frozenset({"id", "timestamp", "model", "text", "diff", "raw"})

# One content part per entry, and beside it what the part holds, for the way back:
# "text", "call", "result", "diff", "raw", or a block description.
_Parts = list[dict[str, Any]]
_Roles = list[Any]


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
        out["startedAt"] = iso(session.started)
    if session.ended:
        out["updatedAt"] = iso(session.ended)
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
    refs = {name: list(getattr(session.git, name)) for name in _GIT_REFS_ORDER if getattr(session.git, name)}
    if refs:
        out["gitRefs"] = refs
    metadata: dict[str, Any] = {"message_count": message_count}
    if session.project:
        metadata["project"] = session.project
    metadata[EXT] = session_ext(session)
    out["metadata"] = metadata
    return out


def _aics_messages(event: Event, parent: str | None) -> Iterator[dict[str, Any]]:
    """The event's message, then its children's (flat, each naming its parent)."""
    parts: _Parts = []
    roles: _Roles = []
    native = set(_NATIVE_FIELDS) | _main_parts(event, parts, roles)
    _extra_parts(event, parts, roles)
    message: dict[str, Any] = {"id": event.id}
    if event.timestamp is not None:
        message["timestamp"] = iso(event.timestamp)
    message["role"] = _AICS_ROLE.get(event.kind, "system")
    message["content"] = parts
    if event.model is not None:
        message["model"] = event.model
    ext = event_ext(event, native)
    if event.kind == Kind.TOOL_CALL and event.tool_name is None:
        ext["tool_name"] = None  # the part says "tool"
    ext["p"] = roles
    if parent is not None:
        ext["parent"] = parent
    message["metadata"] = {EXT: ext}
    yield message
    for child in event.children:
        yield from _aics_messages(child, event.id)


def _main_parts(event: Event, parts: _Parts, roles: _Roles) -> set[str]:
    """The part(s) that say what the event is; returns the event fields they hold."""
    kind = event.kind
    if kind == Kind.THINKING:
        parts.append({"type": "thinking", "text": event.text})
        roles.append("text")
        return set()
    if kind == Kind.TOOL_CALL:
        data: dict[str, Any] = {"name": event.tool_name or "tool"}
        if event.call_id is not None:
            data["id"] = event.call_id
        if event.tool_input is not None:
            data["input"] = jsonable(event.tool_input)
        parts.append({"type": "tool_call", "data": data})
        roles.append("call")
        if event.text:
            parts.append({"type": "text", "text": event.text})
            roles.append("text")
        return {"tool_name", "call_id", "tool_input"}
    if kind == Kind.TOOL_RESULT:
        parts.append(_tool_result_part(event))
        roles.append("result")
        return {"tool_name", "call_id", "is_error"}
    if event.text or not (event.blocks or event.diff is not None or event.raw is not None):
        parts.append({"type": "text", "text": event.text})
        roles.append("text")
    return set()


def _tool_result_part(event: Event) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if event.call_id is not None:
        data["tool_call_id"] = event.call_id
    if event.tool_name is not None:
        data["name"] = event.tool_name
    if event.is_error:
        data["is_error"] = True
    part: dict[str, Any] = {"type": "tool_result", "text": event.text}
    if data:
        part["data"] = data
    return part


def _extra_parts(event: Event, parts: _Parts, roles: _Roles) -> None:
    """The diff, the raw record and the blocks, each as a content part of its own."""
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
        roles.append(block_desc(block, field))


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
