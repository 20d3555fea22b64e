"""Kimi's content parts and tool results, as text, thinking, blocks, diffs and token counts.

Both generations write content as typed parts: ``{"type": "text", "text"}``, ``{"type":
"think", "think", "encrypted"}`` and media parts (``image_url``, ``audio_url``,
``video_url``). A tool's result is its ``output`` (text or parts), a ``message`` for the
model and, in Kimi CLI, ``display`` blocks for the terminal: a ``diff`` (path, old and new
text), a ``todo`` list, a ``shell`` command, a ``brief`` line.
"""

from __future__ import annotations

from typing import Any

from sessite.model import Block, Usage
from sessite.readers._util import obj, text_of, to_int, unified_diff
from sessite.readers.base import as_text


def input_text(value: Any) -> tuple[str, list[Block]]:
    """A user input (a string or a list of parts): its text and its media as blocks."""
    if isinstance(value, str):
        return value, []
    texts: list[str] = []
    blocks: list[Block] = []
    for part in value if isinstance(value, list) else [value]:
        kind, body = part_of(part)
        if kind == "text":
            texts.append(body)
        elif kind == "block":
            blocks.append(body)
        elif kind == "think" and body:
            blocks.append(Block("text", text=body, title="thinking"))
    return "\n".join(texts), blocks


def part_of(part: Any) -> tuple[str, Any]:
    """One content part as (``text``|``think``|``block``|``none``, its text or Block)."""
    if isinstance(part, str):
        return "text", part
    if not isinstance(part, dict):
        return ("text", as_text(part)) if part is not None else ("none", None)
    kind = part.get("type")
    if kind == "text":
        return "text", as_text(part.get("text"))
    if kind == "think":
        return "think", as_text(part.get("think") or part.get("text") or "")
    for media in ("image_url", "audio_url", "video_url"):
        if kind == media:
            url = text_of(obj(part.get(media)).get("url")) or text_of(part.get(media))
            return "block", Block(media.split("_")[0], uri=url, title=text_of(obj(part.get(media)).get("id")))
    return "block", Block("json", title=str(kind or "part"), data=part)


def usage_of(counts: Any) -> Usage | None:
    """Token counts of one step: fresh input, output, cache read and cache write (either spelling)."""
    if not isinstance(counts, dict):
        return None

    def count(*keys: str) -> int:
        return next((to_int(counts[k]) for k in keys if k in counts), 0)

    usage = Usage(
        input_tokens=count("input_other", "inputOther"),
        output_tokens=count("output"),
        cache_read_tokens=count("input_cache_read", "inputCacheRead"),
        cache_write_tokens=count("input_cache_creation", "inputCacheCreation"),
    )
    return usage or None


def output_text(value: Any) -> tuple[str, list[Block]]:
    """A tool's ``output``: a string, or parts (text and media)."""
    if isinstance(value, str) or not isinstance(value, list):
        return (as_text(value) if value is not None else ""), []
    return input_text(value)


def display_blocks(display: Any, path: str | None) -> tuple[str | None, list[Block], dict[str, Any]]:
    """Kimi CLI's ``display`` blocks: a diff (the first), blocks for a todo list or other
    content, and small facts (a brief line, the shell command)."""
    diff: str | None = None
    blocks: list[Block] = []
    meta: dict[str, Any] = {}
    for block in display if isinstance(display, list) else ():
        block = obj(block)
        kind = block.get("type")
        if kind == "diff":
            shown = unified_diff(
                text_of(block.get("path")) or path, as_text(block.get("old_text")), as_text(block.get("new_text"))
            )
            diff = diff or shown or None
        elif kind == "todo" and isinstance(block.get("items"), list):
            blocks.append(Block("text", text=todo_text(block["items"]), title="todo list"))
        elif kind == "brief" and text_of(block.get("text")):
            meta["summary"] = block["text"]
        elif kind == "shell":
            continue  # the command, which the call shows
        elif block:
            blocks.append(Block("json", title=str(kind or "display"), data=block))
    return diff, blocks, meta


def todo_text(items: list[Any]) -> str:
    marks = {"done": "[x]", "completed": "[x]", "in_progress": "[~]"}
    return "\n".join(
        f"- {marks.get(text_of(obj(i).get('status')) or '', '[ ]')} "
        f"{as_text(obj(i).get('title') or obj(i).get('content'))}"
        for i in items
        if isinstance(i, dict)
    )
