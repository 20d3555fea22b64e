"""``response_item`` records: what went to and came from the model.

Messages, reasoning, tool calls and their outputs, compaction items, and
the items other modules read: web and tool searches and image generations
(``hosted``), inter-agent messages (``agents``). A call and its output are
paired by ``call_id``.
"""

from __future__ import annotations

from typing import Any

from sessite.model import Kind, ToolCategory
from sessite.readers._util import obj, text_of
from sessite.readers.base import as_text
from sessite.readers.formats.codex.agents import AgentHandling
from sessite.readers.formats.codex.calls import tool_fields
from sessite.readers.formats.codex.content import content_text, user_parts
from sessite.readers.formats.codex.hosted import HostedToolHandling, web_run_text
from sessite.readers.formats.codex.messages import MessageHandling
from sessite.readers.formats.codex.shell import parse_output
from sessite.readers.safejson import loads

_CALLS = ("function_call", "custom_tool_call", "local_shell_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")
# response item type -> the method that reads it
_ITEM_HANDLERS = {
    "reasoning": "_reasoning",
    "web_search_call": "web_search_item",
    "image_generation_call": "image_generation_item",
    "tool_search_call": "tool_search_call",
    "tool_search_output": "tool_search_output",
    "agent_message": "agent_message",
    **dict.fromkeys(_CALLS, "_call"),
    **dict.fromkeys(_OUTPUTS, "_output"),
}
# Items that never reach a page: type -> why
_SKIP_ITEMS = {
    "ghost_snapshot": "ghost_snapshot (undo checkpoint commit)",
    "compaction_trigger": "compaction_trigger (a request to compact; the compaction is recorded)",
    "additional_tools": "additional_tools (tool definitions offered to the model)",
}


class ItemHandling(MessageHandling, HostedToolHandling, AgentHandling):
    """One ``response_item`` payload (or a bare item of a legacy rollout) becomes events."""

    def item(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        ptype = p.get("type")
        if ptype == "message":
            self._message_item(lineno, ts, p)
        elif isinstance(ptype, str) and ptype in _ITEM_HANDLERS:
            getattr(self, _ITEM_HANDLERS[ptype])(lineno, ts, p)
        elif isinstance(ptype, str) and ptype in _SKIP_ITEMS:
            self.skip(_SKIP_ITEMS[ptype], lineno)
        elif ptype in ("compaction", "compaction_summary", "context_compaction"):
            meta = {"encrypted": True} if p.get("encrypted_content") else {}
            text = as_text(p.get("summary") or p.get("text") or "")
            self.emit(lineno, ts, kind=Kind.COMPACTION, title="Context compacted", text=text, meta=meta)
        else:
            self.unknown(lineno, ts, p, f"response item {ptype!r}")

    def _message_item(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        """A message; a user's is split so each injected context item is a note of its own."""
        role = text_of(p.get("role")) or "unknown"
        meta = {"phase": p["phase"]} if text_of(p.get("phase")) else {}
        if role != "user":
            text, blocks = content_text(p.get("content"))
            self.message(lineno, ts, "item", role, text, blocks, meta)
            return
        parts = user_parts(p.get("content"))
        if not parts:
            self.skip("empty message", lineno)
        for index, (text, blocks) in enumerate(parts):
            self.message(lineno, ts, "item", role, text, blocks, meta, f"-{index + 1}" if index else "")

    def _reasoning(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        listed = p.get("summary")
        summary = [
            as_text(s.get("text")) if isinstance(s, dict) else as_text(s)
            for s in (listed if isinstance(listed, list) else [])
            if s
        ]
        content = (
            [as_text(c.get("text")) if isinstance(c, dict) else as_text(c) for c in (p.get("content") or []) if c]
            if isinstance(p.get("content"), list)
            else []
        )
        if not any(s.strip() for s in summary) and not any(c.strip() for c in content):
            self.skip("reasoning item without readable text (encrypted or empty summary)", lineno)
            return
        self.thinking(lineno, ts, "item", summary, raw=False)
        self.thinking(lineno, ts, "item", content, raw=True)

    def _call(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        call_id = text_of(p.get("call_id")) or text_of(p.get("id"))
        name, args, meta = _call_parts(p)
        fields = tool_fields(name, args)
        text = fields.pop("text", "")
        namespace = text_of(p.get("namespace"))
        if namespace:
            name = f"{namespace}.{name}"  # web.run, collaboration.spawn_agent, an MCP server's tool
        if namespace == "web":
            fields["category"] = ToolCategory.WEB
            text = text or web_run_text(args)
        index = self.emit(
            lineno,
            ts,
            kind=Kind.TOOL_CALL,
            tool_name=name,
            tool_input=args,
            call_id=call_id,
            text=text,
            model=self.model,
            meta=meta,
            **fields,
        )
        if call_id:
            if call_id in self.calls:
                self.problems.add(
                    self.path, lineno, f"call_id {call_id!r} used by two calls; results pair with the first"
                )
            else:
                self.calls[call_id] = index

    def _output(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        call_id = text_of(p.get("call_id"))
        parsed = parse_output(p.get("output"))
        if call_id in self.results:
            self.merge_result(call_id, parsed)
            self.fold(f"{p.get('type')} (merged with the completion notice shown as the result)", lineno)
            return
        meta = parsed["meta"]
        if call_id and call_id not in self.calls:
            meta["unmatched_call"] = True
        index = self.emit(
            lineno,
            ts,
            kind=Kind.TOOL_RESULT,
            call_id=call_id,
            tool_name=self.call_name(call_id),
            text=parsed["text"],
            blocks=parsed["blocks"],
            exit_code=parsed["exit_code"],
            is_error=parsed["is_error"],
            meta=meta,
        )
        if call_id:
            self.results[call_id] = index


def _call_parts(p: dict[str, Any]) -> tuple[str, Any, dict[str, Any]]:
    """Tool name, arguments and meta of a function, custom tool or local shell call."""
    ptype = p.get("type")
    meta: dict[str, Any] = {}
    args: Any
    if ptype == "local_shell_call":
        name = "local_shell"
        action = obj(p.get("action"))
        args = {"command": action.get("command"), **{k: v for k, v in action.items() if k not in ("command", "type")}}
    elif ptype == "custom_tool_call":
        name = text_of(p.get("name")) or "custom_tool"
        args = p.get("input")
    else:
        name = text_of(p.get("name")) or "function"
        args = p.get("arguments")
        if isinstance(args, str):
            try:
                args = loads(args) if args.strip() else {}
            except ValueError:
                meta["arguments"] = "not valid JSON; shown as given"
    if text_of(p.get("status")) and p["status"] != "completed":
        meta["status"] = p["status"]
    if isinstance(args, dict):
        for key in ("workdir", "justification"):
            if text_of(args.get(key)):
                meta[key] = args[key]
    return name, args, meta
