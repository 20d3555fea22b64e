"""Transcript steps: ``{step_index, source, type, status, created_at, content?, thinking?, tool_calls?}``.

``USER_INPUT`` carries the user's words in ``<USER_REQUEST>`` (beside context Antigravity adds:
``<ADDITIONAL_METADATA>``, ``<USER_SETTINGS_CHANGE>``, which also names the model chosen);
``PLANNER_RESPONSE`` the model's thinking, prose and tool calls; each tool step after it
(``VIEW_FILE``, ``RUN_COMMAND``, ``CODE_ACTION`` …) the output of the next call, in order;
``CHECKPOINT`` a compaction's summary; ``SYSTEM`` steps context the system adds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from sessite.model import Event, Kind
from sessite.readers._util import named, shown, text_of
from sessite.readers.formats.antigravity.calls import (
    call_fields,
    call_id_of,
    decoded_args,
    output_fields,
    step_category,
)
from sessite.readers.formats.antigravity.state import BrainBuilder
from sessite.readers.formats.antigravity.vocabulary import (
    CHECKPOINT,
    CONVERSATION_HISTORY,
    EMPTY_RESPONSE,
    EMPTY_SYSTEM,
    FAILED_STATUSES,
    HISTORY_MARKER,
    PLANNER_RESPONSE,
    STEP_SHOWN,
    SYSTEM,
    USER_INPUT,
)
from sessite.readers.labels import humanize

Step = tuple[Path, int, dict[str, Any]]  # file, line, record

_TAG = re.compile(r"<([A-Z][A-Z_]{1,60})>\n?(.*?)\n?</\1>", re.S)
_MODEL_CHOICE = re.compile(r"`Model Selection` from .+? to (.+?)\.(?:\s|$)")
_SHOUTED = re.compile(r"[A-Z]{1,20}(?:_[A-Z]{1,20}){0,5}")


def read_steps(b: BrainBuilder, steps: Iterable[Step]) -> None:
    for path, line, record in steps:
        try:
            _step(b, path, line, record)
        except Exception as exc:  # noqa: BLE001 - one odd step costs that step, never the file
            b.path = path
            b.unreadable(line, "transcript step", record, exc)


def step_title(kind: str) -> str:
    """``EPHEMERAL_MESSAGE`` → "Ephemeral message"; any other name as the log has it."""
    return humanize(kind.lower()) if _SHOUTED.fullmatch(kind) else kind


def _step(b: BrainBuilder, path: Path, line: int, record: dict[str, Any]) -> None:
    kind = record.get("type")
    stamp = b.time(path, line, record.get("created_at"), "created_at")
    content = b.text(path, line, record, "content", "step") or ""
    meta = {k: v for k, v in record.items() if k not in STEP_SHOWN and not (k == "status" and v == "DONE")}
    if not isinstance(kind, str) or not kind:
        b.problem(path, line, f"step without a type ({shown(kind)}); shown as a note")
        _note(b, path, line, "Step", stamp, content, meta)
    elif kind == USER_INPUT:
        _user(b, path, line, stamp, content, meta)
    elif kind == PLANNER_RESPONSE:
        _planner(b, path, line, record, stamp, content, meta)
    elif kind == CHECKPOINT:
        b.put(
            path, line, "checkpoint", kind=Kind.COMPACTION, timestamp=stamp, title="Checkpoint", text=content, meta=meta
        )
    elif kind == CONVERSATION_HISTORY and not content:
        b.skip_at(path, line, HISTORY_MARKER)
    elif named(record.get("source"), {SYSTEM}) or kind == CONVERSATION_HISTORY or _from_user(record):
        _note(b, path, line, step_title(kind), stamp, content, meta)
    else:
        _tool_step(b, path, line, record, kind, stamp, content, meta)


def _note(
    b: BrainBuilder, path: Path, line: int, title: str, stamp: datetime | None, content: str, meta: dict[str, Any]
) -> None:
    if not content:
        b.skip_at(path, line, EMPTY_SYSTEM)
        return
    b.put(path, line, "system", kind=Kind.SYSTEM, timestamp=stamp, title=title, text=content, meta=meta)


def _user(b: BrainBuilder, path: Path, line: int, stamp: datetime | None, content: str, meta: dict[str, Any]) -> None:
    """The user's words; the context Antigravity wraps around them goes to the event's details."""
    sections = {m.group(1): m.group(2).strip() for m in _TAG.finditer(content)}
    request = sections.pop("USER_REQUEST", None)
    rest = _TAG.sub("", content).strip()
    text = "\n\n".join(x for x in (request, rest) if x)
    for name, value in sections.items():
        meta[name.lower()] = value
        chosen = _MODEL_CHOICE.search(value) if name == "USER_SETTINGS_CHANGE" else None
        if chosen is not None:
            b.current_model = chosen.group(1).strip()
            b.model(b.current_model)
    b.put(path, line, "user", kind=Kind.USER, timestamp=stamp, text=text, meta=meta)


def _planner(
    b: BrainBuilder,
    path: Path,
    line: int,
    record: dict[str, Any],
    stamp: datetime | None,
    content: str,
    meta: dict[str, Any],
) -> None:
    thinking = b.text(path, line, record, "thinking", "step")
    calls = record.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        b.problem(path, line, f"tool_calls is not a list ({shown(calls)}); left out")
        calls = None
    if not (thinking or content or calls):
        b.pending = []
        b.skip_at(path, line, EMPTY_RESPONSE)
        return
    if thinking:
        alone = not (content or calls)  # the step's details go with its first event
        b.put(
            path,
            line,
            "thinking",
            kind=Kind.THINKING,
            timestamp=stamp,
            text=thinking,
            model=b.current_model,
            meta=meta if alone else {},
        )
    if content:
        b.put(
            path, line, "response", kind=Kind.ASSISTANT, timestamp=stamp, text=content, model=b.current_model, meta=meta
        )
        meta = {}
    b.pending = [e for e in (_call(b, path, line, record, n, c, stamp, meta) for n, c in enumerate(calls or ())) if e]


def _call(
    b: BrainBuilder,
    path: Path,
    line: int,
    record: dict[str, Any],
    number: int,
    call: Any,
    stamp: datetime | None,
    meta: dict[str, Any],
) -> Event | None:
    if not isinstance(call, dict):
        b.problem(path, line, f"tool call is not an object ({shown(call)}); left out")
        return None
    name = text_of(call.get("name")) or "tool"
    args = decoded_args(call.get("args", call.get("arguments")))
    call_id = call_id_of(call) or b.ids.take(f"step-{_index(record, line)}-{number}")
    fields = call_fields(name, args)
    return b.put(
        path,
        line,
        f"call-{call_id}",
        kind=Kind.TOOL_CALL,
        timestamp=stamp,
        tool_name=name,
        tool_input=args,
        call_id=call_id,
        model=b.current_model,
        meta=meta if number == 0 else {},
        **fields,
    )


def _tool_step(
    b: BrainBuilder,
    path: Path,
    line: int,
    record: dict[str, Any],
    kind: str,
    stamp: datetime | None,
    content: str,
    meta: dict[str, Any],
) -> None:
    """The output of a call: the step's own call(s), else the oldest call awaiting one, else a call
    named by the step's type (a step whose call the transcript does not hold)."""
    calls = record.get("tool_calls")
    own = (
        [e for e in (_call(b, path, line, record, n, c, stamp, {}) for n, c in enumerate(calls)) if e]
        if isinstance(calls, list)
        else []
    )
    if own:
        target = own[0]
    elif b.pending:
        target = b.pending.pop(0)
    else:
        call_id = b.ids.take(f"step-{_index(record, line)}")
        target = b.put(
            path,
            line,
            f"call-{call_id}",
            kind=Kind.TOOL_CALL,
            timestamp=stamp,
            tool_name=kind,
            category=step_category(kind),
            call_id=call_id,
        )
    out = output_fields(kind, content, record.get("exit_code"))
    exit_code = out.get("exit_code")
    failed = named(record.get("status"), FAILED_STATUSES) or (exit_code is not None and exit_code != 0)
    b.put(
        path,
        line,
        f"result-{target.call_id}",
        kind=Kind.TOOL_RESULT,
        timestamp=stamp,
        call_id=target.call_id,
        tool_name=target.tool_name,
        is_error=failed,
        meta={"step": kind, **meta},
        **out,
    )


def _from_user(record: dict[str, Any]) -> bool:
    """A step the user's side wrote that is not their input (a setting, a choice): a note."""
    source = record.get("source")
    return isinstance(source, str) and source.startswith("USER")


def _index(record: dict[str, Any], line: int) -> str:
    index = record.get("step_index")
    return str(index) if isinstance(index, int) and not isinstance(index, bool) else f"line-{line}"
