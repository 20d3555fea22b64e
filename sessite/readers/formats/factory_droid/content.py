"""Droid's messages: Anthropic-style content blocks and token counts, and the environment Droid reports first.

A message is ``{role, content: [blocks]}`` with ``text``, ``thinking``, ``image``, ``tool_use``
(``id``, ``name``, ``input``) and ``tool_result`` (``tool_use_id``, ``content``, ``is_error``)
blocks; ``visibility: "user_only"`` marks a notice shown to the user and never sent to the
model (a limit reached).
"""

from __future__ import annotations

from typing import Any

from sessite.model import Block, Usage
from sessite.readers._util import obj, text_of, to_int
from sessite.readers.base import as_text
from sessite.readers.formats.factory_droid.vocabulary import BRANCH, HEAD, MODEL, REMINDER


def blocks_of(content: Any) -> list[dict[str, Any]]:
    """The content as a list of blocks (a plain string is one text block)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return (
        [b if isinstance(b, dict) else {"type": "text", "text": as_text(b)} for b in content]
        if isinstance(content, list)
        else []
    )


def user_text(blocks: list[dict[str, Any]]) -> tuple[str, list[Block], list[str]]:
    """The user's words, what Droid added around them (as blocks), and those additions' texts."""
    words: list[str] = []
    shown: list[Block] = []
    added: list[str] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            text = as_text(block.get("text"))
            reminders = REMINDER.findall(text)
            for reminder in reminders:
                added.append(reminder)
                shown.append(Block("text", text=reminder, title="added by Droid"))
                text = text.replace(reminder, "")
            if text.strip():
                words.append(text.strip() if reminders else text)
        elif kind == "image":
            shown.append(image(block))
        elif kind != "tool_result" and block:
            shown.append(Block("json", title=str(kind or "block"), data=block))
    return "\n\n".join(words), shown, added


def image(block: dict[str, Any]) -> Block:
    source = obj(block.get("source"))
    mime = text_of(source.get("media_type")) or "image/png"
    data = text_of(source.get("data"))
    return Block("image", uri=f"data:{mime};base64,{data}" if data else text_of(source.get("url")), mime=mime)


def result_text(content: Any) -> tuple[str, list[Block]]:
    """A tool result's content: text (a string or text blocks) and images."""
    if isinstance(content, str):
        return content, []
    texts: list[str] = []
    shown: list[Block] = []
    for block in blocks_of(content):
        if block.get("type") == "text":
            texts.append(as_text(block.get("text")))
        elif block.get("type") == "image":
            shown.append(image(block))
        else:
            shown.append(Block("json", title=str(block.get("type") or "block"), data=block))
    return "\n".join(texts), shown


def environment(added: list[str]) -> dict[str, str]:
    """What the environment report says: the branch, the head commit, the model's name."""
    facts: dict[str, str] = {}
    for text in added:
        for key, pattern in (("branch", BRANCH), ("commit", HEAD), ("model", MODEL)):
            match = pattern.search(text)
            if match and key not in facts:
                facts[key] = match.group(1).strip()
    return facts


def usage_of(counts: dict[str, Any]) -> Usage:
    """Anthropic-style token counts (a message's ``usage``, a completion's totals)."""
    return Usage(
        input_tokens=to_int(counts.get("input_tokens")),
        output_tokens=to_int(counts.get("output_tokens")),
        cache_read_tokens=to_int(counts.get("cache_read_input_tokens")),
        cache_write_tokens=to_int(counts.get("cache_creation_input_tokens")),
    )
