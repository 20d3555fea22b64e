"""claude.ai data exports (``conversations.json``), read straight from the JSON (independently of the reader).

The export is an array of conversations, each with ``chat_messages``. One record per
message, numbered by its 1-based index among all the export's messages in file order
(conversation after conversation); conversations are read one by one, so a truncated
export still yields the messages before the damage.

What a faithful page must show, as the export says it:

- the user's words: a ``human`` message's ``text`` blocks (the message's ``text`` when its
  content has none);
- the model's prose: an ``assistant`` message's ``text`` blocks, or (2024 shape) its
  ``text`` with the inline ``<antThinking>`` and ``<antArtifact>`` parts taken out;
- tool calls: the export gives ``tool_use`` and ``tool_result`` blocks no ids, but a result
  follows the call it answers. A call is named ``<conversation uuid>:call<N>`` (the N-th
  ``tool_use`` of the conversation) and a result answers the oldest call still unanswered
  with the same tool name, else the oldest unanswered one. Blocks with ids keep them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, read_text

_INLINE = re.compile(
    r"<antThinking>.*?(?:</antThinking>|\Z)|<antArtifact\b[^>]*?/>|<antArtifact\b[^>]*>.*?(?:</antArtifact>|\Z)",
    re.S,
)
_WS = re.compile(r"\s*")


def records(path: Path) -> Iterator[Record]:
    """Every message of one export, in file order."""
    text = read_text(path)
    if text is None:
        return
    number = 0
    for index, conv in enumerate(_conversations(text)):
        messages = conv.get("chat_messages") if isinstance(conv, dict) else None
        if not isinstance(messages, list):
            continue
        conv_id = _conversation_id(conv, index, path)
        calls = _Calls(conv_id)
        for message in messages:
            number += 1
            yield _record(path, number, message, calls)


def _conversations(text: str) -> Iterator[Any]:
    """The array's items one by one, up to the first damage."""
    decoder = json.JSONDecoder()
    pos = _WS.match(text, 0).end()  # type: ignore[union-attr]
    if not text.startswith("[", pos):
        return
    pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
    while pos < len(text) and text[pos] != "]":
        try:
            item, pos = decoder.raw_decode(text, pos)
        except ValueError:
            return
        yield item
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if text.startswith(",", pos):
            pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]


def _conversation_id(conv: dict[str, Any], index: int, path: Path) -> str:
    uuid = conv.get("uuid")
    if isinstance(uuid, (int, float)) and not isinstance(uuid, bool):
        uuid = str(uuid)
    return uuid if isinstance(uuid, str) and uuid else f"{path.stem}-{index + 1}"


class _Calls:
    """One conversation's tool calls awaiting their result."""

    def __init__(self, conv_id: str) -> None:
        self.conv_id = conv_id
        self.count = 0
        self.open: list[tuple[str, str]] = []  # (tool name, call id), oldest first

    def call(self, block: dict[str, Any]) -> str:
        self.count += 1
        own = block.get("id")
        call_id = str(own) if own not in (None, "") else f"{self.conv_id}:call{self.count}"
        self.open.append((_name(block), call_id))
        return call_id

    def result(self, block: dict[str, Any]) -> str | None:
        own = block.get("tool_use_id")
        if own not in (None, ""):
            self.open = [c for c in self.open if c[1] != str(own)]
            return str(own)
        for index, (name, call_id) in enumerate(self.open):
            if name == _name(block):
                del self.open[index]
                return call_id
        return self.open.pop(0)[1] if self.open else None


def _name(block: dict[str, Any]) -> str:
    return block["name"] if isinstance(block.get("name"), str) else ""


def _record(path: Path, number: int, message: Any, calls: _Calls) -> Record:
    if not isinstance(message, dict):
        return Record(path, number, "(not an object)")
    sender = message.get("sender")
    out = Record(path, number, f"message/{sender}")
    raw_content = message.get("content")
    content: list[Any] = raw_content if isinstance(raw_content, list) else []
    texts: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif btype == "tool_use":
            out.calls.append(calls.call(block))
        elif btype == "tool_result":
            answered = calls.result(block)
            if answered is not None:
                out.results.append(answered)
    has_text_blocks = any(isinstance(b, dict) and b.get("type") == "text" for b in content)
    if not has_text_blocks and isinstance(message.get("text"), str):
        texts = [message["text"]]
    if sender == "human":
        out.user_texts.extend(t.strip() for t in texts if t.strip())
    elif sender == "assistant":
        for text in texts:
            out.assistant_texts.extend(p.strip() for p in _INLINE.split(text) if p.strip())
    return out
