"""OpenHands conversations, read straight from the files (independently of the reader).

- A trajectory: a JSON array of legacy events; one record per element (1-based).
- A conversation folder's event files (``events/event-<NNNNN>-<uuid>.json`` in V1,
  ``events/<n>.json`` in the older server): one record per file (line 1).
- ``base_state.json`` and ``TASKS.json``: the agent's settings and a task list, no records.

What a faithful page must show:

- legacy events: a ``message`` action's ``args.content`` (the user's from ``source: user``,
  the model's otherwise); the model's prose on a tool action (``args.thought``) and on
  ``finish`` (``args.final_thought``, else ``args.thought``, else ``message``); calls: an
  action's ``tool_call_metadata.tool_call_id``; results: an observation's;
- V1 events: a ``MessageEvent``'s ``llm_message.content`` text (the user's for role
  ``user``); an ``ActionEvent``'s ``thought`` text and a ``FinishAction``'s ``message``;
  calls: an ``ActionEvent``'s ``tool_call_id``; results: the ``tool_call_id`` of an
  ``ObservationEvent``, ``AgentErrorEvent`` or ``UserRejectObservation``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, json_document, text_parts

_ANSWERS = ("ObservationEvent", "AgentErrorEvent", "UserRejectObservation")


def records(path: Path) -> Iterator[Record]:
    if path.name in ("base_state.json", "TASKS.json") or path.suffix.lower() != ".json" or not path.is_file():
        return
    value = json_document(path)
    if isinstance(value, list):
        for index, event in enumerate(value, 1):
            yield _event(path, index, event)
    elif isinstance(value, dict) and ("source" in value or "kind" in value) and "persistence_dir" not in value:
        yield _event(path, 1, value)


def _texts(parts: Any) -> str:
    return "\n\n".join(t for t in text_parts(parts) if t).strip()


def _event(path: Path, line: int, event: Any) -> Record:
    if not isinstance(event, dict):
        return Record(path, line, "(not an object)")
    if isinstance(event.get("kind"), str):
        return _v1(path, line, event)
    action, observation = event.get("action"), event.get("observation")
    out = Record(path, line, str(action or observation))
    args = event.get("args") if isinstance(event.get("args"), dict) else {}
    meta = event.get("tool_call_metadata") if isinstance(event.get("tool_call_metadata"), dict) else {}
    call_id = meta.get("tool_call_id") if isinstance(meta.get("tool_call_id"), str) else None
    if action == "message":
        text = args.get("content") if isinstance(args.get("content"), str) else event.get("message")
        if isinstance(text, str) and text.strip():
            (out.user_texts if event.get("source") == "user" else out.assistant_texts).append(text.strip())
    elif action == "finish":
        text = args.get("final_thought") or args.get("thought") or event.get("message")
        if isinstance(text, str) and text.strip():
            out.assistant_texts.append(text.strip())
    elif isinstance(action, str):
        thought = args.get("thought")
        if isinstance(thought, str) and thought.strip() and action != "think":
            out.assistant_texts.append(thought.strip())
        if call_id:
            out.calls.append(call_id)
    elif isinstance(observation, str) and call_id:
        out.results.append(call_id)
    return out


def _v1(path: Path, line: int, event: dict[str, Any]) -> Record:
    kind = event["kind"]
    out = Record(path, line, kind)
    if kind == "MessageEvent":
        message = event.get("llm_message") if isinstance(event.get("llm_message"), dict) else {}
        text = _texts(message.get("content"))
        if text:
            (out.user_texts if message.get("role") == "user" else out.assistant_texts).append(text)
    elif kind == "ActionEvent":
        thought = _texts(event.get("thought"))
        if thought:
            out.assistant_texts.append(thought)
        action = event.get("action") if isinstance(event.get("action"), dict) else {}
        message = action.get("message")
        if action.get("kind") == "FinishAction" and isinstance(message, str) and message.strip():
            out.assistant_texts.append(message.strip())
        if isinstance(event.get("tool_call_id"), str):
            out.calls.append(event["tool_call_id"])
    elif kind in _ANSWERS and isinstance(event.get("tool_call_id"), str):
        out.results.append(event["tool_call_id"])
    return out
