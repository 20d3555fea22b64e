"""A checkpoint's Content list as events: ``{"role": "user"|"model", "parts": […]}`` where a part
is ``text`` (``thought: true`` for the model's thinking), ``functionCall`` or
``functionResponse`` (paired by ``id``, or, in versions that gave none, with the earliest
unanswered call of that name), ``inlineData`` or ``fileData``."""

from __future__ import annotations

import json
from collections import deque
from typing import Any

from sessite.model import Block, Kind
from sessite.readers._util import obj, text_of, to_int
from sessite.readers.builder import SessionBuilder
from sessite.readers.tools import tool_category, tool_input, write_diff

# The first user turn Gemini CLI sends is its own description of the environment, not the user's words.
CONTEXT_OPENING = "This is the Gemini CLI. We are setting up the context for our chat."


class Pairing:
    """Call ids handed out, and the calls of each name still waiting for their response."""

    def __init__(self) -> None:
        self.waiting: dict[str, deque[str]] = {}

    def call(self, name: str, given: str | None, fallback: str) -> str:
        call_id = given or fallback
        self.waiting.setdefault(name, deque()).append(call_id)
        return call_id

    def answer(self, name: str, given: str | None) -> str | None:
        queue = self.waiting.get(name)
        if given:
            if queue and given in queue:
                queue.remove(given)
            return given
        return queue.popleft() if queue else None


def add_content(b: SessionBuilder, pairing: Pairing, index: int, content: Any) -> None:
    """The events of the ``index``-th Content (1-based, the line its events carry)."""
    if not isinstance(content, dict):
        b.report(index, f"content #{index} is a {type(content).__name__}, not an object; skipped")
        b.skip("content that is not an object", line=index)
        return
    role = content.get("role")
    parts = content.get("parts")
    if not isinstance(parts, list):
        b.report(index, f"content #{index} has no parts list; shown as raw JSON")
        b.emit(f"c{index}", kind=Kind.UNKNOWN, title="content without parts", raw=content, line=index)
        return
    made = 0
    for at, part in enumerate(parts):
        made += _part(b, pairing, index, f"c{index}-{at}", role, part)
    if not made:
        b.skip("content with no text, call or response", line=index)


def _part(b: SessionBuilder, pairing: Pairing, index: int, base: str, role: Any, part: Any) -> int:
    part = obj(part)
    text = part.get("text")
    if isinstance(text, str):
        if not text.strip():
            return 0
        if part.get("thought") is True:
            b.emit(base, kind=Kind.THINKING, text=text, line=index)
        elif role == "model":
            b.emit(base, kind=Kind.ASSISTANT, text=text, line=index)
        elif index == 1 and text.startswith(CONTEXT_OPENING):
            b.emit(base, kind=Kind.SYSTEM, title="context Gemini CLI gave the model", text=text, line=index)
        else:
            b.emit(base, kind=Kind.USER, text=text, line=index)
        return 1
    if isinstance(part.get("functionCall"), dict):
        call = part["functionCall"]
        name = text_of(call.get("name")) or "tool"
        args = call.get("args")
        category = tool_category(name)
        shown = tool_input(args, category, write_diff() if name == "write_file" else None)
        b.emit(
            base,
            kind=Kind.TOOL_CALL,
            tool_name=name,
            tool_input=args,
            category=category,
            command=shown.command,
            path=shown.path,
            diff=shown.diff,
            call_id=pairing.call(name, text_of(call.get("id")), base),
            line=index,
        )
        return 1
    if isinstance(part.get("functionResponse"), dict):
        answer = part["functionResponse"]
        name = text_of(answer.get("name")) or "tool"
        response = obj(answer.get("response"))
        error = response.get("error")
        output = response.get("output", response.get("result", response.get("content")))
        body = output if isinstance(output, str) else json.dumps(response or answer.get("response"), indent=2)
        if error:
            body = f"{body}\n\n{error}" if isinstance(output, str) and output else str(error)
        code = response.get("exitCode")
        b.emit(
            base,
            kind=Kind.TOOL_RESULT,
            tool_name=name,
            text=body,
            call_id=pairing.answer(name, text_of(answer.get("id"))),
            is_error=bool(error) or (isinstance(code, int) and code != 0),
            exit_code=to_int(code) if isinstance(code, int) else None,
            line=index,
        )
        return 1
    for key in ("inlineData", "fileData"):
        if isinstance(part.get(key), dict):
            data = part[key]
            mime = text_of(data.get("mimeType"))
            if key == "inlineData" and mime and mime.startswith("image/") and isinstance(data.get("data"), str):
                block = Block("image", uri=f"data:{mime};base64,{data['data']}", mime=mime)
            else:
                block = Block("json", title=key, data=data)
            kind = Kind.ASSISTANT if role == "model" else Kind.USER
            b.emit(base, kind=kind, blocks=(block,), line=index)
            return 1
    b.report(index, f"content #{index}: a part of keys {sorted(part)[:4]} not known; shown as raw JSON")
    b.emit(base, kind=Kind.UNKNOWN, title="unknown part", raw=part, line=index)
    return 1
