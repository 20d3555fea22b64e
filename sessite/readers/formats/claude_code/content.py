"""Message content: usage counts, images, tool-result content, and the text Claude Code injects as the user."""

from __future__ import annotations

import re
from typing import Any

from sessite.model import Block, Kind, Usage, user_words
from sessite.readers._util import obj, shorten, text_of, to_int
from sessite.readers.base import as_text
from sessite.readers.formats.claude_code.vocabulary import ANSI_ESCAPE, OUTPUT_TAGS, SYSTEM_TAGS

# (kind, title, text, meta) of one piece of user text.
Classified = tuple[Kind, str | None, str, dict[str, Any]]


def usage_of(raw: Any) -> Usage | None:
    """The token counts of an API message (None when there are none)."""
    if not isinstance(raw, dict):
        return None
    usage = Usage(
        input_tokens=to_int(raw.get("input_tokens")),
        output_tokens=to_int(raw.get("output_tokens")),
        cache_read_tokens=to_int(raw.get("cache_read_input_tokens")),
        cache_write_tokens=to_int(raw.get("cache_creation_input_tokens")),
    )
    return usage or None


def strip_ansi(text: str) -> str:
    return ANSI_ESCAPE.sub("", text) if "\x1b" in text else text


def image_block(block: dict[str, Any]) -> Block:
    """An image content block (inline base64 becomes a data: URI)."""
    source = obj(block.get("source"))
    mime = text_of(source.get("media_type"))
    uri = None
    if source.get("type") == "base64" and isinstance(source.get("data"), str):
        uri = f"data:{mime or 'image/png'};base64,{source['data']}"
    elif isinstance(source.get("url"), str):
        uri = source["url"]
    return Block("image", uri=uri, mime=mime, title=text_of(block.get("title")))


def result_content(content: Any) -> tuple[str, tuple[Block, ...]]:
    """Plain text and non-text blocks of a tool_result's content."""
    if content is None:
        return "", ()
    if isinstance(content, str):
        return content, ()
    if not isinstance(content, list):
        return as_text(content), ()
    texts: list[str] = []
    blocks: list[Block] = []
    for item in content:
        if isinstance(item, str):
            texts.append(item)
        elif not isinstance(item, dict):
            texts.append(as_text(item))
        elif item.get("type") == "text":
            texts.append(as_text(item.get("text")))
        elif item.get("type") == "image":
            blocks.append(image_block(item))
        elif item.get("type") == "tool_reference":
            blocks.append(Block("reference", title=as_text(item.get("tool_name")) or None, data=item))
        else:
            blocks.append(Block("json", title=str(item.get("type") or "content"), data=item))
    return "\n".join(texts), tuple(blocks)


def _inner(text: str, tag: str) -> str | None:
    """The content of the first ``<tag>…</tag>`` in text (plain find, no regex)."""
    start = text.find(f"<{tag}>")
    if start < 0:
        return None
    start += len(tag) + 2
    end = text.find(f"</{tag}>", start)
    return text[start:] if end < 0 else text[start:end]


def _tagged(text: str, name: str, label: str) -> Classified:
    """A user string that opens with one of Claude Code's injection tags."""
    if name in ("command-name", "command-message"):
        command = (_inner(text, "command-name") or _inner(text, "command-message") or "").strip()
        if command and not command.startswith("/"):
            command = "/" + command
        args = (_inner(text, "command-args") or "").strip()
        meta = {"command": command, "command_args": args} if args else {"command": command}
        return Kind.SYSTEM, label, f"{command} {args}".strip(), meta
    if name == "bash-input":
        return Kind.SYSTEM, label, "```sh\n$ " + (_inner(text, name) or "").strip() + "\n```", {}
    if name in OUTPUT_TAGS:
        parts = [strip_ansi(_inner(text, t) or "").strip() for t in OUTPUT_TAGS if f"<{t}>" in text]
        return Kind.SYSTEM, label, "\n".join(p for p in parts if p), {}
    inner = (_inner(text, name) or text).strip()
    if name == "task-notification":
        return Kind.SYSTEM, label, _fields(inner), {}
    return Kind.SYSTEM, label, inner, {}


_FIELD = re.compile(r"<([a-z][a-z0-9_-]{0,40})>(.*?)</\1>", re.S)


def _fields(text: str) -> str:
    """A notification made of ``<field>value</field>`` parts, as one line per field (the
    summary first, a long result as its own paragraph); text that is not such parts stays."""
    found = {m.group(1): m.group(2).strip() for m in _FIELD.finditer(text)}
    if not found:
        return text
    lines = [found.pop("summary")] if found.get("summary") else []
    result = found.pop("result", "")
    lines += [f"- {key.replace('-', ' ')}: `{value}`" for key, value in found.items() if value and "\n" not in value]
    paragraphs = ["\n".join(lines), *(value for value in found.values() if "\n" in value), result]
    return "\n\n".join(p for p in paragraphs if p)


def classify_user_text(text: str) -> Classified:
    """(kind, title, text, meta) for a user string that may be injected noise."""
    head = text.lstrip()[:40]
    if head.startswith("<"):
        for tag, label in SYSTEM_TAGS:
            if head.startswith(tag):
                return _tagged(text, tag[1:-1], label)
    if head.startswith("[Request interrupted by user"):
        return Kind.SYSTEM, "Interrupted", text.strip().strip("[]"), {}
    return Kind.USER, None, text, {}


def title_from_prompt(kind: Kind, text: str, meta: dict[str, Any]) -> str | None:
    """A session title from the first prompt in the user's own words (IDE and command context
    stripped), or from the first slash command with arguments."""
    if kind == Kind.USER:
        words = user_words(text)
        return shorten(words) if words else None
    if meta.get("command_args"):
        return shorten(f"{meta['command']} {meta['command_args']}")
    return None
