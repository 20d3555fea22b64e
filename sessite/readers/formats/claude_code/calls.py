"""Tool calls and their results: category, command, path and diff of a call; exit code, facts and diff of a result.

A result finds its call by ``tool_use_id`` (the call came earlier in the same
transcript). Edits show as unified diffs: from the call's input
(old/new strings), or from the result's ``structuredPatch`` when the call's
diff is not already the same.
"""

from __future__ import annotations

from typing import Any

from sessite.model import Kind, ToolCategory
from sessite.readers._util import opt_int, text_of, to_int, unified_diff
from sessite.readers.base import as_text
from sessite.readers.formats.claude_code.content import result_content
from sessite.readers.formats.claude_code.state import Call, EventSpec, Transcript
from sessite.readers.formats.claude_code.vocabulary import EDIT_TOOLS, OWN_TOOL_CATEGORIES, RESULT_META
from sessite.readers.tools import DiffRule, edits_diff, replace_diff, tool_category, tool_input, write_diff

_PATH_KEYS = ("file_path", "notebook_path", "path")
# How each editing tool's input says what it changed.
_DIFF_RULES: dict[str, DiffRule] = {
    "Edit": replace_diff(),
    "MultiEdit": edits_diff(),
    "Write": write_diff(),
    "NotebookEdit": write_diff(("new_source",)),
}


def tool_input_fields(name: str, args: Any) -> EventSpec:
    """category, command, path and diff of a tool call (MCP tools are OTHER whatever their name)."""
    category = ToolCategory.OTHER if name.startswith("mcp__") else tool_category(name, OWN_TOOL_CATEGORIES)
    found = tool_input(
        args,
        category,
        _DIFF_RULES.get(name),
        path_keys=_PATH_KEYS,
        command_keys=("command",) if name == "Bash" else (),  # BashOutput and the like name no command line
    )
    return {"category": category, **found.fields()}


def patch_diff(path: str | None, hunks: list[Any]) -> str | None:
    """A unified diff from Claude Code's ``structuredPatch`` hunks."""
    out: list[str] = []
    for hunk in hunks:
        if not isinstance(hunk, dict) or not isinstance(hunk.get("lines"), list):
            continue
        old = f"-{to_int(hunk.get('oldStart'))},{to_int(hunk.get('oldLines'))}"
        new = f"+{to_int(hunk.get('newStart'))},{to_int(hunk.get('newLines'))}"
        out.append(f"@@ {old} {new} @@")
        out.extend(str(line) for line in hunk["lines"])
    if not out:
        return None
    label = path or "file"
    return "\n".join([f"--- {label}", f"+++ {label}", *out])


def exit_code(text: str) -> int | None:
    """The exit code Claude Code writes at the start of a failed shell result."""
    for prefix in ("Exit code ", "Error: Exit code "):
        if text.startswith(prefix):
            digits = text[len(prefix) : len(prefix) + 6].split("\n", 1)[0].strip()
            code = opt_int(digits)
            if code is not None:
                return code
    return None


def result_spec(t: Transcript, block: dict[str, Any], rec: dict[str, Any] | None) -> EventSpec:
    """A TOOL_RESULT event from a ``tool_result`` block.

    ``rec`` is the record when the block is its only result: only then does the
    record's ``toolUseResult`` describe this block.
    """
    call_id = text_of(block.get("tool_use_id"))
    text, blocks = result_content(block.get("content"))
    is_error = block.get("is_error") is True
    spec: EventSpec = {"kind": Kind.TOOL_RESULT, "call_id": call_id, "text": text, "is_error": is_error}
    if blocks:
        spec["blocks"] = blocks
    call = t.calls.get(call_id or "")
    name = call.name if call else None
    if name:
        spec["tool_name"] = name
    extra = rec.get("toolUseResult") if rec is not None else None
    if is_error and (name == "Bash" or (name is None and text.startswith("Exit code "))):
        code = exit_code(text)
        if code is None and isinstance(extra, str):
            code = exit_code(extra)
        spec["exit_code"] = code
    meta: dict[str, Any] = {}
    if isinstance(extra, dict):
        meta = _use_result_facts(t, spec, extra, call, call_id)
    elif isinstance(extra, str) and extra.strip() and extra.strip() != text.strip() and len(extra) <= 500:
        meta["result"] = extra
    if meta:
        spec["meta"] = meta
    return spec


def _use_result_facts(
    t: Transcript, spec: EventSpec, extra: dict[str, Any], call: Call | None, call_id: str | None
) -> dict[str, Any]:
    """Read a ``toolUseResult`` object: small facts into the returned meta, path and diff into spec.

    Also notes which sub-agent the call spawned (``agentId``).
    """
    meta = _scalar_facts(extra)
    file = extra.get("file")
    if isinstance(file, dict):
        for key in ("numLines", "startLine", "totalLines"):
            if isinstance(file.get(key), int):
                meta[key] = file[key]
        if text_of(file.get("filePath")):
            spec["path"] = file["filePath"]
    path = text_of(extra.get("filePath")) or spec.get("path")
    if path:
        spec["path"] = path
    name = call.name if call else None
    if name in EDIT_TOOLS or "structuredPatch" in extra:
        diff = _result_diff(path, extra, name, call.args if call else None)
        if diff and not (call and t.events[call.position].diff == diff):
            spec["diff"] = diff
    operation = extra.get("gitOperation")
    commit = operation.get("commit") if isinstance(operation, dict) else None
    if isinstance(commit, dict) and isinstance(commit.get("sha"), str) and commit["sha"].strip():
        meta["gitCommit"] = commit["sha"].strip()[:40]  # the commit this call made (Claude Code ≥ 2.1.181)
    agent_id = text_of(extra.get("agentId"))
    if agent_id and call_id:
        t.agent_links.setdefault(agent_id, call_id)
    return meta


_RESULT_META_ORDER = {key: index for index, key in enumerate(RESULT_META)}


def _scalar_facts(extra: dict[str, Any]) -> dict[str, Any]:
    """The small scalars of RESULT_META that a result carries (durations, counts, flags)."""
    facts: dict[str, Any] = {}
    present = _RESULT_META_ORDER.keys() & extra.keys()  # a result holds a few of them, often none
    for key in sorted(present, key=_RESULT_META_ORDER.__getitem__) if len(present) > 1 else present:
        value = extra[key]
        if (
            value is True
            or (isinstance(value, (int, float)) and not isinstance(value, bool))
            or (isinstance(value, str) and value and len(value) <= 200)
        ):
            facts[key] = value
    return facts


def _result_diff(path: str | None, extra: dict[str, Any], name: str | None, args: Any) -> str | None:
    """The diff an edit's result describes: its patch hunks, a created file, or a rewritten one."""
    patch = extra.get("structuredPatch")
    diff = patch_diff(path, patch) if isinstance(patch, list) else None
    if diff is None and extra.get("type") == "create" and isinstance(extra.get("content"), str):
        diff = unified_diff(path, "", extra["content"])
    if diff is None and isinstance(extra.get("originalFile"), str) and name == "Write" and isinstance(args, dict):
        diff = unified_diff(path, extra["originalFile"], as_text(args.get("content")))
    return diff
