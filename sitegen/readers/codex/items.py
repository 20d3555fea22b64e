"""``response_item`` records: what went to and came from the model.

Messages, reasoning, tool calls and their outputs, web searches and
compaction items. A call and its output are paired by ``call_id``.
"""

from __future__ import annotations

from typing import Any

from sitegen.model import Kind, ToolCategory
from sitegen.readers._util import obj, text_of
from sitegen.readers.base import as_text
from sitegen.readers.codex.content import content_text
from sitegen.readers.codex.messages import MessageHandling
from sitegen.readers.codex.shell import parse_output
from sitegen.readers.codex.tools import tool_fields
from sitegen.readers.safejson import loads

_CALLS = ("function_call", "custom_tool_call", "local_shell_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")


class ItemHandling(MessageHandling):
    """One ``response_item`` payload (or a bare item of a legacy rollout) becomes events."""

    def item(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        ptype = p.get("type")
        if ptype == "message":
            role = text_of(p.get("role")) or "unknown"
            text, blocks = content_text(p.get("content"))
            meta = {"phase": p["phase"]} if text_of(p.get("phase")) else {}
            self.message(lineno, ts, "item", role, text, blocks, meta)
        elif ptype == "reasoning":
            self._reasoning(lineno, ts, p)
        elif ptype in _CALLS:
            self._call(lineno, ts, p)
        elif ptype in _OUTPUTS:
            self._output(lineno, ts, p)
        elif ptype == "web_search_call":
            self._web_search(lineno, ts, p)
        elif ptype == "ghost_snapshot":
            self.skipped["ghost_snapshot (undo checkpoint commit)"] += 1
        elif ptype in ("compaction", "compaction_summary"):
            meta = {"encrypted": True} if p.get("encrypted_content") else {}
            text = as_text(p.get("summary") or p.get("text") or "")
            self.emit(lineno, ts, kind=Kind.COMPACTION, title="Context compacted", text=text, meta=meta)
        else:
            self.unknown(lineno, ts, p, f"response item {ptype!r}")

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
            self.skipped["reasoning item without readable text (encrypted or empty summary)"] += 1
            return
        self.thinking(lineno, ts, "item", summary, raw=False)
        self.thinking(lineno, ts, "item", content, raw=True)

    def _call(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        call_id = text_of(p.get("call_id")) or text_of(p.get("id"))
        name, args, meta = _call_parts(p)
        fields = tool_fields(name, args)
        text = fields.pop("text", "")
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
            self.skipped[f"{p.get('type')} (merged with the completion notice shown as the result)"] += 1
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

    def _web_search(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        action = obj(p.get("action"))
        text = _web_search_text(action)
        if isinstance(action.get("query"), str):
            self.web_queries.setdefault(action["query"])
        meta = {"status": p["status"]} if text_of(p.get("status")) and p["status"] != "completed" else {}
        call_id = text_of(p.get("id")) or text_of(p.get("call_id"))
        index = self.emit(
            lineno,
            ts,
            kind=Kind.TOOL_CALL,
            tool_name="web_search",
            category=ToolCategory.WEB,
            tool_input=action or None,
            text=text,
            call_id=call_id,
            model=self.model,
            meta=meta,
        )
        if call_id:
            self.calls.setdefault(call_id, index)


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
    if text_of(p.get("namespace")):
        meta["namespace"] = p["namespace"]
    if text_of(p.get("status")) and p["status"] != "completed":
        meta["status"] = p["status"]
    if isinstance(args, dict):
        for key in ("workdir", "justification"):
            if text_of(args.get(key)):
                meta[key] = args[key]
    return name, args, meta


def _web_search_text(action: dict[str, Any]) -> str:
    """The query (and any further queries), page or find-in-page pattern a web search action shows."""
    atype = action.get("type")
    if atype == "search" or "query" in action:
        text = as_text(action.get("query"))
        queries = action.get("queries")
        if isinstance(queries, list) and len(queries) > 1:
            text += "\n\n" + "\n".join(f"- {as_text(q)}" for q in queries)
        return text
    if atype == "open_page":
        return as_text(action.get("url"))
    if atype == "find_in_page":
        return f"“{as_text(action.get('pattern'))}” in {as_text(action.get('url'))}"
    return ""
