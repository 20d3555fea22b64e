"""Gemini tool calls and their results: category, command / path / diff, and the result's text and status."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import Any

from sessite.model import Block, ToolCategory
from sessite.readers._util import opt_int, text_of
from sessite.readers.base import as_text
from sessite.readers.formats.gemini.parts import ansi_text, parts_of

# Beyond this many lines a diff is written as plain removal + addition (difflib is quadratic).
_DIFF_MAX_LINES = 4000

# Gemini's own tool names; every other name is looked up in the shared table (readers.tools).
OWN_CATEGORIES: Mapping[str, ToolCategory] = {"smart_edit": ToolCategory.EDIT}
OK_STATUS = {"success", "completed", None, ""}
# Statuses of a call that has not finished: neither a success nor an error.
_PENDING_STATUS = ("executing", "scheduled", "validating", "awaiting_approval")
_EXIT_CODE = re.compile(r"Exit Code: (-?\d+)")


def clean_file_diff(diff: str) -> str:
    """Gemini's ``fileDiff`` (jsdiff): drop the ``Index:``/``====`` lines and the tab labels."""
    lines = diff.split("\n")
    out: list[str] = []
    for index, line in enumerate(lines):
        if index < 3 and (line.startswith("Index: ") or (line and set(line) == {"="})):
            continue
        if line.startswith(("--- ", "+++ ")) and "\t" in line:
            line = line.split("\t", 1)[0]
        out.append(line)
    return "\n".join(out).rstrip("\n")


def synth_diff(path: str, old: str, new: str) -> str:
    """A unified diff of an edit the call describes but whose result shows no diff."""
    a, b = old.splitlines(), new.splitlines()
    head = [f"--- {path}" if old else "--- /dev/null", f"+++ {path}"]
    if not a or len(a) + len(b) > _DIFF_MAX_LINES:
        body = [f"@@ -{1 if a else 0},{len(a)} +{1 if b else 0},{len(b)} @@"] if (a or b) else []
        return "\n".join(head + body + ["-" + x for x in a] + ["+" + x for x in b])
    lines = list(difflib.unified_diff(a, b, lineterm="", n=3))
    return "\n".join(head + lines[2:])


def _tool_path(args: dict[str, Any]) -> str | None:
    for key in ("file_path", "absolute_path", "path", "dir_path", "directory"):
        if text_of(args.get(key)):
            return args[key]
    paths = args.get("paths")
    if isinstance(paths, list) and paths and all(isinstance(p, str) for p in paths):
        return ", ".join(paths)
    return None


def call_fields(call: dict[str, Any], category: ToolCategory) -> tuple[dict[str, Any], dict[str, Any], list[Block]]:
    """A call's Event fields (category, command, path, diff), its meta, and the blocks its
    ``resultDisplay`` adds to the result."""
    args = call.get("args")
    fields: dict[str, Any] = {"category": category}
    meta: dict[str, Any] = {}
    for key in ("displayName", "description", "agentId"):
        if text_of(call.get(key)):
            meta[key] = call[key]
    status = call.get("status")
    if status not in OK_STATUS:
        meta["status"] = status
    if isinstance(args, dict):
        if category == ToolCategory.SHELL:
            fields["command"] = text_of(args.get("command"))
            for key in ("directory", "dir_path", "cwd"):
                if text_of(args.get(key)):
                    meta["directory"] = args[key]
        path = _tool_path(args)
        if path and category in (ToolCategory.READ, ToolCategory.EDIT, ToolCategory.SEARCH):
            fields["path"] = path
    result_blocks = _display_fields(call.get("resultDisplay"), args, category, fields, meta)
    return {k: v for k, v in fields.items() if v is not None}, meta, result_blocks


def _display_fields(
    display: Any, args: Any, category: ToolCategory, fields: dict[str, Any], meta: dict[str, Any]
) -> list[Block]:
    """Read ``resultDisplay`` into the call's diff and meta (a file diff), else into result blocks.

    An edit whose display has no diff gets one made from its arguments.
    """
    if isinstance(display, dict) and isinstance(display.get("fileDiff"), str):
        fields["diff"] = clean_file_diff(display["fileDiff"])
        fields["path"] = fields.get("path") or text_of(display.get("filePath")) or text_of(display.get("fileName"))
        if isinstance(display.get("diffStat"), dict):
            meta["diffStat"] = display["diffStat"]
        if isinstance(display.get("isNewFile"), bool):
            meta["isNewFile"] = display["isNewFile"]
    elif category == ToolCategory.EDIT and isinstance(args, dict) and fields.get("path"):
        if "old_string" in args or "new_string" in args:
            fields["diff"] = synth_diff(
                fields["path"], as_text(args.get("old_string")), as_text(args.get("new_string"))
            )
        elif isinstance(args.get("content"), str):
            fields["diff"] = synth_diff(fields["path"], "", args["content"])
    elif isinstance(display, dict) and display:
        return [Block("json", title="result display", data=display)]
    elif isinstance(display, list) and display:
        return [Block("text", text=ansi_text(display))]
    return []


def result_fields(call: dict[str, Any], category: ToolCategory, extra: list[Block]) -> dict[str, Any] | None:
    """The result Event's text, blocks, error flag, exit code and meta; None when no result is recorded (yet)."""
    result = call.get("result")
    status = call.get("status")
    display = call.get("resultDisplay")
    is_error = status not in OK_STATUS and status not in _PENDING_STATUS
    texts: list[str] = []
    blocks: list[Block] = []
    if result is not None:
        text, part_blocks, responses = parts_of(result)
        if text:
            texts.append(text)
        blocks += part_blocks
        for response in responses:
            is_error = _read_response(response, texts, blocks) or is_error
    text = "\n".join(t for t in texts if t)
    if not text and isinstance(display, str):
        text = display
    if result is None and not text and not extra and status in OK_STATUS | set(_PENDING_STATUS):
        return None
    exit_code = None
    if category == ToolCategory.SHELL:
        match = _EXIT_CODE.search(text[-4000:])
        exit_code = opt_int(match.group(1)) if match else None
        if exit_code is not None:
            is_error = is_error or exit_code != 0
    return {
        "text": text,
        "blocks": tuple(blocks + extra),
        "is_error": is_error,
        "exit_code": exit_code,
        "meta": {"status": status} if status not in OK_STATUS else {},
    }


def _read_response(response: dict[str, Any], texts: list[str], blocks: list[Block]) -> bool:
    """Add a functionResponse's output, error and other fields to the result; True when it reports an error."""
    is_error = False
    body = response.get("response")
    if isinstance(body, dict):
        if "output" in body:
            texts.append(as_text(body["output"]))
        if body.get("error") not in (None, ""):
            texts.append(as_text(body["error"]))
            is_error = True
        rest = {k: v for k, v in body.items() if k not in ("output", "error")}
        if rest:
            blocks.append(Block("json", title="response", data=rest))
    elif body is not None:
        texts.append(as_text(body))
    parts = response.get("parts")
    if isinstance(parts, list):
        _, more, _ = parts_of(parts)
        blocks += more
    return is_error
