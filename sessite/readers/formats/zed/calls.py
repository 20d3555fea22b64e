"""Zed's agent tools: categories, a call's command/file/change, a result's text and exit code.

A ``ToolUse`` is ``{id, name, raw_input, input, is_input_complete}``; its result, kept in the
agent message's ``tool_results`` by id, is ``{tool_use_id, tool_name, is_error, content,
output}``, the content ``{"Text": …}`` / ``{"Image": …}`` (a list of them in newer Zed, a
plain string in the oldest threads) and the output the tool's own structured record
(``edit_file``: the file's old and new text).
"""

from __future__ import annotations

import re
from typing import Any

from sessite.model import Block, ToolCategory
from sessite.readers._util import obj, opt_int, text_of, unified_diff
from sessite.readers.base import as_text
from sessite.readers.tools import ToolInput, tool_category, tool_input

CATEGORIES = {
    "terminal": ToolCategory.SHELL,
    "edit_file": ToolCategory.EDIT,
    "streaming_edit_file": ToolCategory.EDIT,
    "create_file": ToolCategory.EDIT,
    "delete_path": ToolCategory.EDIT,
    "move_path": ToolCategory.EDIT,
    "copy_path": ToolCategory.EDIT,
    "create_directory": ToolCategory.EDIT,
    "find_path": ToolCategory.SEARCH,
    "diagnostics": ToolCategory.SEARCH,
    "spawn_agent": ToolCategory.TASK,
    "subagent": ToolCategory.TASK,
}
PATH_KEYS = ("path", "abs_path", "source_path", "file_path")
_EXIT = re.compile(r"(?:exit(?:ed with)? (?:code|status) |exit code: ?)(-?\d{1,6})", re.I)


def call_fields(name: str, args: Any) -> tuple[ToolCategory, ToolInput]:
    category = tool_category(name, CATEGORIES)
    return category, tool_input(args, category, None, path_keys=PATH_KEYS)


def result_fields(
    result: dict[str, Any], category: ToolCategory | None, path: str | None
) -> tuple[str, tuple[Block, ...], int | None, str | None]:
    """(text, blocks, exit code, diff) of one tool result."""
    contents = result.get("content")
    items = contents if isinstance(contents, list) else [contents] if contents is not None else []
    texts: list[str] = []
    blocks: list[Block] = []
    for item in items:
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(item, dict) and "Text" in item:
            texts.append(as_text(item["Text"]))
        elif isinstance(item, dict) and "Image" in item:
            blocks.append(image(obj(item["Image"])))
        elif item is not None:
            texts.append(as_text(item))
    text = "\n".join(texts)
    code = None
    if category == ToolCategory.SHELL:
        match = _EXIT.search(text)
        code = opt_int(match.group(1)) if match else None
    output = obj(result.get("output"))
    diff = text_of(output.get("diff"))
    old, new = output.get("old_text"), output.get("new_text")
    if not diff and isinstance(old, str) and isinstance(new, str) and old != new:
        where = text_of(output.get("input_path")) or text_of(output.get("path")) or path
        diff = unified_diff(where, old, new) or None
    return text, tuple(blocks), code, diff


def image(value: dict[str, Any]) -> Block:
    """A ``LanguageModelImage`` (``source``: base64 PNG) as an inline image."""
    source = text_of(value.get("source")) or ""
    uri = source if source.startswith("data:") else f"data:image/png;base64,{source}" if source else None
    return Block("image", uri=uri, mime="image/png")
