"""UI telemetry records (``subtype: ui_telemetry``): what each model request and tool run cost.

The CLI writes them so ``/stats`` can be replayed on resume. For the main agent they repeat
what its messages show (a response's tokens, a call's input), so each is merged into the
message or call it describes, adding how long it took and how a call was approved; an
API error is a note. For a sub-agent they are all the log keeps of its work: its calls
(tool and input, outcome, time) and the tokens of each of its model responses, gathered
in its SUBAGENT event inside the call that started it.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from sessite.model import Kind
from sessite.readers._util import opt_int, shorten, text_of
from sessite.readers.base import parse_time
from sessite.readers.formats.qwen_code.calls import call_fields, telemetry_facts
from sessite.readers.formats.qwen_code.index import event_name, is_side_request, run_of, telemetry_event
from sessite.readers.formats.qwen_code.parts import telemetry_usage
from sessite.readers.formats.qwen_code.state import QwenFile

OTHER_EVENT = "UI telemetry event (a counter the CLI replays for /stats)"
_RUN_SUFFIX = re.compile(r"-[a-z0-9]{4,8}$")


def telemetry(f: QwenFile, line: int, record: dict[str, Any]) -> None:
    event = telemetry_event(record)
    if event is None:
        f.skip("UI telemetry record without an event", line=line)
        return
    name = event_name(event)
    ts = parse_time(record.get("timestamp"))
    run = run_of(event)
    if run is not None:
        _in_subagent(f, line, event, name, run, ts)
    elif line in f.index.merged_telemetry:
        f.merged(line, "telemetry of a call or response (shown in its details)")
    elif name == "api_error":
        _error(f, line, event, ts, None)
    elif name == "api_response":
        _response(f, line, event, ts)
    elif name == "tool_call":
        _call(f, line, event, ts, None, {"recorded": "by telemetry only"})
    else:
        f.skip(OTHER_EVENT, line=line)


def _facts(event: dict[str, Any]) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    for key, label in (("status_code", "status code"), ("error_type", "error type"), ("duration_ms", "duration ms")):
        value = event.get(key)
        if isinstance(value, str) and value:
            meta[label] = shorten(value, 200)
        elif opt_int(value) is not None and value != 0:
            meta[label] = opt_int(value)
    if is_side_request(event):
        meta["request"] = event["prompt_id"]
    return meta


def _error(f: QwenFile, line: int, event: dict[str, Any], ts: datetime | None, agent: str | None) -> None:
    model = text_of(event.get("model"))
    f.model(model)
    f.put(
        f"api-error-{line}",
        agent,
        kind=Kind.SYSTEM,
        timestamp=ts,
        title="API error",
        text=text_of(event.get("error_message")) or text_of(event.get("error")) or "",
        is_error=True,
        model=model,
        line=line,
        meta=_facts(event),
    )


def _response(f: QwenFile, line: int, event: dict[str, Any], ts: datetime | None) -> None:
    """A model response no message shows (a side request such as a prompt suggestion): its tokens still count."""
    model = text_of(event.get("model"))
    f.model(model)
    f.put(
        text_of(event.get("response_id")) or f"response-{line}",
        None,
        kind=Kind.SYSTEM,
        timestamp=ts,
        title="Model response (no message recorded)",
        usage=telemetry_usage(event),
        model=model,
        line=line,
        meta=_facts(event),
    )


def _call(
    f: QwenFile, line: int, event: dict[str, Any], ts: datetime | None, agent: str | None, extra: dict[str, Any]
) -> None:
    name = text_of(event.get("function_name")) or "tool"
    usage = None
    if agent is not None:
        usage = f.agents[agent].responses.pop(text_of(event.get("response_id")) or "", None)
    f.put(
        f"telemetry-call-{line}",
        agent,
        kind=Kind.TOOL_CALL,
        timestamp=ts,
        is_error=event.get("success") is False,
        usage=usage,
        line=line,
        meta={**telemetry_facts(event), **extra},
        **call_fields(name, event.get("function_args")),
    )


def _in_subagent(f: QwenFile, line: int, event: dict[str, Any], name: str, run: str, ts: datetime | None) -> None:
    known = f.index.runs[run]
    display = f.index.displays.get(known.call_id or "")
    title = (display.get("subagentName") if isinstance(display, dict) else None) or _RUN_SUFFIX.sub("", run)
    agent = f.subagent(run, known.first_line, ts, title if isinstance(title, str) else run, known.call_id)
    if name == "tool_call":
        _call(f, line, event, ts, run, {})
    elif name == "api_error":
        _error(f, line, event, ts, run)
    elif name == "api_response":
        f.model(text_of(event.get("model")))
        usage = telemetry_usage(event)
        if usage:
            agent.responses[text_of(event.get("response_id")) or f"line-{line}"] = usage
        f.merged(line, "a sub-agent's model response (its tokens are on its calls, or on the sub-agent)")
    else:
        f.skip(OTHER_EVENT, line=line)
