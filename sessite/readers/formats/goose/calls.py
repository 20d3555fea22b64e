"""Goose's tool calls and results: names, categories, the command, the file, the change, the output.

A call is a ``toolRequest`` item (``{id, toolCall: {status, value: {name, arguments}}}``,
or ``{status: "error", error}`` when the model's call could not be parsed); its result a
``toolResponse`` item in the next user message (``{id, toolResult: {status, value}}``,
the value an MCP ``CallToolResult`` ``{content: [...], isError}``, or in older sessions
the content list itself). Tool names are ``<extension>__<tool>`` (``developer__shell``);
the category comes from the tool part. An MCP tool often answers twice, once for the
model and once for the user (``annotations.audience``): the model's text is the result,
the user's, when it differs, a block beside it.
"""

from __future__ import annotations

from typing import Any

from sessite.model import Block, ToolCategory
from sessite.readers._util import obj, opt_int, text_of
from sessite.readers.base import as_text
from sessite.readers.tools import ToolInput, replace_diff, tool_category, tool_input, write_diff

CATEGORIES = {
    "list_windows": ToolCategory.OTHER,
    "screen_capture": ToolCategory.MEDIA,
    "image_processor": ToolCategory.MEDIA,
    "analyze": ToolCategory.SEARCH,
    "tree": ToolCategory.SEARCH,
    "web_scrape": ToolCategory.WEB,
    "automation_script": ToolCategory.SHELL,
    "computer_control": ToolCategory.OTHER,
    "subagent": ToolCategory.TASK,
    "dynamic_task": ToolCategory.TASK,
    "create_task": ToolCategory.TASK,
    "execute_task": ToolCategory.TASK,
}
# ``text_editor``'s command decides what a call does.
_EDITOR = {
    "view": ToolCategory.READ,
    "write": ToolCategory.EDIT,
    "str_replace": ToolCategory.EDIT,
    "insert": ToolCategory.EDIT,
    "undo_edit": ToolCategory.EDIT,
}
_EDITOR_DIFFS = {"write": write_diff(("file_text", "content")), "str_replace": replace_diff(("old_str",), ("new_str",))}
# Newer Goose developer tools are named plainly (``edit``, ``write``).
_DIFFS = {
    "edit": replace_diff(("old_str", "old_string"), ("new_str", "new_string")),
    "write": write_diff(("content", "file_text")),
}
PATH_KEYS = ("path", "file_path")


def short_name(name: str) -> str:
    """``developer__shell`` -> ``shell`` (the tool without its extension)."""
    return name.rsplit("__", 1)[-1] if "__" in name else name


def request_of(item: dict[str, Any]) -> tuple[str, Any, str | None]:
    """(name, arguments, error) of a ``toolRequest``/``frontendToolRequest`` item."""
    call = obj(item.get("toolCall"))
    value = obj(call.get("value"))
    name = text_of(value.get("name")) or "tool"
    error = as_text(call.get("error")) if call.get("status") == "error" or "error" in call else None
    return name, value.get("arguments"), error or None


def call_fields(name: str, args: Any) -> tuple[ToolCategory, ToolInput]:
    """The category and the command/path/diff a page shows for one call."""
    tool = short_name(name)
    if tool == "text_editor" and isinstance(args, dict):
        command = text_of(args.get("command")) or ""
        category = _EDITOR.get(command, ToolCategory.EDIT)
        return category, tool_input(args, category, _EDITOR_DIFFS.get(command), path_keys=PATH_KEYS)
    category = tool_category(tool, CATEGORIES)
    if category == ToolCategory.OTHER and tool != name:
        category = tool_category(name, CATEGORIES)
    return category, tool_input(args, category, _DIFFS.get(tool.lower()), path_keys=PATH_KEYS)


def result_of(item: dict[str, Any]) -> tuple[str, tuple[Block, ...], bool, int | None, dict[str, Any]]:
    """(text, blocks, is_error, exit code, meta) of a ``toolResponse`` item (a shell's exit code is in
    ``structuredContent`` in newer Goose)."""
    result = obj(item.get("toolResult"))
    if result.get("status") == "error" or ("error" in result and "value" not in result):
        return as_text(result.get("error")), (), True, None, {}
    value = result.get("value")
    meta: dict[str, Any] = {}
    code = None
    if isinstance(value, dict):
        contents = value.get("content")
        failed = value.get("isError") is True
        structured = value.get("structuredContent")
        if isinstance(structured, dict):
            code = opt_int(structured.get("exit_code", structured.get("exitCode")))
        if structured is not None:
            meta["structured content"] = structured
    else:
        contents, failed = value, False
    text, blocks = content_text(contents if isinstance(contents, list) else [])
    return text, blocks, failed or (code is not None and code != 0), code, meta


def content_text(contents: list[Any]) -> tuple[str, tuple[Block, ...]]:
    """MCP content items: the text the model was given, the rest as blocks."""
    for_model: list[str] = []
    blocks: list[Block] = []
    for item in contents:
        item = obj(item)
        kind = item.get("type")
        audience = obj(item.get("annotations")).get("audience")
        user_only = isinstance(audience, list) and "assistant" not in audience and bool(audience)
        if kind == "text":
            text = as_text(item.get("text"))
            if user_only:
                if text.strip() and text not in for_model:
                    blocks.append(Block("text", text=text, title="shown to the user"))
            else:
                for_model.append(text)
        elif kind in ("image", "document"):
            blocks.append(media_block(item))
        elif kind == "resource":
            resource = obj(item.get("resource"))
            uri = text_of(resource.get("uri"))
            body = as_text(resource.get("text")) if "text" in resource else ""
            blocks.append(Block("file", text=body, uri=uri, mime=text_of(resource.get("mimeType")), title=uri))
        elif kind is not None:
            blocks.append(Block("json", data=item, title=f"{as_text(kind)} content"))
    blocks = [b for b in blocks if not (b.type == "text" and b.text in for_model)]
    return "\n".join(for_model), tuple(blocks)


def media_block(item: dict[str, Any]) -> Block:
    """An ``image`` item (base64 ``data`` and ``mimeType``) inline; a ``document`` by its name."""
    data = text_of(item.get("data")) or ""
    if item.get("type") == "document":
        return Block("file", mime=text_of(item.get("mimeType")), title=text_of(item.get("name")) or "document")
    mime = text_of(item.get("mimeType")) or "image/png"
    uri = data if data.startswith("data:") else f"data:{mime};base64,{data}" if data else None
    return Block("image", uri=uri, mime=mime)
