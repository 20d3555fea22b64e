"""AICS 1.0 (AI Coding Session interchange, JSON): ``{version, creator, log:{sessions:[…]}}``.

Every field of the spec is kept: content parts become events or blocks, ``mcp``
tools become tool call/result pairs, ``mcp`` resources and prompts become
reference blocks, ``thinking`` becomes a thinking event. The spec's validation
rules are reported as problems, never raised.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sitegen.interchange.exports import is_sessite_aics, read_aics_session
from sitegen.model import Block, Event, GitRefs, Kind, Problems, Session, SourceRef, ToolCategory, make_session_id
from sitegen.readers.base import Reader, Sniff, as_text, load_json, parse_time

SUPPORTED_VERSIONS = {"1.0", "1.0.0"}
_ROLE_KIND = {"user": Kind.USER, "assistant": Kind.ASSISTANT, "system": Kind.SYSTEM}


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

    def read(self, path: Path, problems: Problems) -> Iterator[Session]:
        doc = load_json(path, problems)
        if doc is None:
            return
        if not isinstance(doc, dict):
            problems.add(path, None, "AICS: top level is not an object")
            return
        _validate_root(doc, path, problems)
        log = doc.get("log") if isinstance(doc.get("log"), dict) else {}
        sessions = log.get("sessions")
        if not isinstance(sessions, list):
            problems.add(path, None, "AICS: log.sessions is missing or not an array")
            return
        browser = (
            (log.get("browser") or doc.get("browser") or {})
            if isinstance(log.get("browser") or doc.get("browser") or {}, dict)
            else {}
        )
        creator = doc.get("creator") if isinstance(doc.get("creator"), dict) else {}
        for index, raw in enumerate(sessions):
            if not isinstance(raw, dict):
                problems.add(path, None, f"AICS: sessions[{index}] is not an object; skipped")
                continue
            if creator.get("name") == "sessite" and is_sessite_aics(raw):
                yield _sessite_session(raw, index, path, problems, browser, creator)
            else:
                yield _session(raw, index, path, problems, browser, creator)


def _sessite_session(
    raw: dict[str, Any], index: int, path: Path, problems: Problems, browser: dict, creator: dict
) -> Session:
    """A session sessite exported: its extension (metadata.sessite) gives back every field."""
    try:
        return read_aics_session(
            raw, path, problems, lambda m, where, i: _message_events(m, f"sessions[{index}].{where}", i, path, problems)
        )
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


def _session(raw: dict[str, Any], index: int, path: Path, problems: Problems, browser: dict, creator: dict) -> Session:
    where = f"sessions[{index}]"
    sid = raw.get("id")
    if not sid:
        problems.add(path, None, f"AICS: {where} has no 'id' (using its position)")
        sid = f"{path.stem}-{index}"
    messages = raw.get("messages")
    if not isinstance(messages, list) or not messages:
        problems.add(path, None, f"AICS: {where} ({sid}) has no messages")
        messages = messages if isinstance(messages, list) else []
    for key in ("startedAt", "updatedAt"):
        if raw.get(key) is not None and parse_time(raw.get(key)) is None:
            problems.add(path, None, f"AICS: {where}.{key} is not a valid ISO 8601 timestamp: {raw.get(key)!r}")

    events: list[Event] = []
    models: list[str] = []
    for mindex, message in enumerate(messages):
        if not isinstance(message, dict):
            problems.add(path, None, f"AICS: {where}.messages[{mindex}] is not an object; skipped")
            continue
        events.extend(_message_events(message, f"{where}.messages[{mindex}]", mindex, path, problems))
        model = message.get("model")
        if isinstance(model, str) and model and model not in models:
            models.append(model)

    refs = raw.get("gitRefs") if isinstance(raw.get("gitRefs"), dict) else {}
    meta: dict[str, Any] = {}
    for key in ("clientId", "comment"):
        if raw.get(key):
            meta[key] = raw[key]
    if isinstance(raw.get("metadata"), dict):
        meta.update({f"metadata.{k}": v for k, v in raw["metadata"].items()})
    if creator.get("name"):
        meta["creator"] = " ".join(str(creator.get(k)) for k in ("name", "version") if creator.get(k))
    project = raw.get("metadata", {}).get("project") if isinstance(raw.get("metadata"), dict) else None
    agent = str(browser.get("name") or "aics").lower()
    timestamps = [e.timestamp for e in events if e.timestamp]
    return Session(
        id=make_session_id("aics", str(sid)),
        source=SourceRef(str(path), "aics"),
        agent=agent,
        title=raw.get("title") or None,
        started=parse_time(raw.get("startedAt")) or (min(timestamps) if timestamps else None),
        ended=parse_time(raw.get("updatedAt")) or (max(timestamps) if timestamps else None),
        project=project if isinstance(project, str) else None,
        models=tuple(models),
        git=GitRefs(
            *(
                tuple(str(x) for x in refs.get(k, []) if x) if isinstance(refs.get(k), list) else ()
                for k in ("branches", "commits", "issues", "tags", "repos")
            )
        ),
        events=tuple(events),
        meta=meta,
    )


def _message_events(
    message: dict[str, Any], where: str, mindex: int, path: Path, problems: Problems
) -> Iterator[Event]:
    mid = str(message.get("id") or f"m{mindex}")
    if not message.get("id"):
        problems.add(path, None, f"AICS: {where} has no 'id'")
    role = message.get("role")
    if role not in ("user", "assistant", "system", "tool"):
        problems.add(path, None, f"AICS: {where} has invalid role {role!r}")
    ts = parse_time(message.get("timestamp"))
    if message.get("timestamp") is not None and ts is None:
        problems.add(path, None, f"AICS: {where}.timestamp is not a valid ISO 8601 timestamp")
    content = message.get("content")
    if not isinstance(content, list) or not content:
        problems.add(path, None, f"AICS: {where} has no content parts")
        content = content if isinstance(content, list) else []
    model = message.get("model") if isinstance(message.get("model"), str) else None
    meta = {k: message[k] for k in ("provider", "comment") if message.get(k)}
    if isinstance(message.get("metadata"), dict) and message["metadata"]:
        meta["metadata"] = message["metadata"]
    base_kind = _ROLE_KIND.get(role or "", Kind.SYSTEM)

    thinking = message.get("thinking")
    if isinstance(thinking, dict) and (thinking.get("content") or thinking.get("summary") or thinking.get("steps")):
        parts = [as_text(thinking.get("content"))]
        if thinking.get("summary"):
            parts.insert(0, f"**Summary:** {as_text(thinking['summary'])}")
        for step in thinking.get("steps") or []:
            parts.append(f"- {as_text(step)}")
        tmeta = {k: thinking[k] for k in ("tokensUsed", "durationMs", "metadata") if thinking.get(k)}
        yield Event(
            id=f"{mid}-thinking",
            kind=Kind.THINKING,
            timestamp=ts,
            text="\n\n".join(p for p in parts if p),
            model=model,
            meta=tmeta,
        )

    text_parts: list[str] = []
    blocks: list[Block] = []
    pending: list[Event] = []
    for pindex, part in enumerate(content):
        if not isinstance(part, dict):
            problems.add(path, None, f"AICS: {where}.content[{pindex}] is not an object; kept as text")
            text_parts.append(as_text(part))
            continue
        ptype = part.get("type")
        pid = f"{mid}-{pindex}"
        text = part.get("text") if isinstance(part.get("text"), str) else ""
        data = part.get("data")
        if ptype == "text":
            text_parts.append(text)
        elif ptype == "thinking":
            pending.append(Event(id=pid, kind=Kind.THINKING, timestamp=ts, text=text or as_text(data), model=model))
        elif ptype == "code":
            lang = (data or {}).get("language") if isinstance(data, dict) else None
            blocks.append(
                Block("code", text=text or as_text(data), language=lang or _lang_from_mime(part.get("mimeType")))
            )
        elif ptype == "image":
            uri = text if text.startswith(("http:", "https:", "data:")) else None
            if part.get("encoding") == "base64" and text and not uri:
                uri = f"data:{part.get('mimeType') or 'image/png'};base64,{text}"
            blocks.append(Block("image", uri=uri, mime=part.get("mimeType"), title=part.get("comment")))
        elif ptype == "tool_call":
            name, args, call_id = _tool_fields(data, text)
            pending.append(
                Event(
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
            )
        elif ptype == "tool_result":
            _, _, call_id = _tool_fields(data, text)
            output = text or as_text(
                (data or {}).get("output") if isinstance(data, dict) and "output" in data else data
            )
            is_error = bool(
                isinstance(data, dict) and (data.get("is_error") or data.get("isError") or data.get("error"))
            )
            pending.append(
                Event(id=pid, kind=Kind.TOOL_RESULT, timestamp=ts, text=output, call_id=call_id, is_error=is_error)
            )
        else:
            problems.add(path, None, f"AICS: {where}.content[{pindex}] has unknown type {ptype!r}; shown as raw JSON")
            pending.append(Event(id=pid, kind=Kind.UNKNOWN, timestamp=ts, title=f"AICS content {ptype!r}", raw=part))

    if text_parts or blocks:
        kind = Kind.TOOL_RESULT if role == "tool" else base_kind
        yield Event(
            id=mid,
            kind=kind,
            timestamp=ts,
            text="\n\n".join(text_parts),
            blocks=tuple(blocks),
            model=model if kind == Kind.ASSISTANT else None,
            meta=meta,
        )
    elif meta:
        pending.insert(0, Event(id=mid, kind=base_kind, timestamp=ts, meta=meta))
    yield from pending

    mcp = message.get("mcp")
    if isinstance(mcp, dict):
        yield from _mcp_events(mcp, mid, ts)


def _mcp_events(mcp: dict[str, Any], mid: str, ts: Any) -> Iterator[Event]:
    for tindex, tool in enumerate(mcp.get("tools") or []):
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
    resources = [r for r in mcp.get("resources") or [] if isinstance(r, dict)]
    prompts = [p for p in mcp.get("prompts") or [] if isinstance(p, dict)]
    if resources or prompts or mcp.get("metadata"):
        blocks = [
            Block(
                "reference",
                uri=str(r.get("uri") or ""),
                mime=r.get("mimeType"),
                title=r.get("name") or r.get("description"),
                data={k: r[k] for k in ("description", "metadata") if r.get(k)} or None,
            )
            for r in resources
        ]
        for prompt in prompts:
            blocks.append(Block("json", title=f"MCP prompt {prompt.get('name', '')}", data=prompt))
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
            try:
                args = json.loads(args)
            except ValueError:
                pass
        call_id = data.get("id") or data.get("call_id") or data.get("tool_call_id") or data.get("tool_use_id")
        return str(name), args, str(call_id) if call_id else None
    # The Crush exporter writes tool calls as text starting with an emoji.
    name = text.lstrip("🔧📋 ").split(":", 1)[0].split("\n", 1)[0][:60] or "tool"
    return name, None, None


def _lang_from_mime(mime: Any) -> str | None:
    if isinstance(mime, str) and "/" in mime:
        sub = mime.split("/", 1)[1]
        return sub[2:] if sub.startswith("x-") else sub
    return None


READER = AicsReader()
