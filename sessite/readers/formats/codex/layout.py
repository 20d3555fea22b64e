"""What a rollout line looks like: record types, the legacy header, and how values are written.

Shared by detection (which only sees the first lines) and the builder (which sees them all).
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from typing import Any

from sessite.readers._util import to_float, to_int
from sessite.readers.base import parse_time

NAME = "codex"
AGENT = "codex"

UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# A session_meta first line, recognised by its opening when it is longer than the sniff.
META_HEAD = re.compile(r'^\{\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*"type"\s*:\s*"session_meta"')
# Record types of the current format whose payload is a JSON object.
ENVELOPE_TYPES = (
    "session_meta",
    "turn_context",
    "response_item",
    "event_msg",
    "compacted",
    "world_state",
    "inter_agent_communication",
    "inter_agent_communication_metadata",
)
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
    "context_compaction",
    "agent_message",
    "tool_search_call",
    "tool_search_output",
    "image_generation_call",
}
# Fields that name a record itself (a response item's id, a call's id), in the order tried.
_OWN_IDS = ("id", "call_id", "event_id")
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


def record_key(rec: dict[str, Any]) -> str:
    """An event id base for a record, from what the record is, not where it sits in the file.

    Its time, type and own id: a snapshot that re-serialises the line (other key order,
    a redacted field) keeps it; records alike in all of these are told apart by their
    order among themselves, which an append-only log keeps too.
    """
    payload = rec.get("payload")
    body = payload if isinstance(payload, dict) else rec
    kind = rec.get("type") or rec.get("record_type") or ""
    parts = [str(rec.get("timestamp") or ""), str(kind), str(body.get("type") or "")]
    parts += [f"{key}={body[key]}" for key in _OWN_IDS if isinstance(body.get(key), str) and body[key]]
    return "r" + hashlib.sha1("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:12]


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


def subagent_info(meta: dict[str, Any]) -> dict[str, Any]:
    """What a session_meta says of a sub-agent: its parent thread, nickname, role, path and depth
    (empty for a session the user started)."""
    source = meta.get("source")
    spawned = source.get("subagent") if isinstance(source, dict) else None
    thread = spawned.get("thread_spawn") if isinstance(spawned, dict) else None
    thread = thread if isinstance(thread, dict) else {}
    info: dict[str, Any] = {}
    for key in ("parent_thread_id", "agent_nickname", "agent_role", "agent_path", "depth"):
        value = meta.get(key) if meta.get(key) not in (None, "") else thread.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and value != "":
            info[key] = value
    if isinstance(spawned, str) and spawned:
        info["kind"] = spawned  # review, compact, memory_consolidation, …
    elif meta.get("thread_source") == "subagent" or spawned is not None:
        info.setdefault("kind", "thread_spawn" if thread else "subagent")
    return info


def agent_label(info: dict[str, Any]) -> str:
    """A sub-agent as people name it: ``Euclid (explorer) /root/contract_design``."""
    role = info.get("agent_role")
    parts = [info.get("agent_nickname"), f"({role})" if role else None, info.get("agent_path")]
    label = " ".join(str(p) for p in parts if p)
    if not label and info.get("kind") not in (None, "thread_spawn", "subagent"):
        label = f"({str(info['kind']).replace('_', ' ')})"
    return label
