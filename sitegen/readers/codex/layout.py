"""What a rollout line looks like: record types, the legacy header, and how values are written.

Shared by detection (which only sees the first lines) and the builder (which sees them all).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from sitegen.readers._util import to_float, to_int
from sitegen.readers.base import parse_time

NAME = "codex"
AGENT = "codex"

UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# A session_meta first line, recognised by its opening when it is longer than the sniff.
META_HEAD = re.compile(r'^\{\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*"type"\s*:\s*"session_meta"')
# Record types of the current format whose payload is a JSON object.
ENVELOPE_TYPES = ("session_meta", "turn_context", "response_item", "event_msg", "compacted")
# Response item types; the legacy format writes them bare, without the {timestamp, type, payload} envelope.
ITEM_TYPES = {
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "local_shell_call_output",
    "web_search_call",
    "ghost_snapshot",
    "compaction",
    "compaction_summary",
}
_LEGACY_HEADER_KEYS = {"id", "timestamp", "instructions", "git"}
_DURATION = re.compile(r"^\s*([0-9.]+)\s*(ms|s)?\s*$")


def is_legacy_header(obj: dict[str, Any]) -> bool:
    """The bare ``{id, timestamp, instructions, git}`` first line of a record-style rollout."""
    return (
        "type" not in obj and isinstance(obj.get("id"), str) and "timestamp" in obj and set(obj) <= _LEGACY_HEADER_KEYS
    )


def is_bare_item(rec: dict[str, Any]) -> bool:
    """A response item written without an envelope (legacy record-style rollouts)."""
    return (
        rec.get("type") in ITEM_TYPES
        and "payload" not in rec
        and ("role" in rec or "call_id" in rec or "summary" in rec or "action" in rec)
    )


def record_time(value: Any) -> datetime | None:
    """parse_time with a fast path for Codex's own ``2026-03-04T03:52:32.276Z`` stamps."""
    if isinstance(value, str) and len(value) in (20, 24) and value.endswith("Z"):
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            return parse_time(value)
        if parsed.tzinfo is not None and datetime.min.year < parsed.year < datetime.max.year:
            return parsed  # (the first and last years overflow in another offset: parse_time says None)
    return parse_time(value)


def duration(value: Any) -> float | None:
    """A duration as Codex serializes it: {secs, nanos}, seconds, or a "1.5s" string."""
    if isinstance(value, dict):
        return round(to_int(value.get("secs")) + to_int(value.get("nanos")) / 1e9, 3)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return to_float(value)
    if isinstance(value, str):
        match = _DURATION.match(value)
        if match:
            try:
                seconds = float(match.group(1))
            except ValueError:
                return None
            return seconds / 1000 if match.group(2) == "ms" else seconds
    return None
