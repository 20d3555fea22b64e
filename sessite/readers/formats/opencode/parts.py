"""One OpenCode message and its parts as events.

A part becomes an event of its own (text, reasoning, a tool call and its result,
a compaction, a sub-task …); ``step-finish`` parts carry the usage of one model
call, put once on the latest event of the message that can show it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any

from sessite.model import Event, Kind, Usage
from sessite.readers._util import obj, shorten, text_of, to_float, to_int
from sessite.readers.base import as_text, parse_time
from sessite.readers.builder import SessionBuilder, last_index
from sessite.readers.formats.opencode.calls import file_block, tool_events
from sessite.readers.formats.opencode.sources import Record, Where

_SKIP_PARTS = {
    "step-start": "step-start part (model call boundary)",
    "snapshot": "snapshot part (workspace snapshot hash)",
}
# Events a step's usage can be shown on.
_USAGE_KINDS = (Kind.ASSISTANT, Kind.THINKING, Kind.TOOL_CALL, Kind.SYSTEM)


class Built(SessionBuilder):
    """One root session's bookkeeping; its sub-agent sessions share it (and its event ids)."""

    cwd: str | None = None
    cost: float = 0.0
    mode: tuple[str, ...] | None = None  # (agent, mode) last shown


def usage_of(tokens: Any) -> Usage | None:
    tokens = obj(tokens)
    cache = obj(tokens.get("cache"))
    usage = Usage(
        input_tokens=to_int(tokens.get("input")),
        output_tokens=to_int(tokens.get("output")),
        cache_read_tokens=to_int(cache.get("read")),
        cache_write_tokens=to_int(cache.get("write")),
        reasoning_tokens=to_int(tokens.get("reasoning")),
    )
    return usage or None


def message_events(
    message: dict[str, Any], where: Where, parts: list[Record], built: Built, task_calls: dict[str, str]
) -> list[Event]:
    """A message's events; a ``task`` call that started a sub-session is noted in ``task_calls``."""
    role = message.get("role")
    mid = str(message.get("id"))
    times = obj(message.get("time"))
    ts = parse_time(times.get("created"))
    if times.get("created") is not None and ts is None:
        where.tell(built.problems, f"message {mid}: time.created is not a timestamp: {times.get('created')!r}")
    model = text_of(message.get("modelID")) or text_of(obj(message.get("model")).get("modelID"))
    if role == "assistant":
        _note_assistant(message, model, built)
    if role not in ("user", "assistant"):
        where.tell(built.problems, f"message {mid} has role {role!r}; shown as raw JSON")
        title = f"OpenCode message with role {role!r}"
        return [Event(id=built.ids.take(mid), kind=Kind.UNKNOWN, timestamp=ts, title=title, raw=message)]
    reading = _Message(message, ts, model, built, task_calls)
    reading.read(parts)
    reading.close()
    return reading.events


def _note_assistant(message: dict[str, Any], model: str | None, built: Built) -> None:
    built.model(model)
    cwd = text_of(obj(message.get("path")).get("cwd"))
    built.cwd = built.cwd or cwd
    built.cost += to_float(message.get("cost")) or 0.0


class _Message:
    """The events of one user or assistant message, part by part."""

    def __init__(
        self, message: dict[str, Any], ts: datetime | None, model: str | None, built: Built, task_calls: dict[str, str]
    ) -> None:
        self.message = message
        self.role = message.get("role")
        self.mid = str(message.get("id"))
        self.ts = ts
        self.model = model
        self.built = built
        self.task_calls = task_calls  # child session id -> call id of the task call that started it
        self.kind = Kind.USER if self.role == "user" else Kind.ASSISTANT
        self.events: list[Event] = []
        self.pending_usage: list[tuple[Usage, dict[str, Any]]] = []  # usage waiting for an event of this message
        self.step_usage_seen = False
        self._handlers: dict[str, Callable[[dict[str, Any], str, datetime | None], None]] = {
            "text": self._text,
            "reasoning": self._reasoning,
            "tool": self._tool,
            "step-finish": self._step_finish,
            "patch": self._patch,
            "file": self._file,
            "compaction": self._compaction,
            "subtask": self._subtask,
            "agent": self._agent,
            "retry": self._retry,
        }

    def add(self, base: str, **fields: Any) -> None:
        self.events.append(Event(id=self.built.ids.take(base), **fields))

    def own_model(self) -> str | None:
        """The model, on events the model wrote (not on the user's)."""
        return self.model if self.kind == Kind.ASSISTANT else None

    def attach(self, usage: Usage | None, extra: dict[str, Any]) -> None:
        """Put one model call's usage on the latest event of this message that has none yet."""
        if usage is None and not extra:
            return
        index = last_index(self.events, lambda e: e.usage is None and e.kind in _USAGE_KINDS)
        if index is not None:
            event = self.events[index]
            meta = {**event.meta, **extra}
            self.events[index] = replace(event, usage=usage, model=event.model or self.model, meta=meta)
        elif usage:
            self.pending_usage.append((usage, extra))

    def read(self, parts: list[Record]) -> None:
        last_ts = self.ts  # a part without a time of its own happened after the part before it
        for part, pwhere in parts:
            try:
                raw_type = part.get("type")
                ptype = raw_type if isinstance(raw_type, str) else repr(raw_type)
                pid = str(part.get("id") or f"{self.mid}-part")
                ptimes = obj(part.get("time"))
                pts = parse_time(ptimes.get("start")) or last_ts
                tool_times = obj(obj(part.get("state")).get("time"))
                last_ts = (
                    parse_time(ptimes.get("end"))
                    or parse_time(tool_times.get("end"))
                    or parse_time(tool_times.get("start"))
                    or pts
                )
                handler = self._handlers.get(ptype)
                if handler is not None:
                    handler(part, pid, pts)
                elif ptype in _SKIP_PARTS:
                    self.built.skip(_SKIP_PARTS[ptype])
                else:
                    self._unknown(part, ptype, pid, pts, pwhere)
            except Exception as exc:  # noqa: BLE001 - one odd part must not stop the session
                pwhere.tell(
                    self.built.problems,
                    f"could not interpret the part ({type(exc).__name__}: {exc}); shown as raw JSON",
                )
                self.add("unreadable", kind=Kind.UNKNOWN, title="unreadable opencode part", raw=part)

    # ---- parts

    def _text(self, part: dict[str, Any], pid: str, pts: datetime | None) -> None:
        text = as_text(part.get("text"))
        meta = {k: part[k] for k in ("metadata",) if part.get(k)}
        if part.get("ignored"):
            meta["ignored"] = True
        if part.get("synthetic"):
            title = "Synthetic text" if self.role == "assistant" else "Added context"
            meta = {**meta, "synthetic": True}
            self.add(pid, kind=Kind.SYSTEM, timestamp=pts, title=title, text=text, meta=meta)
        else:
            self.add(pid, kind=self.kind, timestamp=pts, text=text, model=self.own_model(), meta=meta)

    def _reasoning(self, part: dict[str, Any], pid: str, pts: datetime | None) -> None:
        meta = {k: part[k] for k in ("metadata",) if part.get(k)}
        text = as_text(part.get("text"))
        self.add(pid, kind=Kind.THINKING, timestamp=pts, text=text, model=self.model, meta=meta)

    def _tool(self, part: dict[str, Any], pid: str, pts: datetime | None) -> None:
        call, result = tool_events(part, pid, self.ts, self.model, self.built.ids)
        self.events.append(call)
        if result is not None:
            self.events.append(result)
        metadata = obj(obj(part.get("state")).get("metadata"))
        child = text_of(metadata.get("sessionId")) or text_of(metadata.get("sessionID"))
        if child and call.call_id:
            self.task_calls.setdefault(child, call.call_id)

    def _step_finish(self, part: dict[str, Any], pid: str, pts: datetime | None) -> None:
        usage = usage_of(part.get("tokens"))
        extra = {k: part[k] for k in ("cost",) if part.get(k) not in (None, "", 0)}
        if part.get("reason") not in (None, "", "stop", "tool-calls"):
            extra["finish"] = part["reason"]
        if usage or extra:
            self.step_usage_seen = self.step_usage_seen or usage is not None
            self.attach(usage, extra)

    def _patch(self, part: dict[str, Any], pid: str, pts: datetime | None) -> None:
        files = [str(f) for f in part.get("files") or [] if f] if isinstance(part.get("files"), list) else []
        meta = {"hash": part["hash"]} if part.get("hash") else {}
        text = "\n".join(f"- `{f}`" for f in files) or "(no files listed)"
        self.add(pid, kind=Kind.SYSTEM, timestamp=pts, title="Files changed", text=text, meta=meta)

    def _file(self, part: dict[str, Any], pid: str, pts: datetime | None) -> None:
        block = file_block(part)
        last = self.events[-1] if self.events else None
        if last is not None and last.kind == self.kind and not last.usage:
            self.events[-1] = replace(last, blocks=last.blocks + (block,))
        else:
            self.add(pid, kind=self.kind, timestamp=pts, blocks=(block,), model=self.own_model())

    def _compaction(self, part: dict[str, Any], pid: str, pts: datetime | None) -> None:
        meta = {k: v for k, v in part.items() if k not in ("id", "type", "sessionID", "messageID", "time")}
        title = "Context compacted" + (" (automatic)" if part.get("auto") else "")
        self.add(pid, kind=Kind.COMPACTION, timestamp=pts, title=title, meta=meta)

    def _subtask(self, part: dict[str, Any], pid: str, pts: datetime | None) -> None:
        title = text_of(part.get("description")) or "Sub-task"
        meta = {"agent": part["agent"]} if part.get("agent") else {}
        text = as_text(part.get("prompt"))
        self.add(pid, kind=Kind.SYSTEM, timestamp=pts, title=f"Sub-task: {shorten(title, 80)}", text=text, meta=meta)

    def _agent(self, part: dict[str, Any], pid: str, pts: datetime | None) -> None:
        title = f"Agent: {as_text(part.get('name')) or '?'}"
        meta = {k: part[k] for k in ("source",) if part.get(k)}
        self.add(pid, kind=Kind.SYSTEM, timestamp=pts, title=title, meta=meta)

    def _retry(self, part: dict[str, Any], pid: str, pts: datetime | None) -> None:
        error = obj(part.get("error"))
        detail = (
            text_of(obj(error.get("data")).get("message"))
            or text_of(error.get("message"))
            or as_text(part.get("error"))
        )
        self.add(
            pid,
            kind=Kind.SYSTEM,
            timestamp=parse_time(obj(part.get("time")).get("created")) or pts,
            title=f"Retry {part.get('attempt', '')}".strip(),
            text=detail,
            meta={"error": error} if error else {},
        )

    def _unknown(self, part: dict[str, Any], ptype: str, pid: str, pts: datetime | None, pwhere: Where) -> None:
        if ptype == "__undecodable__":
            raw, title = part.get("raw"), "OpenCode part (undecodable data)"
        else:
            raw, title = part, f"OpenCode part {ptype!r}"
            pwhere.tell(self.built.problems, f"part {pid} has unknown type {ptype!r}; shown as raw JSON")
        self.add(pid, kind=Kind.UNKNOWN, timestamp=pts, title=title, raw=raw)

    # ---- after the parts

    def close(self) -> None:
        """The message's own usage, error and leftover usage; the agent and mode where they change."""
        message = self.message
        completed = parse_time(obj(message.get("time")).get("completed")) or self.ts
        if self.role == "assistant" and not self.step_usage_seen:
            usage = usage_of(message.get("tokens"))
            extra = {"cost": message["cost"]} if message.get("cost") not in (None, 0, "") else {}
            if usage:
                self.attach(usage, extra)
        if message.get("error"):
            self._error(message["error"], completed)
        for usage, extra in self.pending_usage:
            meta = {**extra, "note": "model call with no recorded output"}
            self.add(
                f"{self.mid}-usage", kind=Kind.ASSISTANT, timestamp=completed, usage=usage, model=self.model, meta=meta
            )
        if not self.events:
            self.built.skip("message with no parts")
        self._show_mode()

    def _error(self, error: Any, completed: datetime | None) -> None:
        err = obj(error)
        name = text_of(err.get("name")) or "Error"
        detail = text_of(obj(err.get("data")).get("message")) or text_of(err.get("message")) or as_text(error)
        meta = {"error": error}
        self.add(f"{self.mid}-error", kind=Kind.SYSTEM, timestamp=completed, title=name, text=detail, meta=meta)

    def _show_mode(self) -> None:
        """The agent and mode are shown where they change, not on every message."""
        if self.role != "assistant":
            return
        mode = tuple(str(self.message.get(k) or "") for k in ("agent", "mode"))
        if mode == self.built.mode or not any(mode):
            return
        self.built.mode = mode
        if self.events:
            extra = {k: v for k, v in zip(("agent", "mode"), mode) if v}
            first = self.events[0]
            self.events[0] = replace(first, meta={**extra, **first.meta})
