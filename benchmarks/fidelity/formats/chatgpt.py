"""ChatGPT data exports (``conversations.json``), read straight from the JSON (independently of the reader).

The export is an array of conversations (or an object with ``conversations``, or one
conversation). Each conversation's ``mapping`` holds every message as a tree node; one
record per node, numbered by its 1-based index among all the export's nodes in file
order (conversation after conversation, nodes in the order ``mapping`` lists them).

What a faithful page must show, as the export says it:

- the user's words: a ``user`` message's string ``parts`` (``text`` or ``multimodal_text``),
  unless ChatGPT hides it (``metadata.is_visually_hidden_from_conversation``); on every
  branch, the kept one and the versions an edit or a regeneration left behind;
- the model's prose: an ``assistant`` message to ``all`` (its ``recipient``) with string
  ``parts``, on every branch;
- tool calls, on the kept branch (the path from ``current_node`` up to the root): an
  ``assistant`` message addressed to another recipient is a call, named by its message
  id; a ``tool`` message answers the latest call before it on that path to the tool it
  is from (``author.name``; ``browser`` answers ``browser.search``), or the latest call
  when it names no tool (a tool's message that follows no call of its own answers none).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, json_document

_TO_USER = ("all", "", None)


def records(path: Path) -> Iterator[Record]:
    """Every node of every conversation of one export, in file order."""
    data = json_document(path)
    if isinstance(data, dict):
        data = data["conversations"] if isinstance(data.get("conversations"), list) else [data]
    if not isinstance(data, list):
        return
    number = 0
    for conv in data:
        mapping = conv.get("mapping") if isinstance(conv, dict) else None
        if not isinstance(mapping, dict):
            continue
        answers = _answers(mapping, conv.get("current_node"))
        for node_id, node in mapping.items():
            number += 1
            yield _record(path, number, node_id, node, answers)


def _message(node: Any) -> dict[str, Any]:
    message = node.get("message") if isinstance(node, dict) else None
    return message if isinstance(message, dict) else {}


def _role(message: dict[str, Any]) -> str:
    author = message.get("author")
    role = author.get("role") if isinstance(author, dict) else None
    return role if isinstance(role, str) else ""


def _answers(mapping: dict[str, Any], current: Any) -> dict[str, tuple[str | None, str | None]]:
    """On the kept path: each call node -> (its id, None); each tool node -> (None, the call it answers)."""
    path: list[str] = []
    node_id = current if isinstance(current, str) else None
    while node_id in mapping and node_id not in path:
        path.append(node_id)
        node = mapping[node_id]
        parent = node.get("parent") if isinstance(node, dict) else None
        node_id = parent if isinstance(parent, str) else None
    out: dict[str, tuple[str | None, str | None]] = {}
    calls: list[tuple[str, str]] = []
    for node_id in reversed(path):
        message = _message(mapping[node_id])
        role = _role(message)
        if role == "assistant" and message.get("recipient") not in _TO_USER:
            call_id = message.get("id") if isinstance(message.get("id"), str) and message.get("id") else node_id
            calls.append((call_id, str(message.get("recipient"))))
            out[node_id] = (call_id, None)
        elif role == "tool" and calls:
            author = message.get("author")
            name = author.get("name") if isinstance(author, dict) else None
            if not isinstance(name, str) or not name:
                out[node_id] = (None, calls[-1][0])
                continue
            same = [c for c, tool in calls if tool == name or tool.split(".")[0] == name.split(".")[0]]
            if same:
                out[node_id] = (None, same[-1])
    return out


def _record(
    path: Path, number: int, node_id: str, node: Any, answers: dict[str, tuple[str | None, str | None]]
) -> Record:
    message = _message(node)
    content = message.get("content") if isinstance(message.get("content"), dict) else {}
    kind = content.get("content_type")
    role = _role(message)
    out = Record(path, number, f"{role or 'node'}/{kind}" if message else "node")
    parts = content.get("parts") if kind in ("text", "multimodal_text") else None
    texts = [p.strip() for p in parts if isinstance(p, str) and p.strip()] if isinstance(parts, list) else []
    metadata = message.get("metadata") if isinstance(message.get("metadata"), dict) else {}
    if role == "user" and not metadata.get("is_visually_hidden_from_conversation"):
        out.user_texts.extend(texts)
    elif role == "assistant" and message.get("recipient") in _TO_USER:
        out.assistant_texts.extend(texts)
    call, answered = answers.get(node_id, (None, None))
    if call:
        out.calls.append(call)
    if answered:
        out.results.append(answered)
    return out
