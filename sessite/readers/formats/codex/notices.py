"""``event_msg`` records: what the Codex UI showed.

User and agent messages and reasoning (echoes of response items, shown
once), token counts, turn markers, completion notices, web searches and image
generations (``hosted``), sub-agent and collaboration notices (``agents``),
settings and guardian reviews (``context``), and notes (errors, warnings,
review mode, thread renames). Events that only announce or stream what a later
record holds in full are counted as skipped.
"""

from __future__ import annotations

from typing import Any

from sessite.model import Block, Kind, ToolCategory
from sessite.readers._util import array, obj, text_of
from sessite.readers.base import as_text
from sessite.readers.formats.codex.agents import AgentHandling
from sessite.readers.formats.codex.completions import CompletionHandling
from sessite.readers.formats.codex.context import ContextHandling, settings_text
from sessite.readers.formats.codex.hosted import HostedToolHandling
from sessite.readers.formats.codex.messages import MessageHandling

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
    "image_generation_begin": "image_generation_begin (the image generation carries the prompt)",
    "hook_started": "hook_started (the completed hook is shown)",
    "patch_apply_updated": "streaming delta (the full message is recorded too)",
    "plan_delta": "streaming delta (the full message is recorded too)",
    "context_usage": "context window usage (token bookkeeping)",
    "thread_context_usage_updated": "context window usage (token bookkeeping)",
    "thread_skills_updated": "UI bookkeeping event",
    "user_input_committed": "user_input_committed (the user message is recorded)",
    "realtime_conversation_started": "realtime voice conversation event (its audio is not kept)",
    "realtime_conversation_realtime": "realtime voice conversation event (its audio is not kept)",
    "realtime_conversation_closed": "realtime voice conversation event (its audio is not kept)",
    "realtime_conversation_sdp": "realtime voice conversation event (its audio is not kept)",
    "realtime_conversation_list_voices_response": "UI bookkeeping event",
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
    "guardian_warning": ("Guardian warning", "message", "warning"),
}
# event_msg types shown as a SYSTEM note listing their fields: type -> title
_DATA_NOTES = {
    "thread_name_updated": "Thread named",
    "thread_goal_updated": "Goal updated",
    "thread_rolled_back": "Thread rolled back",
    "model_reroute": "Model rerouted",
    "model_verification": "Model verification",
    "request_user_input": "Question for the user",
    "request_permissions": "Permission request",
    "elicitation_request": "MCP server request",
    "dynamic_tool_call_request": "Dynamic tool call",
    "dynamic_tool_call_response": "Dynamic tool call result",
}
# Turn markers (``turn_*`` is the v2 name some builds write).
_MARKERS = {
    "turn_aborted": "turn_aborted",
    "task_started": "task_started",
    "turn_started": "task_started",
    "task_complete": "task_complete",
    "turn_complete": "task_complete",
    "context_compacted": "context_compacted",
}


def _turn_meta(p: dict[str, Any]) -> dict[str, Any]:
    return {"turn_id": p["turn_id"]} if p.get("turn_id") else {}


class NoticeHandling(MessageHandling, CompletionHandling, HostedToolHandling, AgentHandling, ContextHandling):
    """One ``event_msg`` payload becomes events, a merge into an earlier one, or a skip count."""

    def notice(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        ptype = p.get("type")
        if not isinstance(ptype, str):
            self.unknown(lineno, ts, p, f"event_msg {ptype!r}")
        elif ptype in ("user_message", "agent_message", "agent_reasoning", "agent_reasoning_raw_content"):
            self._conversation(lineno, ts, ptype, p)
        elif ptype == "token_count":
            self._token_count(lineno, p)
        elif ptype in _MARKERS:
            self._turn_marker(lineno, ts, _MARKERS[ptype], p)
        elif ptype in _NOTICE_HANDLERS:
            getattr(self, _NOTICE_HANDLERS[ptype])(lineno, ts, p)
        elif ptype.startswith("collab_"):
            self.collab_notice(lineno, ts, ptype, p)
        elif ptype in ("turn_diff", "entered_review_mode", "exited_review_mode"):
            self._data_note(lineno, ts, ptype, p)
        elif ptype in _NOTES:
            self._note(lineno, ts, ptype, p)
        elif ptype in _DATA_NOTES:
            self._fields_note(lineno, ts, _DATA_NOTES[ptype], p)
        elif ptype in _SKIP_EVENTS:
            self.skip(_SKIP_EVENTS[ptype], lineno)
        else:
            self.unknown(lineno, ts, p, f"event_msg {ptype!r}")

    def _conversation(self, lineno: int, ts: Any, ptype: str, p: dict[str, Any]) -> None:
        """The UI's copy of a user or agent message, or of a reasoning summary."""
        if ptype == "user_message":
            self._user_message(lineno, ts, p)
        elif ptype == "agent_message":
            text = as_text(p.get("message") if "message" in p else p.get("text"))
            meta: dict[str, Any] = {"phase": p["phase"]} if text_of(p.get("phase")) else {}
            if p.get("memory_citation"):
                meta["memory_citation"] = p["memory_citation"]
            self.message(lineno, ts, "event", "assistant", text, [], meta)
        else:
            text = as_text(p.get("text") if "text" in p else p.get("message"))
            if not text.strip():
                self.skip("empty reasoning text", lineno)
                return
            self.thinking(lineno, ts, "event", [text], raw=ptype == "agent_reasoning_raw_content")

    def _user_message(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        text = as_text(p.get("message"))
        blocks = [Block("image", uri=u if isinstance(u, str) else None) for u in array(p.get("images")) if u]
        blocks += [Block("image", title=as_text(u)) for u in array(p.get("local_images")) if u]
        self.message(lineno, ts, "event", "user", text, blocks, {})

    def _token_count(self, lineno: int, p: dict[str, Any]) -> None:
        info = p.get("info")
        if isinstance(info, dict) and isinstance(info.get("model_context_window"), int):
            self.meta["model_context_window"] = info["model_context_window"]
        skipped = self.usage.token_count(p, self.events)
        if skipped:
            self.skip(skipped, lineno)
        else:
            self.merged(lineno, "token_count (its usage is shown on the turn's model events)")

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

    def _view_image(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        if text_of(p.get("call_id")) in self.calls:
            self.fold("view_image_tool_call (the view_image call shows the path)", lineno)
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
            self.skip("item_completed (a copy of an item recorded as a response item)", lineno)

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

    def _hook(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        """A hook that ran: its event, status and what it said."""
        run = obj(p.get("run"))
        title = f"Hook {as_text(run.get('event_name')) or 'run'}: {as_text(run.get('status')) or 'done'}"
        entries = [obj(e) for e in run.get("entries") or [] if isinstance(e, dict)]
        text = "\n".join(f"- {as_text(e.get('kind'))}: {as_text(e.get('text'))}" for e in entries)
        keys = ("handler_type", "source_path", "status_message", "duration_ms")
        meta = {k: run[k] for k in keys if run.get(k) not in (None, "")}
        self.emit(lineno, ts, kind=Kind.SYSTEM, title=title, text=text, meta=meta)

    def _fields_note(self, lineno: int, ts: Any, title: str, p: dict[str, Any]) -> None:
        """A notice shown as a note listing its fields (a rename, a rollback, a hook's run)."""
        fields = {k: v for k, v in p.items() if k not in ("type", "turn_id") and v not in (None, "", [], {})}
        meta = {"turn_id": p["turn_id"]} if text_of(p.get("turn_id")) else {}
        self.emit(lineno, ts, kind=Kind.SYSTEM, title=title, text=settings_text(fields), meta=meta)


# event_msg types with a handler of their own: type -> method name
_NOTICE_HANDLERS = {
    "exec_command_end": "exec_end",
    "patch_apply_end": "patch_end",
    "mcp_tool_call_end": "mcp_end",
    "web_search_end": "web_search_end",
    "image_generation_end": "image_generation_end",
    "view_image_tool_call": "_view_image",
    "item_completed": "_item_completed",
    "sub_agent_activity": "sub_agent_activity",
    "thread_settings_applied": "thread_settings",
    "guardian_assessment": "guardian",
    "hook_completed": "_hook",
}
