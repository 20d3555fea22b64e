"""``assistant`` records: one event per content block, usage counted once per API message.

One API response is split over several ``assistant`` lines (one content block
each) that share ``message.id`` and repeat a growing ``usage``. Each block
becomes its own event; the usage of the *last* line of a message is attached
once, to the last event of that message (``Transcript.finish``).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from sessite.model import Kind
from sessite.readers._util import text_of
from sessite.readers.base import as_text
from sessite.readers.formats.claude_code.calls import tool_input_fields
from sessite.readers.formats.claude_code.content import image_block, result_content, usage_of
from sessite.readers.formats.claude_code.state import Call, EventSpec, Specs, Transcript, unknown_spec
from sessite.readers.formats.claude_code.vocabulary import TASK_TOOLS


def read_assistant(t: Transcript, lineno: int, rec: dict[str, Any], ts: datetime | None) -> None:
    msg = rec.get("message")
    if not isinstance(msg, dict):
        t.problems.add(t.path, lineno, "assistant record has no message object; shown as raw JSON")
        t.emit_one(lineno, rec, ts, unknown_spec("assistant record without a message", rec))
        return
    model = text_of(msg.get("model"))
    meta: dict[str, Any] = {}
    if model == "<synthetic>":
        model = None
        meta["synthetic"] = True
    elif model:
        t.models.setdefault(model)
    is_error = bool(rec.get("isApiErrorMessage"))
    if is_error:
        meta["api_error"] = True
    first_new = len(t.events)
    t.emit(lineno, rec, ts, _block_specs(t, lineno, msg.get("content"), model, meta, is_error))
    _note_calls(t, first_new)
    _note_usage(t, rec, msg, first_new)


def _block_specs(
    t: Transcript, lineno: int, content: Any, model: str | None, meta: dict[str, Any], is_error: bool
) -> Specs:
    """The event specs of a message's content blocks (empty text and thinking left out)."""
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    elif not isinstance(content, list):
        t.problems.add(t.path, lineno, f"assistant message content is {type(content).__name__}, not a list; skipped")
        content = []
    specs: Specs = []
    for index, block in enumerate(content):
        spec = _block_spec(block, model)
        if spec is None:
            t.skip(_EMPTY.get(block.get("type"), "empty content block"), lineno)
        else:
            if meta:
                spec["meta"] = {**meta, **spec.get("meta", {})}
            if is_error and spec["kind"] == Kind.ASSISTANT:
                spec["is_error"] = True
            specs.append((index, spec))
    return specs


# Why an empty block is left out (Claude Code 2.1.x keeps only a signature of the model's
# reasoning: the thinking block is there, its text is not).
_EMPTY = {
    "thinking": "thinking block with no text (the reasoning was not recorded)",
    "text": "empty text block",
}


def _note_calls(t: Transcript, first_new: int) -> None:
    """Index the tool calls just emitted, and the prompts of Task calls (they find sub-agents)."""
    for position in range(first_new, len(t.events)):
        event = t.events[position]
        if event.kind != Kind.TOOL_CALL or not event.call_id:
            continue
        t.calls.setdefault(event.call_id, Call(position, event.tool_name or "", event.tool_input))
        args = event.tool_input
        if event.tool_name in TASK_TOOLS and isinstance(args, dict) and isinstance(args.get("prompt"), str):
            t.task_prompts.setdefault(args["prompt"].strip(), event.call_id)


def _note_usage(t: Transcript, rec: dict[str, Any], msg: dict[str, Any], first_new: int) -> None:
    """Remember the message's latest usage and last event; ``finish`` attaches it once."""
    mid = text_of(msg.get("id")) or text_of(rec.get("requestId"))
    usage = usage_of(msg.get("usage"))
    last = len(t.events) - 1 if len(t.events) > first_new else None
    if mid is None:
        if last is not None and usage:
            t.events[last] = replace(t.events[last], usage=usage)
        return
    previous = t.messages.get(mid)
    if last is None and previous is not None:
        last = previous[0]
    t.messages[mid] = (last, usage if usage is not None else (previous[1] if previous else None))


def _block_spec(block: Any, model: str | None) -> EventSpec | None:
    """One content block as an event spec (None for an empty text or thinking block)."""
    if not isinstance(block, dict):
        return unknown_spec("assistant content that is not an object", block)
    btype = block.get("type")
    if btype == "text":
        text = block.get("text")
        if not isinstance(text, str):
            text = as_text(text)
        return {"kind": Kind.ASSISTANT, "text": text, "model": model} if text.strip() else None
    if btype == "thinking":
        text = as_text(block.get("thinking"))
        return {"kind": Kind.THINKING, "text": text, "model": model} if text.strip() else None
    if btype == "redacted_thinking":
        text = "*(thinking redacted by the API)*"
        return {"kind": Kind.THINKING, "text": text, "model": model, "meta": {"redacted": True}}
    if btype in ("tool_use", "server_tool_use"):
        return _call_spec(block, model, server=btype == "server_tool_use")
    if isinstance(btype, str) and btype.endswith("_tool_result"):
        text, blocks = result_content(block.get("content"))
        call_id = text_of(block.get("tool_use_id"))
        return {
            "kind": Kind.TOOL_RESULT,
            "call_id": call_id,
            "text": text,
            "blocks": blocks,
            "meta": {"server_tool": True},
        }
    if btype == "image":
        return {"kind": Kind.ASSISTANT, "blocks": (image_block(block),), "model": model}
    return unknown_spec(f"unknown assistant block type {btype!r}", block)


def _call_spec(block: dict[str, Any], model: str | None, *, server: bool) -> EventSpec:
    """A TOOL_CALL event; a Task/Agent call is titled with its description."""
    name = text_of(block.get("name")) or "tool"
    args = block.get("input")
    spec: EventSpec = {
        "kind": Kind.TOOL_CALL,
        "tool_name": name,
        "tool_input": args,
        "call_id": text_of(block.get("id")),
        "model": model,
        **tool_input_fields(name, args),
    }
    if server:
        spec["meta"] = {"server_tool": True}
    if name in TASK_TOOLS and isinstance(args, dict) and text_of(args.get("description")):
        spec["title"] = args["description"]
    return spec
