"""One claude.ai message (``chat_messages[i]``) turned into its events, attached files included."""

from __future__ import annotations

from typing import Any

from sessite.model import Block, Event, Kind
from sessite.readers.base import as_text, parse_time
from sessite.readers.formats.claude_ai.builder import Ctx, MessageBuilder, what_is
from sessite.readers.formats.claude_ai.content import content_block
from sessite.readers.formats.claude_ai.inline import inline_text

_SENDER_KIND = {"human": Kind.USER, "user": Kind.USER, "assistant": Kind.ASSISTANT}
# The parent of a conversation's first message: not worth showing.
_ROOT_PARENT = "00000000-0000-4000-8000-000000000000"
# Message keys read into events; every other non-empty key lands in meta.
_MSG_KEYS = {
    "uuid",
    "text",
    "content",
    "sender",
    "created_at",
    "updated_at",
    "attachments",
    "files",
    "files_v2",
    "parent_message_uuid",
}


def message_events(
    message: dict[str, Any],
    mindex: int,
    conv_id: str,
    ctx: Ctx,
    skipped: dict[str, int],
    model: str | None,
    call_ids: dict[int, str] | None = None,
) -> list[Event]:
    """The events of the ``mindex``-th message; a field of the wrong type is reported and worked around.
    ``call_ids``: block index -> the call id its tool block makes or answers."""
    where = f"conversation {conv_id}: chat_messages[{mindex}]"
    mid = message.get("uuid")
    if not isinstance(mid, str) or not mid:
        if mid is not None:
            ctx.problem(f"{where}: 'uuid' is not a string")
        mid = f"m{mindex}"
    sender = message.get("sender")
    if not isinstance(sender, str):
        ctx.problem(f"{where}: 'sender' is {what_is(sender)}; shown as a system message")
    kind = _SENDER_KIND.get(sender if isinstance(sender, str) else "", Kind.SYSTEM)
    ts = parse_time(message.get("created_at"))
    if message.get("created_at") is not None and ts is None:
        ctx.problem(f"{where}: created_at is not a valid timestamp: {message.get('created_at')!r}")
    meta = _message_meta(message, sender)
    text, content = _text_and_content(message, where, ctx)

    builder = MessageBuilder(mid, kind, ts, model)
    builder.call_ids = call_ids or {}
    refs: list[Block] = []
    if content:
        has_text = any(isinstance(b, dict) and b.get("type") == "text" for b in content)
        if text and not has_text:
            inline_text(builder, text, ts)
        for bindex, block in enumerate(content):
            content_block(builder, block, bindex, where, conv_id, ctx, skipped, refs)
    elif text:
        inline_text(builder, text, ts)

    files = _file_blocks(message, where, ctx)
    return builder.finish(files, refs, meta)


def _message_meta(message: dict[str, Any], sender: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if isinstance(sender, str) and sender not in _SENDER_KIND:
        meta["sender"] = sender
    parent = message.get("parent_message_uuid")
    if parent and parent != _ROOT_PARENT:
        meta["parent_message_uuid"] = parent
    for key, value in message.items():
        if key not in _MSG_KEYS and value not in (None, "", [], {}):
            meta[key] = value
    return meta


def _text_and_content(message: dict[str, Any], where: str, ctx: Ctx) -> tuple[str | None, list[Any] | None]:
    """The message's ``text`` (a string, or JSON shown as text) and its ``content`` array, checked."""
    text = message.get("text")
    if text is not None and not isinstance(text, str):
        ctx.problem(f"{where}: 'text' is a {type(text).__name__}, not a string; shown as JSON")
        text = as_text(text)
    content = message.get("content")
    if content is not None and not isinstance(content, list):
        ctx.problem(f"{where}: 'content' is a {type(content).__name__}, not an array; ignored")
        content = None
    return text, content


def _file_blocks(message: dict[str, Any], where: str, ctx: Ctx) -> list[Block]:
    """Files and attachments of a message (``files_v2`` only when ``files`` is empty: the same files)."""
    blocks: list[Block] = []
    for key in ("files", "files_v2", "attachments"):
        items = message.get(key)
        if items in (None, []):
            continue
        if not isinstance(items, list):
            ctx.problem(f"{where}: '{key}' is a {type(items).__name__}, not an array; ignored")
            continue
        if key == "files_v2" and message.get("files"):
            continue  # the same files, listed twice
        for item in items:
            if isinstance(item, str):
                blocks.append(Block("file", title=item))
            elif isinstance(item, dict):
                blocks.append(_file_block(item))
            else:
                ctx.problem(f"{where}: an entry of '{key}' is a {type(item).__name__}, not an object; ignored")
    return blocks


def _file_block(item: dict[str, Any]) -> Block:
    name = item.get("file_name")
    name = name if isinstance(name, str) and name else None
    extracted = item.get("extracted_content")
    file_type = item.get("file_type")
    rest = {
        k: v for k, v in item.items() if k not in ("file_name", "extracted_content") and v not in (None, "", [], {})
    }
    return Block(
        "file",
        text=extracted if isinstance(extracted, str) else as_text(extracted),
        title=name or "(unnamed file)",
        mime=file_type if isinstance(file_type, str) and "/" in file_type else None,
        data=rest or None,
    )
