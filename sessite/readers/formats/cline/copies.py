"""Beside a history, most panel messages are copies of what it holds: the task, the model's
text and reasoning, its tool calls. Each gets its fate here: a copy is merged (the history
shows it), bookkeeping is counted as not shown, and what only the panel kept (a response the
user interrupted, an error notice) is kept to be shown where it happened.

A panel message with history index ``i`` was written after history message ``i``: it copies
that message, the response at ``i + 1`` or the results at ``i + 2``, and is compared with
those alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sessite.readers import ledger
from sessite.readers._util import maybe_json, text_of
from sessite.readers.base import as_text
from sessite.readers.formats.cline.panel import BOOKKEEPING, NOTES, panel_key, ui_text
from sessite.readers.formats.cline.task import Task

Messages = list[tuple[int, dict[str, Any]]]
_COPY = "panel copy of what the history shows"
_TASK = "the task (shown from the history)"
_PROMPTS = ("resume_task", "resume_completed_task", "completion_result")  # asks that only wait for a click
_MARKERS = ("HAS_CHANGES",)  # what the panel appends to a completion result


def _norm(text: str) -> str:
    return " ".join(text.split())


def _strings(value: Any) -> Iterator[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


class History:
    """The text of each history message (its words, thinking, tool inputs and results), to look copies up in."""

    def __init__(self, api: Messages) -> None:
        self.texts = [_norm("\n".join(_strings(message.get("content")))) for _, message in api]

    def holds(self, text: str, index: int | None) -> bool:
        """Whether history message ``index``, the response after it or its results hold ``text``
        (anywhere in the history when the panel message has no index)."""
        if not text:
            return False
        if index is None:
            return any(text in t for t in self.texts)
        return any(text in t for t in self.texts[max(index, 0) : index + 3])


def sort_panel(ui: Messages, api: Messages, task: Task, ui_path: Path) -> dict[int | None, Messages]:
    """Note the fate of each panel message the history holds or that is bookkeeping; the rest
    (to be shown) by the history index they follow. Requests are left to the usage pairing."""
    history = History(api)
    shown: dict[int | None, Messages] = {}
    first_text = True
    for line, msg in ui:
        key = panel_key(msg)
        if key == "api_req_started":
            continue
        index = msg.get("conversationHistoryIndex")
        index = index if isinstance(index, int) and not isinstance(index, bool) else None
        is_task = key in ("text", "task") and msg.get("type") == "say" and first_text
        first_text = first_text and not is_task
        fate = _fate(msg, key, is_task, index, history)
        if fate is None:
            shown.setdefault(index, []).append((line, msg))
        elif fate[0] == "merged":
            ledger.merged(ui_path, line, fate[1])
        else:
            task.skipped[fate[1]] += 1
            ledger.not_shown(ui_path, line, fate[1])
    return shown


def _fate(msg: dict[str, Any], key: Any, is_task: bool, index: int | None, history: History) -> tuple[str, str] | None:
    """("merged" | "not shown", reason), or None for a message only the panel holds."""
    if is_task:
        return "merged", _TASK
    if key == "task_progress":
        return "merged", "progress checklist (shown with the calls, as their task_progress)"
    if key in BOOKKEEPING:
        return "not shown", f"panel {key}"
    if key in NOTES:
        return None
    text = as_text(msg.get("text"))
    if msg.get("type") == "ask" and key in _PROMPTS and not text.strip():
        return "not shown", f"panel {key} prompt"
    if not text.strip() and not msg.get("images"):
        return "not shown", "empty panel message"
    if history.holds(_main_text(key, text), index):
        return "merged", _COPY
    return None


# The field of a panel message's JSON that a copy in the history holds, most telling first.
_MAIN_FIELDS = ("diff", "content", "arguments", "url", "coordinate", "text", "logs", "response", "question", "path")


def _main_text(key: Any, text: str) -> str:
    """What a copy of this panel message in the history would hold, normalized."""
    info = maybe_json(text) if key not in ("text", "reasoning", "completion_result", "user_feedback") else None
    if isinstance(info, dict):
        if info.get("tool") == "readFile":  # its content is the absolute path; the call names the path
            return _norm(text_of(info.get("path")) or "")
        main = next((v for v in map(text_of, (info.get(f) for f in _MAIN_FIELDS)) if v), "")
        return _norm(main)
    main = ui_text(text) if key in ("followup", "plan_mode_respond") else text
    for marker in _MARKERS:
        main = main.removesuffix(marker)
    return _norm(main)
