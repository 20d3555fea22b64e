"""The V1 SDK events: ``conversations/<id>/events/event-<NNNNN>-<uuid>.json``.

Each file is one event ``{id, timestamp, source, kind, …}``: ``MessageEvent``
(``llm_message{role, content[]}``), ``ActionEvent`` (``thought[]``, ``action{kind, …}``,
``tool_call{id, name, arguments}``), ``ObservationEvent`` (``tool_call_id``,
``observation{kind, content[], is_error, exit_code}``), ``AgentErrorEvent``,
``UserRejectObservation``, ``SystemPromptEvent``, ``ConversationStateUpdateEvent``,
``PauseEvent`` and the condenser's summaries.
"""

from __future__ import annotations

from typing import Any

from sessite.model import Block, Kind
from sessite.readers._util import maybe_json, obj, opt_int, text_of, unified_diff
from sessite.readers.base import as_text, parse_time
from sessite.readers.formats.openhands.state import OpenHandsBuilder
from sessite.readers.formats.openhands.vocabulary import STATE_UPDATE, SYSTEM_PROMPT


def _texts(parts: Any) -> str:
    items = parts if isinstance(parts, list) else []
    return "\n\n".join(
        as_text(obj(p).get("text")) for p in items if obj(p).get("type") == "text" and obj(p).get("text")
    )


def _thinking(b: OpenHandsBuilder, base: str, event: dict[str, Any], line: int, holder: dict[str, Any]) -> None:
    stamp = parse_time(event.get("timestamp"))
    texts = [as_text(obj(t).get("thinking")) for t in holder.get("thinking_blocks") or () if obj(t).get("thinking")]
    if text_of(holder.get("reasoning_content")):
        texts.insert(0, holder["reasoning_content"])
    for k, text in enumerate(t for t in texts if t.strip()):
        b.emit(f"{base}-thinking-{k}", kind=Kind.THINKING, text=text, timestamp=stamp, line=line)


def read_event(b: OpenHandsBuilder, line: int, event: dict[str, Any]) -> None:
    kind = text_of(event.get("kind")) or "event"
    base = text_of(event.get("id")) or f"e{line}"
    stamp = parse_time(event.get("timestamp"))
    if kind == "SystemPromptEvent":
        b.skip(SYSTEM_PROMPT, line=line)
    elif kind == "ConversationStateUpdateEvent":
        b.skip(STATE_UPDATE, line=line)
    elif kind == "MessageEvent":
        _message(b, base, event, line)
    elif kind == "ActionEvent":
        _action(b, base, event, line)
    elif kind in ("ObservationEvent", "AgentErrorEvent", "UserRejectObservation"):
        _observation(b, base, event, line, kind)
    elif kind == "PauseEvent":
        b.emit(base, kind=Kind.SYSTEM, title="Paused", timestamp=stamp, line=line)
    elif kind in ("Condensation", "CondensationSummaryEvent"):
        b.condensation(base, text_of(event.get("summary")), line, stamp)
    else:
        b.unknown(base, f"event kind {kind!r}", event, line)


def _message(b: OpenHandsBuilder, base: str, event: dict[str, Any], line: int) -> None:
    message = obj(event.get("llm_message"))
    stamp = parse_time(event.get("timestamp"))
    content = message.get("content")
    text = content if isinstance(content, str) else _texts(content)
    images = [p for p in content if obj(p).get("type") == "image"] if isinstance(content, list) else []
    blocks = [Block("image", uri=u) for p in images for u in obj(p).get("image_urls") or () if isinstance(u, str)]
    extended = _texts(event.get("extended_content"))
    if extended:
        blocks.append(Block("text", text=extended, title="added by OpenHands"))
    if message.get("role") == "user" or event.get("source") == "user":
        b.user(base, text, line, stamp, tuple(blocks))
        return
    _thinking(b, base, event, line, message)
    b.emit(base, kind=Kind.ASSISTANT, text=text, blocks=tuple(blocks), timestamp=stamp, line=line)


def _action(b: OpenHandsBuilder, base: str, event: dict[str, Any], line: int) -> None:
    stamp = parse_time(event.get("timestamp"))
    action = obj(event.get("action"))
    akind = text_of(action.get("kind")) or ""
    _thinking(b, base, event, line, event)
    thought = _texts(event.get("thought"))
    if thought.strip():
        b.emit(f"{base}-thought", kind=Kind.ASSISTANT, text=thought, timestamp=stamp, line=line)
    if akind == "FinishAction":
        b.emit(
            base,
            kind=Kind.ASSISTANT,
            text=as_text(action.get("message") or ""),
            timestamp=stamp,
            line=line,
            meta={"finished": True},
        )
        return
    if akind == "ThinkAction":
        b.emit(base, kind=Kind.THINKING, text=as_text(action.get("thought") or ""), timestamp=stamp, line=line)
        return
    call = obj(event.get("tool_call"))
    call_id = text_of(event.get("tool_call_id")) or text_of(call.get("id")) or base
    name = text_of(event.get("tool_name")) or text_of(call.get("name")) or akind or "tool"
    args = (
        maybe_json(call.get("arguments")) if "arguments" in call else {k: v for k, v in action.items() if k != "kind"}
    )
    meta = {k: event[k] for k in ("security_risk",) if text_of(event.get(k)) and event[k] != "UNKNOWN"}
    b.call_of_event[base] = call_id
    b.call(call_id, name, args, line, stamp, meta=meta)


def _observation(b: OpenHandsBuilder, base: str, event: dict[str, Any], line: int, kind: str) -> None:
    stamp = parse_time(event.get("timestamp"))
    call_id = text_of(event.get("tool_call_id")) or b.call_of_event.get(text_of(event.get("action_id")) or "")
    observation = obj(event.get("observation"))
    if kind == "AgentErrorEvent":
        text, failed = as_text(event.get("error") or ""), True
    elif kind == "UserRejectObservation":
        text, failed = as_text(event.get("rejection_reason") or "rejected by the user"), True
    else:
        text, failed = _texts(observation.get("content")), observation.get("is_error") is True
    if call_id is None:
        b.emit(
            base,
            kind=Kind.SYSTEM,
            title="Error" if failed else "Observation",
            text=text,
            is_error=failed,
            timestamp=stamp,
            line=line,
        )
        return
    metadata = obj(observation.get("metadata"))
    if text_of(metadata.get("working_dir")) and b.cwd is None:
        b.cwd = metadata["working_dir"]
    path = text_of(observation.get("path"))
    old, new = observation.get("old_content"), observation.get("new_content")
    diff = (
        unified_diff(path, as_text(old or ""), as_text(new)) if path and isinstance(new, str) and old != new else None
    )
    exit_code = opt_int(observation.get("exit_code", metadata.get("exit_code")))
    b.result(call_id, text, line, stamp, exit_code=exit_code, diff=diff or None, is_error=failed)
