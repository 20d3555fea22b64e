"""The ChatGPT export reader: detection, and the export read one conversation at a time."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sessite.model import Problems, Session
from sessite.readers import ledger
from sessite.readers.base import Reader, Sniff
from sessite.readers.files import iter_json_array, load_json
from sessite.readers.formats.chatgpt.conversation import conversation_session, record_count
from sessite.readers.formats.chatgpt.vocabulary import NAME
from sessite.readers.safejson import raw_decode

_MAPPING = re.compile(r'"mapping"\s*:\s*\{')
_NODE = re.compile(r'"children"\s*:\s*\[')
_CONVERSATION_KEY = re.compile(r'"(?:current_node|conversation_id|create_time)"\s*:')
_UNREADABLE = "conversation that could not be read"


class ChatGptReader(Reader):
    """A ChatGPT data export (``conversations.json``, or its ``conversations-NNN.json`` parts):
    one Session per conversation, a damaged one skipped without losing the rest."""

    name = NAME
    agent = ""  # an export the user downloads: no folder of the app's own to look in

    def detect(self, sniffed: Sniff) -> bool:
        if sniffed.path.suffix.lower() != ".json":
            return False
        head = sniffed.text().lstrip()
        if head.startswith("["):
            body = head[1:].lstrip()
            try:
                first, _ = raw_decode(body)
            except ValueError:
                return _looks_like(body)  # the first conversation is longer than the sniff
            if isinstance(first, dict) and _is_conversation(first):
                return True
            return _looks_like(body)  # a damaged first conversation: the next ones say what it is
        if head.startswith("{"):
            return _looks_like(head)  # one conversation, or {"conversations": [...]}
        return False

    def session_key(self, sniffed: Sniff) -> str | None:
        """One key for every ChatGPT export: exports taken at different times (and the parts of
        one) are read together, and a conversation in two of them is merged message by message."""
        return "chatgpt-export"

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        reported: Counter[str] = Counter()
        first = 1
        for index, (line, conv) in enumerate(_conversations(path, problems)):
            count = record_count(conv)
            if not isinstance(conv, dict):
                problems.add(path, line, f"ChatGPT: conversation #{index + 1} is a {type(conv).__name__}; skipped")
                continue
            try:
                yield conversation_session(conv, index, line, path, problems, first, reported)
            except Exception as exc:  # noqa: BLE001 - one damaged conversation must not lose the rest
                problems.add(path, line, f"ChatGPT: conversation #{index + 1} could not be read ({exc!r}); skipped")
                for record in range(first, first + count):
                    ledger.not_shown(path, record, _UNREADABLE)
            first += count


def _conversations(path: Path, problems: Problems) -> Iterator[tuple[int, Any]]:
    """(line, conversation) for each conversation: of an array (streamed), of an object's
    ``conversations``, or the one conversation a file holds."""
    if Sniff(path).text().lstrip(" \t\r\n").startswith("["):  # the first character, as ``detect`` saw it
        yield from iter_json_array(path, problems)
        return
    whole = load_json(path, problems)
    if isinstance(whole, dict) and isinstance(whole.get("conversations"), list):
        yield from ((1, conv) for conv in whole["conversations"])
    elif isinstance(whole, dict):
        yield 1, whole


def _is_conversation(item: dict[str, Any]) -> bool:
    return isinstance(item.get("mapping"), dict) and "chat_messages" not in item and _has_key(item)


def _has_key(item: dict[str, Any]) -> bool:
    return any(k in item for k in ("current_node", "conversation_id", "create_time"))


def _looks_like(text: str) -> bool:
    """Keys of a conversation and of its message nodes, found by name in a head cut short."""
    return (
        _MAPPING.search(text) is not None
        and _NODE.search(text) is not None
        and _CONVERSATION_KEY.search(text) is not None
        and '"chat_messages"' not in text
    )


READER = ChatGptReader()
