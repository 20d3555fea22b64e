"""Claude Code transcripts, read straight from the JSONL (independently of the reader).

One record per non-blank line that parses as a JSON object, numbered by its 1-based
line. Sub-agent files (``agent-<id>.jsonl``, beside the main file or under
``<sid>/subagents/``) are read the same way; their ``.meta.json`` sidecar is one record.

What a faithful page must show, as the format itself says it:

- the user's typed words: a ``user`` record's text (not ``isMeta`` injected context, not
  a compaction summary, not a slash command or its output, not a sub-agent's prompt from
  its parent) with Claude Code's injected context blocks (``<ide_opened_file>``,
  ``<system-reminder>`` …) removed; a prompt typed while the agent worked, which 2.1.x
  writes as a ``queued_command`` attachment of a human origin; and the text of a
  ``queue-operation`` ``enqueue`` that was sent (a later ``dequeue`` or ``remove`` took
  it off the queue, first in first out), not taken back (``popAll``): 2.1.1x kept a
  prompt folded into a running turn nowhere else;
- the model's prose: every non-empty ``text`` block of an ``assistant`` record;
- tool call ids (``tool_use``/``server_tool_use`` blocks) and the ids results answer
  (``tool_result`` blocks, and ``*_tool_result`` blocks of server tools);
- ``agent_progress`` records embed a sub-agent's messages: their prose and ids count too
  (the page shows them from the sub-agent's file, or rebuilt from these records).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, blocks, json_lines

# Blocks Claude Code (and IDE integrations) inject into the user's turn: not the user's words.
_INJECTED = (
    "ide_opened_file",
    "ide_selection",
    "ide_diagnostics",
    "system-reminder",
    "local-command-caveat",
    "user-prompt-submit-hook",
    "git-context",
    "app-context",
)
_INJECTED_BLOCK = re.compile(r"<(" + "|".join(re.escape(t) for t in _INJECTED) + r")>.*?(?:</\1>|\Z)", re.S)
# A user string that opens with one of these is a command, its output or a notice, not a prompt.
_NOT_PROMPTS = (
    "<command-name>",
    "<command-message>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<task-notification>",
    "<agent-notification>",
    "[Request interrupted by user",
)


def records(path: Path) -> Iterator[Record]:
    """Every record of one Claude Code file (a main transcript, a sub-agent file or its sidecar)."""
    if path.name.endswith(".meta.json"):
        yield Record(path, 1, "agent-meta")
        return
    parsed = list(json_lines(path))
    sent = _sent_from_queue(parsed)
    for lineno, rec in parsed:
        out = _record(path, lineno, rec)
        if lineno in sent:
            words = own_words(_queue_text(rec.get("content")))
            out.user_texts += [words] if words else []
        yield out


def _sent_from_queue(parsed: list[tuple[int, dict[str, Any]]]) -> set[int]:
    """The lines of the ``enqueue`` records whose prompt was sent (dequeued or removed), not taken back."""
    live: list[tuple[int, str]] = []
    sent: set[int] = set()
    for lineno, rec in parsed:
        if rec.get("type") != "queue-operation":
            continue
        operation, text = rec.get("operation"), " ".join(_queue_text(rec.get("content")).split())
        if operation == "enqueue" and text:
            live.append((lineno, text))
        elif operation in ("dequeue", "remove") and live:
            index = next((i for i, (_, queued) in enumerate(live) if text and queued == text), 0)
            sent.add(live.pop(index)[0])
        elif operation == "popAll":
            live.clear()
    return sent


def _queue_text(content: Any) -> str:
    if isinstance(content, list):
        return "\n\n".join(str(b.get("text")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    return content if isinstance(content, str) else ""


def _record(path: Path, lineno: int, rec: dict[str, Any]) -> Record:
    kind = rec.get("type")
    out = Record(path, lineno, _type_name(rec))
    if kind == "user":
        _user(out, rec)
    elif kind == "assistant":
        _assistant(out, rec.get("message"))
    elif kind == "attachment":
        _attachment(out, rec.get("attachment"))
    elif kind == "progress":
        data = rec.get("data")
        if isinstance(data, dict) and data.get("type") == "agent_progress":
            _embedded(out, data.get("message"))
    return out


def _type_name(rec: dict[str, Any]) -> str:
    kind = str(rec.get("type"))
    inner = rec.get("attachment") if kind == "attachment" else rec.get("data") if kind == "progress" else None
    if isinstance(inner, dict) and isinstance(inner.get("type"), str):
        return f"{kind}/{inner['type']}"
    if kind == "system" and isinstance(rec.get("subtype"), str):
        return f"system/{rec['subtype']}"
    return kind


def _user(out: Record, rec: dict[str, Any]) -> None:
    message = rec.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    typed = not (rec.get("isMeta") or rec.get("isCompactSummary") or rec.get("isSidechain"))
    for block in blocks(content):
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_result" and isinstance(block.get("tool_use_id"), str):
            out.results.append(block["tool_use_id"])
        elif block.get("type") == "text" and typed:
            words = own_words(block.get("text"))
            if words:
                out.user_texts.append(words)


def _assistant(out: Record, message: Any) -> None:
    content = message.get("content") if isinstance(message, dict) else None
    for block in blocks(content):
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype == "text" and isinstance(block.get("text"), str) and block["text"].strip():
            out.assistant_texts.append(block["text"].strip())
        elif btype in ("tool_use", "server_tool_use") and isinstance(block.get("id"), str):
            out.calls.append(block["id"])
        elif isinstance(btype, str) and btype.endswith("_tool_result") and isinstance(block.get("tool_use_id"), str):
            out.results.append(block["tool_use_id"])


def _attachment(out: Record, attachment: Any) -> None:
    """A prompt the user typed while the agent worked (``queued_command`` of a human origin)."""
    if not isinstance(attachment, dict) or attachment.get("type") != "queued_command" or attachment.get("isMeta"):
        return
    origin = attachment.get("origin")
    kind = origin.get("kind") if isinstance(origin, dict) else None
    if attachment.get("commandMode", "prompt") != "prompt" or kind not in (None, "human"):
        return
    prompt = attachment.get("prompt")
    parts = [prompt] if isinstance(prompt, str) else prompt if isinstance(prompt, list) else []
    for part in parts:
        text = part.get("text") if isinstance(part, dict) and part.get("type") == "text" else part
        words = own_words(text)
        if words:
            out.user_texts.append(words)


def _embedded(out: Record, message: Any) -> None:
    """The sub-agent message an ``agent_progress`` record carries."""
    if not isinstance(message, dict):
        return
    inner = message.get("message")
    if message.get("type") == "assistant":
        _assistant(out, inner)
    elif message.get("type") == "user" and isinstance(inner, dict) and isinstance(inner.get("content"), list):
        for block in inner["content"]:
            if (
                isinstance(block, dict)
                and block.get("type") == "tool_result"
                and isinstance(block.get("tool_use_id"), str)
            ):
                out.results.append(block["tool_use_id"])


def own_words(text: Any) -> str:
    """The user's own words in a user text ("" for a command, its output, or injected context only)."""
    if not isinstance(text, str):
        return ""
    head = text.lstrip()
    if head.startswith(_NOT_PROMPTS):
        return ""
    return _INJECTED_BLOCK.sub("", text).strip()
