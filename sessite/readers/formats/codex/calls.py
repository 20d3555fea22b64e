"""What a Codex tool call is: its category and the command, path, diff or text to show for it.

Codex 0.14x's "code mode" runs most tools from one ``exec`` custom tool whose
input is a JavaScript snippet (``await tools.exec_command({cmd: "…"})``,
``tools.apply_patch("*** Begin Patch…")``): the commands and patches in its
string literals are read out, so such a call shows its command line or its
diff like any other (the snippet stays the call's input).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from sessite.model import ToolCategory
from sessite.readers._util import text_of
from sessite.readers.base import as_text
from sessite.readers.formats.codex.patch import patch_in, patch_to_diff
from sessite.readers.formats.codex.shell import command_line
from sessite.readers.safejson import loads
from sessite.readers.tools import tool_category

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
# Code mode: the tools a snippet calls, and its string literals ("…", '…' or `…`).
_CODE_TOOL = re.compile(r"\btools\.(\w+)\s*\(")
_JS_STRING = r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`"""
_LITERAL = re.compile(_JS_STRING)
_CMD = re.compile(r"\bcmd\"?\s*:\s*(" + _JS_STRING + ")")
_CODE_SHELL = {"exec_command", "write_stdin"}


def tool_fields(name: str, args: Any) -> dict[str, Any]:
    """category, command, path, diff and text of a tool call from its name and arguments."""
    key = name.lower()
    fields: dict[str, Any] = {"category": tool_category(name, _OWN_CATEGORIES)}
    if isinstance(args, str) and key == "apply_patch":
        args = {"input": args}
    if isinstance(args, str) and key == "exec":
        return _code_mode_fields(args) or fields
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


def _code_mode_fields(source: str) -> dict[str, Any]:
    """Category, command lines and diff of a code-mode snippet; empty when it calls no known tool."""
    used = set(_CODE_TOOL.findall(source))
    if not used:
        return {}
    fields: dict[str, Any] = {"category": ToolCategory.OTHER}
    commands = [c for c in (_js_string(m.group(1)) for m in _CMD.finditer(source)) if c]
    if commands:
        fields["command"] = "\n".join(commands)
    diffs: list[str] = []
    paths: list[str] = []
    for literal in _LITERAL.finditer(source) if "apply_patch" in used else ():
        text = _js_string(literal.group())
        patch = patch_in(text) if text and "*** Begin Patch" in text else None
        diff, touched = patch_to_diff(patch) if patch else (None, [])
        if diff:
            diffs.append(diff)
            paths.extend(p for p in touched if p not in paths)
    if diffs:
        fields.update(diff="\n".join(diffs), path=", ".join(paths))
    if used <= _CODE_SHELL:
        fields["category"] = ToolCategory.SHELL
    elif used == {"apply_patch"} and diffs:
        fields["category"] = ToolCategory.EDIT
    return fields


def _js_string(literal: str) -> str | None:
    """The value of a JavaScript string literal (None when it cannot be read safely)."""
    body = literal[1:-1]
    if literal.startswith("`"):
        return None if "${" in body else re.sub(r"\\(.)", r"\1", body)
    if literal.startswith("'"):
        body = re.sub(r'(?<!\\)"', '\\"', body)
    try:
        value = loads('"' + body.replace("\\'", "'") + '"')
    except ValueError:
        return None
    return value if isinstance(value, str) else None
