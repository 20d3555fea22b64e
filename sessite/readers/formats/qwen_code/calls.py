"""Tool calls and their results.

A call is a ``functionCall`` part of an assistant record; its result, a ``functionResponse``
part of a later ``tool_result`` record with the same ``id``, whose ``toolCallResult`` adds
what the terminal showed (``resultDisplay``: a summary, an edit's diff, a sub-agent's
report, a todo list) and the call's status. The call's telemetry (read in the index) adds
how long it ran and how it was approved.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sessite.model import Block, Kind, ToolCategory
from sessite.readers._util import obj, opt_int, shorten, text_of, to_int
from sessite.readers.base import as_text
from sessite.readers.formats.qwen_code.state import QwenFile
from sessite.readers.formats.qwen_code.vocabulary import CATEGORIES, DIFFS, EXIT_LINE, PATH_KEYS
from sessite.readers.tools import tool_category, tool_input

OK_STATUS = (None, "", "success", "completed")


def call_fields(name: str, args: Any, display: Any = None) -> dict[str, Any]:
    """A call's Event fields: category, command, path and diff (the diff the CLI recorded, if any)."""
    category = tool_category(name, CATEGORIES)
    found = tool_input(args, category, DIFFS.get(name.lower()), path_keys=PATH_KEYS)
    fields: dict[str, Any] = {"tool_name": name, "tool_input": args, "category": category, **found.fields()}
    recorded = file_diff(display, fields.get("path"))
    if recorded:
        fields["diff"] = recorded
        if category != ToolCategory.EDIT:
            fields["category"] = ToolCategory.EDIT
    return fields


def file_diff(display: Any, path: str | None = None) -> str | None:
    """An edit's ``resultDisplay.fileDiff`` without jsdiff's ``Index:``/``===`` lines and tab labels;
    its ``---``/``+++`` lines name the call's file in full when they name it by its base name."""
    diff = obj(display).get("fileDiff")
    if not isinstance(diff, str) or not diff.strip():
        return None
    out: list[str] = []
    head = True  # before the first hunk
    for number, row in enumerate(diff.split("\n")):
        head = head and not row.startswith("@@")
        if number < 3 and (row.startswith("Index: ") or (row and set(row) == {"="})):
            continue
        if head and row.startswith(("--- ", "+++ ")):
            label = row[4:].split("\t", 1)[0]
            if path and label == path.replace("\\", "/").rsplit("/", 1)[-1]:
                label = path
            row = row[:4] + label
        out.append(row)
    return "\n".join(out).rstrip("\n")


def tool_call(
    f: QwenFile, call: dict[str, Any], line: int, ts: datetime | None, model: str | None, agent: str | None
) -> None:
    """One ``functionCall`` part."""
    call_id = text_of(call.get("id"))
    name = text_of(call.get("name")) or "tool"
    fields = call_fields(name, call.get("args"), f.index.displays.get(call_id or ""))
    meta = telemetry_facts(f.index.call_telemetry.get(call_id or "", {}))
    f.put(
        call_id or f"call-{line}-{name}",
        agent,
        kind=Kind.TOOL_CALL,
        timestamp=ts,
        call_id=call_id,
        model=model,
        line=line,
        meta=meta,
        **fields,
    )


def telemetry_facts(event: dict[str, Any]) -> dict[str, Any]:
    """What a ``tool_call`` telemetry event adds to its call: time, approval, outcome."""
    meta: dict[str, Any] = {}
    duration = opt_int(event.get("duration_ms"))
    if duration is not None:
        meta["duration ms"] = duration
    for key, label in (
        ("decision", "decision"),
        ("status", "status"),
        ("error", "error"),
        ("error_type", "error type"),
    ):
        value = text_of(event.get(key))
        if value and not (key == "status" and value in OK_STATUS):
            meta[label] = shorten(value, 300)
    if text_of(event.get("tool_type")) not in (None, "native"):
        meta["tool type"] = event["tool_type"]
    if text_of(event.get("mcp_server_name")):
        meta["MCP server"] = event["mcp_server_name"]
    return meta


def tool_result(
    f: QwenFile,
    response: dict[str, Any],
    details: dict[str, Any],
    line: int,
    ts: datetime | None,
    agent: str | None,
) -> None:
    """One ``functionResponse`` part, with what ``toolCallResult`` says of it."""
    call_id = text_of(response.get("id"))
    call = f.index.calls.get(call_id or "")
    name = text_of(response.get("name")) or (call.name if call else None)
    text, blocks, failed = response_text(response.get("response"))
    status = text_of(details.get("status"))
    failed = failed or status not in OK_STATUS
    error = details.get("error")
    if error and not failed:
        failed = True
    if error and as_text(obj(error).get("message") or error) not in text:
        text = f"{text}\n{as_text(obj(error).get('message') or error)}".strip()
    meta: dict[str, Any] = {"status": status} if status not in OK_STATUS else {}
    display = details.get("resultDisplay")
    blocks += display_blocks(display, text, meta)
    exit_code = None
    if name and tool_category(name, CATEGORIES) == ToolCategory.SHELL:
        found = EXIT_LINE.findall(text[-2000:])
        exit_code = opt_int(found[-1]) if found else None
    task = obj(display) if obj(display).get("type") == "task_execution" else {}
    if task:
        _task_facts(f, call_id, task, meta)
    f.put(
        f"{call_id}-result" if call_id else f"result-{line}",
        agent,
        kind=Kind.TOOL_RESULT,
        timestamp=ts,
        text=text,
        blocks=tuple(blocks),
        call_id=call_id,
        tool_name=name,
        is_error=failed or (exit_code is not None and exit_code != 0),
        exit_code=exit_code,
        line=line,
        meta=meta,
    )


def response_text(body: Any) -> tuple[str, list[Block], bool]:
    """``functionResponse.response``: its output, its error (a failure), other fields as a block."""
    if not isinstance(body, dict):
        return (as_text(body) if body is not None else ""), [], False
    texts = [as_text(body["output"])] if body.get("output") is not None else []
    failed = body.get("error") not in (None, "")
    if failed:
        texts.append(as_text(obj(body["error"]).get("message") or body["error"]))
    rest = {k: v for k, v in body.items() if k not in ("output", "error")}
    if "content" in rest and not texts:
        texts.append(as_text(rest.pop("content")))
    blocks = [Block("json", title="response", data=rest)] if rest else []
    return "\n".join(t for t in texts if t), blocks, failed


def display_blocks(display: Any, text: str, meta: dict[str, Any]) -> list[Block]:
    """What the terminal showed, where it adds to the output: a short summary in the details,
    a todo list or a longer text as a block (an edit's diff is on its call)."""
    if isinstance(display, str):
        shown = display.strip()
        if not shown or shown in text:
            return []
        if len(shown) <= 300 and "\n" not in shown:
            meta["summary"] = shown
            return []
        return [Block("text", text=display, title="shown in the terminal")]
    if isinstance(display, list):
        return [Block("text", text=as_text(display), title="shown in the terminal")] if display else []
    if not isinstance(display, dict) or not display:
        return []
    kind = display.get("type")
    if kind == "task_execution" or "fileDiff" in display:
        for key in ("diffStat", "isNewFile", "truncatedForSession"):
            if display.get(key) is not None and kind != "task_execution":
                meta[key] = display[key]
        return []
    if kind in ("todo_list", "todos") and isinstance(display.get("todos"), list):
        return [Block("text", text=_todos(display["todos"]), title="todo list")]
    return [Block("json", title="result display", data=display)]


def _todos(todos: list[Any]) -> str:
    marks = {"completed": "[x]", "in_progress": "[~]"}
    return "\n".join(
        f"- {marks.get(text_of(obj(t).get('status')) or '', '[ ]')} {as_text(obj(t).get('content'))}"
        for t in todos
        if isinstance(t, dict)
    )


def _task_facts(f: QwenFile, call_id: str | None, task: dict[str, Any], meta: dict[str, Any]) -> None:
    """A sub-agent's report: its name, how it ended and its totals, on the sub-agent (or the result)."""
    facts: dict[str, Any] = {}
    for key, label in (("subagentName", "agent"), ("status", "status"), ("terminateReason", "ended by")):
        if text_of(task.get(key)):
            facts[label] = task[key]
    summary = obj(task.get("executionSummary"))
    for key, label in (
        ("rounds", "rounds"),
        ("totalToolCalls", "tool calls"),
        ("failedToolCalls", "failed tool calls"),
        ("totalDurationMs", "duration ms"),
        ("totalTokens", "tokens"),
    ):
        if key in summary and opt_int(summary[key]) is not None:
            facts[label] = to_int(summary[key])
    agent = next((a for a in f.agents.values() if call_id and a.event.call_id == call_id), None)
    if agent is not None:
        agent.meta.update(facts)
    else:
        meta.update(facts)
