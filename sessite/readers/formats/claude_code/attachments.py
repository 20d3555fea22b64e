"""``attachment`` records (Claude Code 2.1.x): what Claude Code attached to the model's next turn.

Each attachment type is shown where it belongs:

- a ``queued_command`` is a prompt the user typed while the agent worked (Claude Code
  writes no ``user`` record for it): a USER message, its pasted images as image blocks;
  a queued task notification or a message of another origin is a SYSTEM event;
- a hook's output, error or block is a SYSTEM event right after the call (or the turn)
  it ran on, with the call's id in its details;
- reminders, listings and mode changes are folded context: SYSTEM events with a title
  (``context``), or, for the ones that only repeat counters or the todo list, counted as
  not shown with their reason.

An attachment type not known here is still a titled SYSTEM event with its text and its
small facts, never raw JSON.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sessite.model import Block, Kind
from sessite.readers._util import obj, text_of
from sessite.readers.base import as_text
from sessite.readers.formats.claude_code.content import classify_user_text, image_block
from sessite.readers.formats.claude_code.context import CONTEXT, scalars
from sessite.readers.formats.claude_code.state import EventSpec, Transcript, unknown_spec
from sessite.readers.formats.claude_code.user import user_text_spec
from sessite.readers.labels import humanize

# Attachments that only repeat what the page already shows, or counters: counted, not shown.
NOT_SHOWN = {
    "total_tokens_reminder": "token budget reminder",
    "token_usage": "token usage counter",
    "output_token_usage": "token usage counter",
    "budget_usd": "spending budget counter",
    "todo_reminder": "todo list reminder; the list is shown by the todo calls",
    "task_reminder": "task list reminder; the list is shown by the task calls",
    "compaction_reminder": "reminder with no content of its own",
    "context_efficiency": "reminder with no content of its own",
    "verify_plan_reminder": "reminder with no content of its own",
    "silent_turn_reminder": "reminder with no content of its own",
}

_HOOK_LABELS = {
    "hook_success": "Hook",
    "hook_non_blocking_error": "Hook error",
    "hook_blocking_error": "Hook blocked",
    "hook_error_during_execution": "Hook failed",
    "hook_cancelled": "Hook cancelled",
    "hook_system_message": "Hook message",
    "hook_additional_context": "Hook context",
    "hook_stopped_continuation": "Hook stopped the turn",
    "hook_permission_decision": "Hook permission decision",
    "async_hook_response": "Async hook response",
}
_HOOK_ERRORS = {"hook_non_blocking_error", "hook_blocking_error", "hook_error_during_execution"}
_HOOK_FACTS = ("hookEvent", "exitCode", "durationMs", "command", "decision", "processId", "toolName")


def read_attachment(t: Transcript, lineno: int, rec: dict[str, Any], ts: datetime | None) -> None:
    attachment = rec.get("attachment")
    if not isinstance(attachment, dict):
        t.problems.add(t.path, lineno, "attachment record has no attachment object; shown as raw JSON")
        t.emit_one(lineno, rec, ts, unknown_spec("attachment record without an attachment", rec))
        return
    atype = attachment.get("type")
    name = atype if isinstance(atype, str) and atype else "untyped"
    if name in NOT_SHOWN:
        t.skip(f"attachment {name} ({NOT_SHOWN[name]})", lineno)
        return
    if name == "queued_command":
        spec = queued_spec(t, rec, attachment)
    elif name in _HOOK_LABELS:
        spec = _hook_spec(t, name, attachment)
    else:
        build = CONTEXT.get(name)
        spec = build(attachment) if build is not None else _other_spec(name, attachment)
        spec["meta"] = {"attachment": name, "context": True, **spec.get("meta", {})}
        spec.setdefault("title", _words(name))
    spec.setdefault("kind", Kind.SYSTEM)
    t.emit_one(lineno, rec, ts, spec)


def queued_spec(t: Transcript, rec: dict[str, Any], attachment: dict[str, Any]) -> EventSpec:
    """A prompt typed while the agent worked (USER), or a queued notification or message (SYSTEM)."""
    texts, blocks = prompt_parts(attachment.get("prompt"))
    text = "\n\n".join(texts)
    mode = attachment.get("commandMode")
    origin = text_of(obj(attachment.get("origin")).get("kind"))
    meta: dict[str, Any] = {"queued": True}
    if mode not in (None, "prompt"):
        meta["command_mode"] = as_text(mode)
    if origin:
        meta["origin"] = origin
    if mode in (None, "prompt") and origin in (None, "human") and not attachment.get("isMeta"):
        spec = user_text_spec(t, rec, text)
    else:
        _, title, clean, extra = classify_user_text(text)
        default = "Queued task notification" if mode == "task-notification" else f"Queued message ({origin or mode})"
        spec = {"kind": Kind.SYSTEM, "title": title or default, "text": clean, "meta": extra}
    spec["meta"] = {**spec.get("meta", {}), **meta}
    if blocks:
        spec["blocks"] = tuple(blocks)
    return spec


def prompt_parts(prompt: Any) -> tuple[list[str], list[Block]]:
    """The texts and the image (or other) blocks of a queued prompt: a string or a list of content blocks."""
    if isinstance(prompt, str):
        return [prompt], []
    texts: list[str] = []
    blocks: list[Block] = []
    for part in prompt if isinstance(prompt, list) else []:
        if isinstance(part, str):
            texts.append(part)
        elif not isinstance(part, dict):
            continue
        elif part.get("type") == "text":
            texts.append(as_text(part.get("text")))
        elif part.get("type") == "image":
            blocks.append(image_block(part))
        else:
            source = obj(part.get("source"))
            blocks.append(
                Block(
                    "file",
                    title=text_of(part.get("title")) or as_text(part.get("type")),
                    mime=text_of(source.get("media_type")),
                )
            )
    return texts, blocks


def _hook_spec(t: Transcript, name: str, attachment: dict[str, Any]) -> EventSpec:
    """A hook's output or error, titled with the hook; the call it ran on named in its details."""
    hook = text_of(attachment.get("hookName")) or text_of(attachment.get("hookEvent")) or "hook"
    meta: dict[str, Any] = {"attachment": name, **scalars(attachment, _HOOK_FACTS)}
    call_id = text_of(attachment.get("toolUseID"))
    call = t.calls.get(call_id or "")
    if call is not None:
        meta["tool_use_id"] = call_id
        meta["tool"] = call.name
    return {
        "kind": Kind.SYSTEM,
        "title": f"{_HOOK_LABELS[name]}: {hook}",
        "text": _hook_text(name, attachment),
        "meta": meta,
        "is_error": name in _HOOK_ERRORS,
    }


def _hook_text(name: str, attachment: dict[str, Any]) -> str:
    if name == "hook_blocking_error":
        error = attachment.get("blockingError")
        return as_text(error.get("blockingError") if isinstance(error, dict) else error).strip()
    if name == "hook_additional_context":
        content = attachment.get("content")
        return "\n\n".join(as_text(c) for c in content) if isinstance(content, list) else as_text(content)
    if name == "hook_stopped_continuation":
        return as_text(attachment.get("message")).strip()
    if name == "async_hook_response":
        response = attachment.get("response")
        parts = [as_text(response) if response else "", as_text(attachment.get("stdout")).strip()]
        return "\n\n".join(p for p in parts if p)
    content = as_text(attachment.get("content")).strip()
    stdout = as_text(attachment.get("stdout")).strip()
    stderr = as_text(attachment.get("stderr")).strip()
    parts = [content or stdout, stderr if stderr and stderr != content else ""]
    return "\n\n".join(p for p in parts if p)


def _other_spec(name: str, attachment: dict[str, Any]) -> EventSpec:
    """An attachment type this reader does not know: its text, and its small facts as details."""
    for key in ("content", "text", "message", "prompt", "snippet", "banner", "summary"):
        value = attachment.get(key)
        if isinstance(value, str) and value.strip():
            return {"text": value, "meta": scalars(attachment, exclude=(key, "type"))}
    return {"text": "", "meta": scalars(attachment, exclude=("type",))}


def _words(name: str) -> str:
    return humanize(name.strip(), "Attachment")


# The attachment types this reader understands (any other one is still a titled SYSTEM event).
KNOWN_TYPES = frozenset({*NOT_SHOWN, *_HOOK_LABELS, "queued_command", *CONTEXT})
