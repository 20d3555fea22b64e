"""Block-shape message content: ``text`` (with citations), ``thinking``, ``tool_use``,
``tool_result``, ``token_budget``; any other block type becomes an unknown event."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sessite.model import Block, Event, Kind
from sessite.readers.base import as_text, parse_time
from sessite.readers.formats.claude_ai.builder import Ctx, MessageBuilder
from sessite.readers.formats.claude_ai.calls import tool_result, tool_use

_EMPTY_THINKING = "empty thinking block"
# Thinking block keys read into the event (the others go to its meta).
_THINKING_KEYS = ("type", "thinking", "text", "summaries", "cut_off", "start_timestamp", "stop_timestamp", "flags")


def content_block(
    builder: MessageBuilder,
    block: Any,
    bindex: int,
    where: str,
    conv_id: str,
    ctx: Ctx,
    skipped: dict[str, int],
    refs: list[Block],
) -> None:
    """Add one content block to the message: prose, a thinking/tool event, or an unknown event.

    Citations are collected in ``refs`` (shown after the message's text).
    """
    if not isinstance(block, dict):
        ctx.problem(f"{where}.content[{bindex}] is a {type(block).__name__}, not an object; kept as text")
        builder.add_text(as_text(block))
        return
    btype = block.get("type")
    # A block without a time (tool results often have none) follows the one before it.
    ts = parse_time(block.get("start_timestamp")) or builder.last_ts
    builder.last_ts = ts
    bid = f"{builder.mid}-{bindex}"
    if btype == "text":
        _text_block(builder, block, ts, f"{where}.content[{bindex}]", ctx, refs)
    elif btype == "thinking":
        thinking = _thinking_event(block, bid, ts, builder.model)
        if thinking.text.strip() or thinking.meta:
            builder.add_event(thinking)
        else:
            skipped[_EMPTY_THINKING] = skipped.get(_EMPTY_THINKING, 0) + 1
    elif btype == "tool_use":
        builder.add_event(tool_use(block, bid, ts, builder.model, builder.call_ids.get(bindex)))
    elif btype == "tool_result":
        builder.add_event(tool_result(block, bid, ts, builder.call_ids.get(bindex)))
    elif btype == "token_budget":
        skipped["token_budget marker (no content)"] = skipped.get("token_budget marker (no content)", 0) + 1
    else:
        ctx.unknown_type(f"content block type {btype!r}", conv_id)
        builder.add_event(
            Event(id=bid, kind=Kind.UNKNOWN, timestamp=ts, title=f"claude.ai content block {btype!r}", raw=block)
        )


def _text_block(
    builder: MessageBuilder, block: dict[str, Any], ts: datetime | None, where: str, ctx: Ctx, refs: list[Block]
) -> None:
    text = block.get("text")
    builder.add_text(text if isinstance(text, str) else as_text(text), ts)
    citations = block.get("citations")
    if isinstance(citations, list):
        refs.extend(_citation_block(c) for c in citations if c not in (None, "", {}))
    elif citations not in (None, "", {}):
        ctx.problem(f"{where}: 'citations' is a {type(citations).__name__}, not an array; kept as a reference")
        refs.append(_citation_block(citations))


def _thinking_event(block: dict[str, Any], bid: str, ts: datetime | None, model: str | None) -> Event:
    text = block.get("thinking", block.get("text"))
    meta: dict[str, Any] = {}
    summaries = block.get("summaries")
    if isinstance(summaries, list) and summaries:
        meta["summaries"] = [s.get("summary", s) if isinstance(s, dict) else s for s in summaries]
    if block.get("cut_off"):
        meta["cut_off"] = True
    for key, value in block.items():
        if key not in _THINKING_KEYS and value not in (None, "", [], {}, False):
            meta[key] = value
    return Event(
        id=bid,
        kind=Kind.THINKING,
        timestamp=ts,
        text=text if isinstance(text, str) else as_text(text),
        model=model,
        meta=meta,
    )


def _citation_block(citation: Any) -> Block:
    if not isinstance(citation, dict):
        return Block("reference", title=as_text(citation), data=citation)
    details = citation.get("details")
    if not isinstance(details, dict):
        details = {}
    url = details.get("url") or citation.get("url")
    title = details.get("title") or citation.get("title") or url
    return Block(
        "reference",
        uri=url if isinstance(url, str) else None,
        title=title if isinstance(title, str) else None,
        data=citation,
    )
