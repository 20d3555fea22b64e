"""``ui_messages.json``: what Cline's chat panel showed, each message with its time (``ts``, ms).

It times the history's messages (``conversationHistoryIndex`` links a panel
message to the history) and counts their tokens (``api_req_started``). When
the history file is missing, the session is rebuilt from the panel alone.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from sitegen.model import Event, Kind, Problems, ToolCategory, Usage
from sitegen.readers._util import maybe_json, text_of, to_float, to_int
from sitegen.readers.base import as_text, parse_time
from sitegen.readers.builder import MODEL_KINDS
from sitegen.readers.cline.task import Task

# The panel's own names for file tools (``say: tool`` messages), not tool names.
_PANEL_TOOLS = {
    "readFile": ToolCategory.READ,
    "newFileCreated": ToolCategory.EDIT,
    "editedExistingFile": ToolCategory.EDIT,
    "searchFiles": ToolCategory.SEARCH,
    "listFilesTopLevel": ToolCategory.SEARCH,
    "listFilesRecursive": ToolCategory.SEARCH,
}
_NOTES = ("error", "api_req_failed", "diff_error", "clineignore_error", "mistake_limit_reached")
_BOOKKEEPING = (
    "checkpoint_created",
    "api_req_finished",
    "api_req_retried",
    "resume_task",
    "resume_completed_task",
    "task_progress",
    "deleted_api_reqs",
    "shell_integration_warning",
)


class Request(NamedTuple):
    """An ``api_req_started`` panel message: one model request."""

    history_index: int | None  # the history index it follows
    ts: datetime | None
    info: dict[str, Any]  # its JSON text: tokensIn, tokensOut, cost …
    msg: dict[str, Any]


@dataclass
class Ui:
    """What ui_messages.json says about the history: times, token counts, models."""

    start: dict[int, datetime] = field(default_factory=dict)  # history index -> first panel time after it
    requests: list[Request] = field(default_factory=list)
    times: list[datetime] = field(default_factory=list)
    first_text: str | None = None


def ui_summary(ui: list[tuple[int, dict[str, Any]]], path: Path, problems: Problems) -> Ui:
    out = Ui()
    for line, msg in ui:
        try:
            ts = parse_time(msg.get("ts"))
            if msg.get("ts") is not None and ts is None:
                problems.add(path, line, f"cline: ts is not a timestamp: {msg.get('ts')!r}")
            if ts:
                out.times.append(ts)
            index = msg.get("conversationHistoryIndex")
            index = index if isinstance(index, int) and not isinstance(index, bool) else None
            if index is not None and ts is not None and index not in out.start:
                out.start[index] = ts
            if msg.get("say") == "api_req_started":
                info = maybe_json(msg.get("text"))
                out.requests.append(Request(index, ts, info if isinstance(info, dict) else {}, msg))
            if (
                out.first_text is None
                and msg.get("type") == "say"
                and msg.get("say") == "text"
                and isinstance(msg.get("text"), str)
            ):
                out.first_text = msg["text"]
        except Exception as exc:  # noqa: BLE001 - one odd panel message must not stop the task
            problems.add(path, line, f"cline: could not interpret a panel message ({type(exc).__name__}: {exc})")
    return out


def request_usage(info: dict[str, Any]) -> tuple[Usage | None, dict[str, Any]]:
    """A request's token counts, and its cost when it has one."""
    usage = Usage(
        input_tokens=to_int(info.get("tokensIn")),
        output_tokens=to_int(info.get("tokensOut")),
        cache_read_tokens=to_int(info.get("cacheReads")),
        cache_write_tokens=to_int(info.get("cacheWrites")),
    )
    cost = info.get("cost")
    return usage or None, {"cost": cost} if isinstance(cost, (int, float)) and cost else {}


def ui_events(ui: list[tuple[int, dict[str, Any]]], task: Task) -> None:
    """The panel's messages as events, for a task whose history file is missing."""
    _Panel(task).read(ui)


def _ui_text(text: str) -> str:
    value = maybe_json(text)
    if isinstance(value, dict):
        return as_text(
            value.get("question") or value.get("response") or value.get("text") or json.dumps(value, ensure_ascii=False)
        )
    return text


Handler = Callable[[dict[str, Any], str, datetime | None, str, int], Event | None]


class _Panel:
    """Panel messages in order; a request's usage goes on the next model event."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.first = True  # the first ``text`` message is the user's task
        self.pending_usage: tuple[Usage | None, dict[str, Any]] | None = None
        self.handlers: dict[str, Handler] = {
            "text": self._text,
            "user_feedback": self._feedback,
            "user_feedback_diff": self._feedback,
            "reasoning": self._reasoning,
            "completion_result": self._answer,
            "followup": self._answer,
            "plan_mode_respond": self._answer,
            "command": self._command,
            "command_output": self._command_output,
            "tool": self._tool,
            "api_req_started": self._request,
            **{key: self._note for key in _NOTES},
            **{key: self._bookkeeping for key in _BOOKKEEPING},
        }

    def read(self, ui: list[tuple[int, dict[str, Any]]]) -> None:
        for line, msg in ui:
            try:
                ts = parse_time(msg.get("ts"))
                kind_key = msg.get("say") if msg.get("type") == "say" else msg.get("ask")
                text = as_text(msg.get("text"))
                eid = self.task.ids.take(f"ui{line}")
                if msg.get("partial"):
                    self.task.skip("partial panel message")
                    continue
                handler = self.handlers.get(kind_key) if isinstance(kind_key, str) else None
                if handler is None:
                    title = f"Cline panel message {kind_key!r}"
                    event = self.task.add(
                        Event(id=eid, kind=Kind.UNKNOWN, timestamp=ts, title=title, raw=msg, line=line)
                    )
                else:
                    found = handler(msg, eid, ts, text, line)
                    if found is None:
                        continue
                    event = found
                if self.pending_usage and event.kind in MODEL_KINDS:
                    usage, extra = self.pending_usage
                    self.task.cost += to_float(extra.get("cost")) or 0.0
                    self.task.events[-1] = replace(event, usage=usage, meta={**event.meta, **extra})
                    self.pending_usage = None
            except Exception as exc:  # noqa: BLE001 - one odd panel message must not stop the task
                self.task.unreadable(line, "panel message", msg, exc)

    def _text(self, msg: dict[str, Any], eid: str, ts: datetime | None, text: str, line: int) -> Event:
        kind = Kind.USER if self.first else Kind.ASSISTANT
        self.first = False
        return self.task.add(Event(id=eid, kind=kind, timestamp=ts, text=text, line=line))

    def _feedback(self, msg: dict[str, Any], eid: str, ts: datetime | None, text: str, line: int) -> Event:
        return self.task.add(Event(id=eid, kind=Kind.USER, timestamp=ts, text=text, line=line))

    def _reasoning(self, msg: dict[str, Any], eid: str, ts: datetime | None, text: str, line: int) -> Event:
        return self.task.add(Event(id=eid, kind=Kind.THINKING, timestamp=ts, text=text, line=line))

    def _answer(self, msg: dict[str, Any], eid: str, ts: datetime | None, text: str, line: int) -> Event:
        return self.task.add(Event(id=eid, kind=Kind.ASSISTANT, timestamp=ts, text=_ui_text(text), line=line))

    def _command(self, msg: dict[str, Any], eid: str, ts: datetime | None, text: str, line: int) -> Event:
        self.task.open_calls.append(("execute_command", eid))
        return self.task.add(
            Event(
                id=eid,
                kind=Kind.TOOL_CALL,
                timestamp=ts,
                tool_name="execute_command",
                category=ToolCategory.SHELL,
                command=text,
                call_id=eid,
                line=line,
            )
        )

    def _command_output(self, msg: dict[str, Any], eid: str, ts: datetime | None, text: str, line: int) -> Event:
        call_id = self.task.take_call("execute_command")
        return self.task.add(Event(id=eid, kind=Kind.TOOL_RESULT, timestamp=ts, text=text, call_id=call_id, line=line))

    def _tool(self, msg: dict[str, Any], eid: str, ts: datetime | None, text: str, line: int) -> Event:
        """A file tool the panel showed (``{tool, path, diff?}``)."""
        parsed = maybe_json(text)
        info = parsed if isinstance(parsed, dict) else {"text": text}
        name = text_of(info.get("tool")) or "tool"
        diff = text_of(info.get("diff"))
        return self.task.add(
            Event(
                id=eid,
                kind=Kind.TOOL_CALL,
                timestamp=ts,
                tool_name=name,
                tool_input=info,
                category=_PANEL_TOOLS.get(name, ToolCategory.OTHER),
                path=text_of(info.get("path")),
                diff=diff if diff and diff.lstrip().startswith(("---", "@@")) else None,
                call_id=eid,
                line=line,
            )
        )

    def _request(self, msg: dict[str, Any], eid: str, ts: datetime | None, text: str, line: int) -> None:
        info = maybe_json(text)
        self.pending_usage = request_usage(info if isinstance(info, dict) else {})

    def _note(self, msg: dict[str, Any], eid: str, ts: datetime | None, text: str, line: int) -> Event:
        kind_key = str(msg.get("say") if msg.get("type") == "say" else msg.get("ask"))
        title = f"Cline {kind_key.replace('_', ' ')}"
        return self.task.add(Event(id=eid, kind=Kind.SYSTEM, timestamp=ts, title=title, text=text, line=line))

    def _bookkeeping(self, msg: dict[str, Any], eid: str, ts: datetime | None, text: str, line: int) -> None:
        kind_key = msg.get("say") if msg.get("type") == "say" else msg.get("ask")
        self.task.skip(f"panel {kind_key}")
