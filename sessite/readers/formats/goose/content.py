"""One Goose message as events: its ``content`` items in order.

A message is ``{id, role, created, content: [...], metadata: {userVisible, agentVisible}}``
(in the database: the ``role``, ``content_json``, ``created_timestamp`` and
``metadata_json`` columns). Items: ``text``, ``image``, ``thinking``,
``redactedThinking``, ``toolRequest``, ``frontendToolRequest``, ``toolResponse``,
``toolConfirmationRequest``, ``actionRequired``, ``systemNotification`` and the older
``contextLengthExceeded``, ``summarizationRequested`` and ``conversationCompacted``.

A message only the model saw (``userVisible: false``: context Goose adds, a summary
after compaction) is shown as a system note, not as the user's or the model's words;
a message the model no longer sees (``agentVisible: false``, compacted away) is shown
as it was, marked.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sessite.model import Block, Event, Kind
from sessite.readers._util import obj, shorten, text_of
from sessite.readers.base import as_text, parse_time
from sessite.readers.builder import SessionBuilder
from sessite.readers.formats.goose.calls import call_fields, media_block, request_of, result_of

# Older notices: the text to show and the title.
_NOTICES = {
    "contextLengthExceeded": "Context length exceeded",
    "summarizationRequested": "Summarization requested",
    "systemNotification": "Notice",
}


@dataclass
class Message:
    """A message, whichever file it came from."""

    line: int  # the record number (a JSONL line, a database row's number)
    id: str
    role: str
    created: Any
    content: list[Any]
    metadata: dict[str, Any] = field(default_factory=dict)
    tokens: int | None = None
    unreadable: bool = False  # its content could not be read (a problem says why)


def message_of(record: dict[str, Any], line: int, fallback_id: str) -> Message | str:
    """A JSONL message line as a Message, or why it is not one."""
    content = record.get("content")
    role = text_of(record.get("role"))
    if not isinstance(content, list) or role is None:
        return "a message line without a role or a content list"
    mid = text_of(record.get("id")) or fallback_id
    return Message(line, mid, role, record.get("created"), content, obj(record.get("metadata")))


class MessageReader:
    """Writes the events of one session's messages to a builder."""

    def __init__(self, b: SessionBuilder) -> None:
        self.b = b
        self.tool_names: dict[str, str] = {}
        self.model: str | None = None  # the model a message names (``metadata.inference``)

    def message(self, m: Message) -> None:
        if m.unreadable:
            self.b.skip("message whose content could not be read", line=m.line)
            return
        before = len(self.b.events)
        ts = parse_time(m.created)
        inference = obj(m.metadata.get("inference"))
        self.model = text_of(inference.get("requestedModel")) or text_of(inference.get("model"))
        self.b.model(self.model)
        shown_to_user = m.metadata.get("userVisible") is not False
        hidden_from_model = m.metadata.get("agentVisible") is False
        blocks: list[Block] = []
        for index, item in enumerate(m.content):
            kind = obj(item).get("type")
            if not isinstance(kind, str):
                self.b.report(m.line, f"content item {index + 1} has no type; shown as raw JSON")
                self.b.emit(f"{m.id}-item", kind=Kind.UNKNOWN, title="Goose content item", raw=item, line=m.line)
                continue
            try:
                self._item(m, kind, obj(item), ts, shown_to_user, blocks)
            except Exception as exc:  # noqa: BLE001 - one odd item costs that item, never the session
                self.b.unreadable(m.line, f"{kind} item", item, exc)
        if blocks:
            self._text(m, "", ts, shown_to_user, blocks)
        if hidden_from_model:
            for index in range(before, len(self.b.events)):
                event = self.b.events[index]
                self.b.events[index] = _with_meta(event, "not sent to the model any more", True)
        if len(self.b.events) == before:
            self.b.skip("message with nothing to show (empty, or only redacted thinking)", line=m.line)

    def _item(
        self, m: Message, kind: str, item: dict[str, Any], ts: datetime | None, shown: bool, blocks: list[Block]
    ) -> None:
        if kind == "text":
            text = as_text(item.get("text"))
            if text.strip():
                self._text(m, text, ts, shown, [])
        elif kind in ("image", "document"):
            blocks.append(media_block(item))
        elif kind == "thinking":
            thinking = as_text(item.get("thinking"))
            if thinking.strip():
                self.b.emit(
                    f"{m.id}-thinking", kind=Kind.THINKING, timestamp=ts, text=thinking, model=self.model, line=m.line
                )
        elif kind == "redactedThinking":
            return  # encrypted reasoning: nothing readable (the message says so when it holds only that)
        elif kind in ("toolRequest", "frontendToolRequest"):
            self._call(m, kind, item, ts)
        elif kind == "toolResponse":
            self._result(m, item, ts)
        elif kind in ("toolConfirmationRequest", "actionRequired"):
            self._action(m, kind, item, ts)
        elif kind in _NOTICES:
            text = as_text(item.get("msg"))
            sub = text_of(item.get("notificationType"))
            title = f"{_NOTICES[kind]} ({sub})" if sub else _NOTICES[kind]
            self.b.emit(f"{m.id}-{kind}", kind=Kind.SYSTEM, timestamp=ts, title=title, text=text, line=m.line)
        elif kind == "error":
            title = f"Error ({as_text(item.get('kind'))})" if text_of(item.get("kind")) else "Error"
            self.b.emit(
                f"{m.id}-error",
                kind=Kind.SYSTEM,
                timestamp=ts,
                title=title,
                text=as_text(item.get("message")),
                is_error=True,
                line=m.line,
            )
        elif kind == "conversationCompacted":
            self.b.emit(
                f"{m.id}-compacted",
                kind=Kind.COMPACTION,
                timestamp=ts,
                title="Conversation compacted",
                text=as_text(item.get("msg")),
                line=m.line,
            )
        else:
            self.b.report(m.line, f"unknown content type {kind!r}; shown as raw JSON")
            self.b.emit(
                f"{m.id}-{kind}", kind=Kind.UNKNOWN, timestamp=ts, title=f"Goose {kind} item", raw=item, line=m.line
            )

    def _text(self, m: Message, text: str, ts: datetime | None, shown: bool, blocks: list[Block]) -> None:
        if not shown:
            title = "Sent to the model only" if m.role == "user" else "Model's note (not shown to the user)"
            self.b.emit(m.id, kind=Kind.SYSTEM, timestamp=ts, title=title, text=text, blocks=tuple(blocks), line=m.line)
        elif m.role == "user":
            self.b.emit(m.id, kind=Kind.USER, timestamp=ts, text=text, blocks=tuple(blocks), line=m.line)
        else:
            self.b.emit(
                m.id,
                kind=Kind.ASSISTANT,
                timestamp=ts,
                text=text,
                blocks=tuple(blocks),
                model=self.model,
                line=m.line,
                meta={"tokens": m.tokens} if m.tokens else {},
            )

    def _call(self, m: Message, kind: str, item: dict[str, Any], ts: datetime | None) -> None:
        call_id = text_of(item.get("id"))
        name, args, error = request_of(item)
        category, found = call_fields(name, args)
        meta: dict[str, Any] = {}
        if error:
            meta["error"] = error
        if kind == "frontendToolRequest":
            meta["run by"] = "the app"
        extension = text_of(obj(item.get("_meta")).get("goose_extension"))
        if extension:
            meta["extension"] = extension
        self.tool_names[call_id or ""] = name
        self.b.emit(
            call_id or f"{m.id}-call",
            kind=Kind.TOOL_CALL,
            timestamp=ts,
            tool_name=name,
            tool_input=args,
            category=category,
            call_id=call_id,
            model=self.model,
            line=m.line,
            meta=meta,
            **found.fields(),
        )

    def _result(self, m: Message, item: dict[str, Any], ts: datetime | None) -> None:
        call_id = text_of(item.get("id"))
        text, blocks, failed, code, meta = result_of(item)
        self.b.emit(
            f"{call_id or m.id}-result",
            kind=Kind.TOOL_RESULT,
            timestamp=ts,
            text=text,
            blocks=blocks,
            call_id=call_id,
            tool_name=self.tool_names.get(call_id or ""),
            is_error=failed,
            exit_code=code,
            line=m.line,
            meta=meta,
        )

    def _action(self, m: Message, kind: str, item: dict[str, Any], ts: datetime | None) -> None:
        """A confirmation Goose asked for (a tool call to allow) or an elicitation and its answer."""
        data = obj(item.get("data")) if kind == "actionRequired" else item
        action = text_of(data.get("actionType")) or "toolConfirmation"
        tool = text_of(data.get("toolName")) or text_of(data.get("tool_name"))
        text = as_text(data.get("prompt") or data.get("message") or "")
        meta = {k: data[k] for k in ("arguments", "requestedSchema", "userData") if data.get(k) not in (None, {}, "")}
        title = {
            "toolConfirmation": "Permission asked",
            "elicitation": "Question to the user",
            "elicitationResponse": "The user's answer",
        }.get(action, shorten(action, 40))
        if tool:
            title = f"{title}: {tool}"
        if action == "toolConfirmation" and text_of(data.get("id")):
            meta["call"] = data["id"]
        self.b.emit(f"{m.id}-{action}", kind=Kind.SYSTEM, timestamp=ts, title=title, text=text, line=m.line, meta=meta)


def _with_meta(event: Event, key: str, value: Any) -> Event:
    return replace(event, meta={**event.meta, key: value})
