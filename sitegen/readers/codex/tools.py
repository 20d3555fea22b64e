"""What a Codex tool call is: its category and the command, path, diff or text to show for it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sitegen.model import ToolCategory
from sitegen.readers._util import text_of
from sitegen.readers.base import as_text
from sitegen.readers.codex.patch import patch_in, patch_to_diff
from sitegen.readers.codex.shell import command_line
from sitegen.readers.tools import tool_category

# Codex's own tool names; every other name is looked up in the shared table (readers.tools).
_OWN_CATEGORIES: Mapping[str, ToolCategory] = {
    "container.exec": ToolCategory.SHELL,
    "shell_command": ToolCategory.SHELL,
    "write_stdin": ToolCategory.SHELL,
    "view_image": ToolCategory.READ,
    "grep_files": ToolCategory.SEARCH,
    "spawn_agent": ToolCategory.TASK,
}
_SHELL_TOOLS = ("shell", "container.exec", "local_shell", "shell_command", "exec_command")
_PATH_TOOLS = ("view_image", "read_file", "list_dir", "grep_files")


def tool_fields(name: str, args: Any) -> dict[str, Any]:
    """category, command, path, diff and text of a tool call from its name and arguments."""
    key = name.lower()
    fields: dict[str, Any] = {"category": tool_category(name, _OWN_CATEGORIES)}
    if isinstance(args, str) and key == "apply_patch":
        args = {"input": args}
    if not isinstance(args, dict):
        return fields
    if key in _SHELL_TOOLS:
        return _shell_fields(fields, args)
    if key == "apply_patch":
        patch = args.get("input") if isinstance(args.get("input"), str) else args.get("patch")
        if isinstance(patch, str):
            diff, paths = patch_to_diff(patch)
            if diff:
                fields["diff"] = diff
            if paths:
                fields["path"] = ", ".join(paths)
    elif key == "update_plan":
        text = _plan_markdown(args)
        if text:
            fields["text"] = text
    elif key in _PATH_TOOLS:
        path = text_of(args.get("path")) or text_of(args.get("file_path")) or text_of(args.get("dir_path"))
        if path:
            fields["path"] = path
    return fields


def _shell_fields(fields: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """A shell call shows its command line, or the diff when the command applies a patch."""
    raw = args.get("command") if "command" in args else args.get("cmd")
    command = command_line(raw)
    patch = patch_in(command) if command and ("apply_patch" in command or "applypatch" in command) else None
    if patch:
        diff, paths = patch_to_diff(patch)
        if diff:
            fields.update(category=ToolCategory.EDIT, diff=diff, path=", ".join(paths) if paths else None)
            return {k: v for k, v in fields.items() if v is not None}
    if command:
        fields["command"] = command
    return fields


def _plan_markdown(args: dict[str, Any]) -> str:
    """An ``update_plan`` call as a markdown checklist."""
    lines = []
    if isinstance(args.get("explanation"), str) and args["explanation"].strip():
        lines.extend([args["explanation"].strip(), ""])
    for step in args.get("plan") or []:
        if isinstance(step, dict):
            status = str(step.get("status"))
            note = " *(in progress)*" if status == "in_progress" else ""
            lines.append(f"- [{'x' if status == 'completed' else ' '}] {as_text(step.get('step'))}{note}")
    return "\n".join(lines).strip()
