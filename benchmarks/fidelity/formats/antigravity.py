"""Google Antigravity (``~/.gemini/antigravity/brain/<id>/`` and the files beside it), read straight
from the files (independently of the reader).

- A transcript (``.system_generated/logs/transcript.jsonl``, ``transcript_full.jsonl``, or a
  ``.jsonl`` of steps on its own): one record per non-blank line that parses as a JSON object,
  numbered by its 1-based line; each is a step ``{step_index, source, type, status, created_at,
  content?, thinking?, tool_calls?}``.
- Every other file is one record (record 1): an artifact (``<name>.md``), a revision of it
  (``<name>.resolved``, ``<name>.resolved.N``), its ``.metadata.json``, a system message
  (``.system_generated/messages/<id>.json``), a background task's log, an encrypted conversation
  (``.pb``), a conversation database (``.db``), annotations (``.pbtxt``), an image.

What a faithful page must show: the user's words, ``<USER_REQUEST>`` inside a ``USER_INPUT``
step's ``content`` (the whole content when it has no such tag; never the context Antigravity
wraps around it); the model's prose, a ``PLANNER_RESPONSE``'s ``content``; an artifact's text as
written. Call ids: the ``id`` of a ``tool_calls`` item (most calls have none); a step other than
a planner response that holds its own ``tool_calls`` holds the output of the first.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, json_lines

_TAG = re.compile(r"<([A-Z][A-Z_]*)>(.*?)</\1>", re.S)


def records(path: Path) -> Iterator[Record]:
    """Every record of one Antigravity file."""
    if not path.is_file():
        return
    if path.suffix.lower() == ".jsonl":
        for line, obj in json_lines(path):
            yield _step(path, line, obj)
        return
    name = path.name
    if name.endswith(".md"):
        text = path.read_bytes().decode("utf-8", errors="replace")
        yield Record(path, 1, "artifact", assistant_texts=[text.strip()] if text.strip() else [])
    elif ".resolved" in name:
        yield Record(path, 1, "artifact revision")
    elif name.endswith(".metadata.json"):
        yield Record(path, 1, "artifact metadata")
    else:
        yield Record(path, 1, path.suffix.lstrip(".") or "file")


def _step(path: Path, line: int, obj: dict[str, Any]) -> Record:
    kind = obj.get("type")
    out = Record(path, line, f"{obj.get('source')}/{kind}")
    content = obj.get("content")
    content = content if isinstance(content, str) else ""
    calls = obj.get("tool_calls") if isinstance(obj.get("tool_calls"), list) else []
    ids = [c["id"] for c in calls if isinstance(c, dict) and isinstance(c.get("id"), str) and c["id"]]
    if kind == "USER_INPUT":
        found = {m.group(1): m.group(2).strip() for m in _TAG.finditer(content)}
        words = found.get("USER_REQUEST", content.strip() if not found else "")
        if words:
            out.user_texts.append(words)
    elif kind == "PLANNER_RESPONSE":
        if content.strip():
            out.assistant_texts.append(content.strip())
        out.calls += ids
    elif ids:
        out.calls += ids
        out.results.append(ids[0])
    return out
