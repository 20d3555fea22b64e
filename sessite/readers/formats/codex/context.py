"""What surrounds the conversation: the world state, thread settings and guardian reviews.

``world_state`` (0.145+) is the context baseline the model is given (AGENTS.md,
skills, permissions, environment), written whole (``full``) or as a change;
``thread_settings_applied`` records a change of model, mode or policy; a
``guardian_assessment`` is an automatic reviewer's verdict on an action, written
as it starts and again when it ends (one note per review, updated in place).
All are SYSTEM events whose text is readable markdown, never a JSON dump.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from sessite.model import Kind
from sessite.readers._util import obj, text_of
from sessite.readers.base import as_text
from sessite.readers.formats.codex.assembly import Assembly
from sessite.readers.labels import humanize

_LONG = 120  # a string value this long (or with a line break) gets a section of its own
_GUARDIAN_ACTIONS = {
    "command": "command",
    "execve": "program",
    "apply_patch": "files",
    "network_access": "target",
    "mcp_tool_call": "tool_name",
    "request_permissions": "reason",
}


class ContextHandling(Assembly):
    """World state, thread settings and guardian assessments."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.reviews: dict[str, int] = {}  # guardian review id -> index of its note

    def world_state(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        state = obj(p.get("state"))
        text = settings_text(state)
        if not text:
            self.skip("world_state with nothing in it", lineno)
            return
        title = "World state" if p.get("full") is not False else "World state update"
        self.emit(lineno, ts, kind=Kind.SYSTEM, title=title, text=text)

    def thread_settings(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        settings = obj(p.get("thread_settings")) or {k: v for k, v in p.items() if k != "type"}
        mode = obj(settings.get("collaboration_mode"))
        shown = {k: v for k, v in settings.items() if k != "collaboration_mode"}
        if mode:
            shown["collaboration_mode"] = mode.get("mode") or mode.get("kind")
        instructions = as_text(obj(mode.get("settings")).get("developer_instructions"))
        meta = {"developer_instructions": instructions} if instructions else {}
        self.emit(lineno, ts, kind=Kind.SYSTEM, title="Thread settings applied", text=settings_text(shown), meta=meta)

    def guardian(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        """One note per review id: the first record makes it, later ones (the verdict) update it."""
        review = text_of(p.get("id")) or text_of(p.get("target_item_id"))
        status = as_text(p.get("status")) or "unknown"
        meta = {
            k: p[k]
            for k in ("status", "risk_level", "risk_score", "user_authorization", "decision_source", "target_item_id")
            if p.get(k) not in (None, "")
        }
        title = f"Guardian review: {status.replace('_', ' ')}"
        text = _guardian_text(p)
        if review and review in self.reviews:
            index = self.reviews[review]
            event = self.events[index]
            self.events[index] = replace(event, title=title, text=text or event.text, meta={**event.meta, **meta})
            self.merged(lineno, "guardian_assessment (a later state of a review shown once)")
            return
        index = self.emit(lineno, ts, kind=Kind.SYSTEM, title=title, text=text, meta=meta)
        if review:
            self.reviews[review] = index


def _guardian_text(p: dict[str, Any]) -> str:
    """The reviewed action in a line, then the reviewer's rationale."""
    action = obj(p.get("action"))
    kind = as_text(action.get("type"))
    what = action.get(_GUARDIAN_ACTIONS.get(kind, ""), "") or p.get("canonical_action")
    if isinstance(what, list):
        what = ", ".join(as_text(x) for x in what)
    lines = [f"**{kind.replace('_', ' ') or 'action'}**: `{as_text(what)}`"] if what else []
    rationale = as_text(p.get("rationale"))
    if rationale:
        lines.append(rationale)
    return "\n\n".join(lines)


def settings_text(values: dict[str, Any]) -> str:
    """Settings as markdown: short values as a list, long texts (AGENTS.md, skills) as sections."""
    items: list[str] = []
    sections: list[str] = []
    for key, value in values.items():
        label = humanize(key, capital=False)
        long_text = _long_text(value)
        if long_text is not None:
            sections.append(f"#### {label}\n\n{long_text.strip()}")
        elif value not in (None, "", [], {}):
            items.append(f"- **{label}**: {_short(value)}")
    parts = ["\n".join(items)] if items else []
    return "\n\n".join(parts + sections)


def _long_text(value: Any) -> str | None:
    """The text of a value that reads as a document: a long string, or ``{text}`` / ``{body}``."""
    if isinstance(value, dict) and len(value) <= 2:
        inner = value.get("text") if isinstance(value.get("text"), str) else value.get("body")
        if isinstance(inner, str) and inner.strip():
            return inner
    if isinstance(value, str) and (len(value) > _LONG or "\n" in value.strip()):
        return value
    return None


def _short(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float, str)):
        return str(value)
    return "`" + json.dumps(value, ensure_ascii=False, sort_keys=True).replace("`", "'") + "`"
