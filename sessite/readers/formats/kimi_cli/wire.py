"""Kimi CLI's ``wire.jsonl``: the log of everything the agent told its UI.

Line 1 is ``{"type": "metadata", "protocol_version"}`` (older logs have none); then
``{timestamp, message: {type, payload}}``. A turn opens with ``TurnBegin`` (the user's
input), its steps with ``StepBegin``; the model's output comes as ``ContentPart`` (text or
thinking), ``ToolCall`` and ``ToolResult``; ``StatusUpdate`` gives a step's tokens. A
sub-agent's events come wrapped in ``SubagentEvent``, naming the ``Task`` call that
started it. Parts are written whole (the CLI merges streamed pieces before it records).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sessite.model import Kind, Usage
from sessite.readers._util import maybe_json, obj, shorten, text_of
from sessite.readers.base import as_text, parse_time
from sessite.readers.formats.kimi_cli.calls import tool_call, tool_result
from sessite.readers.formats.kimi_cli.content import input_text, part_of, usage_of
from sessite.readers.formats.kimi_cli.state import KimiFile
from sessite.readers.formats.kimi_cli.vocabulary import WIRE_NOT_SHOWN


class WireReading:
    """The state of reading one ``wire.jsonl``: approvals waiting for their answer, user inputs seen."""

    def __init__(self, f: KimiFile) -> None:
        self.f = f
        self.approvals: dict[str, str] = {}  # approval request id -> its call id
        self.prompts: list[tuple[str, int]] = []  # (the user's text, line) in order, for context.jsonl

    def record(self, line: int, record: dict[str, Any]) -> None:
        f = self.f
        if record.get("type") == "metadata":
            version = text_of(record.get("protocol_version"))
            if version:
                f.facts.meta["wire protocol"] = version
            f.merged(line, "log header (its protocol version is in the session details)")
            return
        message = record.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            f.report(line, "wire record without a message type; shown as raw JSON")
            f.put(
                f"record-{line}",
                None,
                kind=Kind.UNKNOWN,
                title="Kimi wire record without a type",
                raw=record,
                line=line,
            )
            return
        self.event(line, parse_time(record.get("timestamp")), message["type"], obj(message.get("payload")), None)

    def event(self, line: int, ts: datetime | None, kind: str, payload: dict[str, Any], agent: str | None) -> None:
        f = self.f
        if kind in WIRE_NOT_SHOWN:
            if kind == "StepBegin":
                f.new_step(agent)
            f.skip(WIRE_NOT_SHOWN[kind], line=line)
        elif kind in ("TurnBegin", "SteerInput"):
            self._user(line, ts, payload, agent, steer=kind == "SteerInput")
        elif kind == "ContentPart":
            self._part(line, ts, payload, agent)
        elif kind == "ToolCall":
            function = obj(payload.get("function"))
            name = text_of(function.get("name")) or "tool"
            tool_call(f, text_of(payload.get("id")), name, maybe_json(function.get("arguments")), line, ts, agent)
        elif kind == "ToolResult":
            value = payload.get("return_value")
            tool_result(f, text_of(payload.get("tool_call_id")), obj(value) or {"output": value}, line, ts, agent)
        elif kind == "StatusUpdate":
            self._status(line, ts, payload, agent)
        elif kind == "SubagentEvent":
            self._subagent(line, ts, payload)
        elif kind in ("ApprovalRequest", "ApprovalResponse", "ApprovalRequestResolved"):
            self._approval(line, ts, kind, payload, agent)
        else:
            self._note(line, ts, kind, payload, agent)

    def _user(self, line: int, ts: datetime | None, payload: dict[str, Any], agent: str | None, steer: bool) -> None:
        f = self.f
        text, blocks = input_text(payload.get("user_input"))
        f.new_step(agent)
        if not text.strip() and not blocks:
            f.skip("empty user input", line=line)
            return
        if agent is None:
            self.prompts.append((text, line))
            f.facts.prompt = f.facts.prompt or (shorten(text, 200) if text.strip() else None)
        meta = {"sent": "while the agent was working"} if steer else {}
        f.put(
            f"user-{line}", agent, kind=Kind.USER, timestamp=ts, text=text, blocks=tuple(blocks), line=line, meta=meta
        )

    def _part(self, line: int, ts: datetime | None, payload: dict[str, Any], agent: str | None) -> None:
        f = self.f
        kind, body = part_of(payload)
        if kind in ("text", "think") and not body.strip():
            encrypted = kind == "think" and payload.get("encrypted")
            f.skip("thinking the provider keeps encrypted" if encrypted else "empty content part", line=line)
        elif kind == "text":
            f.put(f"text-{line}", agent, kind=Kind.ASSISTANT, timestamp=ts, text=body, line=line)
        elif kind == "think":
            f.put(f"think-{line}", agent, kind=Kind.THINKING, timestamp=ts, text=body, line=line)
        else:
            f.put(f"part-{line}", agent, kind=Kind.ASSISTANT, timestamp=ts, blocks=(body,), line=line)

    def _status(self, line: int, ts: datetime | None, payload: dict[str, Any], agent: str | None) -> None:
        f = self.f
        usage = usage_of(payload.get("token_usage"))
        if usage is not None:
            if f.step_usage(agent, usage, {}):
                f.merged(line, "a step's token counts (shown on what the model produced in it)")
            else:
                _tokens_only(f, line, ts, usage, agent)
            return
        if isinstance(payload.get("plan_mode"), bool):
            title = "Plan mode on" if payload["plan_mode"] else "Plan mode off"
            f.put(f"status-{line}", agent, kind=Kind.SYSTEM, timestamp=ts, title=title, line=line)
            return
        f.skip("status update (context gauge)", line=line)

    def _subagent(self, line: int, ts: datetime | None, payload: dict[str, Any]) -> None:
        """An event of a sub-agent: read like the main agent's, into its transcript."""
        parent = text_of(payload.get("parent_tool_call_id")) or text_of(payload.get("task_tool_call_id"))
        agent_id = text_of(payload.get("agent_id"))
        key = parent or agent_id or "subagent"
        asked = self.f.call_input(parent)
        title = (
            text_of(payload.get("subagent_type"))
            or text_of(asked.get("subagent_name"))
            or text_of(asked.get("subagent_type"))
            or agent_id
            or "sub-agent"
        )
        agent = self.f.subagent(key, line, ts, title, parent)
        if agent_id:
            agent.meta.setdefault("agent", agent_id)
        inner = obj(payload.get("event"))
        kind = text_of(inner.get("type"))
        if kind is None:
            self.f.skip("sub-agent event without a type", line=line)
            return
        self.event(line, ts, kind, obj(inner.get("payload")), key)

    def _approval(self, line: int, ts: datetime | None, kind: str, payload: dict[str, Any], agent: str | None) -> None:
        f = self.f
        if kind == "ApprovalRequest":
            call_id = text_of(payload.get("tool_call_id")) or ""
            request = text_of(payload.get("id"))
            if request:
                self.approvals[request] = call_id
            note = {"approval asked": text_of(payload.get("description")) or text_of(payload.get("action")) or "yes"}
            if f.amend_call(call_id, note):
                f.merged(line, "approval request (shown in its call's details)")
                return
            text = text_of(payload.get("description")) or ""
            f.put(
                f"approval-{line}",
                agent,
                kind=Kind.SYSTEM,
                timestamp=ts,
                title="Approval requested",
                text=text,
                line=line,
            )
            return
        answer = text_of(payload.get("response")) or "answered"
        feedback = text_of(payload.get("feedback"))
        call_id = self.approvals.get(text_of(payload.get("request_id")) or "", "")
        meta = {"approval": answer, **({"feedback": feedback} if feedback else {})}
        if f.amend_call(call_id, meta):
            f.merged(line, "approval answer (shown in its call's details)")
        else:
            f.put(
                f"approval-{line}",
                agent,
                kind=Kind.SYSTEM,
                timestamp=ts,
                title="Approval answered",
                text=answer,
                line=line,
                meta=meta,
            )

    def _note(self, line: int, ts: datetime | None, kind: str, payload: dict[str, Any], agent: str | None) -> None:
        """Interruptions, compactions, hooks, notifications, plans and anything newer: titled notes."""
        f = self.f
        title, text, error = "", "", False
        meta: dict[str, Any] = {}
        if kind == "StepInterrupted":
            title = "Step interrupted"
        elif kind == "CompactionEnd":
            f.put(
                f"compaction-{line}",
                agent,
                kind=Kind.COMPACTION,
                timestamp=ts,
                text="The context was compacted.",
                line=line,
            )
            return
        elif kind == "HookResolved":
            if payload.get("action") != "block" and not text_of(payload.get("reason")):
                f.skip("hook that allowed the action", line=line)
                return
            title = f"Hook {payload.get('action') or 'resolved'}: {as_text(payload.get('event') or '')}"
            text, error = as_text(payload.get("reason") or ""), payload.get("action") == "block"
        elif kind == "Notification":
            title = text_of(payload.get("title")) or "Notification"
            text = as_text(payload.get("body") or "")
            meta = {k: payload[k] for k in ("category", "severity", "source_kind") if text_of(payload.get(k))}
        elif kind == "PlanDisplay":
            title, text = "Plan", as_text(payload.get("content") or "")
            meta = {"file": payload["file_path"]} if text_of(payload.get("file_path")) else {}
        elif kind == "QuestionRequest":
            questions = payload.get("questions")
            title = "Question for the user"
            text = "\n".join(as_text(obj(q).get("question")) for q in questions) if isinstance(questions, list) else ""
        else:
            f.other(line, kind)
            title = shorten(kind, 60)
            text = next(
                (payload[k] for k in ("message", "text", "content", "body") if isinstance(payload.get(k), str)), ""
            )
        f.put(
            f"note-{line}",
            agent,
            kind=Kind.SYSTEM,
            timestamp=ts,
            title=title,
            text=text,
            is_error=error,
            line=line,
            meta=meta,
        )


def _tokens_only(f: KimiFile, line: int, ts: datetime | None, usage: Usage, agent: str | None) -> None:
    """A step whose output is not in this log (cut off, or only encrypted thinking): its tokens still count."""
    f.put(
        f"step-{line}",
        agent,
        kind=Kind.SYSTEM,
        timestamp=ts,
        title="Model step (no content recorded)",
        usage=usage,
        line=line,
    )
