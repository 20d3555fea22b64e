"""Gemini message records turned into events: user turns, the model's thoughts, text and tool calls, notes."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from sessite.model import Block, Event, Kind, Usage
from sessite.readers._util import Ids, text_of
from sessite.readers.base import as_text, parse_time
from sessite.readers.formats.gemini.calls import OWN_CATEGORIES, call_fields, result_fields
from sessite.readers.formats.gemini.parts import parts_of, response_blocks, usage_of
from sessite.readers.formats.gemini.records import Chat, Entry
from sessite.readers.tools import tool_category

_NOTES = {"info": ("Info", None), "warning": ("Warning", "warning"), "error": ("Error", "error")}
_ASSISTANT_TYPES = {"gemini", "model", "assistant"}
# Kinds that carry a model turn's token usage.
MODEL_KINDS = (Kind.THINKING, Kind.ASSISTANT, Kind.TOOL_CALL)


class EventWriter:
    """Writes one chat's events in order, with ids unique within the session."""

    def __init__(self, chat: Chat) -> None:
        self.chat = chat
        self.ids = Ids()
        self.events: list[Event] = []
        self.models: dict[str, None] = {}
        # Usage of a message that produced no model event: added to the last one at the end.
        self.leftover_usage: Usage | None = None

    def emit(self, base: str, line: int, **fields: Any) -> int:
        self.events.append(Event(id=self.ids.take(base or "event"), line=line, **fields))
        return len(self.events) - 1

    def add_entry(self, entry: Entry, position: int) -> None:
        """One record's events; a record that cannot be read becomes one unknown event."""
        line = entry.line
        try:
            if entry.kind == "msg":
                self._message(entry.record, line, position)
            elif entry.kind == "rewind":
                self.emit(
                    f"rewind-{line}",
                    line,
                    kind=Kind.SYSTEM,
                    title="Conversation rewound",
                    text=f"{entry.record} message(s) from this point on were discarded by a rewind."
                    if entry.record
                    else "A rewind to a message not in this file; nothing was discarded.",
                    meta={"rewind_to": entry.key},
                )
            else:
                self.emit(f"line-{line}", line, kind=Kind.UNKNOWN, title=entry.key, raw=entry.record)
        except Exception as exc:  # one odd message must not stop the file
            self.chat.problems.add(
                self.chat.path,
                line if self.chat.jsonl else None,
                f"could not interpret message {entry.key!r} ({type(exc).__name__}: {exc}); shown as raw JSON",
            )
            self.emit(f"line-{line}", line, kind=Kind.UNKNOWN, title="unreadable Gemini message", raw=entry.record)

    def _message(self, message: dict[str, Any], line: int, position: int) -> None:
        """Dispatch on the message type (a message without an id is named by its position)."""
        mtype = message.get("type")
        ts = parse_time(message.get("timestamp"))
        mid = text_of(message.get("id")) or f"m{position}"
        if mtype == "user":
            self._user(message, mid, line, ts)
        elif mtype in _ASSISTANT_TYPES:
            self._assistant(message, mid, line, ts)
        elif mtype in _NOTES:
            title, level = _NOTES[mtype]
            text, blocks, responses = parts_of(message.get("content"))
            blocks += response_blocks(responses)
            self.emit(
                mid,
                line,
                kind=Kind.SYSTEM,
                timestamp=ts,
                title=title,
                text=text,
                blocks=tuple(blocks),
                meta={"level": level} if level else {},
            )
        else:
            self.emit(mid, line, kind=Kind.UNKNOWN, timestamp=ts, title=f"Gemini message type {mtype!r}", raw=message)

    # ---- user turns

    def _user(self, message: dict[str, Any], mid: str, line: int, ts: datetime | None) -> None:
        text, blocks, responses = parts_of(message.get("content"))
        blocks += response_blocks(responses)
        if "displayContent" not in message:
            if not text.strip() and not blocks:
                self.chat.skipped["empty user message"] += 1
                return
            self.emit(mid, line, kind=Kind.USER, timestamp=ts, text=text, blocks=tuple(blocks))
            return
        shown, shown_blocks, shown_responses = parts_of(message.get("displayContent"))
        if shown.strip():
            # What the user typed (a slash command, an @file prompt) and, below it, what was sent.
            extra = tuple(shown_blocks) + tuple(response_blocks(shown_responses))
            meta: dict[str, Any] = {}
            if text.strip() and text.strip() != shown.strip():
                extra += (Block("code", text=text, language="markdown", title="Sent to the model"),)
                meta["expanded"] = True
            self.emit(mid, line, kind=Kind.USER, timestamp=ts, text=shown, blocks=extra + tuple(blocks), meta=meta)
            return
        # Nothing typed: the CLI sent tool responses back on the user's behalf.
        shown_blocks += response_blocks(shown_responses)
        self.emit(
            mid,
            line,
            kind=Kind.SYSTEM,
            timestamp=ts,
            title="Sent to the model automatically",
            text=text,
            blocks=tuple(shown_blocks + blocks),
        )

    # ---- model turns

    def _assistant(self, message: dict[str, Any], mid: str, line: int, ts: datetime | None) -> None:
        model = text_of(message.get("model"))
        if model:
            self.models.setdefault(model)
        first = len(self.events)
        self._thoughts(message.get("thoughts"), mid, line, ts, model)
        content = message.get("content") if "content" in message else message.get("parts")
        if isinstance(content, list):
            self._thought_parts(content, mid, line, ts, model)
        text, blocks, responses = parts_of(content)
        blocks += response_blocks(responses)
        if text.strip() or blocks:
            self.emit(mid, line, kind=Kind.ASSISTANT, timestamp=ts, text=text, blocks=tuple(blocks), model=model)
        if isinstance(content, list):
            self._function_calls(content, mid, line, ts, model)
        self._tool_calls(message.get("toolCalls"), mid, line, ts, model)
        self._add_usage(usage_of(message.get("tokens")), first)
        if len(self.events) == first:
            self.chat.skipped["empty gemini message"] += 1

    def _thoughts(self, thoughts: Any, mid: str, line: int, ts: datetime | None, model: str | None) -> None:
        """``thoughts``: summaries of the model's reasoning (a subject and a description each)."""
        if not isinstance(thoughts, list):
            return
        for index, thought in enumerate(thoughts):
            if isinstance(thought, dict):
                subject = text_of(thought.get("subject"))
                text = as_text(thought.get("description"))
                if not text.strip() and not subject:
                    continue
                self.emit(
                    f"{mid}-thought-{index}",
                    line,
                    kind=Kind.THINKING,
                    timestamp=parse_time(thought.get("timestamp")) or ts,
                    title=subject,
                    text=f"**{subject}**\n\n{text}" if subject and text.strip() else (text or subject or ""),
                    model=model,
                )
            elif isinstance(thought, str) and thought.strip():
                self.emit(f"{mid}-thought-{index}", line, kind=Kind.THINKING, timestamp=ts, text=thought, model=model)

    def _thought_parts(self, content: list[Any], mid: str, line: int, ts: datetime | None, model: str | None) -> None:
        """Content parts marked ``thought`` (the model's own reasoning text)."""
        for index, part in enumerate(content):
            if (
                isinstance(part, dict)
                and part.get("thought")
                and isinstance(part.get("text"), str)
                and part["text"].strip()
            ):
                self.emit(
                    f"{mid}-thought-part-{index}",
                    line,
                    kind=Kind.THINKING,
                    timestamp=ts,
                    text=part["text"],
                    model=model,
                )

    def _function_calls(self, content: list[Any], mid: str, line: int, ts: datetime | None, model: str | None) -> None:
        """Model parts carrying function calls (older records)."""
        for index, part in enumerate(content):
            if isinstance(part, dict) and isinstance(part.get("functionCall"), dict):
                call = part["functionCall"]
                self._tool_call(
                    {"id": call.get("id") or f"{mid}-call-{index}", "name": call.get("name"), "args": call.get("args")},
                    mid,
                    line,
                    ts,
                    model,
                )

    def _tool_calls(self, calls: Any, mid: str, line: int, ts: datetime | None, model: str | None) -> None:
        """``toolCalls``: each call with its result (a malformed one is shown as raw JSON)."""
        if not isinstance(calls, list):
            return
        for index, call in enumerate(calls):
            if isinstance(call, dict):
                self._tool_call(call, mid, line, ts, model)
                continue
            self.chat.problems.add(
                self.chat.path,
                line if self.chat.jsonl else None,
                f"message {mid}: toolCalls[{index}] is not an object; shown as raw JSON",
            )
            self.emit(
                f"{mid}-call-{index}", line, kind=Kind.UNKNOWN, timestamp=ts, title="malformed tool call", raw=call
            )

    def _tool_call(self, call: dict[str, Any], mid: str, line: int, ts: datetime | None, model: str | None) -> None:
        name = text_of(call.get("name")) or "tool"
        call_id = text_of(call.get("id")) or f"{mid}-{name}"
        category = tool_category(name, OWN_CATEGORIES)
        fields, meta, result_blocks = call_fields(call, category)
        timestamp = parse_time(call.get("timestamp")) or ts
        self.emit(
            call_id,
            line,
            kind=Kind.TOOL_CALL,
            timestamp=timestamp,
            tool_name=name,
            tool_input=call.get("args"),
            call_id=call_id,
            model=model,
            meta=meta,
            **fields,
        )
        result = result_fields(call, category, result_blocks)
        if result is not None:
            self.emit(
                f"{call_id}-result",
                line,
                kind=Kind.TOOL_RESULT,
                timestamp=timestamp,
                tool_name=name,
                call_id=call_id,
                **result,
            )

    def _add_usage(self, usage: Usage | None, first: int) -> None:
        """A message's tokens, once, on its last model event (results are shown inside their call)."""
        if usage is None:
            return
        targets = [i for i in range(first, len(self.events)) if self.events[i].kind in MODEL_KINDS]
        if targets:
            self.events[targets[-1]] = replace(self.events[targets[-1]], usage=usage)
        else:
            self.leftover_usage = (self.leftover_usage + usage) if self.leftover_usage else usage
