"""Codex CLI rollouts (``rollout-*.jsonl``), read straight from the JSON lines.

One Record per line, numbered by its 1-based line. What a faithful page must show,
as the format writes it:

- user texts: ``event_msg/user_message`` and role=user ``response_item`` messages
  (the same words are written to both streams), without the context Codex injects
  into the user channel (``<environment_context>``, AGENTS.md, ``<recommended_plugins>``,
  …) and without an IDE preamble (the words after ``## My request for Codex:``);
- assistant texts: ``event_msg/agent_message`` and role=assistant messages;
- calls: function, custom tool and local shell calls, web searches, tool searches and
  image generations, and a completion notice whose call is not recorded (a command
  the user ran, an MCP call made from a code-mode script): that notice is the call;
- results: their outputs, the completion notices of recorded calls, and the notice or
  item that carries a web search's or image generation's outcome.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, json_lines

_CALL_ITEMS = ("function_call", "custom_tool_call", "local_shell_call", "tool_search_call")
_OUTPUT_ITEMS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output", "tool_search_output")
_NOTICES = ("exec_command_end", "patch_apply_end", "mcp_tool_call_end", "web_search_end", "image_generation_end")
_INJECTED = (
    "environment_context",
    "user_instructions",
    "user_shell_command",
    "turn_aborted",
    "subagent_notification",
    "skill",
    "permissions instructions",
    "collaboration_mode",
    "recommended_plugins",
    "plugins_instructions",
    "skills_instructions",
    "apps_instructions",
    "multi_agent_mode",
    "app-context",
    "INSTRUCTIONS",
)
_WHOLE_BLOCK = re.compile(r"\A<([A-Za-z][\w -]{1,40})>[\s\S]*</\1>\Z")
_IMAGE_BRACKET = re.compile(r"\A\s*(?:<image\b[^>]*>|</image>)\s*\Z")
_IDE_REQUEST = "## My request for Codex:"
# Memory citations Codex appends to a final answer are metadata, not prose.
_CITATION = re.compile(r"\s*<oai-mem-citation>[\s\S]*?</oai-mem-citation>\s*\Z")


def records(path: Path) -> Iterator[Record]:
    """Every record of one rollout (a line that is not a JSON object is no record)."""
    lines = list(json_lines(path))
    called = {cid for _, rec in lines for cid in _item_ids(rec, _CALL_ITEMS + ("web_search_call",))}
    called |= {cid for _, rec in lines for cid in _item_ids(rec, ("image_generation_call",))}
    for lineno, rec in lines:
        yield _record(path, lineno, rec, called)


def _body(rec: dict[str, Any]) -> dict[str, Any]:
    """The payload of an enveloped record, or the record itself (legacy bare items)."""
    payload = rec.get("payload")
    return payload if isinstance(payload, dict) else rec


def _item_ids(rec: dict[str, Any], types: tuple[str, ...]) -> list[str]:
    body = _body(rec)
    if body.get("type") not in types:
        return []
    cid = body.get("call_id") or body.get("id")
    return [cid] if isinstance(cid, str) and cid else []


def _record(path: Path, lineno: int, rec: dict[str, Any], called: set[str]) -> Record:
    kind = str(rec.get("type") or rec.get("record_type") or "header")
    payload = rec.get("payload")
    if not isinstance(payload, dict):  # legacy record-style rollouts write items bare
        record = Record(path, lineno, kind)
        if kind in _CALL_ITEMS + _OUTPUT_ITEMS + ("message", "web_search_call", "image_generation_call"):
            _item(record, rec)
        return record
    inner = payload.get("type")
    record = Record(path, lineno, f"{kind}/{inner}" if isinstance(inner, str) and inner else kind)
    if kind == "event_msg":
        _event(record, payload, called)
    elif kind == "response_item":
        _item(record, payload)
    return record


def _event(record: Record, p: dict[str, Any], called: set[str]) -> None:
    ptype = p.get("type")
    if ptype == "user_message":
        record.user_texts += _user_words(_text(p.get("message")))
    elif ptype == "agent_message":
        text = _text(p.get("message") if "message" in p else p.get("text"))
        record.assistant_texts += [text] if text.strip() else []
    elif ptype in _NOTICES and isinstance(p.get("call_id"), str) and p["call_id"]:
        record.results.append(p["call_id"])
        if p["call_id"] not in called:
            record.calls.append(p["call_id"])  # no call record: the notice is the call


def _item(record: Record, p: dict[str, Any]) -> None:
    ptype = p.get("type")
    cid = p.get("call_id") or p.get("id")
    cid = cid if isinstance(cid, str) and cid else None
    if ptype == "message":
        _message(record, p)
    elif ptype in _CALL_ITEMS + ("web_search_call",) and cid:
        record.calls.append(cid)
    elif ptype in _OUTPUT_ITEMS and isinstance(p.get("call_id"), str):
        record.results.append(p["call_id"])
    elif ptype == "image_generation_call" and cid:
        record.calls.append(cid)
        record.results.append(cid)  # the item carries the image


def _message(record: Record, p: dict[str, Any]) -> None:
    role = p.get("role")
    content = p.get("content")
    items = content if isinstance(content, list) else [{"type": "text", "text": content}]
    for item in items:
        text = _text(item.get("text")) if isinstance(item, dict) else _text(item)
        if not text.strip() or (isinstance(item, dict) and item.get("type") in ("input_image", "image")):
            continue
        if role == "user":
            record.user_texts += _user_words(text)
        elif role == "assistant":
            record.assistant_texts.append(_CITATION.sub("", text))


def _user_words(text: str) -> list[str]:
    """The user's own words in a user-channel text: none for injected context."""
    stripped = text.strip()
    if not stripped or _IMAGE_BRACKET.match(stripped) or stripped.startswith("# AGENTS.md instructions"):
        return []
    whole = _WHOLE_BLOCK.match(stripped)
    if whole or any(stripped.startswith(f"<{tag}>") for tag in _INJECTED):
        return []
    if _IDE_REQUEST in stripped:
        stripped = stripped.split(_IDE_REQUEST, 1)[1].strip()
    return [stripped] if stripped else []


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return "" if value is None else json.dumps(value, ensure_ascii=False)
