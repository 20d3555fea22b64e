"""One message of a Zed thread as events, in either of the shapes Zed has written.

Zed's agent (thread version 0.3.0) writes Rust's externally tagged ``Message``:
``{"User": {id, content: [{"Text"}, {"Mention": {uri, content}}, {"Image"}]}}``,
``{"Agent": {content: [{"Text"}, {"Thinking": {text, signature}}, {"RedactedThinking"},
{"ToolUse": {…}}], tool_results: {id: {…}}}}`` or ``"Resume"`` (the agent went on with its
turn). The first agent panel (threads before 0.3.0) wrote ``{id, role, segments: [{type:
text | thinking | redacted_thinking}], tool_uses, tool_results, context}``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sessite.model import Block, Event, Kind, ToolCategory
from sessite.readers._util import obj, text_of
from sessite.readers.base import as_text
from sessite.readers.builder import SessionBuilder
from sessite.readers.formats.zed.calls import call_fields, image, result_fields

EMPTY = "message with nothing to show"


class MessageReader:
    """Writes a thread's messages to a builder; remembers each call (for its result) and sub-agent calls."""

    def __init__(self, b: SessionBuilder, model: str | None) -> None:
        self.b = b
        self.model = model
        self.calls: dict[str, Event] = {}

    def message(self, line: int, message: Any) -> None:
        before = len(self.b.events)
        if message == "Resume":
            self.b.emit(f"resume-{line}", kind=Kind.SYSTEM, title="Resumed", line=line)
            return
        if isinstance(message, dict) and "User" in message:
            self._user(line, obj(message["User"]))
        elif isinstance(message, dict) and "Agent" in message:
            self._agent(line, obj(message["Agent"]))
        elif isinstance(message, dict) and "role" in message:
            self._legacy(line, message)
        else:
            self.b.report(line, "a thread message of an unknown shape; shown as raw JSON")
            self.b.emit(f"message-{line}", kind=Kind.UNKNOWN, title="Zed message", raw=message, line=line)
        if len(self.b.events) == before:
            self.b.skip(EMPTY, line=line)

    def _user(self, line: int, user: dict[str, Any]) -> None:
        texts: list[str] = []
        blocks: list[Block] = []
        for item in _items(user.get("content")):
            if isinstance(item, dict) and "Text" in item:
                texts.append(as_text(item["Text"]))
            elif isinstance(item, dict) and "Mention" in item:
                mention = obj(item["Mention"])
                title = _uri_title(mention.get("uri"))
                blocks.append(Block("file", text=as_text(mention.get("content") or ""), uri=title, title=title))
            elif isinstance(item, dict) and "Image" in item:
                blocks.append(image(obj(item["Image"])))
            elif item is not None:
                texts.append(as_text(item))
        text = "".join(texts)
        if text.strip() or blocks:
            mid = text_of(user.get("id")) or f"user-{line}"
            self.b.emit(mid, kind=Kind.USER, text=text, blocks=tuple(blocks), line=line)

    def _agent(self, line: int, agent: dict[str, Any]) -> None:
        results = obj(agent.get("tool_results"))
        for index, item in enumerate(_items(agent.get("content"))):
            if isinstance(item, dict) and "Text" in item:
                self._say(line, Kind.ASSISTANT, as_text(item["Text"]), f"agent-{line}")
            elif isinstance(item, dict) and "Thinking" in item:
                self._say(line, Kind.THINKING, as_text(obj(item["Thinking"]).get("text")), f"thinking-{line}")
            elif isinstance(item, dict) and "RedactedThinking" in item:
                continue  # encrypted reasoning: nothing readable
            elif isinstance(item, dict) and "ToolUse" in item:
                use = obj(item["ToolUse"])
                self._call(line, text_of(use.get("id")), text_of(use.get("name")), use.get("input"), use)
            else:
                self.b.report(line, f"agent content item {index + 1} of an unknown shape; shown as raw JSON")
                self.b.emit(f"item-{line}", kind=Kind.UNKNOWN, title="Zed content item", raw=item, line=line)
        for call_id, result in results.items():
            self._result(line, call_id, obj(result))

    def _legacy(self, line: int, message: dict[str, Any]) -> None:
        role = as_text(message.get("role"))
        kind = Kind.USER if role == "user" else Kind.SYSTEM if role == "system" else Kind.ASSISTANT
        texts = []
        for segment in _items(message.get("segments")):
            seg = obj(segment)
            if seg.get("type") == "thinking":
                self._say(line, Kind.THINKING, as_text(seg.get("text")), f"thinking-{line}")
            elif seg.get("type") == "text":
                texts.append(as_text(seg.get("text")))
        text = "".join(texts)
        if not text.strip() and kind == Kind.USER:
            text = as_text(message.get("context") or "")
        self._say(line, kind, text, f"message-{text_of(message.get('id')) or line}")
        for use in _items(message.get("tool_uses")):
            use = obj(use)
            self._call(line, text_of(use.get("id")), text_of(use.get("name")), use.get("input"), use)
        for result in _items(message.get("tool_results")):
            result = obj(result)
            self._result(line, text_of(result.get("tool_use_id")) or "", result)

    def _say(self, line: int, kind: Kind, text: str, base: str) -> None:
        if text.strip():
            model = self.model if kind in (Kind.ASSISTANT, Kind.THINKING) else None
            title = "System" if kind == Kind.SYSTEM else None
            self.b.emit(base, kind=kind, text=text, model=model, title=title, line=line)

    def _call(self, line: int, call_id: str | None, name: str | None, args: Any, use: dict[str, Any]) -> None:
        tool = name or "tool"
        category, found = call_fields(tool, args)
        meta = {"input complete": False} if use.get("is_input_complete") is False else {}
        event = self.b.emit(
            call_id or f"call-{line}",
            kind=Kind.TOOL_CALL,
            tool_name=tool,
            tool_input=args,
            category=category,
            call_id=call_id,
            model=self.model,
            line=line,
            meta=meta,
            **found.fields(),
        )
        self.calls[call_id or event.id] = event

    def _result(self, line: int, call_id: str, result: dict[str, Any]) -> None:
        call = self.calls.get(call_id)
        category: ToolCategory | None = call.category if call is not None else None
        text, blocks, code, diff = result_fields(result, category, call.path if call is not None else None)
        if diff and call is not None and not call.diff:
            index = self.b.events.index(call) if call in self.b.events else -1
            if index >= 0:
                self.b.events[index] = replace(call, diff=diff)
                diff = None
        self.b.emit(
            f"{call_id}-result",
            kind=Kind.TOOL_RESULT,
            text=text,
            blocks=blocks,
            call_id=call_id or None,
            tool_name=text_of(result.get("tool_name")),
            is_error=result.get("is_error") is True or (code is not None and code != 0),
            exit_code=code,
            diff=diff,
            line=line,
        )


def _uri_title(uri: Any) -> str | None:
    """A mention's URI (``zed:///…`` text, or Zed's ``MentionUri`` enum) as a readable name."""
    if isinstance(uri, str):
        return uri
    if isinstance(uri, dict):
        for value in uri.values():
            if isinstance(value, dict):
                found = next((v for v in value.values() if isinstance(v, str) and v), None)
                if found:
                    return found
            elif isinstance(value, str) and value:
                return value
    return None


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
