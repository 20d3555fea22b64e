"""User, assistant and tool result records.

A user record's ``message.parts`` is what the model got; when the CLI also kept what the
user typed (``systemPayload.displayText``), the page shows that, with a hook's added
context (``hookContext``) and the expanded prompt below it. Records the CLI writes on the
user's behalf (a background notification, a scheduled prompt) are titled notes. An
assistant record is the model's thoughts, prose and calls, in the order of its parts,
with its token counts on the last of them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sessite.model import Block, Event, Kind, user_words
from sessite.readers._util import obj, shorten, text_of, to_int
from sessite.readers.base import as_text, parse_time
from sessite.readers.builder import MODEL_KINDS
from sessite.readers.formats.qwen_code.calls import tool_call, tool_result
from sessite.readers.formats.qwen_code.parts import ordered, split, usage_of
from sessite.readers.formats.qwen_code.state import QwenFile
from sessite.readers.formats.qwen_code.vocabulary import HOOK_CONTEXT, SYSTEM_REMINDER, USER_NOTES


def agent_of(f: QwenFile, line: int, record: dict[str, Any], ts: datetime | None) -> str | None:
    """The sub-agent a record belongs to (newer versions mark its records with ``agentId``), None for the main agent."""
    agent_id = text_of(record.get("agentId"))
    if agent_id is None:
        return None
    key = f"agent-{agent_id}"
    title = text_of(record.get("agentName")) or agent_id
    f.subagent(key, line, ts, title, None)
    return key


def content(f: QwenFile, line: int, record: dict[str, Any]) -> list[Any]:
    """A record's ``message.parts``: a message or parts of the wrong type are one problem, and no content."""
    message = record.get("message")
    if message is None:
        return []
    parts = message.get("parts") if isinstance(message, dict) else None
    if isinstance(parts, list):
        return parts
    what = (
        f"message.parts is {type(parts).__name__}"
        if isinstance(message, dict)
        else f"message is {type(message).__name__}"
    )
    if not (isinstance(message, dict) and parts is None):
        f.report(line, f"{what}, expected a list of parts; its content is left out")
    return []


def user(f: QwenFile, line: int, record: dict[str, Any]) -> None:
    ts = parse_time(record.get("timestamp"))
    payload = obj(record.get("systemPayload"))
    parts = split(content(f, line, record))
    subtype = text_of(record.get("subtype"))
    base = text_of(record.get("uuid")) or f"user-{line}"
    agent = agent_of(f, line, record, ts)
    if subtype in USER_NOTES:
        text = text_of(payload.get("displayText")) or parts.text
        f.put(
            base,
            agent,
            kind=Kind.SYSTEM,
            timestamp=ts,
            title=USER_NOTES[subtype],
            text=text,
            line=line,
            blocks=tuple(parts.blocks),
            meta=_task_facts(payload),
        )
        return
    text, blocks = typed_words(payload, parts.text)
    blocks += parts.blocks + [Block("json", title="functionResponse", data=r) for r in parts.responses]
    blocks += [Block("text", text=t, title="thought") for t in parts.thoughts]
    if not text.strip() and not blocks:
        f.skip("empty user message", line=line)
        return
    meta: dict[str, Any] = {}
    if subtype == "mid_turn_user_message":
        meta["sent"] = "while tools were running"
    elif subtype:
        meta["subtype"] = subtype
    attachments = payload.get("attachmentReferences")
    if isinstance(attachments, list) and attachments:
        meta["attachments"] = [as_text(obj(a).get("mimeType") or a) for a in attachments]
    if agent is None and f.facts.prompt is None and user_words(text):
        f.facts.prompt = shorten(user_words(text), 200)
    f.put(base, agent, kind=Kind.USER, timestamp=ts, text=text, blocks=tuple(blocks), line=line, meta=meta)


def typed_words(payload: dict[str, Any], sent: str) -> tuple[str, list[Block]]:
    """What the user typed, and what the CLI added to it (as blocks)."""
    shown = text_of(payload.get("displayText"))
    hook = text_of(payload.get("hookContext"))
    blocks: list[Block] = []
    if shown is not None:
        if hook:
            blocks.append(Block("text", text=hook, title="added by a hook"))
        rest = HOOK_CONTEXT.sub("", sent).strip() if hook else sent.strip()
        if rest and rest != shown.strip():
            blocks.append(Block("code", text=sent, language="markdown", title="sent to the model"))
        return shown, blocks
    added = [m.group() for pattern in (SYSTEM_REMINDER, HOOK_CONTEXT) for m in pattern.finditer(sent)]
    for piece in added:
        sent = sent.replace(piece, "")
        blocks.append(Block("text", text=piece, title="added by Qwen Code"))
    return sent.strip() if added else sent, blocks


def _task_facts(payload: dict[str, Any]) -> dict[str, Any]:
    task = obj(payload.get("backgroundTask"))
    return {k: v for k, v in task.items() if isinstance(v, (str, int, float)) and not isinstance(v, bool)}


def assistant(f: QwenFile, line: int, record: dict[str, Any]) -> None:
    ts = parse_time(record.get("timestamp"))
    model = text_of(record.get("model"))
    f.model(model)
    agent = agent_of(f, line, record, ts)
    base = text_of(record.get("uuid")) or f"assistant-{line}"
    window = to_int(record.get("contextWindowSize"))
    if window:
        f.facts.meta.setdefault("context window", window)
    made: list[Event] = []
    for kind, value in ordered(content(f, line, record)):
        if kind == "call":
            tool_call(f, value, line, ts, model, agent)
            made.append(f.last(agent))
        elif kind in ("thought", "text") and value.strip():
            made.append(
                f.put(
                    f"{base}-thinking" if kind == "thought" else base,
                    agent,
                    kind=Kind.THINKING if kind == "thought" else Kind.ASSISTANT,
                    timestamp=ts,
                    text=value,
                    model=model,
                    line=line,
                )
            )
        elif kind in ("response", "block"):
            data = value if kind == "block" else Block("json", title="functionResponse", data=value)
            made.append(
                f.put(f"{base}-part", agent, kind=Kind.ASSISTANT, timestamp=ts, blocks=(data,), model=model, line=line)
            )
    if not made:
        f.skip("assistant record without content", line=line)
        return
    _usage(f, line, record, made, agent)


def _usage(f: QwenFile, line: int, record: dict[str, Any], made: list[Event], agent: str | None) -> None:
    """The record's token counts (and its response's duration, from telemetry) on its last model event."""
    usage = usage_of(record.get("usageMetadata"))
    telemetry = f.index.response_of.get(line, {})
    extra: dict[str, Any] = {}
    if to_int(telemetry.get("duration_ms")):
        extra["response ms"] = to_int(telemetry["duration_ms"])
    if not usage and not extra:
        return
    target = next((e for e in reversed(made) if e.kind in MODEL_KINDS), made[-1])
    f.amend(target, agent, usage=usage, meta={**target.meta, **extra})


def tool_results(f: QwenFile, line: int, record: dict[str, Any]) -> None:
    ts = parse_time(record.get("timestamp"))
    agent = agent_of(f, line, record, ts)
    details = obj(record.get("toolCallResult"))
    parts = split(content(f, line, record))
    for response in parts.responses:
        own = details if text_of(details.get("callId")) in (None, text_of(response.get("id"))) else {}
        tool_result(f, response, own, line, ts, agent)
    if parts.text.strip() or parts.blocks or not parts.responses:
        if not parts.text.strip() and not parts.blocks:
            f.skip("tool result record without a response", line=line)
            return
        f.put(
            f"{text_of(record.get('uuid')) or line}-text",
            agent,
            kind=Kind.SYSTEM,
            timestamp=ts,
            title="Sent with the tool results",
            text=parts.text,
            blocks=tuple(parts.blocks),
            line=line,
        )
