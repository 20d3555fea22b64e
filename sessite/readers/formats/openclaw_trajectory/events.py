"""One OpenClaw trace record ``{traceSchema: "openclaw-trajectory", type, ts, seq, sessionId, runId,
provider, modelId, data}`` as events: ``prompt.submitted`` (the prompt), ``model.completed``
(``assistantTexts``, ``usage``, ``promptError``), ``trace.artifacts`` (tools used, texts sent
through the messaging tool, the last tool error), ``model.fallback_step`` and a ``session.ended``
that did not succeed as notes; the rest is bookkeeping the page counts as left out."""

from __future__ import annotations

from typing import Any

from sessite.model import Kind, Usage
from sessite.readers._util import array, obj, text_of, to_int
from sessite.readers.base import parse_time
from sessite.readers.builder import SessionBuilder

# Records whose content is bookkeeping: left out, with the reason the page lists.
LEFT_OUT = {
    "session.started": "run start (trigger, channel, tool count: in the session's details)",
    "trace.metadata": "harness, config, plugin and skill snapshot",
    "context.compiled": "the context compiled for the model (system prompt, history, tool schemas)",
}


def _truncated(data: dict[str, Any]) -> bool:
    return data.get("truncated") is True and "originalBytes" in data


def add_record(b: SessionBuilder, line: int, record: dict[str, Any]) -> None:
    kind = record.get("type")
    data = obj(record.get("data"))
    when = parse_time(record.get("ts"))
    model = text_of(record.get("modelId"))
    b.model(model)
    base = f"l{line}"
    if kind in LEFT_OUT:
        b.skip(LEFT_OUT[str(kind)], line=line)
    elif _truncated(data):
        size = to_int(data.get("originalBytes"))
        b.emit(
            base,
            kind=Kind.SYSTEM,
            timestamp=when,
            title=f"{kind}: not kept",
            text=f"OpenClaw left out this record's {size:,} bytes (over its size limit).",
            line=line,
        )
    elif kind == "prompt.submitted":
        prompt = text_of(data.get("prompt"))
        if prompt and prompt.strip():
            b.emit(base, kind=Kind.USER, timestamp=when, text=prompt, line=line)
        else:
            b.skip("prompt without text", line=line)
    elif kind == "model.completed":
        _completed(b, base, line, data, when, model)
    elif kind == "trace.artifacts":
        _artifacts(b, base, line, data, when)
    elif kind == "model.fallback_step":
        step = {k: text_of(data.get(f"fallbackStep{k}")) or "" for k in ("FromModel", "ToModel", "FromFailureReason")}
        detail = text_of(data.get("fallbackStepFromFailureDetail")) or ""
        text = (
            f"{step['FromModel'] or '?'} → {step['ToModel'] or '(none)'}: {step['FromFailureReason']} {detail}".strip()
        )
        b.emit(base, kind=Kind.SYSTEM, timestamp=when, title="model fallback", text=text, line=line)
    elif kind == "session.ended":
        status = text_of(data.get("status")) or "?"
        if status == "success":
            b.merged(line, "run end (success)")
        else:
            error = text_of(data.get("promptError")) or ""
            b.emit(base, kind=Kind.SYSTEM, timestamp=when, title=f"run ended: {status}", text=error, line=line)
    elif kind == "trace.truncated":
        dropped = to_int(data.get("droppedEvents"))
        b.emit(
            base,
            kind=Kind.SYSTEM,
            timestamp=when,
            title="trace cut short",
            text=f"OpenClaw stopped recording: {dropped} records dropped.",
            line=line,
        )
    else:
        b.report(line, f"record type {kind!r} not known; shown as raw JSON")
        b.emit(base, kind=Kind.UNKNOWN, timestamp=when, title=f"record {kind!r}", raw=record, line=line)


def _completed(b: SessionBuilder, base: str, line: int, data: dict[str, Any], when: Any, model: str | None) -> None:
    texts = [t for t in array(data.get("assistantTexts")) if isinstance(t, str) and t.strip()]
    usage = _usage(data.get("usage"))
    for at, text in enumerate(texts):
        b.emit(
            f"{base}-{at}",
            kind=Kind.ASSISTANT,
            timestamp=when,
            text=text,
            model=model,
            usage=usage if at == len(texts) - 1 else None,
            line=line,
        )
    error = text_of(data.get("promptError"))
    if error:
        b.emit(f"{base}-error", kind=Kind.SYSTEM, timestamp=when, title="model error", text=error, line=line)
    if not texts and not error:
        b.skip("model run without a reply", line=line)


def _usage(value: Any) -> Usage | None:
    usage = obj(value)
    if not usage:
        return None
    found = Usage(
        input_tokens=to_int(usage.get("input")),
        output_tokens=to_int(usage.get("output")),
        cache_read_tokens=to_int(usage.get("cacheRead")),
        cache_write_tokens=to_int(usage.get("cacheWrite")),
    )
    return found or None


def _artifacts(b: SessionBuilder, base: str, line: int, data: dict[str, Any], when: Any) -> None:
    made = 0
    tools = []
    for meta in array(data.get("toolMetas")):
        name = text_of(obj(meta).get("toolName"))
        if name:
            detail = text_of(obj(meta).get("meta"))
            tools.append(f"- `{name}`" + (f": {detail}" if detail else ""))
    if tools:
        b.emit(
            f"{base}-tools",
            kind=Kind.SYSTEM,
            timestamp=when,
            title="tools used in this run",
            text="\n".join(tools),
            line=line,
        )
        made += 1
    replies = {" ".join(t.split()) for t in array(data.get("assistantTexts")) if isinstance(t, str)}
    for at, sent in enumerate(array(data.get("messagingToolSentTexts"))):
        if isinstance(sent, str) and sent.strip() and " ".join(sent.split()) not in replies:
            b.emit(
                f"{base}-sent-{at}",
                kind=Kind.ASSISTANT,
                timestamp=when,
                text=sent,
                meta={"sent with": "the message tool"},
                line=line,
            )
            made += 1
    error = obj(data.get("lastToolError"))
    if text_of(error.get("error")):
        name = text_of(error.get("toolName")) or "a tool"
        b.emit(
            f"{base}-tool-error",
            kind=Kind.SYSTEM,
            timestamp=when,
            title=f"last tool error ({name})",
            text=error["error"],
            line=line,
        )
        made += 1
    if not made:
        b.merged(line, "run summary (the replies the model.completed record shows)")
