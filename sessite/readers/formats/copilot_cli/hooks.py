"""Hooks and permissions: what ran around a call or a prompt, and what the user allowed.

A hook invocation is two records, ``hook.start`` (its input: the prompt, the call's
arguments or result, all shown elsewhere) and ``hook.end`` (success, an error, an
output such as a denial). A hook that failed or said something is a system note at its
end, naming the calls it ran on; its start is merged into that note. A hook that ran
and said nothing is counted, start and end. An ``errorOccurred`` hook is the one place
the log keeps an error of the agent loop (a failed model request): its start is shown
as that error.

A permission request and its answer are shown in the details of the call they concern;
one that names no call we have is a system note of its own.
"""

from __future__ import annotations

from typing import Any

from sessite.model import Kind
from sessite.readers._util import obj, text_of
from sessite.readers.base import as_text, parse_time
from sessite.readers.formats.copilot_cli.state import CopilotFile, record_id
from sessite.readers.formats.copilot_cli.vocabulary import QUIET_HOOK

_BULKY = ("diff", "newFileContents")  # shown by the call's diff, not repeated in a note


def _said_something(end: dict[str, Any] | None) -> bool:
    return end is not None and (end.get("success") is False or bool(end.get("error")) or bool(end.get("output")))


def hook_start(f: CopilotFile, line: int, record: dict[str, Any], data: dict[str, Any]) -> None:
    invocation = text_of(data.get("hookInvocationId")) or ""
    hook = text_of(data.get("hookType")) or "hook"
    end = f.index.hook_ends.get(invocation)
    if hook == "errorOccurred":
        _loop_error(f, line, record, data)
    elif _said_something(end):
        f.merged(line, "hook input (shown with the hook's outcome)")
    elif end is None:
        f.skip("hook started, no end recorded", line=line)
    else:
        f.skip(QUIET_HOOK, line=line)


def _loop_error(f: CopilotFile, line: int, record: dict[str, Any], data: dict[str, Any]) -> None:
    """The error an ``errorOccurred`` hook was given: the agent loop's own failure."""
    given = obj(data.get("input"))
    error = given.get("error")
    message = text_of(obj(error).get("message")) or (as_text(error) if error is not None else "")
    meta: dict[str, Any] = {}
    for key in ("errorContext", "recoverable"):
        if isinstance(given.get(key), (str, bool, int)):
            meta[key] = given[key]
    f.put(
        record_id(record, "hook"),
        None,
        kind=Kind.SYSTEM,
        timestamp=parse_time(record.get("timestamp")),
        title="Error",
        text=message.strip().strip('"'),
        is_error=True,
        line=line,
        meta=meta,
    )


def hook_end(f: CopilotFile, line: int, record: dict[str, Any], data: dict[str, Any]) -> None:
    invocation = text_of(data.get("hookInvocationId")) or ""
    start = f.index.hook_starts.get(invocation, {})
    hook = text_of(data.get("hookType")) or text_of(start.get("hookType")) or "hook"
    if not _said_something(data):
        if hook == "errorOccurred" and start:
            f.merged(line, "hook end (shown with the error it was given)")
        else:
            f.skip(QUIET_HOOK, line=line)
        return
    error = data.get("error")
    parts = []
    if error:
        parts.append(text_of(obj(error).get("message")) or as_text(error))
    output = data.get("output")
    if isinstance(output, dict):
        parts.extend(as_text(v) for v in output.values())
    elif output:
        parts.append(as_text(output))
    failed = data.get("success") is False
    f.put(
        record_id(record, "hook"),
        None,
        kind=Kind.SYSTEM,
        timestamp=parse_time(record.get("timestamp")),
        title=f"Hook {'failed' if failed else 'output'}: {hook}",
        text="\n\n".join(p.strip() for p in parts if p and p.strip()),
        is_error=failed,
        line=line,
        meta=_hook_facts(error, output, obj(start.get("input"))),
    )


def _hook_facts(error: Any, output: Any, given: dict[str, Any]) -> dict[str, Any]:
    """Which calls (or tool) the hook ran on, and where it was configured."""
    meta: dict[str, Any] = {}
    source = text_of(obj(error).get("source"))
    if source:
        meta["configured in"] = source
    listed = given.get("toolCalls")
    calls = [text_of(obj(c).get("id")) for c in listed if isinstance(c, dict)] if isinstance(listed, list) else []
    named = [c for c in calls if c] or ([k for k in output if isinstance(k, str)] if isinstance(output, dict) else [])
    if named:
        meta["tool calls"] = named
    if text_of(given.get("toolName")):
        meta["tool"] = given["toolName"]
    return meta


def permission_requested(f: CopilotFile, line: int, record: dict[str, Any], data: dict[str, Any]) -> None:
    request = obj(data.get("permissionRequest"))
    call_id = text_of(request.get("toolCallId")) or text_of(obj(data.get("promptRequest")).get("toolCallId"))
    if call_id and call_id in f.calls:
        f.merged(line, "permission request (shown in its call's details)")
        return
    permission = f.index.by_request.get(text_of(data.get("requestId")) or "")
    answer = obj(obj(permission.answer if permission else None).get("result"))
    facts = {k: v for k, v in request.items() if isinstance(v, (str, bool, int)) and k not in _BULKY}
    if text_of(answer.get("kind")):
        facts["answer"] = answer["kind"]
    f.put(
        record_id(record, "permission"),
        f.parent_of(data),
        kind=Kind.SYSTEM,
        timestamp=parse_time(record.get("timestamp")),
        title="Permission requested",
        text=text_of(request.get("intention")) or text_of(request.get("kind")) or "",
        line=line,
        meta=facts,
    )


def permission_completed(f: CopilotFile, line: int, record: dict[str, Any], data: dict[str, Any]) -> None:
    call_id = text_of(data.get("toolCallId"))
    permission = f.index.by_request.get(text_of(data.get("requestId")) or "")
    if call_id and call_id in f.calls:
        f.merged(line, "permission answer (shown in its call's details)")
    elif permission is not None and permission.answer_line == line:
        f.merged(line, "permission answer (shown with its request)")
    else:
        answer = obj(data.get("result"))
        f.put(
            record_id(record, "permission"),
            f.parent_of(data),
            kind=Kind.SYSTEM,
            timestamp=parse_time(record.get("timestamp")),
            title="Permission answered",
            text=text_of(answer.get("kind")) or as_text(answer),
            line=line,
        )
