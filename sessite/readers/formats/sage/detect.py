"""Is this a sage project folder, a conversation file or a REPL session file (a cheap sniff)?"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sessite.readers.base import SNIFF_BYTES, Sniff, sniff
from sessite.readers.safejson import loads

CONVERSATION = "conversation.jsonl"
METADATA = "metadata.json"
HISTORY = "history"


def history_files(path: Path) -> list[Path]:
    """A project's archived conversations, oldest first."""
    history = path / HISTORY
    if not history.is_dir():
        return []
    try:
        return sorted(p for p in history.iterdir() if p.suffix == ".jsonl" and p.is_file())
    except OSError:
        return []


def _small_json(path: Path) -> Any:
    text = sniff(path)
    try:
        return loads(text)
    except ValueError:
        return None


def is_project_dir(path: Path) -> bool:
    conversation = path / CONVERSATION
    metadata = path / METADATA
    has_conversation = conversation.is_file()
    if metadata.is_file():
        meta = _small_json(metadata)
        if isinstance(meta, dict) and "project_dir" in meta:
            # After a clear, only the metadata and the archives are left.
            return has_conversation or bool(history_files(path))
    if has_conversation:
        return looks_like_sage_lines(Sniff(conversation))
    return False


def _foreign_line(obj: dict[str, Any]) -> bool:
    # Claude Code, HAIL and Codex lines carry a "type"; Claude Code a "message".
    return any(key in obj for key in ("type", "message", "parentUuid", "sessionId", "payload"))


def _looks_sage_line(obj: dict[str, Any]) -> bool:
    return isinstance(obj.get("role"), str) and "content" in obj


def looks_like_sage_lines(sniffed: Sniff) -> bool:
    """No line of another format among the first few, and most of them sage's ``{role, content}``:
    one damaged line (a ``role`` of ``1e400``) does not hide a whole conversation."""
    lines = list(sniffed.json_lines(5))
    if not lines or any(_foreign_line(obj) for obj in lines):
        return False
    return 2 * sum(_looks_sage_line(obj) for obj in lines) >= len(lines)


def is_session_file(head: str) -> bool:
    """A REPL session file: ``{name, provider | workspace, messages: [{role, …}]}``."""
    if not head.lstrip().startswith("{"):
        return False
    if len(head) < SNIFF_BYTES:
        try:
            doc = loads(head)
        except ValueError:
            doc = None
        if isinstance(doc, dict):
            return _session_shaped(doc)
    # Too long to parse here: the top-level keys sage writes before "messages".
    before = head.split('"messages"', 1)[0] if '"messages"' in head else None
    if before is None or '"name"' not in before:
        return False
    if any(f'"{key}"' in before for key in ("sessionId", "projectHash", "composerId", "version")):
        return False
    return '"provider"' in before or '"workspace"' in before


def _session_shaped(doc: dict[str, Any]) -> bool:
    messages = doc.get("messages")
    if not isinstance(messages, list) or "name" not in doc:
        return False
    if "workspace" not in doc and "provider" not in doc:
        return False
    # A damaged entry among them does not hide the rest: most of the first few have a role.
    with_role = sum(isinstance(m, dict) and "role" in m for m in messages[:5])
    return not messages or 2 * with_role >= min(len(messages), 5)
