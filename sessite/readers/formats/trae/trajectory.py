"""A Trae Agent trajectory (``trae run … --trajectory-file``): one JSON document per task.

``{task, start_time, end_time, provider, model, max_steps, agent_steps, llm_interactions,
success, final_result, execution_time}``. Each agent step holds the model's response
(``llm_response{content, model, usage, tool_calls}``), the calls it made and their results
(``tool_results[{call_id, success, result, error}]``), a reflection and an error. Each LLM
interaction holds the same response with the messages sent: it is merged into the step
that shows it, and shown itself only when no step does. The Rust port writes
``llm_interaction[]`` entries that each hold their step (``steps``), its times as epoch
seconds.

Records: 1 is the task; then the steps (or the Rust port's interactions), then the Python
interactions; last, the final result.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

from sessite.model import Kind, Problems, ToolCategory, Usage
from sessite.readers._util import maybe_json, obj, text_of, to_int
from sessite.readers.base import as_text, parse_time
from sessite.readers.builder import SessionBuilder
from sessite.readers.tools import DiffRule, replace_diff, tool_category, tool_input, write_diff

NAME = "trae"
AGENT = "trae"
_NUMBER = re.compile(r"^\d{9,11}\.\d+$")
CATEGORIES = {"str_replace_based_edit_tool": ToolCategory.EDIT, "json_edit_tool": ToolCategory.EDIT}
_CREATE, _REPLACE = write_diff(("file_text",)), replace_diff(("old_str",), ("new_str",))


def _editor(args: Any, path: str | None) -> str | None:
    command = obj(args).get("command")
    return _CREATE(args, path) if command == "create" else _REPLACE(args, path) if command == "str_replace" else None


DIFFS: dict[str, DiffRule] = {"str_replace_based_edit_tool": _editor}


def stamp(value: Any) -> datetime | None:
    """ISO times (the Python agent) and epoch seconds with a fraction, as text (the Rust port)."""
    if isinstance(value, str) and _NUMBER.match(value.strip()):
        return parse_time(float(value))
    return parse_time(value)


class TraeBuilder(SessionBuilder):
    """A trajectory's events, and what its steps showed (for merging the interactions)."""

    def __init__(self, path: Path, problems: Problems, provider: str | None = None) -> None:
        super().__init__(NAME, path, problems, agent=AGENT, label=NAME)
        self.provider = provider  # the Rust port writes it where the model's name belongs
        self.texts: set[str] = set()
        self.call_ids: set[str] = set()


def content_text(content: Any) -> str:
    if isinstance(content, list):
        return "\n\n".join(as_text(obj(p).get("text")) for p in content if obj(p).get("text"))
    return as_text(content) if content is not None else ""


def usage_of(usage: Any) -> Usage | None:
    u = obj(usage)
    found = Usage(
        to_int(u.get("input_tokens")),
        to_int(u.get("output_tokens")),
        to_int(u.get("cache_read_input_tokens")),
        to_int(u.get("cache_creation_input_tokens")),
        to_int(u.get("reasoning_tokens")),
    )
    return found or None


def response(b: TraeBuilder, line: int, base: str, reply: dict[str, Any], when: datetime | None, calls: Any) -> None:
    """A model response: its prose, then its calls (the step's own list when it has one)."""
    model = text_of(reply.get("model"))
    model = None if model == b.provider else model
    b.model(model)
    text = content_text(reply.get("content"))
    usage = usage_of(reply.get("usage"))
    meta = {"finish reason": reply["finish_reason"]} if text_of(reply.get("finish_reason")) else {}
    if text.strip():
        b.texts.add(text.strip())
        error = reply.get("finish_reason") == "Error"
        b.emit(
            base,
            kind=Kind.ASSISTANT,
            text=text,
            model=model,
            usage=usage,
            timestamp=when,
            line=line,
            meta=meta,
            is_error=error,
        )
        usage = None
    listed = calls if isinstance(calls, list) and calls else reply.get("tool_calls")
    for k, call in enumerate(listed if isinstance(listed, list) else []):
        call = obj(call)
        call_id = text_of(call.get("call_id")) or text_of(call.get("id")) or f"{base}-call-{k}"
        name = text_of(call.get("name")) or "tool"
        args = maybe_json(call.get("arguments"))
        category = tool_category(name, CATEGORIES)
        found = tool_input(args, category, DIFFS.get(name))
        b.call_ids.add(call_id)
        b.emit(
            call_id,
            kind=Kind.TOOL_CALL,
            tool_name=name,
            tool_input=args,
            category=category,
            call_id=call_id,
            model=model,
            usage=usage,
            timestamp=when,
            line=line,
            **found.fields(),
        )
        usage = None


def step(b: TraeBuilder, line: int, item: dict[str, Any], when: datetime | None) -> None:
    base = f"step-{line}"
    thought = text_of(item.get("thought"))
    if thought and thought.strip():
        b.emit(f"{base}-thought", kind=Kind.THINKING, text=thought, timestamp=when, line=line)
    reply = obj(item.get("llm_response"))
    response(b, line, base, reply, when, item.get("tool_calls"))
    for k, result in enumerate(item.get("tool_results") or ()):
        result = obj(result)
        call_id = text_of(result.get("call_id")) or f"{base}-result-{k}"
        ok = result.get("success") is not False and not result.get("error")
        text = "\n".join(as_text(result[key]) for key in ("result", "error") if result.get(key))
        b.emit(
            f"{call_id}-result",
            kind=Kind.TOOL_RESULT,
            text=text,
            call_id=call_id,
            is_error=not ok,
            timestamp=when,
            line=line,
        )
    for key, title in (("reflection", "Reflection"), ("error", "Error")):
        if text_of(item.get(key)):
            b.emit(
                f"{base}-{key}",
                kind=Kind.SYSTEM,
                title=title,
                text=item[key],
                is_error=key == "error",
                timestamp=when,
                line=line,
            )
    if not any(e.line == line for e in b.events):
        b.skip("step without a response, calls or results", line=line)


def interaction(b: TraeBuilder, line: int, item: dict[str, Any]) -> None:
    """A Python interaction: merged when a step shows its response, else shown."""
    reply = obj(item.get("response"))
    text = content_text(reply.get("content")).strip()
    calls = [text_of(obj(c).get("call_id")) or text_of(obj(c).get("id")) for c in reply.get("tool_calls") or ()]
    if (not text or text in b.texts) and all(c in b.call_ids for c in calls if c):
        b.merged(line, "LLM interaction (its response is shown with its step)")
        return
    response(b, line, f"interaction-{line}", reply, stamp(item.get("timestamp")), None)
