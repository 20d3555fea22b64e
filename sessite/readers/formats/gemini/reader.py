"""The Gemini CLI reader: detection, and a file read into one Session."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sessite.model import Problems, Session
from sessite.readers.base import Reader, Sniff
from sessite.readers.formats.gemini.detect import is_document, is_header, is_jsonl, top_level_keys
from sessite.readers.formats.gemini.records import NAME, Chat, read_json_document, read_jsonl
from sessite.readers.formats.gemini.session import build_session
from sessite.readers.platform import Platform

# The message types of a JSON-lines chat (a body record of another type is not judged Gemini's).
BODY_TYPES = frozenset({"user", "gemini", "model", "assistant", "info", "error", "warning"})

_QWEN_MESSAGE = re.compile(r'"type"\s*:\s*"qwen"')


class GeminiReader(Reader):
    """One Gemini CLI chat file (JSON or JSONL) is one Session."""

    name = NAME
    agent = "gemini"

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if path.suffix.lower() not in (".json", ".jsonl"):
            return False
        line = sniffed.object_line()
        if line is None:
            return False
        head, _, obj = line
        if _QWEN_MESSAGE.search(head) or any(part.lower() == ".qwen" for part in path.parts):
            return False  # Qwen Code's older chats share this shape (its model's messages are "qwen")
        if obj is not None:
            return is_document(obj) or is_header(obj)
        # Pretty-printed, or one long line cut by the sniff: judge its top-level keys.
        keys, complete = top_level_keys(head)
        if not (isinstance(keys.get("sessionId"), str) and "projectHash" in keys):
            return False
        return "messages" in keys or not complete

    def detect_records(self, sniffed: Sniff) -> bool:
        """A JSON-lines chat's body: messages ``{id, timestamp, type, content}`` of Gemini's types,
        or its ``{"$set": …}`` updates."""
        records = list(sniffed.json_lines(6))
        shaped = sum(_is_body_record(rec) for rec in records)
        return shaped >= 2 and 2 * shaped > len(records)

    def default_folders(self, plat: Platform) -> list[Path]:
        """``.gemini/tmp`` (one folder per project) in ``$GEMINI_CLI_HOME``, else in the home folder."""
        return [(plat.var("GEMINI_CLI_HOME") or plat.home) / ".gemini" / "tmp"]

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        chat: Chat | None = read_jsonl(path, problems) if is_jsonl(path) else read_json_document(path, problems)
        if chat is not None:
            session = build_session(chat)
            if session is not None:
                yield session


def _is_body_record(rec: dict[str, Any]) -> bool:
    if set(rec) == {"$set"}:
        return True
    kind = rec.get("type")
    return (
        isinstance(kind, str)
        and kind in BODY_TYPES
        and isinstance(rec.get("id"), str)
        and "content" in rec
        and "timestamp" in rec
    )


READER = GeminiReader()
