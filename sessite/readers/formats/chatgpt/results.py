"""What a tool gave back: the ``tool`` messages that follow a call, each one of its results.

The code interpreter also records its run (``metadata.aggregate_result``): whether it
succeeded, the exception it raised with its traceback, and the images it displayed.
Those make the result an error, or add to it, when the message's own text lacks them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sessite.model import Block, Kind
from sessite.readers._util import obj, text_of
from sessite.readers.base import as_text
from sessite.readers.formats.chatgpt.content import Shown
from sessite.readers.formats.chatgpt.state import Conversation, message_meta
from sessite.readers.formats.chatgpt.vocabulary import EMPTY

_FAILED = ("failed", "error", "timeout", "cancelled", "canceled")


def tool_result(
    c: Conversation, node_id: str, line: int, message: dict[str, Any], content: Shown, ts: datetime | None
) -> None:
    author = obj(message.get("author"))
    tool = text_of(author.get("name"))
    run = obj(obj(message.get("metadata")).get("aggregate_result"))
    text = content.text
    blocks = [*content.blocks, *_run_images(run)]
    error = content.error
    meta = message_meta(message)
    meta.pop("author", None)  # the tool's name is on the result
    status = text_of(run.get("status"))
    if status and status != "success":
        meta["run"] = status
        error = error or status in _FAILED
    exception = _exception(run)
    if exception:
        error = True
        if exception.strip() not in text:
            text = f"{text}\n{exception}".strip()
    if not text.strip() and not blocks:
        if not run:
            c.skip(EMPTY, line=line)
            return
        text = "(no output)"
    call_id = c.call_for(tool)
    if call_id is None and tool:
        meta["tool"] = tool
    c.emit(
        node_id,
        kind=Kind.TOOL_RESULT,
        timestamp=ts,
        text=text,
        blocks=tuple(blocks),
        call_id=call_id,
        tool_name=tool,
        is_error=error,
        line=line,
        meta=meta,
    )


def _exception(run: dict[str, Any]) -> str:
    """The exception a run raised in the kernel (its name, value and traceback), or its system error."""
    for key in ("in_kernel_exception", "system_exception"):
        raised = run.get(key)
        if not raised:
            continue
        if not isinstance(raised, dict):
            return as_text(raised)
        trace = raised.get("traceback")
        if isinstance(trace, list):
            return "".join(as_text(t) for t in trace).strip()
        name, args = text_of(raised.get("name")), raised.get("args")
        detail = ", ".join(as_text(a) for a in args) if isinstance(args, list) else as_text(args) if args else ""
        return f"{name}: {detail}" if name and detail else name or detail or as_text(raised)
    return ""


def _run_images(run: dict[str, Any]) -> list[Block]:
    """Images a run displayed (``aggregate_result.messages``), by their file-service address."""
    out = []
    said = run.get("messages")
    for item in said if isinstance(said, list) else ():
        item = obj(item)
        url = text_of(item.get("image_url"))
        if item.get("message_type") == "image" and url:
            out.append(Block("image", uri=url, title="image the code displayed"))
    return out
