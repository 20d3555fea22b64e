"""A conversation's other files: the system's messages, background tasks' logs, the annotations,
and the files this reader cannot read (encrypted, binary step payloads) or does not show (images).

``.system_generated/messages/<id>.json`` is ``{id, recipient, sender, priority, timestamp,
hideFromUser, content}``; ``.system_generated/tasks/<task>.log`` a background command's output;
``annotations/<id>.pbtxt`` a text protobuf (``last_user_view_time:{seconds:… nanos:…}``,
``archived:true``). Each is record 1 of its file, for the fidelity ledger.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sessite.model import Block, Event, Kind, Problems
from sessite.readers._util import shown
from sessite.readers.files import decode_bytes, load_json, read_bytes
from sessite.readers.formats.antigravity.layout import brain_of_annotations, is_brain_folder
from sessite.readers.formats.antigravity.state import BrainBuilder
from sessite.readers.formats.antigravity.vocabulary import (
    ANNOTATION,
    ENCRYPTED,
    LONE_ANNOTATION,
    NAME,
    OTHER_FILE,
    PROTOBUF_DB,
)
from sessite.readers.ledger import not_shown

_FIELD = re.compile(r"(\w+)\s*:\s*(\{[^{}]*\}|\"[^\"]*\"|[^\s{}]+)")
_SECONDS = re.compile(r"seconds\s*:\s*(\d{1,12})")


def read_message(b: BrainBuilder, path: Path) -> Event | None:
    doc = load_json(path, b.problems)
    if not isinstance(doc, dict):
        if doc is not None:
            b.problem(path, 1, f"message is not an object ({shown(doc)}); left out")
            b.skip_at(path, 1, "system message that is not a JSON object")
        return None
    sender = b.text(path, 1, doc, "sender", "message") or "system"
    content = b.text(path, 1, doc, "content", "message") or ""
    stamp = b.time(path, 1, doc.get("timestamp"), "timestamp")
    meta = {k: v for k, v in doc.items() if k not in ("sender", "content", "timestamp")}
    return b.put(
        path, 1, "message", kind=Kind.SYSTEM, timestamp=stamp, title=f"Message from {sender}", text=content, meta=meta
    )


def read_task_log(b: BrainBuilder, path: Path) -> Event | None:
    data = read_bytes(path, b.problems)
    if data is None:
        return None
    text = decode_bytes(data)[0]
    block = Block(type="code", text=text, title=path.name)
    return b.put(path, 1, "task-log", kind=Kind.SYSTEM, title=f"Background task log {path.stem}", blocks=(block,))


def read_annotations(b: BrainBuilder, path: Path) -> None:
    """The annotations go into the session's metadata."""
    found = parsed_annotations(path, b.problems)
    if found:
        b.meta["annotations"] = found
    b.merge_at(path, 1, ANNOTATION)


def parsed_annotations(path: Path, problems: Problems) -> dict[str, Any]:
    data = read_bytes(path, problems)
    if data is None:
        return {}
    out: dict[str, Any] = {}
    for key, value in _FIELD.findall(decode_bytes(data)[0]):
        seconds = _SECONDS.search(value) if value.startswith("{") else None
        if seconds is not None:
            stamp = datetime.fromtimestamp(int(seconds.group(1)), tz=UTC)
            out[key] = max(out.get(key, stamp), stamp)  # the latest of repeated stamps
        else:
            out[key] = value.strip('"')
    return {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in out.items()}


def unreadable(b: BrainBuilder, path: Path, kind: str) -> None:
    """An encrypted conversation file or a protobuf database: counted, one problem line."""
    reason = PROTOBUF_DB if kind == "database" else ENCRYPTED
    b.problem(path, None, reason)
    b.skip_at(path, 1, reason)


def encrypted_alone(path: Path, problems: Problems) -> None:
    """An encrypted file read on its own (its brain folder is not in the archive)."""
    problems.add(path, None, f"{NAME}: {ENCRYPTED}; its brain folder is not here")
    not_shown(path, 1, ENCRYPTED)


def annotations_alone(path: Path, problems: Problems) -> None:
    """Annotations claimed on their own: the brain folder's read shows them in its session's
    metadata; without the brain folder, one problem line says what they hold."""
    if is_brain_folder(brain_of_annotations(path)):
        return
    not_shown(path, 1, LONE_ANNOTATION)
    if (path.parent.parent / "conversations" / f"{path.stem}.pb").is_file():
        return  # the encrypted conversation's own line says it is not shown
    said = parsed_annotations(path, problems)
    held = ", ".join(f"{k} {v}" for k, v in said.items()) or "nothing readable"
    problems.add(
        path, None, f"{NAME}: annotations of a conversation whose brain folder is not here ({held}); not shown"
    )


def other_file(b: BrainBuilder, path: Path) -> None:
    b.skip_at(path, 1, OTHER_FILE)
