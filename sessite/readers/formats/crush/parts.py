"""One Crush message's ``parts`` as events.

``messages.parts`` is a JSON array of ``{type, data}``: ``text``, ``reasoning``
(``thinking``), ``image_url``, ``binary`` (an attachment: ``Path``, ``MIMEType``, base64
``Data``), ``tool_call``, ``tool_result``, ``finish`` (``reason``, ``time``, and for an
error ``message`` and ``details``) and ``shell_command`` (a ``!`` command the user ran:
``command``, ``output``, ``exit_code``).
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import replace
from typing import Any

from sessite.model import Block, Kind, ToolCategory
from sessite.readers._util import obj, shorten, text_of
from sessite.readers.base import as_text, parse_time
from sessite.readers.builder import SessionBuilder
from sessite.readers.files import decode_bytes, report_notes
from sessite.readers.formats.crush.calls import (
    CATEGORIES,
    call_fields,
    exit_status,
    metadata_of,
    result_blocks,
    result_meta,
)
from sessite.readers.formats.crush.decode import Decoded
from sessite.readers.formats.crush.store import MessageRow
from sessite.readers.tools import tool_category

# Finish reasons that end a turn the ordinary way: nothing to show beyond the message itself.
_QUIET_FINISH = frozenset({"end_turn", "tool_use", "stop", ""})
_FINISH_TITLES = {
    "error": "Error",
    "canceled": "Canceled",
    "max_tokens": "Stopped at the token limit",
    "content_filter": "Refused by the provider",
    "unknown": "Stopped for an unknown reason",
}


class MessageReader:
    """Turns the messages of one session into events on a builder."""

    def __init__(self, b: SessionBuilder, results: dict[str, dict[str, Any]], names: dict[str, str]) -> None:
        self.b = b
        self.results = results  # call id -> its tool_result data (for an edit's applied diff)
        self.names = names  # call id -> tool name (for a result's category)
        self.cwd: str | None = None

    def message(self, decoded: Decoded, summary: bool) -> None:
        row = decoded.row
        if decoded.parts is None:
            self.b.skip("message whose parts could not be read", line=row.line)
            return
        before = len(self.b.events)
        ts = parse_time(row.created)
        if row.role == "assistant":
            self.b.model(row.model)
        user_blocks: list[Block] = []
        for index, part in enumerate(decoded.parts):
            kind = obj(part).get("type")
            data = obj(part).get("data")
            if not isinstance(kind, str) or not isinstance(data, dict):
                self.b.report(row.line, f"part {index + 1} has no type or no data object; shown as raw JSON")
                self.b.emit(f"{row.id}-part", kind=Kind.UNKNOWN, title="Crush part", raw=part, line=row.line)
                continue
            try:
                self._part(row, kind, data, ts, summary, user_blocks)
            except Exception as exc:  # noqa: BLE001 - one odd part costs that part, never the session
                self.b.unreadable(row.line, f"{kind} part", part, exc)
        if user_blocks:
            self._attach(row, ts, user_blocks)
        if len(self.b.events) == before:
            self.b.skip("message with nothing to show (no text, no call, no result)", line=row.line)

    def _part(
        self, row: MessageRow, kind: str, data: dict[str, Any], ts: Any, summary: bool, blocks: list[Block]
    ) -> None:
        if kind == "text":
            text = as_text(data.get("text"))
            if text.strip():
                self._text(row, text, ts, summary)
        elif kind == "reasoning":
            thinking = as_text(data.get("thinking"))
            if thinking.strip():
                stamp = parse_time(data.get("started_at")) or ts
                self.b.emit(
                    f"{row.id}-thinking",
                    kind=Kind.THINKING,
                    timestamp=stamp,
                    text=thinking,
                    model=row.model,
                    line=row.line,
                )
        elif kind in ("image_url", "binary"):
            blocks.append(_attachment(kind, data))
        elif kind == "tool_call":
            self._call(row, data, ts)
        elif kind == "tool_result":
            self._result(row, data, ts)
        elif kind == "finish":
            self._finish(row, data, ts)
        elif kind == "shell_command":
            self._shell(row, data, ts)
        else:
            self.b.report(row.line, f"unknown part type {kind!r}; shown as raw JSON")
            self.b.emit(
                f"{row.id}-{kind}",
                kind=Kind.UNKNOWN,
                timestamp=ts,
                title=f"Crush {kind} part",
                raw={"type": kind, "data": data},
                line=row.line,
            )

    def _text(self, row: MessageRow, text: str, ts: Any, summary: bool) -> None:
        if summary:
            self.b.emit(
                f"{row.id}-summary",
                kind=Kind.COMPACTION,
                timestamp=ts,
                text=text,
                title="Summary",
                model=row.model,
                line=row.line,
            )
        elif row.role == "user":
            self.b.emit(row.id, kind=Kind.USER, timestamp=ts, text=text, line=row.line)
        elif row.role == "system":
            self.b.emit(row.id, kind=Kind.SYSTEM, timestamp=ts, text=text, title="System", line=row.line)
        else:
            self.b.emit(row.id, kind=Kind.ASSISTANT, timestamp=ts, text=text, model=row.model, line=row.line)

    def _attach(self, row: MessageRow, ts: Any, blocks: list[Block]) -> None:
        """Attachments go with the message's text (the event just emitted for it), else stand alone."""
        last = self.b.events[-1] if self.b.events else None
        if last is not None and last.line == row.line and last.kind in (Kind.USER, Kind.ASSISTANT):
            self.b.events[-1] = replace(last, blocks=(*last.blocks, *blocks))
            return
        kind = Kind.USER if row.role == "user" else Kind.ASSISTANT
        self.b.emit(f"{row.id}-attachments", kind=kind, timestamp=ts, blocks=tuple(blocks), line=row.line)

    def _call(self, row: MessageRow, data: dict[str, Any], ts: Any) -> None:
        call_id = text_of(data.get("id"))
        name = text_of(data.get("name")) or "tool"
        notes: list[str] = []
        metadata = metadata_of(self.results.get(call_id or "", {}).get("metadata"), notes)
        args, category, found = call_fields(name, data.get("input"), metadata)
        meta: dict[str, Any] = {}
        if data.get("provider_executed") is True:
            meta["run by the provider"] = True
        if data.get("finished") is False:
            meta["finished"] = False
        self.b.emit(
            call_id or f"{row.id}-call",
            kind=Kind.TOOL_CALL,
            timestamp=ts,
            tool_name=name,
            tool_input=args,
            category=category,
            call_id=call_id,
            model=row.model,
            line=row.line,
            meta=meta,
            **found.fields(),
        )

    def _result(self, row: MessageRow, data: dict[str, Any], ts: Any) -> None:
        call_id = text_of(data.get("tool_call_id"))
        notes: list[str] = []
        metadata = metadata_of(data.get("metadata"), notes)
        report_notes(self.b.problems, self.b.path, row.line, notes)
        name = self.names.get(call_id or "") or text_of(data.get("name"))
        category = tool_category(name, CATEGORIES) if name else None
        content = as_text(data.get("content"))
        code, aborted = exit_status(category, content, metadata)
        cwd = text_of(metadata.get("working_directory"))
        if cwd and self.cwd is None:
            self.cwd = cwd
        self.b.emit(
            f"{call_id or row.id}-result",
            kind=Kind.TOOL_RESULT,
            timestamp=ts,
            text=content,
            blocks=result_blocks(data),
            call_id=call_id,
            tool_name=name,
            is_error=data.get("is_error") is True or (code is not None and code != 0) or aborted,
            exit_code=code,
            line=row.line,
            meta=result_meta(metadata, aborted),
        )

    def _finish(self, row: MessageRow, data: dict[str, Any], ts: Any) -> None:
        reason = as_text(data.get("reason"))
        if reason in _QUIET_FINISH:
            return
        message, details = as_text(data.get("message")), as_text(data.get("details"))
        text = "\n\n".join(t for t in (message, details) if t.strip())
        title = _FINISH_TITLES.get(reason, f"Stopped ({shorten(reason, 40)})")
        self.b.emit(
            f"{row.id}-{reason}",
            kind=Kind.SYSTEM,
            timestamp=parse_time(data.get("time")) or ts,
            title=title,
            text=text,
            is_error=reason == "error",
            model=row.model,
            line=row.line,
        )

    def _shell(self, row: MessageRow, data: dict[str, Any], ts: Any) -> None:
        """A ``!`` command the user ran in Crush: a shell call and its output, both the user's."""
        command = as_text(data.get("command"))
        code = data.get("exit_code")
        code = code if isinstance(code, int) and not isinstance(code, bool) else None
        call_id = f"{row.id}-shell"
        self.b.emit(
            call_id,
            kind=Kind.TOOL_CALL,
            timestamp=ts,
            tool_name="shell",
            tool_input={"command": command},
            category=ToolCategory.SHELL,
            command=command or None,
            call_id=call_id,
            line=row.line,
            meta={"run by": "the user"},
        )
        self.b.emit(
            f"{call_id}-result",
            kind=Kind.TOOL_RESULT,
            timestamp=ts,
            text=as_text(data.get("output")),
            call_id=call_id,
            exit_code=code,
            is_error=code not in (None, 0),
            line=row.line,
        )


def _attachment(kind: str, data: dict[str, Any]) -> Block:
    """An ``image_url`` part, or a ``binary`` attachment (an image inline, a text file's text, else its name)."""
    if kind == "image_url":
        return Block("image", uri=text_of(data.get("url")), title=text_of(data.get("detail")))
    path = text_of(data.get("Path")) or text_of(data.get("path"))
    mime = text_of(data.get("MIMEType")) or text_of(data.get("mime_type"))
    payload = text_of(data.get("Data")) or text_of(data.get("data")) or ""
    name = path.replace("\\", "/").rsplit("/", 1)[-1] if path else None
    if mime and mime.startswith("image/") and payload:
        return Block("image", uri=f"data:{mime};base64,{payload}", mime=mime, title=name)
    text = ""
    if mime and mime.startswith("text/") and payload:
        try:
            text = decode_bytes(base64.b64decode(payload, validate=False))[0]
        except (binascii.Error, ValueError):
            text = ""
    return Block("file", text=text, uri=path, mime=mime, title=name or mime)
