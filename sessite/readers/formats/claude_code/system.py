"""``system`` records: compaction boundaries, local commands, turn durations, stop hooks, API errors.

Each subtype with something to say gets its own title and text; any other
subtype becomes a SYSTEM event titled after it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sessite.model import Kind
from sessite.readers._util import array, to_int
from sessite.readers.base import as_text
from sessite.readers.formats.claude_code.compaction import BOUNDARY_SUBTYPES, boundary_spec
from sessite.readers.formats.claude_code.content import classify_user_text, strip_ansi
from sessite.readers.formats.claude_code.state import EventSpec, Transcript
from sessite.readers.labels import humanize


def read_system(t: Transcript, lineno: int, rec: dict[str, Any], ts: datetime | None) -> None:
    subtype = rec.get("subtype")
    content = rec.get("content")
    text = content if isinstance(content, str) else as_text(content)
    meta: dict[str, Any] = {"subtype": subtype} if subtype else {}
    if isinstance(rec.get("level"), str):
        meta["level"] = rec["level"]
    t.emit_one(lineno, rec, ts, _system_spec(rec, subtype, text, meta))


def _system_spec(rec: dict[str, Any], subtype: Any, text: str, meta: dict[str, Any]) -> EventSpec:
    if subtype in BOUNDARY_SUBTYPES:
        return boundary_spec(rec, subtype, text, meta)
    build = _BY_SUBTYPE.get(subtype) if isinstance(subtype, str) else None
    if build is not None:
        return build(rec, text, meta)
    label = humanize(str(subtype) if subtype else "", "System message")
    return {"kind": Kind.SYSTEM, "title": label, "text": strip_ansi(text), "meta": meta}


def _local_command(rec: dict[str, Any], text: str, meta: dict[str, Any]) -> EventSpec:
    _, title, clean, extra = classify_user_text(text)
    return {"kind": Kind.SYSTEM, "title": title or "Local command", "text": clean, "meta": {**meta, **extra}}


def _turn_duration(rec: dict[str, Any], text: str, meta: dict[str, Any]) -> EventSpec:
    ms = rec.get("durationMs")
    meta["durationMs"] = ms
    took = f"Turn took {to_int(ms) / 1000:.1f} s" if isinstance(ms, (int, float)) else text
    return {"kind": Kind.SYSTEM, "title": "Turn duration", "text": took, "meta": meta}


def _stop_hooks(rec: dict[str, Any], text: str, meta: dict[str, Any]) -> EventSpec:
    hooks = array(rec.get("hookInfos"))
    errors = array(rec.get("hookErrors"))
    lines = [f"{to_int(rec.get('hookCount')) or len(hooks)} stop hook(s) ran."]
    lines += [f"- `{h.get('command')}`" for h in hooks if isinstance(h, dict) and h.get("command")]
    lines += [f"- error: {as_text(e)}" for e in errors]
    if rec.get("preventedContinuation"):
        lines.append(f"Prevented continuation: {as_text(rec.get('stopReason'))}")
    for key in ("hookCount", "preventedContinuation", "hasOutput"):
        if key in rec:
            meta[key] = rec[key]
    return {
        "kind": Kind.SYSTEM,
        "title": "Stop hooks",
        "text": "\n".join(lines),
        "meta": meta,
        "is_error": bool(errors),
    }


def _api_error(rec: dict[str, Any], text: str, meta: dict[str, Any]) -> EventSpec:
    detail = text or as_text(rec.get("error"))
    for key in ("retryAttempt", "maxRetries", "retryInMs"):
        if key in rec:
            meta[key] = rec[key]
    return {"kind": Kind.SYSTEM, "title": "API error", "text": detail, "meta": meta, "is_error": True}


_BY_SUBTYPE: dict[str, Callable[[dict[str, Any], str, dict[str, Any]], EventSpec]] = {
    "local_command": _local_command,
    "turn_duration": _turn_duration,
    "stop_hook_summary": _stop_hooks,
    "api_error": _api_error,
}
