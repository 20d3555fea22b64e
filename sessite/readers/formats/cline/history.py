"""``api_conversation_history.json``: the Anthropic-style messages Cline sent to the model.

Each message is a record numbered by its 1-based index in the file (``Event.line``).
A response's usage and cost come from its ``metrics`` and the panel's request for it
(``usage``), its time from the panel message written right after it
(``conversationHistoryIndex``). Panel messages the history does not hold are shown
where they happened, before the history message that follows them.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

from sessite.model import Kind
from sessite.readers import ledger
from sessite.readers._util import obj, text_of
from sessite.readers.base import as_text, parse_time
from sessite.readers.formats.cline.calls import XML_CALL, tool_call, xml_params
from sessite.readers.formats.cline.panel import note_request, panel_only_events
from sessite.readers.formats.cline.task import Task, image
from sessite.readers.formats.cline.ui import Request, Ui
from sessite.readers.formats.cline.usage import attach_usage, response_usage, take_request
from sessite.readers.formats.cline.user import user_blocks

_THINKING = re.compile(r"<thinking>(.*?)(?:</thinking>|$)", re.DOTALL)
EMPTY_THINKING = "empty thinking block"
_UNANSWERED = "model request with no response in the history (its tokens are not counted)"
ModelUse = list[tuple[datetime | None, str | None]]  # (from when, model id), in time order
Messages = list[tuple[int, dict[str, Any]]]


def history_events(
    api: Messages,
    ui: Ui,
    metadata: dict[str, Any],
    task: Task,
    panel: dict[int | None, Messages],
    ui_path: Path,
) -> None:
    """The events of every history message, timed, with their usage from the panel, and the
    panel messages only the panel holds (``panel``: by the history index they follow)."""
    model_usage = _model_usage(metadata)
    requests = list(ui.requests)
    indexed = any(request.history_index is not None for request in requests)
    used: set[int] = set()
    assistant_seen = 0
    last_ts = None
    for line, message in api:
        position = line - 1
        panel_only_events(panel.pop(position - 1, []), task, ui_path)
        ts = ui.start.get(position - 1) or parse_time(message.get("ts"))
        if ts is None and not indexed and message.get("role") == "user" and position // 2 < len(requests):
            ts = requests[position // 2].ts
        ts = ts or last_ts
        last_ts = ts
        try:
            if message.get("role") == "assistant":
                request = take_request(position, assistant_seen, requests, indexed)
                assistant_seen += 1
                if request is not None:
                    used.add(request.line)
                _assistant(message, request, line, ts, model_usage, task)
            else:
                _other(message, line, ts, task)
        except Exception as exc:  # noqa: BLE001 - one odd message must not stop the task
            task.unreadable(line, f"message {position}", message, exc)
    for index in sorted(panel, key=lambda i: -1 if i is None else i):
        panel_only_events(panel[index], task, ui_path)
    _note_requests(ui.requests, used, task, ui_path)


def _assistant(
    message: dict[str, Any],
    request: Request | None,
    line: int,
    ts: datetime | None,
    model_usage: ModelUse,
    task: Task,
) -> None:
    content = _content(message, line, ts, task)
    if content is None:
        return
    model = text_of(obj(message.get("modelInfo")).get("modelId")) or _model_at(model_usage, ts)
    task.model(model)
    usage, extra = response_usage(message, request)
    before = len(task.events)
    _assistant_blocks(content, line - 1, line, ts, model, task)
    if usage or extra:
        attach_usage(task, before, usage, extra, model, ts, line)


def _other(message: dict[str, Any], line: int, ts: datetime | None, task: Task) -> None:
    content = _content(message, line, ts, task)
    if content is None:
        return
    role = message.get("role")
    if role == "user":
        user_blocks(content, line - 1, line, ts, task)
        return
    task.report(line, f"message {line - 1} has role {role!r}; shown as raw JSON")
    title = f"Cline message with role {role!r}"
    task.emit(f"m{line - 1}", kind=Kind.UNKNOWN, timestamp=ts, title=title, raw=message, line=line)


def _content(message: dict[str, Any], line: int, ts: datetime | None, task: Task) -> list[Any] | None:
    """The message's content blocks (a string is one text block); None, shown as raw JSON, when it has none."""
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return content
    task.report(line, f"message {line - 1} has no content list; shown as raw JSON")
    task.emit(f"m{line - 1}", kind=Kind.UNKNOWN, timestamp=ts, title="Cline message", raw=message, line=line)
    return None


def _note_requests(requests: list[Request], used: set[int], task: Task, ui_path: Path) -> None:
    """The fidelity ledger: requests paired with a response are shown on it; the others are counted."""
    for request in requests:
        if request.line in used:
            note_request(ui_path, request.line)
        else:
            task.skipped[_UNANSWERED] += 1
            ledger.not_shown(ui_path, request.line, _UNANSWERED)


def _model_usage(metadata: dict[str, Any]) -> ModelUse:
    """task_metadata.json's ``model_usage``: which model was in use from when."""
    entries = metadata.get("model_usage")
    if not isinstance(entries, list):
        return []
    found = ((parse_time(obj(e).get("ts")), text_of(obj(e).get("model_id"))) for e in entries if isinstance(e, dict))
    return sorted(found, key=lambda pair: pair[0].timestamp() if pair[0] else 0)


def _model_at(model_usage: ModelUse, ts: datetime | None) -> str | None:
    model = None
    for when, name in model_usage:
        if ts is not None and when is not None and when > ts:
            break
        model = name or model
    return model


def _assistant_blocks(
    content: list[Any], position: int, line: int, ts: datetime | None, model: str | None, task: Task
) -> None:
    # A new assistant turn: calls left without a result belong to an earlier turn.
    task.open_calls.clear()
    for index, block in enumerate(content):
        bid = f"m{position}-{index}"
        btype = block.get("type") if isinstance(block, dict) else None
        if not isinstance(block, dict):
            task.emit(bid, kind=Kind.UNKNOWN, timestamp=ts, title="Cline content block", raw=block, line=line)
        elif btype == "text":
            _assistant_text(as_text(block.get("text")), bid, line, ts, model, task)
        elif btype in ("thinking", "reasoning", "redacted_thinking"):
            if btype == "redacted_thinking":
                text = "(redacted thinking)"
            else:
                text = as_text(block.get("thinking") or block.get("text"))
            if text.strip():
                task.emit(bid, kind=Kind.THINKING, timestamp=ts, text=text, model=model, line=line)
            else:
                task.skip(EMPTY_THINKING)
        elif btype == "tool_use":
            name = text_of(block.get("name")) or "tool"
            call_id = text_of(block.get("id")) or bid
            tool_call(name, block.get("input"), call_id, bid, line, ts, model, task)
        elif btype == "image":
            task.emit(bid, kind=Kind.ASSISTANT, timestamp=ts, blocks=(image(block),), model=model, line=line)
        else:
            task.report(line, f"message {position}: unknown block type {btype!r}; shown as raw JSON")
            task.emit(bid, kind=Kind.UNKNOWN, timestamp=ts, title=f"Cline block {btype!r}", raw=block, line=line)


def _assistant_text(text: str, bid: str, line: int, ts: datetime | None, model: str | None, task: Task) -> None:
    """Assistant text, with ``<thinking>`` and XML-style tool calls split out."""
    pos = 0
    piece = 0
    for match in XML_CALL.finditer(text):
        _prose(text[pos : match.start()], f"{bid}.{piece}", line, ts, model, task)
        piece += 1
        name, body = match.group(1), match.group(2)
        tool_call(name, xml_params(body), None, f"{bid}-{name}", line, ts, model, task, xml=True)
        pos = match.end()
    _prose(text[pos:], f"{bid}.{piece}" if piece else bid, line, ts, model, task)


def _prose(text: str, bid: str, line: int, ts: datetime | None, model: str | None, task: Task) -> None:
    pos = 0
    for n, match in enumerate(_THINKING.finditer(text)):
        before = text[pos : match.start()].strip()
        if before:
            task.emit(f"{bid}-t{n}", kind=Kind.ASSISTANT, timestamp=ts, text=before, model=model, line=line)
        thought = match.group(1).strip()
        if thought:
            task.emit(f"{bid}-think{n}", kind=Kind.THINKING, timestamp=ts, text=thought, model=model, line=line)
        else:
            task.skip(EMPTY_THINKING)
        pos = match.end()
    rest = text[pos:].strip()
    if rest:
        task.emit(bid, kind=Kind.ASSISTANT, timestamp=ts, text=rest, model=model, line=line)
