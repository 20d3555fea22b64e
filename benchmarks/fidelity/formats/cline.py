"""Cline task folders, read straight from their JSON files (independently of the reader).

A task is a folder; its records are in two of its files, each enumerated on its own (the
folder itself, ``task_metadata.json`` and other files yield none):

- ``api_conversation_history.json``: one record per message, numbered by its 1-based index
  in the array;
- ``ui_messages.json`` (the chat panel): one record per panel message, numbered the same way.

What a faithful page must show, as the files say it:

- the user's words: the task (``<task>…</task>`` in the history, the first ``say: text`` of
  the panel), feedback and answers (``<feedback>``, ``<answer>``, ``<user_message>``, panel
  ``user_feedback``), and plain user text that is not a tool result, Cline's environment
  details or one of its notices;
- the model's prose: assistant ``text`` blocks without ``<thinking>`` and XML-style tool
  calls; the panel's later ``say: text`` messages;
- tool calls: ``tool_use`` ids; results: ``tool_result`` ids, and the text-style results
  Cline writes in the next user message (``[read_file for 'x'] Result:``, ``Tool [x] was
  not executed…``), each answering the oldest open call of that tool.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, json_document

_RESULT_HEAD = re.compile(r"\[([A-Za-z0-9_\-]+)(.*?)\] Result:", re.DOTALL)
_NOT_EXECUTED = re.compile(r"Tool \[([A-Za-z0-9_\-]+)\] was not executed\b")
_NOTICES = (
    "[TASK RESUMPTION]",
    "# task_progress",
    "# TODO LIST",
    "[ERROR]",
    "<explicit_instructions",
    "(The user did not provide a new message",
    "Files attached by the user",
)
_QUOTED = re.compile(r"<(feedback|answer|user_message)>(.*?)</\1>", re.DOTALL)
_THINKING = re.compile(r"<thinking>.*?(?:</thinking>|$)", re.DOTALL)
# Tool tags of Cline's older XML style (a call in the assistant's text is not prose).
_XML_TOOLS = (
    "execute_command|read_file|write_to_file|replace_in_file|apply_diff|insert_content|search_files|list_files|"
    "list_code_definition_names|browser_action|apply_patch|web_fetch|web_search|attempt_completion|"
    "ask_followup_question|plan_mode_respond|new_task|use_mcp_tool|access_mcp_resource|load_mcp_documentation|"
    "condense|summarize_task|report_bug|new_rule|focus_chain|generate_explanation|use_skill"
)
_XML_CALL = re.compile(rf"<({_XML_TOOLS})>.*?</\1>", re.DOTALL)


def records(path: Path) -> Iterator[Record]:
    """Every record of one file of a task folder."""
    if path.name not in ("api_conversation_history.json", "ui_messages.json") or not path.is_file():
        return
    items = json_document(path)
    if not isinstance(items, list):
        return
    if path.name == "ui_messages.json":
        yield from _panel(path, items)
        return
    open_calls: list[tuple[str, str]] = []
    for number, message in enumerate(items, 1):
        yield _message(path, number, message, open_calls)


def _message(path: Path, number: int, message: Any, open_calls: list[tuple[str, str]]) -> Record:
    if not isinstance(message, dict):
        return Record(path, number, "(not an object)")
    role = message.get("role")
    out = Record(path, number, f"message/{role}")
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    if not isinstance(blocks, list):
        return out
    if role == "assistant":
        open_calls.clear()
        for block in blocks:
            _assistant_block(out, block, open_calls)
    elif role == "user":
        in_result = False
        for block in blocks:
            in_result = _user_block(out, block, open_calls, in_result)
    return out


def _assistant_block(out: Record, block: Any, open_calls: list[tuple[str, str]]) -> None:
    if not isinstance(block, dict):
        return
    if block.get("type") == "text" and isinstance(block.get("text"), str):
        prose = _XML_CALL.split(_THINKING.sub("\n", block["text"]))
        # split() keeps each call's tool name as a piece of its own: drop those
        out.assistant_texts.extend(p.strip() for i, p in enumerate(prose) if i % 2 == 0 and p.strip())
    elif block.get("type") == "tool_use" and isinstance(block.get("id"), str):
        out.calls.append(block["id"])
        open_calls.append((str(block.get("name")), block["id"]))


def _user_block(out: Record, block: Any, open_calls: list[tuple[str, str]], in_result: bool) -> bool:
    """Note one block of a user message; True while a text-style tool result goes on."""
    if not isinstance(block, dict):
        return in_result
    if block.get("type") == "tool_result":
        if isinstance(block.get("tool_use_id"), str):
            out.results.append(block["tool_use_id"])
        return False
    text = block.get("text")
    if block.get("type") != "text" or not isinstance(text, str):
        return in_result
    stripped = text.strip()
    head = _RESULT_HEAD.match(stripped[:4000]) or _NOT_EXECUTED.match(stripped[:200])
    if head:
        _answer(out, head.group(1), open_calls)
        return head.re is _RESULT_HEAD
    if stripped.startswith("<environment_details>") or stripped.startswith(_NOTICES):
        return False
    if stripped.startswith("<task>"):
        inner = stripped[len("<task>") :]
        end = inner.rfind("</task>")
        words = (inner[:end] if end >= 0 else inner).strip()
        if words:
            out.user_texts.append(words)
        return False
    quoted = [m.group(2).strip() for m in _QUOTED.finditer(stripped) if m.group(2).strip()]
    if quoted:  # the user's words in Cline's framing, or quoted by a tool result
        out.user_texts.append(quoted[0])
        return in_result
    if not in_result and stripped:
        out.user_texts.append(stripped)
    return in_result


def _answer(out: Record, name: str, open_calls: list[tuple[str, str]]) -> None:
    for index, (call_name, call_id) in enumerate(open_calls):
        if call_name == name:
            del open_calls[index]
            out.results.append(call_id)
            return


def _panel(path: Path, items: list[Any]) -> Iterator[Record]:
    first_text = True
    for number, msg in enumerate(items, 1):
        if not isinstance(msg, dict):
            yield Record(path, number, "(not an object)")
            continue
        key = msg.get("say") if msg.get("type") == "say" else msg.get("ask")
        out = Record(path, number, f"{msg.get('type')}/{key}")
        raw_text = msg.get("text")
        text = raw_text if isinstance(raw_text, str) else ""
        if key in ("text", "task") and msg.get("type") == "say":
            if text.strip():
                (out.user_texts if first_text else out.assistant_texts).append(text.strip())
            first_text = False
        elif key in ("user_feedback", "user_feedback_diff") and text.strip():
            out.user_texts.append(text.strip())
        yield out
