"""Is a file a Qwen Code chat: a ``.jsonl`` of records in Gemini's parts form, or an older ``.json`` document?

Qwen Code's records look like Claude Code's (``uuid``, ``parentUuid``, ``sessionId``,
``type``) but carry Gemini's content (``message.parts``, the model's role ``"model"``) and a
``systemPayload`` on its own records; Claude Code's messages have ``content`` instead. The
older document is Gemini CLI's (``sessionId``, ``projectHash``, ``messages``) with the
model's messages typed ``"qwen"``, or it sits under a ``.qwen`` folder.
"""

from __future__ import annotations

import re
from typing import Any

from sessite.readers.base import SNIFF_BYTES, Sniff

RECORD_TYPES = frozenset({"user", "assistant", "tool_result", "system"})
_QWEN_MESSAGE = re.compile(r'"type"\s*:\s*"qwen"')
_SNIFF_LINES = 20


def is_chat_jsonl(sniffed: Sniff) -> bool:
    """The first records say Qwen Code: Gemini parts, a ``systemPayload`` or a ``tool_result`` record."""
    if sniffed.path.suffix.lower() != ".jsonl":
        return False
    for obj in sniffed.json_lines(_SNIFF_LINES):
        verdict = _judge(obj)
        if verdict is not None:
            return verdict
    return _opening(sniffed.text(4096))


def _opening(head: str) -> bool:
    """No line parsed (two records glued on one line, a line cut by the sniff): the CLI's
    fixed key order still tells (``uuid`` first, Gemini parts or a ``systemPayload``)."""
    return (
        head.startswith('{"uuid":"')
        and '"sessionId":"' in head
        and any(f'"type":"{kind}"' in head for kind in RECORD_TYPES)
        and ('"parts":[' in head or '"systemPayload":{' in head)
    )


def _judge(obj: dict[str, Any]) -> bool | None:
    """True for a Qwen Code record, False for a record of the look-alike (Claude Code), None when it does not tell."""
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in RECORD_TYPES or "uuid" not in obj or "sessionId" not in obj:
        return None
    message = obj.get("message")
    if isinstance(message, dict):
        if isinstance(message.get("parts"), list):
            return True
        if "content" in message:
            return False
    if isinstance(obj.get("systemPayload"), dict) or obj.get("type") == "tool_result":
        return True
    return None


def is_legacy_document(sniffed: Sniff) -> bool:
    """An older ``session-*.json``: Gemini CLI's chat document written by Qwen Code."""
    path = sniffed.path
    if path.suffix.lower() != ".json":
        return False
    head = sniffed.text().lstrip()
    if not head.startswith("{") or '"sessionId"' not in head or '"projectHash"' not in head:
        return False
    if '"messages"' not in head and len(sniffed.raw()) < SNIFF_BYTES:
        return False  # a whole document without messages: not a chat
    return bool(_QWEN_MESSAGE.search(head)) or any(part.lower() == ".qwen" for part in path.parts)
