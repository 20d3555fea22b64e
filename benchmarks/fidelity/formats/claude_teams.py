"""Claude Code agent teams (``teams/<team>/config.json``, ``inboxes/<agent>.json``, ``tasks/<team>/<n>.json``),
read straight from the files (independently of the reader).

Each file is one JSON document; its records are numbered 1-based:

- a team config ``{name, description, createdAt, leadAgentId, leadSessionId, members: [...]}``:
  record 1 is the team, record 1 + n its n-th member;
- an inbox, a JSON array ``[{from, text, summary?, timestamp, color?, read}]``: record n is its n-th message;
- a task file ``{id, subject, description, status, owner, ...}``: record 1 (a consolidated
  ``{"tasks": [...]}``: record n is its n-th task).

What a faithful page must show: what the agents wrote. A member's ``prompt`` (the lead's
instructions it was spawned with); a message's ``text`` when it is prose; when ``text`` is a
JSON-encoded protocol object (``{"type": ...}``), the prose it carries: a ``task_assignment``'s
``description``, a ``plan_approval_request``'s ``plan``; a task's ``description``. Teams hold no
words typed by a user, and no tool calls.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, json_document, json_value


def records(path: Path) -> Iterator[Record]:
    """Every record of one team file."""
    doc = json_document(path)
    if isinstance(doc, list):
        for index, entry in enumerate(doc, start=1):
            yield _message(path, index, entry)
    elif isinstance(doc, dict) and isinstance(doc.get("members"), list) and "leadAgentId" in doc:
        yield Record(path, 1, "team")
        for index, member in enumerate(doc["members"], start=2):
            prompt = member.get("prompt") if isinstance(member, dict) else None
            yield Record(path, index, "member", assistant_texts=_texts(prompt))
    elif isinstance(doc, dict) and isinstance(doc.get("tasks"), list):
        for index, task in enumerate(doc["tasks"], start=1):
            yield _task(path, index, task)
    elif isinstance(doc, dict):
        yield _task(path, 1, doc)


def _message(path: Path, index: int, entry: Any) -> Record:
    text = entry.get("text") if isinstance(entry, dict) else None
    payload = _protocol(text)
    if payload is None:
        return Record(path, index, "message", assistant_texts=_texts(text))
    kind = payload["type"]
    carried = payload.get("description") if kind == "task_assignment" else payload.get("plan")
    return Record(path, index, f"message/{kind}", assistant_texts=_texts(carried))


def _protocol(text: Any) -> dict[str, Any] | None:
    value = json_value(text) if isinstance(text, str) and text.lstrip().startswith("{") else None
    return value if isinstance(value, dict) and isinstance(value.get("type"), str) and value["type"] else None


def _task(path: Path, index: int, task: Any) -> Record:
    description = task.get("description") if isinstance(task, dict) else None
    return Record(path, index, "task", assistant_texts=_texts(description))


def _texts(value: Any) -> list[str]:
    return [value.strip()] if isinstance(value, str) and value.strip() else []
