"""Cline's panel messages (``ui_messages.json``) as events: the whole session of a task whose
history file is missing, and, beside a history, what only the panel kept (a response the
user interrupted, an error notice).

A request's usage (``api_req_started``) goes on the next model event. A message the panel
never finished (``partial``) is shown as it stands: it is the only copy of its text.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from sessite.model import Block, Event, Kind, ToolCategory, Usage
from sessite.readers import ledger
from sessite.readers._util import maybe_json, text_of, to_float
from sessite.readers.base import as_text, parse_time
from sessite.readers.builder import MODEL_KINDS
from sessite.readers.formats.cline.calls import search_replace_diff
from sessite.readers.formats.cline.task import Task
from sessite.readers.formats.cline.ui import request_usage

# The panel's own names for file tools (``say: tool`` messages), not tool names.
_PANEL_TOOLS = {
    "readFile": ToolCategory.READ,
    "newFileCreated": ToolCategory.EDIT,
    "editedExistingFile": ToolCategory.EDIT,
    "searchFiles": ToolCategory.SEARCH,
    "listFilesTopLevel": ToolCategory.SEARCH,
    "listFilesRecursive": ToolCategory.SEARCH,
}
NOTES = (
    "error",
    "api_req_failed",
    "diff_error",
    "clineignore_error",
    "mistake_limit_reached",
    "info",
    "mcp_notification",
    "auto_approval_max_req_reached",
    "report_bug",
    "error_retry",
)
BOOKKEEPING = (
    "checkpoint_created",
    "api_req_finished",
    "api_req_retried",
    "resume_task",
    "resume_completed_task",
    "task_progress",
    "deleted_api_reqs",
    "shell_integration_warning",
    "mcp_server_request_started",
    "load_mcp_documentation",
)
# Panel messages that are calls (their JSON text is the input), and the results that answer them.
_CALLS = ("browser_action_launch", "browser_action", "use_mcp_server", "new_task")
_RESULTS = {
    "browser_action_result": ("browser_action", "browser_action_launch"),
    "mcp_server_response": ("use_mcp_server",),
}
_SUMMARIES = ("condense", "summarize_task")
REQUEST = "model request (its tokens and cost are shown on the response)"
_EMPTY = "empty panel message"


def ui_events(ui: list[tuple[int, dict[str, Any]]], task: Task) -> None:
    """The panel's messages as events, for a task whose history file is missing."""
    Panel(task).read(ui)


def panel_only_events(items: list[tuple[int, dict[str, Any]]], task: Task, ui_path: Path) -> None:
    """Panel messages the history does not hold, shown where they happened (records of ``ui_path``)."""
    if not items:
        return
    saved = task.path
    task.path = ui_path
    try:
        Panel(task, first=False).read(items)
    finally:
        task.path = saved


def panel_key(msg: dict[str, Any]) -> Any:
    """What a panel message is: its ``say`` or its ``ask``."""
    return msg.get("say") if msg.get("type") == "say" else msg.get("ask")


def ui_text(text: str) -> str:
    """A panel message's text (the question or answer of one that holds JSON)."""
    value = maybe_json(text)
    if isinstance(value, dict):
        return as_text(
            value.get("question") or value.get("response") or value.get("text") or json.dumps(value, ensure_ascii=False)
        )
    return text


Handler = Callable[[dict[str, Any], str, datetime | None, str, int], Event | None]


class Panel:
    """Panel messages in order; a request's usage goes on the next model event."""

    def __init__(self, task: Task, first: bool = True) -> None:
        self.task = task
        self.first = first  # the first ``text`` message is the user's task
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
            "task": self._text,
            "api_req_started": self._request,
            **{key: self._call for key in _CALLS},
            **{key: self._result for key in _RESULTS},
            **{key: self._summary for key in _SUMMARIES},
            **{key: self._note for key in NOTES},
            **{key: self._bookkeeping for key in BOOKKEEPING},
        }

    def read(self, ui: list[tuple[int, dict[str, Any]]]) -> None:
        for line, msg in ui:
            try:
                self._read_one(line, msg)
            except Exception as exc:  # noqa: BLE001 - one odd panel message must not stop the task
                self.task.unreadable(line, "panel message", msg, exc)

    def _read_one(self, line: int, msg: dict[str, Any]) -> None:
        ts = parse_time(msg.get("ts"))
        kind_key = panel_key(msg)
        text = as_text(msg.get("text"))
        eid = self.task.ids.take(f"ui{line}")
        handler = self.handlers.get(kind_key) if isinstance(kind_key, str) else None
        if handler is None:
            title = f"Cline panel message {kind_key!r}"
            event = self.task.add(Event(id=eid, kind=Kind.UNKNOWN, timestamp=ts, title=title, raw=msg, line=line))
        else:
            found = handler(msg, eid, ts, text, line)
            if found is None:
                return
            event = found
        if msg.get("partial"):
            event = self.task.events[-1] = replace(event, meta={**event.meta, "partial": "the panel never finished it"})
        if self.pending_usage and event.kind in MODEL_KINDS:
            usage, extra = self.pending_usage
            self.task.cost += to_float(extra.get("cost")) or 0.0
            self.task.events[-1] = replace(event, usage=usage, meta={**event.meta, **extra})
            self.pending_usage = None

    def _text(self, msg: dict[str, Any], eid: str, ts: datetime | None, text: str, line: int) -> Event | None:
        kind = Kind.USER if self.first else Kind.ASSISTANT
        self.first = False
        if not text.strip() and not msg.get("images"):
            self.task.skip(_EMPTY, line=line)
            return None
        return self.task.add(Event(id=eid, kind=kind, timestamp=ts, text=text, line=line))

    def _feedback(self, msg: dict[str, Any], eid: str, ts: datetime | None, text: str, line: int) -> Event:
        return self.task.add(Event(id=eid, kind=Kind.USER, timestamp=ts, text=text, line=line))

    def _reasoning(self, msg: dict[str, Any], eid: str, ts: datetime | None, text: str, line: int) -> Event | None:
        if not text.strip():
            self.task.skip("empty thinking block", line=line)
            return None
        return self.task.add(Event(id=eid, kind=Kind.THINKING, timestamp=ts, text=text, line=line))

    def _answer(self, msg: dict[str, Any], eid: str, ts: datetime | None, text: str, line: int) -> Event | None:
        if not text.strip():
            self.task.skip(f"panel {panel_key(msg)} prompt (no text)", line=line)
            return None
        return self.task.add(Event(id=eid, kind=Kind.ASSISTANT, timestamp=ts, text=ui_text(text), line=line))

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
        path = text_of(info.get("path"))
        if diff:  # the SEARCH/REPLACE blocks the call sent, else a unified diff as it is
            diff = search_replace_diff(path, diff) or (diff if diff.lstrip().startswith(("---", "@@")) else None)
        return self.task.add(
            Event(
                id=eid,
                kind=Kind.TOOL_CALL,
                timestamp=ts,
                tool_name=name,
                tool_input=info,
                category=_PANEL_TOOLS.get(name, ToolCategory.OTHER),
                path=path,
                diff=diff,
                call_id=eid,
                line=line,
            )
        )

    def _call(self, msg: dict[str, Any], eid: str, ts: datetime | None, text: str, line: int) -> Event:
        """A browser action, an MCP tool use or a new task the panel showed."""
        name = str(panel_key(msg))
        self.task.open_calls.append((name, eid))
        args = maybe_json(text)
        category = ToolCategory.WEB if name.startswith("browser") else ToolCategory.OTHER
        return self.task.add(
            Event(
                id=eid,
                kind=Kind.TOOL_CALL,
                timestamp=ts,
                tool_name=name,
                tool_input=args,
                category=category,
                call_id=eid,
                line=line,
            )
        )

    def _result(self, msg: dict[str, Any], eid: str, ts: datetime | None, text: str, line: int) -> Event:
        """What a browser action or MCP tool gave back (a screenshot as an image, never as text)."""
        call_id = next(filter(None, (self.task.take_call(name) for name in _RESULTS[str(panel_key(msg))])), None)
        info = maybe_json(text)
        blocks: tuple[Block, ...] = ()
        if isinstance(info, dict):
            shot = info.get("screenshot")
            if isinstance(shot, str) and shot.startswith("data:image/"):
                blocks = (Block("image", uri=shot, title="screenshot"),)
            rest = {k: v for k, v in info.items() if k != "screenshot"}
            text = as_text(rest.get("logs")) if set(rest) <= {"logs"} else as_text(rest)
        event = Event(id=eid, kind=Kind.TOOL_RESULT, timestamp=ts, text=text, blocks=blocks, call_id=call_id, line=line)
        return self.task.add(event)

    def _summary(self, msg: dict[str, Any], eid: str, ts: datetime | None, text: str, line: int) -> Event:
        """The summary Cline condensed the conversation into."""
        title = f"Cline {str(panel_key(msg)).replace('_', ' ')}"
        return self.task.add(Event(id=eid, kind=Kind.COMPACTION, timestamp=ts, title=title, text=text, line=line))

    def _request(self, msg: dict[str, Any], eid: str, ts: datetime | None, text: str, line: int) -> None:
        info = maybe_json(text)
        self.pending_usage = request_usage(info if isinstance(info, dict) else {})
        self.task.merged(line, REQUEST)

    def _note(self, msg: dict[str, Any], eid: str, ts: datetime | None, text: str, line: int) -> Event:
        title = f"Cline {str(panel_key(msg)).replace('_', ' ')}"
        return self.task.add(Event(id=eid, kind=Kind.SYSTEM, timestamp=ts, title=title, text=text, line=line))

    def _bookkeeping(self, msg: dict[str, Any], eid: str, ts: datetime | None, text: str, line: int) -> None:
        self.task.skip(f"panel {panel_key(msg)}", line=line)


def note_request(ui_path: Path, line: int) -> None:
    """A request whose usage went on its response (history mode)."""
    ledger.merged(ui_path, line, REQUEST)
