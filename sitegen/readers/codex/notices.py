"""``event_msg`` records: what the Codex UI showed.

User and agent messages and reasoning (echoes of response items, shown
once), token counts, turn markers, completion notices, and notes (errors,
warnings, review mode). Events that only announce or stream what a later
record holds in full are counted as skipped.
"""

from __future__ import annotations

from typing import Any

from sitegen.model import Block, Kind, ToolCategory
from sitegen.readers._util import obj, text_of
from sitegen.readers.base import as_text
from sitegen.readers.codex.completions import CompletionHandling
from sitegen.readers.codex.messages import MessageHandling

# event_msg types that only announce or stream what a later record holds in full.
_SKIP_EVENTS = {
    "exec_command_begin": "exec_command_begin (the call and its end notice carry the command)",
    "exec_command_output_delta": "exec_command_output_delta (streamed output; the result holds it all)",
    "terminal_interaction": "terminal_interaction (stdin sent to a running command)",
    "patch_apply_begin": "patch_apply_begin (the apply_patch call carries the patch)",
    "mcp_tool_call_begin": "mcp_tool_call_begin (the call carries the arguments)",
    "web_search_begin": "web_search_begin (the web search call carries the query)",
    "agent_message_delta": "streaming delta (the full message is recorded too)",
    "agent_reasoning_delta": "streaming delta (the full message is recorded too)",
    "agent_reasoning_raw_content_delta": "streaming delta (the full message is recorded too)",
    "agent_message_content_delta": "streaming delta (the full message is recorded too)",
    "reasoning_content_delta": "streaming delta (the full message is recorded too)",
    "reasoning_raw_content_delta": "streaming delta (the full message is recorded too)",
    "agent_reasoning_section_break": "agent_reasoning_section_break (reasoning layout marker)",
    "plan_update": "plan_update (the update_plan call shows the plan)",
    "item_started": "item_started (the completed item is recorded)",
    "raw_response_item": "raw_response_item (a copy of a response item)",
    "session_configured": "session_configured (settings shown in the session details)",
    "mcp_startup_update": "MCP server startup notice",
    "mcp_startup_complete": "MCP server startup notice",
    "mcp_list_tools_response": "UI bookkeeping event",
    "list_custom_prompts_response": "UI bookkeeping event",
    "list_skills_response": "UI bookkeeping event",
    "skills_update_available": "UI bookkeeping event",
    "get_history_entry_response": "UI bookkeeping event",
    "shutdown_complete": "UI bookkeeping event",
    "undo_started": "undo_started (the undo result is shown)",
    "exec_approval_request": "approval request (the call and its result are shown)",
    "apply_patch_approval_request": "approval request (the call and its result are shown)",
}
# event_msg types that become a SYSTEM note: type -> (title, field with the text, level)
_NOTES = {
    "error": ("Error", "message", "error"),
    "warning": ("Warning", "message", "warning"),
    "stream_error": ("Stream error", "message", "error"),
    "background_event": ("Background event", "message", None),
    "stream_info": ("Stream info", "message", None),
    "deprecation_notice": ("Deprecation notice", "summary", "warning"),
    "undo_completed": ("Undo", "message", None),
}


def _turn_meta(p: dict[str, Any]) -> dict[str, Any]:
    return {"turn_id": p["turn_id"]} if p.get("turn_id") else {}


class NoticeHandling(MessageHandling, CompletionHandling):
    """One ``event_msg`` payload becomes events, a merge into an earlier one, or a skip count."""

    def notice(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        ptype = p.get("type")
        if ptype == "user_message":
            self._user_message(lineno, ts, p)
        elif ptype == "agent_message":
            text = as_text(p.get("message") if "message" in p else p.get("text"))
            meta = {"phase": p["phase"]} if text_of(p.get("phase")) else {}
            self.message(lineno, ts, "event", "assistant", text, [], meta)
        elif ptype in ("agent_reasoning", "agent_reasoning_raw_content"):
            text = as_text(p.get("text") if "text" in p else p.get("message"))
            self.thinking(lineno, ts, "event", [text], raw=ptype == "agent_reasoning_raw_content")
        elif ptype == "token_count":
            self._token_count(p)
        elif ptype in ("turn_aborted", "task_started", "task_complete", "context_compacted"):
            self._turn_marker(lineno, ts, ptype, p)
        elif ptype == "exec_command_end":
            self.exec_end(lineno, ts, p)
        elif ptype == "patch_apply_end":
            self.patch_end(lineno, ts, p)
        elif ptype == "mcp_tool_call_end":
            self.mcp_end(lineno, ts, p)
        elif ptype == "web_search_end":
            self._web_search_end(lineno, ts, p)
        elif ptype == "view_image_tool_call":
            self._view_image(lineno, ts, p)
        elif ptype == "item_completed":
            self._item_completed(lineno, ts, p)
        elif ptype in ("turn_diff", "entered_review_mode", "exited_review_mode"):
            self._data_note(lineno, ts, ptype, p)
        elif ptype in _NOTES:
            self._note(lineno, ts, ptype, p)
        elif ptype in _SKIP_EVENTS:
            self.skipped[_SKIP_EVENTS[ptype]] += 1
        else:
            self.unknown(lineno, ts, p, f"event_msg {ptype!r}")

    def _user_message(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        text = as_text(p.get("message"))
        blocks = [Block("image", uri=u if isinstance(u, str) else None) for u in _items(p.get("images")) if u]
        blocks += [Block("image", title=as_text(u)) for u in _items(p.get("local_images")) if u]
        self.message(lineno, ts, "event", "user", text, blocks, {})

    def _token_count(self, p: dict[str, Any]) -> None:
        info = p.get("info")
        if isinstance(info, dict) and isinstance(info.get("model_context_window"), int):
            self.meta["model_context_window"] = info["model_context_window"]
        skipped = self.usage.token_count(p, self.events)
        if skipped:
            self.skipped[skipped] += 1

    def _turn_marker(self, lineno: int, ts: Any, ptype: str, p: dict[str, Any]) -> None:
        if ptype == "turn_aborted":
            reason = as_text(p.get("reason")) or "unknown"
            meta: dict[str, Any] = {k: p[k] for k in ("reason", "turn_id") if k in p}
            text = f"The turn was aborted ({reason})."
            self.emit(lineno, ts, kind=Kind.SYSTEM, title="Turn aborted", text=text, meta=meta)
        elif ptype == "task_started":
            meta = {k: v for k, v in p.items() if k != "type" and v is not None}
            self.emit(lineno, ts, kind=Kind.TASK_START, title="Turn started", meta=meta)
        elif ptype == "task_complete":
            last = as_text(p.get("last_agent_message")).strip()
            text = last if last and last != self.last_assistant_text else ""
            self.emit(lineno, ts, kind=Kind.TASK_END, title="Turn complete", text=text, meta=_turn_meta(p))
        else:
            self.emit(lineno, ts, kind=Kind.COMPACTION, title="Context compacted", meta=_turn_meta(p))

    def _web_search_end(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        query = as_text(p.get("query"))
        if text_of(p.get("call_id")) in self.calls or query in self.web_queries:
            self.skipped["web_search_end (the web search call shows the query)"] += 1
            return
        self.web_queries.setdefault(query)
        self.emit(
            lineno,
            ts,
            kind=Kind.TOOL_CALL,
            tool_name="web_search",
            category=ToolCategory.WEB,
            text=query,
            tool_input={"query": query},
            call_id=text_of(p.get("call_id")),
            model=self.model,
        )

    def _view_image(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        if text_of(p.get("call_id")) in self.calls:
            self.skipped["view_image_tool_call (the view_image call shows the path)"] += 1
            return
        self.emit(
            lineno,
            ts,
            kind=Kind.TOOL_CALL,
            tool_name="view_image",
            category=ToolCategory.READ,
            path=text_of(p.get("path")),
            tool_input={"path": p.get("path")},
            call_id=text_of(p.get("call_id")),
        )

    def _item_completed(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        """A completed plan item is shown; any other completed item copies a response item."""
        item = obj(p.get("item"))
        if str(item.get("type", "")).lower() == "plan" and isinstance(item.get("text"), str):
            meta = {k: p[k] for k in ("turn_id",) if k in p}
            self.emit(lineno, ts, kind=Kind.SYSTEM, title="Plan", text=item["text"], meta=meta)
        else:
            self.skipped["item_completed (a copy of an item recorded as a response item)"] += 1

    def _data_note(self, lineno: int, ts: Any, ptype: str, p: dict[str, Any]) -> None:
        """A turn's diff, or entering/leaving review mode: a SYSTEM event with the data as a block."""
        if ptype == "turn_diff":
            diff = as_text(p.get("unified_diff"))
            blocks = (Block("code", text=diff, language="diff"),) if diff else ()
            self.emit(lineno, ts, kind=Kind.SYSTEM, title="Turn diff", blocks=blocks)
            return
        data = {k: v for k, v in p.items() if k != "type"}
        title = "Review mode started" if ptype == "entered_review_mode" else "Review mode ended"
        self.emit(lineno, ts, kind=Kind.SYSTEM, title=title, blocks=(Block("json", data=data),) if data else ())

    def _note(self, lineno: int, ts: Any, ptype: str, p: dict[str, Any]) -> None:
        """An error, warning or other notice: a SYSTEM event with its level in the meta."""
        title, key, level = _NOTES[ptype]
        text = as_text(p.get(key))
        if ptype == "deprecation_notice" and text_of(p.get("details")):
            text = f"{text}\n\n{p['details']}"
        meta = {k: v for k, v in p.items() if k not in ("type", key, "details") and v is not None}
        if level:
            meta["level"] = level
        self.emit(lineno, ts, kind=Kind.SYSTEM, title=title, text=text, meta=meta)


def _items(value: Any) -> list[Any]:
    """A field that should be an array: itself, or nothing when it holds something else."""
    return value if isinstance(value, list) else []
