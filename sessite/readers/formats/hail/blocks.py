"""HAIL content blocks (internally tagged: ``{"type": "Text", "text": …}``) as model blocks,
and the small rules that fold them into an event's text."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sessite.model import Block
from sessite.readers.base import as_text

_PATCH_START = re.compile(r"^(\*\*\* Begin Patch|diff --git |--- \S|Index: \S)", re.MULTILINE)


def read_blocks(raw_blocks: list[Any], warn: Callable[[str], None]) -> list[Block]:
    """HAIL content blocks; Text comes back as Block("text") for the caller to fold into ``text``.
    ``warn`` reports a problem with the event the blocks belong to."""
    out: list[Block] = []
    for index, block in enumerate(raw_blocks):
        if not isinstance(block, dict):
            warn(f"content block {index} is not an object; shown as JSON")
            out.append(Block("json", data=block, title="malformed block"))
            continue
        out.append(_block(block, warn))
    return out


def _block(block: dict[str, Any], warn: Callable[[str], None]) -> Block:
    btype = block.get("type")

    def text_of(key: str, required: bool = False) -> str | None:
        value = block.get(key)
        if value is None:
            if required:
                warn(f"{btype} block has no '{key}'")
            return None
        if not isinstance(value, str):
            warn(f"{btype}.{key} is not a string")
            return as_text(value)
        return value

    if btype == "Text":
        return Block("text", text=text_of("text", True) or "")
    if btype == "Code":
        start = block.get("start_line")
        return Block(
            "code",
            text=text_of("code", True) or "",
            language=text_of("language"),
            data={"start_line": start} if start is not None else None,
        )
    if btype in ("Image", "Video", "Audio"):
        return Block(btype.lower(), uri=text_of("url", True), mime=text_of("mime"), title=text_of("alt"))
    if btype == "File":
        file_path = text_of("path", True)
        return Block("file", text=text_of("content") or "", uri=file_path, title=file_path)
    if btype == "Json":
        return Block("json", data=block.get("data"))
    if btype == "Reference":
        return Block("reference", uri=text_of("uri", True), mime=text_of("media_type"))
    warn(f"unknown content block type {btype!r}; shown as JSON")
    return Block("json", data=block, title=f"unknown block {btype!r}")


def split_text(parts: list[Block], sep: str) -> tuple[str, tuple[Block, ...]]:
    """The text blocks joined into the event's text, and the other blocks."""
    texts = [b.text for b in parts if b.type == "text"]
    return sep.join(t for t in texts if t), tuple(b for b in parts if b.type != "text")


def drop_echo(parts: list[Block], value: str) -> list[Block]:
    """Drop Text/Code blocks that only repeat the event's subject (command, path, query)."""
    if not value:
        return parts
    value = value.strip()
    return [b for b in parts if not (b.type in ("text", "code") and b.text.strip() == value)]


def looks_like_patch(text: str) -> bool:
    return bool(_PATCH_START.search(text)) and (
        "\n@@" in text or text.lstrip().startswith("*** Begin Patch") or "\n+" in text
    )
