"""Gemini message content (a PartListUnion) and token counts, as the model's text, blocks and usage."""

from __future__ import annotations

import base64
from typing import Any

from sessite.model import Block, Usage
from sessite.readers._util import text_of, to_int
from sessite.readers.base import as_text


def usage_of(tokens: Any) -> Usage | None:
    """Gemini's ``tokens``: input includes cached input; thoughts and tool-use prompt are extra."""
    if not isinstance(tokens, dict):
        return None
    inp = to_int(tokens.get("input"))
    cached = to_int(tokens.get("cached"))
    thoughts = to_int(tokens.get("thoughts"))
    usage = Usage(
        input_tokens=max(inp - cached, 0) + to_int(tokens.get("tool")),
        output_tokens=to_int(tokens.get("output")) + thoughts,
        cache_read_tokens=cached,
        reasoning_tokens=thoughts,
    )
    return usage or None


def response_blocks(responses: list[dict[str, Any]]) -> list[Block]:
    """functionResponse parts shown as raw JSON where they are not read as a tool result."""
    return [Block("json", title="functionResponse", data=r) for r in responses]


def _data_block(mime: str | None, data: Any, title: str | None = None) -> Block:
    mime = mime or "application/octet-stream"
    if mime.startswith("image/") and isinstance(data, str):
        return Block("image", uri=f"data:{mime};base64,{data}", mime=mime, title=title)
    if mime.startswith("text/") and isinstance(data, str):
        try:
            text = base64.b64decode(data, validate=False).decode("utf-8", errors="replace")
        except ValueError:
            text = ""
        return Block("file", text=text, mime=mime, title=title)
    kind = mime.split("/", 1)[0]
    return Block(kind if kind in ("video", "audio") else "file", mime=mime, title=title or mime)


def parts_of(content: Any) -> tuple[str, list[Block], list[dict[str, Any]]]:
    """Text, non-text blocks and functionResponse objects of a PartListUnion."""
    if content is None:
        return "", [], []
    if isinstance(content, str):
        return content, [], []
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return as_text(content), [], []
    texts: list[str] = []
    blocks: list[Block] = []
    responses: list[dict[str, Any]] = []
    for part in content:
        if isinstance(part, str):
            texts.append(part)
        elif not isinstance(part, dict):
            texts.append(as_text(part))
        elif isinstance(part.get("text"), str) and not part.get("thought"):
            texts.append(part["text"])
        elif isinstance(part.get("functionResponse"), dict):
            responses.append(part["functionResponse"])
        elif isinstance(part.get("inlineData"), dict):
            inline = part["inlineData"]
            blocks.append(
                _data_block(text_of(inline.get("mimeType")), inline.get("data"), text_of(inline.get("displayName")))
            )
        elif isinstance(part.get("fileData"), dict):
            file = part["fileData"]
            blocks.append(Block("reference", uri=text_of(file.get("fileUri")), mime=text_of(file.get("mimeType"))))
        elif part.get("thought") and isinstance(part.get("text"), str):
            continue  # thought parts are read as thoughts by the caller
        else:
            blocks.append(Block("json", title=next(iter(part), "part"), data=part))
    # Parts of one message are fragments of one text (``@file`` expansions bring their own newlines).
    return "".join(texts), blocks, responses


def ansi_text(lines: list[Any]) -> str:
    """Plain text of an AnsiOutput display (lines of styled tokens)."""
    out = []
    for line in lines:
        if isinstance(line, list):
            out.append("".join(as_text(t.get("text")) if isinstance(t, dict) else as_text(t) for t in line))
        else:
            out.append(as_text(line))
    return "\n".join(out)
