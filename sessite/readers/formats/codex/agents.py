"""Sub-agents seen from either side: their messages, their activity and the collaboration notices.

Codex's multi-agent threads talk through messages (``response_item`` of type
``agent_message`` in 0.14x, ``inter_agent_communication`` records in later
versions): a task the parent gives, a sub-agent's message or final answer. Each
becomes a SYSTEM event titled by what it is and who sent it. ``sub_agent_activity``
and the ``collab_*_end`` notices say which sub-agent thread a collaboration call
started or reached: that fact goes on the call (the notice is merged), and the
thread id is how a sub-agent's own rollout finds its place under that call
(``family``). A notice whose call is not recorded is shown as a note of its own.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from sessite.model import Kind
from sessite.readers._util import shorten, text_of
from sessite.readers.base import as_text
from sessite.readers.formats.codex.assembly import Assembly
from sessite.readers.labels import humanize

# The envelope Codex wraps an inter-agent message in (the payload follows it).
_ENVELOPE = re.compile(
    r"\AMessage Type: (?P<type>[A-Za-z_]+)\r?\nTask name: (?P<task>[^\n]*)\r?\nSender: (?P<sender>[^\n]*)\r?\n"
    r"Payload:[ \t]*\r?\n?"
)
_MESSAGE_LABELS = {"NEW_TASK": "Task", "MESSAGE": "Message", "FINAL_ANSWER": "Final answer"}
ENCRYPTED_NOTE = "*(encrypted in the log; not readable)*"
# collab_*_end notice -> the title of the note shown when its call is not recorded
_COLLAB_TITLES = {
    "collab_agent_spawn_end": "Sub-agent spawned",
    "collab_agent_interaction_end": "Message to a sub-agent",
    "collab_waiting_end": "Waited for sub-agents",
    "collab_close_end": "Sub-agent closed",
    "collab_resume_end": "Sub-agent resumed",
    "collab_agent_completed": "Sub-agent finished",
}
# Facts a collaboration notice adds to its call (snake_case as written; camelCase in some builds).
_COLLAB_FACTS = (
    "new_thread_id",
    "new_agent_nickname",
    "new_agent_role",
    "receiver_thread_id",
    "receiver_agent_nickname",
    "receiver_agent_role",
    "child_thread_id",
    "agent_path",
    "agent_nickname",
    "agent_role",
    "status",
    "statuses",
    "agent_statuses",
    "model",
    "reasoning_effort",
    "last_assistant_message",
)


class AgentHandling(Assembly):
    """Inter-agent messages and the notices that tie a sub-agent thread to the call that reached it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.child_calls: dict[str, str] = {}  # sub-agent thread id -> id of the call that started it

    def agent_message(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        """A ``response_item`` of type ``agent_message``: ``author``, ``recipient`` and content items."""
        texts: list[str] = []
        encrypted = False
        content = p.get("content")
        for item in content if isinstance(content, list) else [content]:
            if isinstance(item, dict) and item.get("type") == "encrypted_content":
                encrypted = True
            elif isinstance(item, dict):
                texts.append(as_text(item.get("text")))
            elif item is not None:
                texts.append(as_text(item))
        self._inter_agent(lineno, ts, p, "".join(texts), encrypted)

    def inter_agent_communication(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        """An ``inter_agent_communication`` record: ``author``, ``recipient``, ``content``, ``trigger_turn``."""
        self._inter_agent(lineno, ts, p, as_text(p.get("content")), bool(p.get("encrypted_content")))

    def _inter_agent(self, lineno: int, ts: Any, p: dict[str, Any], text: str, encrypted: bool) -> None:
        envelope = _ENVELOPE.match(text)
        body = text[envelope.end() :] if envelope else text
        author = text_of(p.get("author")) or (envelope.group("sender").strip() if envelope else None)
        recipient = text_of(p.get("recipient")) or (envelope.group("task").strip() if envelope else None)
        kind = envelope.group("type") if envelope else "MESSAGE"
        label = _MESSAGE_LABELS.get(kind) or humanize(kind)
        meta: dict[str, Any] = {"message_type": kind}
        if recipient:
            meta["recipient"] = recipient
        if isinstance(p.get("other_recipients"), list) and p["other_recipients"]:
            meta["other_recipients"] = p["other_recipients"]
        if isinstance(p.get("trigger_turn"), bool):
            meta["trigger_turn"] = p["trigger_turn"]
        parts = [body.strip()] if body.strip() else []
        if encrypted:
            parts.append(ENCRYPTED_NOTE)
        title = f"{label} from {author}" if author else label
        if kind == "NEW_TASK" and self.title is None and body.strip():
            self.title = shorten(body.strip())  # a sub-agent's task names it (its session says it is one)
        self.emit(lineno, ts, kind=Kind.SYSTEM, title=title, text="\n\n".join(parts), meta=meta)

    def sub_agent_activity(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        """``sub_agent_activity``: a collaboration call (``event_id``) started or reached a sub-agent thread."""
        call_id = text_of(p.get("event_id")) or text_of(p.get("call_id"))
        thread = text_of(p.get("agent_thread_id"))
        kind = text_of(p.get("kind")) or "activity"
        if thread and call_id and kind == "started":
            self.child_calls.setdefault(thread, call_id)
        facts = {k: v for k, v in (("sub_agent_thread_id", thread), ("sub_agent_path", p.get("agent_path"))) if v}
        facts["sub_agent_activity"] = kind
        if self._on_call(call_id, facts):
            self.merged(lineno, "sub_agent_activity (noted on the call that reached the sub-agent)")
            return
        path = text_of(p.get("agent_path")) or thread or "a sub-agent"
        self.emit(lineno, ts, kind=Kind.SYSTEM, title=f"Sub-agent {kind}: {path}", meta=facts)

    def collab_notice(self, lineno: int, ts: Any, ptype: str, p: dict[str, Any]) -> None:
        """A ``collab_*`` notice: a begin is left out (its end says all), an end goes on its call."""
        if ptype.endswith("_begin"):
            self.skip(f"{ptype} (the collaboration call and its end notice carry it)", lineno)
            return
        call_id = _pick(p, "call_id")
        facts = {key: value for key in _COLLAB_FACTS if (value := _pick(p, key)) not in (None, "", [], {})}
        child = _pick(p, "new_thread_id")
        if isinstance(child, str) and isinstance(call_id, str) and child:
            self.child_calls.setdefault(child, call_id)
        if self._on_call(call_id if isinstance(call_id, str) else None, facts):
            self.merged(lineno, f"{ptype} (noted on its collaboration call)")
            return
        prompt = as_text(_pick(p, "prompt") or _pick(p, "last_assistant_message") or "")
        facts.pop("last_assistant_message", None)
        title = _COLLAB_TITLES.get(ptype) or humanize(ptype)
        self.emit(lineno, ts, kind=Kind.SYSTEM, title=title, text=prompt, meta=facts)

    def _on_call(self, call_id: str | None, facts: dict[str, Any]) -> bool:
        """Add ``facts`` to the call ``call_id`` names; False when no such call is recorded."""
        index = self.calls.get(call_id or "")
        if index is None:
            return False
        event = self.events[index]
        self.events[index] = replace(event, meta={**event.meta, **facts})
        return True


def _pick(p: dict[str, Any], key: str) -> Any:
    """A notice's field, written snake_case or (some builds) camelCase."""
    if key in p:
        return p[key]
    head, *rest = key.split("_")
    return p.get(head + "".join(word.capitalize() for word in rest))
