"""claude.ai tool calls (``tool_use``) and results (``tool_result``, with ``knowledge`` items)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sessite.model import Block, Event, Kind, ToolCategory
from sessite.readers.base import as_text
from sessite.readers.formats.claude_ai.inline import lang_from_type

# Block keys that are read into event fields (the rest of a tool block goes to meta).
_TOOL_USE_KEYS = {"type", "id", "name", "input", "start_timestamp"}
_TOOL_RESULT_KEYS = {"type", "tool_use_id", "name", "content", "is_error", "start_timestamp"}
# Keys of a plain text item in a tool result (anything more and the item is shown as JSON).
_PLAIN_TEXT_KEYS = {"type", "text", "uuid", "citations", "start_timestamp", "stop_timestamp", "flags"}


def _tool_category(name: str) -> ToolCategory:
    lowered = name.lower()
    if "web_search" in lowered or "web_fetch" in lowered or lowered in ("fetch", "brave_search", "google_search"):
        return ToolCategory.WEB
    return ToolCategory.OTHER


def _block_meta(block: dict[str, Any], read_keys: set[str]) -> dict[str, Any]:
    """A tool block's keys not read into fields (timestamps and flags aside)."""
    return {
        k: v
        for k, v in block.items()
        if k not in read_keys and k not in ("stop_timestamp", "flags") and v not in (None, "", [], {})
    }


def _artifact_blocks(name: str, tool_input: Any) -> list[Block]:
    """The file an artifact tool writes, as a code block."""
    if not (
        isinstance(tool_input, dict)
        and isinstance(tool_input.get("content"), str)
        and name in ("artifacts", "create_file", "artifact")
    ):
        return []
    mime = tool_input.get("type") if isinstance(tool_input.get("type"), str) else None
    lang = tool_input.get("language") if isinstance(tool_input.get("language"), str) else None
    title = tool_input.get("title") if isinstance(tool_input.get("title"), str) else None
    return [Block("code", text=tool_input["content"], language=lang or lang_from_type(mime), mime=mime, title=title)]


def _repl_code(name: str, tool_input: Any) -> str | None:
    """The code the analysis tool (``repl``) ran, shown as its command."""
    if name in ("repl", "analysis") and isinstance(tool_input, dict):
        code = tool_input.get("code")
        if isinstance(code, str):
            return code
    return None


def tool_use(
    block: dict[str, Any], bid: str, ts: datetime | None, model: str | None, call_id: str | None = None
) -> Event:
    """A ``tool_use`` block as a call event (an artifact it writes shown as a code block);
    ``call_id`` is the one ``pairing`` gave it (the block's own id, or a synthetic one)."""
    name = block.get("name")
    name = name if isinstance(name, str) and name else "tool"
    tool_input = block.get("input")
    return Event(
        id=bid,
        kind=Kind.TOOL_CALL,
        timestamp=ts,
        tool_name=name,
        tool_input=tool_input,
        category=_tool_category(name),
        command=_repl_code(name, tool_input),
        call_id=call_id or _own_id(block.get("id")) or bid,
        blocks=tuple(_artifact_blocks(name, tool_input)),
        model=model,
        meta=_block_meta(block, _TOOL_USE_KEYS),
    )


def tool_result(block: dict[str, Any], bid: str, ts: datetime | None, call_id: str | None = None) -> Event:
    """A ``tool_result`` block as a result event, paired to its call by ``tool_use_id``, else
    to the call it follows (``call_id``, from ``pairing``)."""
    name = block.get("name")
    text, blocks = render_result(block.get("content"))
    return Event(
        id=bid,
        kind=Kind.TOOL_RESULT,
        timestamp=ts,
        text=text,
        blocks=tuple(blocks),
        tool_name=name if isinstance(name, str) and name else None,
        call_id=call_id or _own_id(block.get("tool_use_id")),
        is_error=bool(block.get("is_error")),
        meta=_block_meta(block, _TOOL_RESULT_KEYS),
    )


def _own_id(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


def render_result(content: Any) -> tuple[str, list[Block]]:
    """A tool result's content as readable text plus reference/image blocks."""
    if content is None:
        return "", []
    if isinstance(content, str):
        return content, []
    items = content if isinstance(content, list) else [content]
    parts: list[str] = []
    blocks: list[Block] = []
    for item in items:
        if not isinstance(item, dict):
            parts.append(as_text(item))
            continue
        itype = item.get("type")
        if itype == "text" and set(item) <= _PLAIN_TEXT_KEYS:
            parts.append(as_text(item.get("text")))
        elif itype == "knowledge":
            text, block = _knowledge(item)
            parts.append(text)
            blocks.append(block)
        elif itype == "image" and isinstance(item.get("source"), dict):
            blocks.append(_image(item["source"]))
        else:
            parts.append(as_text(item))
    return "\n\n".join(p for p in parts if p), blocks


def _knowledge(item: dict[str, Any]) -> tuple[str, Block]:
    """A search hit: its title, address and text, and a reference block."""
    title = item.get("title")
    url = item.get("url")
    body = item.get("text")
    lines = [as_text(title)] if title else []
    if url:
        lines.append(as_text(url))
    if body:
        lines.append("")
        lines.append(as_text(body))
    rest = {k: v for k, v in item.items() if k not in ("type", "title", "url", "text") and v not in (None, "", [], {})}
    block = Block(
        "reference",
        uri=url if isinstance(url, str) else None,
        title=title if isinstance(title, str) else None,
        data=rest or None,
    )
    return "\n".join(lines), block


def _image(source: dict[str, Any]) -> Block:
    uri = source.get("url")
    if source.get("type") == "base64" and isinstance(source.get("data"), str):
        uri = f"data:{source.get('media_type') or 'image/png'};base64,{source['data']}"
    return Block("image", uri=uri if isinstance(uri, str) else None, mime=source.get("media_type"))
