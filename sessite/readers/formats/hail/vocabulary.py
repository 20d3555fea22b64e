"""HAIL's vocabulary: its event and block types, the attributes it carries, and how tool
names from the agents HAIL is converted from map onto tool categories."""

from __future__ import annotations

import re

from sessite.model import Kind, ToolCategory
from sessite.readers.tools import tool_category

MESSAGE_KINDS = {
    "UserMessage": Kind.USER,
    "AgentMessage": Kind.ASSISTANT,
    "SystemMessage": Kind.SYSTEM,
    "Thinking": Kind.THINKING,
}
# file operation event type -> category (the subject is data.path)
FILE_OPS = {
    "FileRead": ToolCategory.READ,
    "FileEdit": ToolCategory.EDIT,
    "FileCreate": ToolCategory.EDIT,
    "FileDelete": ToolCategory.EDIT,
}
# query-like event type -> (category, the data field that is its subject)
QUERY_OPS = {
    "CodeSearch": (ToolCategory.SEARCH, "query"),
    "FileSearch": (ToolCategory.SEARCH, "pattern"),
    "WebSearch": (ToolCategory.WEB, "query"),
    "WebFetch": (ToolCategory.WEB, "url"),
    "ImageGenerate": (ToolCategory.MEDIA, "prompt"),
    "VideoGenerate": (ToolCategory.MEDIA, "prompt"),
    "AudioGenerate": (ToolCategory.MEDIA, "prompt"),
}
TASK_MARKERS = ("TaskStart", "TaskEnd")
KNOWN_EVENT_TYPES = frozenset(
    set(MESSAGE_KINDS)
    | set(FILE_OPS)
    | set(QUERY_OPS)
    | {"ToolCall", "ToolResult", "ShellCommand", "TaskStart", "TaskEnd", "Custom"}
)
KNOWN_BLOCK_TYPES = frozenset({"Text", "Code", "Image", "Video", "Audio", "File", "Json", "Reference"})

# semantic.tool_kind attribute (opensession's infer_tool_kind) -> category
_TOOL_KIND = {
    "shell": ToolCategory.SHELL,
    "file_read": ToolCategory.READ,
    "file_write": ToolCategory.EDIT,
    "search": ToolCategory.SEARCH,
    "web": ToolCategory.WEB,
    "task": ToolCategory.TASK,
}
# per-event token attributes -> Usage field (``*_total`` attributes are cumulative and never added)
USAGE_ATTRS = {
    "input_tokens": "input_tokens",
    "output_tokens": "output_tokens",
    "cache_read_tokens": "cache_read_tokens",
    "cache_read_input_tokens": "cache_read_tokens",
    "cache_write_tokens": "cache_write_tokens",
    "cache_creation_input_tokens": "cache_write_tokens",
    "reasoning_tokens": "reasoning_tokens",
    "reasoning_output_tokens": "reasoning_tokens",
}
CALL_ID_ATTRS = ("semantic.call_id", "tool_use_id", "call_id")  # opensession's correlation order, plus Claude's id
# The keys of an event record; any other key is kept in the event's meta.
EVENT_FIELDS = {"type", "event_id", "timestamp", "event_type", "task_id", "content", "duration_ms", "attributes"}
EXIT_CODE = re.compile(r"^Process exited with code (-?\d+)\s*$", re.MULTILINE)


def call_category(name: str, tool_kind: object) -> ToolCategory:
    """The category of a tool call: by the agent's tool name first (the shared table: HAIL is converted
    from agents whose names it holds), then opensession's tool kind."""
    by_name = tool_category(name)
    if by_name != ToolCategory.OTHER:
        return by_name
    if isinstance(tool_kind, str) and tool_kind in _TOOL_KIND:
        return _TOOL_KIND[tool_kind]
    return ToolCategory.OTHER
