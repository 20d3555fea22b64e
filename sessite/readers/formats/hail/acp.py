"""opensession's newer storage: ``*.hail.jsonl`` files in the shape of ACP session updates
(``source.canonicalFormat: acp-semantic-jsonl``, ``sessionVersion: acp-semantic-1.0.0``).

``session.new`` (the header: ``_meta.opensession.{agent, context, source}``, ``cwd``),
``session.update`` lines (an ACP ``update`` plus ``_meta.opensession.event``: the HAIL
event it was made from, ``eventId``, ``originalEventType``, ``originalContent``,
``attributes``, ``taskId``), and ``session.end`` (``stats``, ``stopReason``). Each line is
read back as the HAIL record it carries, so a file is the same session as its HAIL 1.0
original; an update without the HAIL event (a plain ACP update) is read from the update.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sessite.model import Problems, Session
from sessite.readers._util import named, obj, text_of
from sessite.readers.files import iter_jsonl
from sessite.readers.formats.hail.assemble import HailAssembly

LATER_CHUNK = "a later chunk of an event (shown whole from its first chunk)"
# A plain ACP update's kind -> the HAIL event type it is.
_UPDATES = {
    "user_message_chunk": "UserMessage",
    "agent_message_chunk": "AgentMessage",
    "agent_thought_chunk": "Thinking",
    "system_message_chunk": "SystemMessage",
}


def is_acp_header(record: Any) -> bool:
    """The first line of an ACP-shaped opensession file."""
    return (
        isinstance(record, dict)
        and record.get("type") == "session.new"
        and isinstance(record.get("sessionId"), str)
        and isinstance(obj(record.get("_meta")).get("opensession"), dict)
    )


def read_acp(path: Path, problems: Problems) -> Session | None:
    """The session of one ACP-shaped file, assembled as HAIL."""
    builder = HailAssembly(path, problems, json_mode=False)
    last_time: Any = None  # a plain ACP update has no time of its own: it happened after this one
    for lineno, record in iter_jsonl(path, problems):
        kind = record.get("type")
        meta = obj(obj(record.get("_meta")).get("opensession"))
        if kind == "session.new":
            builder.add_header(_header(record, meta), lineno)
        elif kind == "session.update":
            event = meta.get("event")
            if isinstance(event, dict) and event.get("chunkIndex") not in (None, 0):
                builder.merged(lineno, LATER_CHUNK)
            elif isinstance(event, dict):
                last_time = event.get("timestamp") or last_time
                builder.add_event(_event(event), lineno)
            else:
                _plain_update(builder, record, lineno, last_time)
        elif kind == "session.end":
            stats = dict(obj(meta.get("stats")))
            if record.get("stopReason") is not None:
                stats["stop_reason"] = record["stopReason"]
            builder.add_stats(stats, lineno)
        else:
            builder.add_unknown_line(record, lineno)
    return builder.finish()


def _header(record: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    """The HAIL header the ``session.new`` line carries (its camelCase times as HAIL names them)."""
    context = dict(obj(meta.get("context")))
    for camel, snake in (("createdAt", "created_at"), ("updatedAt", "updated_at")):
        if camel in context:
            context.setdefault(snake, context.pop(camel))
    attributes = dict(obj(context.get("attributes")))
    if isinstance(record.get("cwd"), str):
        attributes.setdefault("cwd", record["cwd"])
    context["attributes"] = attributes
    header: dict[str, Any] = {
        "type": "header",
        "version": "hail-1.0.0",
        "session_id": record.get("sessionId"),
        "agent": meta.get("agent"),
        "context": context,
    }
    if meta.get("source") is not None:
        header["source"] = meta["source"]
    return header


def _event(event: dict[str, Any]) -> dict[str, Any]:
    """The HAIL event record a ``session.update`` was made from."""
    record: dict[str, Any] = {
        "type": "event",
        "event_id": event.get("eventId"),
        "timestamp": event.get("timestamp"),
        "event_type": event.get("originalEventType"),
        "content": event.get("originalContent"),
    }
    for key, name in (("attributes", "attributes"), ("taskId", "task_id"), ("durationMs", "duration_ms")):
        if event.get(key) is not None:
            record[name] = event[key]
    return record


def _plain_update(builder: HailAssembly, record: dict[str, Any], lineno: int, when: Any) -> None:
    """An ACP update with no HAIL event behind it: messages by their kind, tool calls and results by id."""
    update = obj(record.get("update"))
    kind = update.get("sessionUpdate")
    content = obj(update.get("content"))
    text = text_of(content.get("text")) or ""
    blocks: list[dict[str, Any]] = [{"type": "Text", "text": text}] if text else []
    if named(kind, _UPDATES):
        event_type: dict[str, Any] = {"type": _UPDATES[str(kind)]}
    elif kind == "tool_call":
        event_type = {"type": "ToolCall", "data": {"name": text_of(update.get("title")) or "tool"}}
        blocks = [{"type": "Json", "data": update.get("rawInput")}] if update.get("rawInput") is not None else []
    elif kind == "tool_call_update":
        event_type = {"type": "ToolResult", "data": {"name": "tool", "call_id": text_of(update.get("toolCallId"))}}
        listed = update.get("content")
        parts: list[Any] = listed if isinstance(listed, list) else []
        texts = [text_of(obj(obj(p).get("content")).get("text")) for p in parts]
        blocks = [{"type": "Text", "text": t} for t in texts if t]
    else:
        builder.add_unknown_line(record, lineno)
        return
    event_id = text_of(update.get("toolCallId")) if kind == "tool_call" else None
    record = {"type": "event", "event_id": event_id or f"acp-{lineno}", "event_type": event_type, "timestamp": when}
    builder.add_event({**record, "content": {"blocks": blocks}}, lineno)
