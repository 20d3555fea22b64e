"""Kimi Code's ``agents/<agent>/wire.jsonl``: one record per thing that happened, typed by name.

Line 1 is ``{"type": "metadata", "protocol_version", "created_at"}``; then records such
as ``turn.prompt`` (the user's input, with its ``origin``), ``context.append_message``
(what went into the model's context: the same prompt again, or a reminder the CLI
injected), ``context.append_loop_event`` (the agent loop: ``step.begin``, ``content.part``,
``tool.call``, ``tool.result``, ``step.end`` with the step's tokens), ``usage.record`` (the
same tokens again), ``permission.record_approval_result`` (how a call was approved, just
before the call), plan mode, cancellations and compactions; times are epoch milliseconds.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sessite.model import Kind
from sessite.readers._util import obj, opt_int, shorten, text_of
from sessite.readers.base import as_text, parse_time
from sessite.readers.formats.kimi_cli.calls import tool_call, tool_result
from sessite.readers.formats.kimi_cli.content import input_text, part_of, usage_of
from sessite.readers.formats.kimi_cli.state import KimiFile
from sessite.readers.formats.kimi_cli.vocabulary import AGENT_ID, CODE_NOT_SHOWN, CODE_NOTES, CONFIG


class CodeReading:
    """The state of reading one Kimi Code log: prompts waiting for their context copy, approvals
    waiting for their call, the sub-agents its ``Agent`` calls started."""

    def __init__(self, f: KimiFile, agent: str | None = None) -> None:
        self.f = f
        self.agent = agent  # the sub-agent this log is (None: the main agent)
        self.typed: list[str] = []  # the user's inputs not yet seen again in the context
        self.approvals: dict[str, tuple[int, dict[str, Any]]] = {}  # call id -> (line, approval)
        self.started: dict[str, str] = {}  # sub-agent id -> the Agent call that started it
        self.step_usage = False
        self.model: str | None = None  # the model the last configuration names

    def record(self, line: int, record: dict[str, Any]) -> None:
        f = self.f
        kind = text_of(record.get("type")) or ""
        ts = parse_time(record.get("time"))
        if kind == "metadata":
            for key, label in (("protocol_version", "wire protocol"), ("created_at", "created")):
                if record.get(key) is not None:
                    f.facts.meta.setdefault(label, record[key])
            f.merged(line, "log header (its protocol version is in the session details)")
        elif kind in CODE_NOT_SHOWN:
            f.skip(CODE_NOT_SHOWN[kind], line=line)
        elif kind == "config.update":
            self.model = text_of(record.get("modelAlias")) or self.model
            f.model(self.model)
            f.facts.cwd = f.facts.cwd or text_of(record.get("cwd"))
            f.skip(CONFIG, line=line)
        elif kind in ("turn.prompt", "turn.steer"):
            self._prompt(line, ts, record, steer=kind == "turn.steer")
        elif kind == "context.append_message":
            self._context(line, ts, obj(record.get("message")))
        elif kind == "context.append_loop_event":
            self._loop(line, ts, obj(record.get("event")))
        elif kind == "usage.record":
            self._usage(line, ts, record)
        elif kind == "permission.record_approval_result":
            self.approvals[text_of(record.get("toolCallId")) or ""] = (line, record)
            f.merged(line, "how a call was approved (shown in its call's details)")
        elif kind == "context.apply_compaction":
            self._compaction(line, ts, record)
        else:
            self._note(line, ts, kind, record)

    def _prompt(self, line: int, ts: datetime | None, record: dict[str, Any], steer: bool) -> None:
        f = self.f
        text, blocks = input_text(record.get("input"))
        origin = obj(record.get("origin"))
        by_user = origin.get("kind") in (None, "user")
        self.typed.append(text)
        if by_user and self.agent is None and text.strip():
            f.facts.prompt = f.facts.prompt or shorten(text, 200)
        meta: dict[str, Any] = {"sent": "while the agent was working"} if steer else {}
        if not by_user:
            meta["from"] = text_of(origin.get("name")) or text_of(origin.get("kind")) or "the CLI"
        f.new_step(self.agent)
        f.put(
            f"user-{line}",
            self.agent,
            kind=Kind.USER,
            timestamp=ts,
            text=text,
            blocks=tuple(blocks),
            line=line,
            meta=meta,
        )

    def _context(self, line: int, ts: datetime | None, message: dict[str, Any]) -> None:
        """What went into the model's context: the user's input again (merged), or what the CLI added."""
        f = self.f
        text, blocks = input_text(message.get("content"))
        origin = obj(message.get("origin"))
        if message.get("role") == "user" and origin.get("kind") != "injection" and text in self.typed:
            self.typed.remove(text)
            f.merged(line, "the user's input as it went into the context (shown as the prompt)")
            return
        if message.get("role") == "assistant":
            f.put(
                f"context-{line}",
                self.agent,
                kind=Kind.ASSISTANT,
                timestamp=ts,
                text=text,
                blocks=tuple(blocks),
                line=line,
            )
            return
        variant = text_of(origin.get("variant")) or text_of(origin.get("kind")) or as_text(message.get("role"))
        f.put(
            f"context-{line}",
            self.agent,
            kind=Kind.SYSTEM,
            timestamp=ts,
            title=f"Added to the context ({variant})",
            text=text,
            blocks=tuple(blocks),
            line=line,
        )

    def _loop(self, line: int, ts: datetime | None, event: dict[str, Any]) -> None:
        f = self.f
        kind = text_of(event.get("type")) or ""
        if kind == "step.begin":
            f.new_step(self.agent)
            self.step_usage = False
            f.skip("step start marker (a step is shown by its messages and calls)", line=line)
        elif kind == "content.part":
            part, body = part_of(event.get("part"))
            if part in ("text", "think") and not body.strip():
                f.skip("empty content part", line=line)
            elif part in ("text", "think"):
                f.put(
                    f"part-{line}",
                    self.agent,
                    kind=Kind.THINKING if part == "think" else Kind.ASSISTANT,
                    timestamp=ts,
                    text=body,
                    model=self.model,
                    line=line,
                )
            else:
                f.put(f"part-{line}", self.agent, kind=Kind.ASSISTANT, timestamp=ts, blocks=(body,), line=line)
        elif kind == "tool.call":
            self._call(line, ts, event)
        elif kind == "tool.result":
            call_id = text_of(event.get("toolCallId"))
            result = obj(event.get("result"))
            tool_result(f, call_id, result, line, ts, self.agent)
            started = AGENT_ID.search(text_of(result.get("output")) or "")
            if call_id and started:
                self.started[started.group(1)] = call_id
        elif kind == "step.end":
            facts = {"finish": event["finishReason"]} if text_of(event.get("finishReason")) else {}
            usage = usage_of(event.get("usage"))
            self.step_usage = usage is not None
            if f.step_usage(self.agent, usage, facts):
                f.merged(line, "a step's end and token counts (shown on what the model produced in it)")
            else:
                f.skip("step end marker", line=line)
        else:
            f.other(line, f"loop event {kind}")
            f.put(
                f"loop-{line}",
                self.agent,
                kind=Kind.SYSTEM,
                timestamp=ts,
                title=shorten(kind or "loop event", 60),
                line=line,
            )

    def _call(self, line: int, ts: datetime | None, event: dict[str, Any]) -> None:
        call_id = text_of(event.get("toolCallId"))
        meta: dict[str, Any] = {}
        if text_of(event.get("description")):
            meta["description"] = event["description"]
        approval = self.approvals.pop(call_id or "", None)
        if approval is not None:
            result = obj(approval[1].get("result"))
            meta["approval"] = ", ".join(as_text(v) for v in result.values() if isinstance(v, (str, bool, int)))
        name = text_of(event.get("name")) or "tool"
        tool_call(self.f, call_id, name, event.get("args"), line, ts, self.agent, meta)

    def _usage(self, line: int, ts: datetime | None, record: dict[str, Any]) -> None:
        f = self.f
        f.model(text_of(record.get("model")))
        if self.step_usage:
            f.merged(line, "a step's token counts again (shown on what the model produced in it)")
            return
        usage = usage_of(record.get("usage"))
        if usage is not None and f.step_usage(self.agent, usage, {}):
            f.merged(line, "a step's token counts (shown on what the model produced in it)")
        elif usage is not None:
            f.put(
                f"usage-{line}",
                self.agent,
                kind=Kind.SYSTEM,
                timestamp=ts,
                title="Model step (no content recorded)",
                usage=usage,
                line=line,
            )
        else:
            f.skip("usage record without counts", line=line)

    def _compaction(self, line: int, ts: datetime | None, record: dict[str, Any]) -> None:
        meta = {
            label: opt_int(record.get(key))
            for key, label in (
                ("tokensBefore", "tokens before"),
                ("tokensAfter", "tokens after"),
                ("compactedCount", "messages compacted"),
            )
            if opt_int(record.get(key)) is not None
        }
        text = text_of(record.get("summary")) or text_of(record.get("contextSummary")) or ""
        self.f.put(
            f"compaction-{line}", self.agent, kind=Kind.COMPACTION, timestamp=ts, text=text, line=line, meta=meta
        )

    def _note(self, line: int, ts: datetime | None, kind: str, record: dict[str, Any]) -> None:
        f = self.f
        title = CODE_NOTES.get(kind)
        if title is None:
            f.other(line, kind or "untyped")
            title = shorten(kind or "record", 60)
        text = as_text(record.get("mode") or record.get("reason") or record.get("message") or "")
        f.put(f"note-{line}", self.agent, kind=Kind.SYSTEM, timestamp=ts, title=title, text=text, line=line)

    def finish(self) -> None:
        """Approvals whose call never came: each a note."""
        for call_id, (line, record) in self.approvals.items():
            result = obj(record.get("result"))
            self.f.put(
                f"approval-{line}",
                self.agent,
                kind=Kind.SYSTEM,
                timestamp=parse_time(record.get("time")),
                title="Approval recorded",
                text=as_text(record.get("action") or call_id),
                line=line,
                meta={k: v for k, v in result.items() if isinstance(v, (str, bool, int))},
            )
