"""AICS 1.0 (AI Coding Session interchange, JSON): ``{version, creator, log:{sessions:[…]}}``.

Every field of the spec is kept: content parts become events or blocks, ``mcp``
tools become tool call/result pairs, ``mcp`` resources and prompts become
reference blocks, ``thinking`` becomes a thinking event. The spec's validation
rules are reported as problems, never raised. A session sessite exported
itself is given back as it was (``sessite_extension``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sessite.model import (
    Block,
    Event,
    GitRefs,
    Kind,
    Problems,
    Session,
    SourceRef,
    ToolCategory,
    cut_words,
    make_session_id,
)
from sessite.readers._util import array, obj, shown, text_of
from sessite.readers.base import Reader, Sniff, as_text, parse_time
from sessite.readers.files import load_json
from sessite.readers.safejson import loads
from sessite.readers.sessite_extension import is_sessite_aics, read_aics_session

SUPPORTED_VERSIONS = {"1.0", "1.0.0"}
_ROLE_KIND = {"user": Kind.USER, "assistant": Kind.ASSISTANT, "system": Kind.SYSTEM}
_GIT_FIELDS = ("branches", "commits", "issues", "tags", "repos")


class AicsReader(Reader):
    name = "aics"
    claims_directories = False

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if path.suffix.lower() != ".json":
            return False
        head = sniffed.text(4096)
        if path.name.endswith(".aics.json") and head.lstrip().startswith("{"):
            return True
        compact = "".join(head.split())
        return compact.startswith("{") and '"creator":{' in compact and '"log":{' in compact

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        doc = load_json(path, problems)
        if doc is None:
            return
        if not isinstance(doc, dict):
            problems.add(path, None, "AICS: top level is not an object")
            return
        _validate_root(doc, path, problems)
        log = obj(doc.get("log"))
        sessions = log.get("sessions")
        if not isinstance(sessions, list):
            problems.add(path, None, "AICS: log.sessions is missing or not an array")
            return
        browser = obj(log.get("browser") or doc.get("browser") or {})
        creator = obj(doc.get("creator"))
        for index, raw in enumerate(sessions):
            if not isinstance(raw, dict):
                problems.add(path, None, f"AICS: sessions[{index}] is not an object; skipped")
                continue
            if creator.get("name") == "sessite" and is_sessite_aics(raw):
                yield _sessite_session(raw, index, path, problems, browser, creator)
            else:
                yield _session(raw, index, path, problems, browser, creator)


def _sessite_session(
    raw: dict[str, Any],
    index: int,
    path: Path,
    problems: Problems,
    browser: dict[str, Any],
    creator: dict[str, Any],
) -> Session:
    """A session sessite exported: its extension (metadata.sessite) gives back every field."""

    def native(message: dict[str, Any], where: str, mindex: int) -> Iterator[Event]:
        return _message_events(message, f"sessions[{index}].{where}", mindex, path, problems)

    try:
        return read_aics_session(raw, path, native)
    except Exception as exc:  # noqa: BLE001 - a damaged extension: read the plain AICS
        problems.add(
            path,
            None,
            f"AICS: sessions[{index}]: sessite extension unreadable ({type(exc).__name__}: {exc}); read as plain AICS",
        )
        return _session(raw, index, path, problems, browser, creator)


def _validate_root(doc: dict[str, Any], path: Path, problems: Problems) -> None:
    version = doc.get("version")
    if version is None:
        problems.add(path, None, "AICS: missing required field 'version'")
    elif str(version) not in SUPPORTED_VERSIONS:
        problems.add(path, None, f"AICS: unsupported version {version!r} (read as 1.0)")
    creator = doc.get("creator")
    if not isinstance(creator, dict) or not creator.get("name"):
        problems.add(path, None, "AICS: 'creator.name' is required")
    if not isinstance(doc.get("log"), dict):
        problems.add(path, None, "AICS: 'log' object is required")


def _session(
    raw: dict[str, Any],
    index: int,
    path: Path,
    problems: Problems,
    browser: dict[str, Any],
    creator: dict[str, Any],
) -> Session:
    where = f"sessions[{index}]"
    sid = raw.get("id")
    if isinstance(sid, bool) or not isinstance(sid, (str, int)) or sid == "":
        said = "has no 'id'" if sid in (None, "") else f"has an 'id' that is a {type(sid).__name__}"
        problems.add(path, None, f"AICS: {where} {said} (using its position)")
        sid = f"{path.stem}-{index}"
    messages = array(raw.get("messages"))
    if not messages:
        problems.add(path, None, f"AICS: {where} ({sid}) has no messages")
    for key in ("startedAt", "updatedAt"):
        if raw.get(key) is not None and parse_time(raw.get(key)) is None:
            problems.add(path, None, f"AICS: {where}.{key} is not a valid ISO 8601 timestamp: {raw.get(key)!r}")

    events: list[Event] = []
    models: list[str] = []
    for mindex, message in enumerate(messages):
        if not isinstance(message, dict):
            problems.add(path, None, f"AICS: {where}.messages[{mindex}] is not an object; skipped")
            continue
        try:
            events.extend(_message_events(message, f"{where}.messages[{mindex}]", mindex, path, problems))
        except Exception as exc:  # noqa: BLE001 - one odd message must not stop the file
            problems.add(
                path, None, f"AICS: {where}.messages[{mindex}] unreadable ({type(exc).__name__}: {exc}); skipped"
            )
            continue
        model = message.get("model")
        if isinstance(model, str) and model and model not in models:
            models.append(model)

    project = obj(raw.get("metadata")).get("project")
    timestamps = [e.timestamp for e in events if e.timestamp]
    agent = str(browser.get("name") or "aics")  # lower-cased unless it holds a digit: it may be a key, redacted later
    return Session(
        id=make_session_id("aics", str(sid)),
        source=SourceRef(str(path), "aics"),
        agent=agent if any(c.isdigit() for c in agent) else agent.lower(),
        title=_text(raw, "title", where, path, problems),
        started=parse_time(raw.get("startedAt")) or (min(timestamps) if timestamps else None),
        ended=parse_time(raw.get("updatedAt")) or (max(timestamps) if timestamps else None),
        project=project if isinstance(project, str) else None,
        models=tuple(models),
        git=_git_refs(obj(raw.get("gitRefs"))),
        events=tuple(events),
        meta=_session_meta(raw, creator),
    )


def _git_refs(refs: dict[str, Any]) -> GitRefs:
    return GitRefs(
        *(tuple(str(x) for x in refs.get(k, []) if x) if isinstance(refs.get(k), list) else () for k in _GIT_FIELDS)
    )


def _session_meta(raw: dict[str, Any], creator: dict[str, Any]) -> dict[str, Any]:
    """What the session says that the model has no field for."""
    meta: dict[str, Any] = {}
    for key in ("clientId", "comment"):
        if raw.get(key):
            meta[key] = raw[key]
    if isinstance(raw.get("metadata"), dict):
        meta.update({f"metadata.{k}": v for k, v in raw["metadata"].items()})
    if creator.get("name"):
        meta["creator"] = " ".join(str(creator.get(k)) for k in ("name", "version") if creator.get(k))
    return meta


@dataclass
class _Message:
    """One message being read: where it is (for problems), its id, time and model, and what its
    content parts gave so far."""

    where: str
    path: Path
    problems: Problems
    mid: str
    ts: datetime | None
    model: str | None
    text_parts: list[str] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    pending: list[Event] = field(default_factory=list)  # events after the message's own

    def report(self, message: str) -> None:
        self.problems.add(self.path, None, f"AICS: {self.where}{message}")


def _message_events(
    message: dict[str, Any], where: str, mindex: int, path: Path, problems: Problems
) -> Iterator[Event]:
    mid = str(message.get("id") or f"m{mindex}")
    if not message.get("id"):
        problems.add(path, None, f"AICS: {where} has no 'id'")
    role = message.get("role") if isinstance(message.get("role"), str) else None
    if role not in ("user", "assistant", "system", "tool"):
        problems.add(path, None, f"AICS: {where} has invalid role {shown(message.get('role'))}")
    ts = parse_time(message.get("timestamp"))
    if message.get("timestamp") is not None and ts is None:
        problems.add(path, None, f"AICS: {where}.timestamp is not a valid ISO 8601 timestamp")
    content = array(message.get("content"))
    if not content:
        problems.add(path, None, f"AICS: {where} has no content parts")
    model = message.get("model") if isinstance(message.get("model"), str) else None
    meta = {k: message[k] for k in ("provider", "comment") if message.get(k)}
    if isinstance(message.get("metadata"), dict) and message["metadata"]:
        meta["metadata"] = message["metadata"]
    base_kind = _ROLE_KIND.get(role or "", Kind.SYSTEM)

    thinking = _thinking_event(message.get("thinking"), mid, ts, model)
    if thinking is not None:
        yield thinking
    state = _Message(where, path, problems, mid, ts, model)
    for pindex, part in enumerate(content):
        _read_part(part, pindex, state)
    if state.text_parts or state.blocks:
        kind = Kind.TOOL_RESULT if role == "tool" else base_kind
        yield Event(
            id=mid,
            kind=kind,
            timestamp=ts,
            text="\n\n".join(state.text_parts),
            blocks=tuple(state.blocks),
            model=model if kind == Kind.ASSISTANT else None,
            meta=meta,
        )
    elif meta:
        state.pending.insert(0, Event(id=mid, kind=base_kind, timestamp=ts, meta=meta))
    yield from state.pending

    mcp = message.get("mcp")
    if isinstance(mcp, dict):
        yield from _mcp_events(mcp, mid, ts)


def _thinking_event(thinking: Any, mid: str, ts: datetime | None, model: str | None) -> Event | None:
    """The message's ``thinking`` object (content, summary, steps) as one thinking event."""
    if not (
        isinstance(thinking, dict) and (thinking.get("content") or thinking.get("summary") or thinking.get("steps"))
    ):
        return None
    parts = [as_text(thinking.get("content"))]
    if thinking.get("summary"):
        parts.insert(0, f"**Summary:** {as_text(thinking['summary'])}")
    for step in array(thinking.get("steps")):
        parts.append(f"- {as_text(step)}")
    tmeta = {k: thinking[k] for k in ("tokensUsed", "durationMs", "metadata") if thinking.get(k)}
    return Event(
        id=f"{mid}-thinking",
        kind=Kind.THINKING,
        timestamp=ts,
        text="\n\n".join(p for p in parts if p),
        model=model,
        meta=tmeta,
    )


def _read_part(part: Any, pindex: int, state: _Message) -> None:
    """One content part: text and blocks join the message, calls, results and thinking follow it."""
    if not isinstance(part, dict):
        state.report(f".content[{pindex}] is not an object; kept as text")
        state.text_parts.append(as_text(part))
        return
    ptype = part.get("type")
    pid = f"{state.mid}-{pindex}"
    raw_text = part.get("text")
    text = raw_text if isinstance(raw_text, str) else ""
    data = part.get("data")
    ts = state.ts
    if ptype == "text":
        state.text_parts.append(text)
    elif ptype == "thinking":
        state.pending.append(
            Event(id=pid, kind=Kind.THINKING, timestamp=ts, text=text or as_text(data), model=state.model)
        )
    elif ptype == "code":
        lang = text_of(data.get("language")) if isinstance(data, dict) else None
        state.blocks.append(
            Block("code", text=text or as_text(data), language=lang or _lang_from_mime(part.get("mimeType")))
        )
    elif ptype == "image":
        state.blocks.append(_image_block(part, text))
    elif ptype == "tool_call":
        state.pending.append(_tool_call_event(pid, ts, data, text, state.model))
    elif ptype == "tool_result":
        state.pending.append(_tool_result_event(pid, ts, data, text))
    else:
        state.report(f".content[{pindex}] has unknown type {ptype!r}; shown as raw JSON")
        state.pending.append(Event(id=pid, kind=Kind.UNKNOWN, timestamp=ts, title=f"AICS content {ptype!r}", raw=part))


def _image_block(part: dict[str, Any], text: str) -> Block:
    uri = text if text.startswith(("http:", "https:", "data:")) else None
    if part.get("encoding") == "base64" and text and not uri:
        uri = f"data:{part.get('mimeType') or 'image/png'};base64,{text}"
    return Block("image", uri=uri, mime=text_of(part.get("mimeType")), title=text_of(part.get("comment")))


def _tool_call_event(pid: str, ts: datetime | None, data: Any, text: str, model: str | None) -> Event:
    name, args, call_id = _tool_fields(data, text)
    return Event(
        id=pid,
        kind=Kind.TOOL_CALL,
        timestamp=ts,
        tool_name=name,
        tool_input=args,
        category=ToolCategory.OTHER,
        call_id=call_id,
        text="" if args is not None else text,
        model=model,
    )


def _tool_result_event(pid: str, ts: datetime | None, data: Any, text: str) -> Event:
    _, _, call_id = _tool_fields(data, text)
    output = text or as_text((data or {}).get("output") if isinstance(data, dict) and "output" in data else data)
    is_error = bool(isinstance(data, dict) and (data.get("is_error") or data.get("isError") or data.get("error")))
    return Event(id=pid, kind=Kind.TOOL_RESULT, timestamp=ts, text=output, call_id=call_id, is_error=is_error)


def _mcp_events(mcp: dict[str, Any], mid: str, ts: Any) -> Iterator[Event]:
    for tindex, tool in enumerate(array(mcp.get("tools"))):
        if not isinstance(tool, dict):
            continue
        call_id = f"{mid}-mcp-{tindex}"
        meta = {"mcp": True}
        if tool.get("description"):
            meta["description"] = tool["description"]
        yield Event(
            id=call_id,
            kind=Kind.TOOL_CALL,
            timestamp=ts,
            tool_name=str(tool.get("name") or "mcp tool"),
            tool_input=tool.get("input"),
            category=ToolCategory.OTHER,
            call_id=call_id,
            meta=meta,
        )
        if "output" in tool:
            yield Event(
                id=f"{call_id}-out",
                kind=Kind.TOOL_RESULT,
                timestamp=ts,
                text=as_text(tool.get("output")),
                call_id=call_id,
            )
    resources = [r for r in array(mcp.get("resources")) if isinstance(r, dict)]
    prompts = [p for p in array(mcp.get("prompts")) if isinstance(p, dict)]
    if resources or prompts or mcp.get("metadata"):
        blocks = [
            Block(
                "reference",
                uri=as_text(r.get("uri")),
                mime=text_of(r.get("mimeType")),
                title=text_of(r.get("name")) or text_of(r.get("description")),
                data={k: r[k] for k in ("description", "metadata") if r.get(k)} or None,
            )
            for r in resources
        ]
        for prompt in prompts:
            blocks.append(Block("json", title=f"MCP prompt {as_text(prompt.get('name', ''))}", data=prompt))
        meta = {"mcp.version": mcp["version"]} if mcp.get("version") else {}
        if mcp.get("metadata"):
            meta["mcp.metadata"] = mcp["metadata"]
        yield Event(
            id=f"{mid}-mcp", kind=Kind.SYSTEM, timestamp=ts, title="MCP context", blocks=tuple(blocks), meta=meta
        )


def _tool_fields(data: Any, text: str) -> tuple[str, Any, str | None]:
    """Name, arguments and call id of a tool_call/tool_result part, wherever they are."""
    if isinstance(data, dict):
        name = data.get("name") or data.get("tool") or "tool"
        args = data.get("input", data.get("arguments", data.get("args")))
        if isinstance(args, str):
            with contextlib.suppress(ValueError):
                args = loads(args)
        call_id = data.get("id") or data.get("call_id") or data.get("tool_call_id") or data.get("tool_use_id")
        return str(name), args, str(call_id) if call_id else None
    # The Crush exporter writes tool calls as text starting with an emoji.
    name = text.lstrip("🔧📋 ").split(":", 1)[0].split("\n", 1)[0]
    name = cut_words(name, 60) if name else "tool"
    return name, None, None


def _text(raw: dict[str, Any], key: str, where: str, path: Path, problems: Problems) -> str | None:
    """A text field; another type is one problem and no value."""
    value = raw.get(key)
    if value is None or value == "" or isinstance(value, str):
        return value or None
    problems.add(path, None, f"AICS: {where}.{key} is a {type(value).__name__}, not a string; ignored")
    return None


def _lang_from_mime(mime: Any) -> str | None:
    if isinstance(mime, str) and "/" in mime:
        sub = mime.split("/", 1)[1]
        return sub[2:] if sub.startswith("x-") else sub
    return None


READER = AicsReader()
