"""``user`` records: prompts, tool results, and the text Claude Code injects in the user's name.

A user record's content is a string or a list of blocks. Consecutive text and
image blocks make one message; each ``tool_result`` block is its own event.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sessite.model import Block, Kind
from sessite.readers.base import as_text
from sessite.readers.formats.claude_code.calls import result_spec
from sessite.readers.formats.claude_code.compaction import summary_spec
from sessite.readers.formats.claude_code.content import classify_user_text, image_block, title_from_prompt
from sessite.readers.formats.claude_code.queue import note_prompt
from sessite.readers.formats.claude_code.state import EventSpec, Specs, Transcript, unknown_spec


def read_user(t: Transcript, lineno: int, rec: dict[str, Any], ts: datetime | None) -> None:
    msg = rec.get("message")
    if not isinstance(msg, dict):
        t.problems.add(t.path, lineno, "user record has no message object; shown as raw JSON")
        t.emit_one(lineno, rec, ts, unknown_spec("user record without a message", rec))
        return
    content = msg.get("content")
    if isinstance(content, str):
        t.emit_one(lineno, rec, ts, user_text_spec(t, rec, content))
        return
    if not isinstance(content, list):
        what = type(content).__name__
        t.problems.add(t.path, lineno, f"user message content is {what}, not text or a list; shown as raw JSON")
        t.emit_one(lineno, rec, ts, unknown_spec("user message with unexpected content", rec))
        return
    first_new = len(t.events)
    t.emit(lineno, rec, ts, _content_specs(t, rec, content))
    for position in range(first_new, len(t.events)):
        event = t.events[position]
        if event.kind == Kind.TOOL_RESULT and event.call_id:
            t.results.setdefault(event.call_id, position)


class _Message:
    """Consecutive text and image blocks of a user record, shown as one message."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.images: list[Block] = []
        self.first_index: int | None = None

    def add(self, index: int, text: str | None = None, image: Block | None = None) -> None:
        if self.first_index is None:
            self.first_index = index
        if text is not None:
            self.texts.append(text)
        if image is not None:
            self.images.append(image)

    def flush(self, t: Transcript, rec: dict[str, Any], specs: Specs) -> None:
        if self.texts or self.images:
            spec = user_text_spec(t, rec, "\n\n".join(self.texts))
            if self.images:
                spec["blocks"] = tuple(self.images)
            specs.append((self.first_index or 0, spec))
        self.texts, self.images, self.first_index = [], [], None  # start the next message


def _content_specs(t: Transcript, rec: dict[str, Any], content: list[Any]) -> Specs:
    """The event specs of a list of content blocks, in order."""
    # toolUseResult describes the record's result only when there is exactly one.
    results = sum(1 for b in content if isinstance(b, dict) and b.get("type") == "tool_result")
    specs: Specs = []
    message = _Message()
    for index, block in enumerate(content):
        btype = block.get("type") if isinstance(block, dict) else None
        if btype == "text":
            message.add(index, text=as_text(block.get("text")))
        elif btype == "image":
            message.add(index, image=image_block(block))
        elif btype == "tool_result":
            message.flush(t, rec, specs)
            specs.append((index, result_spec(t, block, rec if results == 1 else None)))
        elif isinstance(block, str):
            message.add(index, text=block)
        else:
            message.flush(t, rec, specs)
            specs.append((index, unknown_spec(f"unknown user block type {btype!r}", block)))
    message.flush(t, rec, specs)
    return specs


def user_text_spec(t: Transcript, rec: dict[str, Any], text: str) -> EventSpec:
    """A prompt, or injected context / a slash command / command output shown as SYSTEM.

    The first real prompt titles the session and links a sub-agent to its Task call.
    """
    if rec.get("isCompactSummary"):
        return summary_spec(text)
    kind, title, clean, meta = classify_user_text(text)
    if rec.get("isMeta"):
        return {
            "kind": Kind.SYSTEM,
            "title": title or "Injected context",
            "text": clean,
            "meta": {**meta, "meta": True},
        }
    note_prompt(t, text)
    if t.prompt_title is None:
        t.prompt_title = title_from_prompt(kind, clean, meta)
    if t.first_prompt is None and kind == Kind.USER and clean.strip():
        t.first_prompt = clean.strip()
    spec: EventSpec = {"kind": kind, "text": clean}
    if title:
        spec["title"] = title
    if meta:
        spec["meta"] = meta
    return spec
