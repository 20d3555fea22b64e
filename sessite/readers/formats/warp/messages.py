"""One message of a Warp agent task (``warp.multi_agent.v1.Message``) as events.

A message has an id (1), a timestamp (14), its task (11) and request (13), and one of:
``user_query`` (2), ``agent_output`` (3), ``tool_call`` (4), ``tool_call_result`` (5),
``server_event`` (6), ``system_query`` (9), ``update_todos`` (10), ``agent_reasoning``
(15), ``summarization`` (16), ``code_review`` (17), ``update_review_comments`` (18),
``web_search`` (19), ``web_fetch`` (20), ``debug_output`` (21), ``artifact_event`` (22),
``invoke_skill`` (23), ``messages_received_from_agents`` (24), ``model_used`` (25),
``events_from_agents`` (26). Opaque server payloads and debug output are counted, not shown.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sessite.model import Kind
from sessite.readers.builder import SessionBuilder
from sessite.readers.formats.warp.calls import SERVER, read_call, read_result, strings
from sessite.readers.formats.warp.proto import Fields, duration, timestamp

SERVER_CALL = "server-side tool call (its payload is opaque to the client)"
SERVER_RESULT = "server-side tool result (its payload is opaque to the client)"
SERVER_EVENT = "server event (its payload is opaque to the client)"
DEBUG = "debug output (shown only in Warp's development builds)"
MODEL_USED = "model used for the turn (listed with the session's models)"
EMPTY = "message without content"
HIDDEN_REASONING = "reasoning without visible text (only how long it took)"
_NOTES = {
    9: "System query",
    10: "Todo list",
    17: "Code review",
    18: "Review comments addressed",
    22: "Artifact",
    24: "Messages from other agents",
    26: "Events from other agents",
}
_SYSTEM_QUERIES = {
    1: "Automatic fix request",
    3: "Conversation resumed",
    4: "Suggestions requested",
    5: "New project",
    6: "Repository cloned",
    7: "Summary requested",
    8: "Review comments requested",
}


def stamp(message: Fields) -> datetime | None:
    seconds = timestamp(message.message(14))
    if seconds is None:
        return None
    try:
        return datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


class TaskReader:
    """Writes the events of a task's messages to a builder; notes what the session header needs."""

    def __init__(self, b: SessionBuilder) -> None:
        self.b = b
        self.cwd: str | None = None
        self.queries: dict[str, str] = {}  # a user query's text -> the id of its event
        self.subtasks: dict[str, str] = {}  # sub-agent task id -> the call id that started it

    def message(self, line: int, message: Fields) -> None:
        mid = message.text(1) or f"message-{line}"
        ts = stamp(message)
        kinds = [n for n in message.numbers() if n not in (1, 7, 8, 11, 13, 14)]
        if not kinds:
            self.b.skip(EMPTY, line=line)
            return
        kind = kinds[0]
        body = message.message(kind) or Fields(None)
        if kind == 2:
            self._query(line, mid, ts, body)
        elif kind == 3:
            self._say(line, mid, ts, Kind.ASSISTANT, body.text(1))
        elif kind == 15:
            took = duration(body.message(2))
            meta = {"duration": f"{took:.1f} s"} if took else {}
            self._say(line, mid, ts, Kind.THINKING, body.text(1), meta, HIDDEN_REASONING)
        elif kind == 4:
            self._call(line, mid, ts, body)
        elif kind == 5:
            self._result(line, mid, ts, body)
        elif kind == 6:
            self.b.skip(SERVER_EVENT, line=line)
        elif kind == 21:
            self.b.skip(DEBUG, line=line)
        elif kind == 25:
            self.b.model(body.text(2) or body.text(1))
            self.b.merged(line, MODEL_USED)
        elif kind == 16:
            self._summary(line, mid, ts, body)
        elif kind in (19, 20):
            self._web(line, mid, ts, kind, body)
        elif kind == 23:
            query = (body.message(2) or Fields(None)).text(1)
            skill = "; ".join(strings(body.message(1) or Fields(None))[:1])
            self._say(line, mid, ts, Kind.USER, query or f"(skill {skill})", {"skill": skill} if skill else {})
        else:
            self._note(line, mid, ts, kind, body)

    def _say(
        self,
        line: int,
        mid: str,
        ts: datetime | None,
        kind: Kind,
        text: str,
        meta: dict[str, Any] | None = None,
        empty: str = EMPTY,
    ) -> None:
        if not text.strip():
            self.b.skip(empty, line=line)
            return
        self.b.emit(mid, kind=kind, timestamp=ts, text=text, line=line, meta=meta or {})

    def _query(self, line: int, mid: str, ts: datetime | None, body: Fields) -> None:
        text = body.text(1)
        context = body.message(2)
        directory = context.message(1) if context is not None else None
        if directory is not None and directory.text(1) and self.cwd is None:
            self.cwd = directory.text(1)
        attachments = [e.text(1) for e in body.messages(3)]
        meta: dict[str, Any] = {"attachments": attachments} if any(attachments) else {}
        mode = (body.message(4) or Fields(None)).first_of({1: "plan", 2: "orchestrate"})
        if mode:
            meta["mode"] = mode[1]
        self._say(line, mid, ts, Kind.USER, text, meta)
        if text.strip():
            self.queries.setdefault(text.strip(), self.b.events[-1].id)

    def _call(self, line: int, mid: str, ts: datetime | None, body: Fields) -> None:
        if body.has(SERVER):
            self.b.skip(SERVER_CALL, line=line)
            return
        call = read_call(body)
        if call.subtask:
            self.subtasks[call.subtask] = call.call_id
        fields = {k: v for k, v in (("command", call.command), ("path", call.path), ("diff", call.diff)) if v}
        self.b.emit(
            call.call_id or mid,
            kind=Kind.TOOL_CALL,
            timestamp=ts,
            tool_name=call.name,
            tool_input=call.args,
            category=call.category,
            call_id=call.call_id or None,
            line=line,
            **fields,
        )

    def _result(self, line: int, mid: str, ts: datetime | None, body: Fields) -> None:
        result = read_result(body)
        if result.server:
            self.b.skip(SERVER_RESULT, line=line)
            return
        self.b.emit(
            f"{result.call_id or mid}-result",
            kind=Kind.TOOL_RESULT,
            timestamp=ts,
            text=result.text,
            blocks=result.blocks,
            call_id=result.call_id or None,
            is_error=result.is_error,
            exit_code=result.exit_code,
            line=line,
            meta=result.meta,
        )

    def _summary(self, line: int, mid: str, ts: datetime | None, body: Fields) -> None:
        summary = body.message(1)
        if summary is None or not summary.text(1).strip():
            self.b.skip("summarization marker without a summary", line=line)
            return
        meta = {"tokens": summary.number(2)} if summary.number(2) else {}
        self.b.emit(
            mid,
            kind=Kind.COMPACTION,
            timestamp=ts,
            title="Conversation summary",
            text=summary.text(1),
            line=line,
            meta=meta,
        )

    def _web(self, line: int, mid: str, ts: datetime | None, kind: int, body: Fields) -> None:
        """A web search or fetch: its status (what was looked for, the pages found)."""
        status = body.message(1) or Fields(None)
        state = status.first_of({1: "running", 2: "done", 3: "failed"})
        detail = status.message(state[0]) if state else None
        rows = strings(detail) if detail is not None else []
        title = ("Web search" if kind == 19 else "Web fetch") + (f" ({state[1]})" if state else "")
        self.b.emit(
            mid,
            kind=Kind.SYSTEM,
            timestamp=ts,
            title=title,
            text="\n".join(rows),
            line=line,
            is_error=bool(state and state[0] == 3),
        )

    def _note(self, line: int, mid: str, ts: datetime | None, kind: int, body: Fields) -> None:
        title = _NOTES.get(kind, f"Message field {kind}")
        if kind == 9:
            which = body.first_of(_SYSTEM_QUERIES)
            title = _SYSTEM_QUERIES[which[0]] if which else title
            body = body.message(which[0]) or Fields(None) if which else body
        self.b.emit(mid, kind=Kind.SYSTEM, timestamp=ts, title=title, text="\n".join(strings(body)), line=line)
