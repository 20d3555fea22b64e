"""GitHub Copilot CLI session logs (``events.jsonl``), read straight from the file (independently of the reader).

One record per non-blank line that parses as a JSON object, numbered by its 1-based line;
every line is ``{type, data, id, timestamp, parentId}``.

What a faithful page must show, as the format itself says it:

- the user's typed words: ``user.message`` ``data.content`` when the message has no
  ``source`` (Copilot marks the messages it writes itself: ``system`` reminders,
  ``instruction-discovery``, ``skill-…``, and a sub-agent's prompt from its parent,
  ``agent-<session>``); ``transformedContent`` is the same words with injected context;
- the model's prose: ``assistant.message`` ``data.content`` (a sub-agent's too);
- tool call ids: ``assistant.message`` ``data.toolRequests[].toolCallId`` (and a
  ``tool.execution_start``'s ``toolCallId``, the same call being run); results: a
  ``tool.execution_complete``'s ``toolCallId``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, json_lines


def records(path: Path) -> Iterator[Record]:
    """Every record of one Copilot CLI log."""
    for lineno, obj in json_lines(path):
        yield _record(path, lineno, obj)


def _record(path: Path, line: int, obj: dict[str, Any]) -> Record:
    kind = obj.get("type")
    data: dict[str, Any] = obj["data"] if isinstance(obj.get("data"), dict) else {}
    out = Record(path, line, kind if isinstance(kind, str) else "(untyped)")
    if kind == "user.message":
        content = data.get("content")
        if data.get("source") in (None, "user") and isinstance(content, str) and content.strip():
            out.user_texts.append(content.strip())
    elif kind == "assistant.message":
        content = data.get("content")
        if isinstance(content, str) and content.strip():
            out.assistant_texts.append(content.strip())
        requests = data.get("toolRequests")
        for request in requests if isinstance(requests, list) else []:
            call_id = request.get("toolCallId") if isinstance(request, dict) else None
            if isinstance(call_id, str) and call_id:
                out.calls.append(call_id)
    elif kind in ("tool.execution_start", "tool.execution_complete"):
        call_id = data.get("toolCallId")
        if isinstance(call_id, str) and call_id:
            (out.calls if kind == "tool.execution_start" else out.results).append(call_id)
    return out
