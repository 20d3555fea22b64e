"""The legacy event stream: a trajectory (a JSON array) or ``sessions/<id>/events/<n>.json``.

Each event is ``{id, timestamp, source, message, action|observation, args|extras, cause,
tool_call_metadata{function_name, tool_call_id, model_response}, llm_metrics}``. An action
the model took carries its prose in ``args.thought`` and the model's response (model,
usage); an observation names its action by ``cause`` and repeats the call id.
"""

from __future__ import annotations

from typing import Any

from sessite.model import Block, Kind
from sessite.readers._util import maybe_json, obj, opt_int, text_of, to_float
from sessite.readers.base import as_text, parse_time
from sessite.readers.formats.openhands.state import OpenHandsBuilder
from sessite.readers.formats.openhands.vocabulary import NO_OBSERVATION, RECALL, STATE, SYSTEM_PROMPT

_NOISE = ("thought", "impl_source", "translated_ipython_code", "is_input", "blocking", "hidden", "confirmation_state")
_TOOL_ACTIONS = frozenset(
    {"run", "run_ipython", "read", "write", "edit", "browse", "browse_interactive", "delegate", "mcp", "task_tracking"}
)


def read_event(b: OpenHandsBuilder, line: int, event: dict[str, Any]) -> None:
    metrics = obj(event.get("llm_metrics"))
    cost = to_float(metrics.get("accumulated_cost"))
    if cost is not None:
        b.cost = cost
    action, observation = event.get("action"), event.get("observation")
    if isinstance(action, str):
        _action(b, line, event, action)
    elif isinstance(observation, str):
        _observation(b, line, event, observation)
    else:
        b.unknown(f"e{line}", "event without an action or observation", event, line)


def _action(b: OpenHandsBuilder, line: int, event: dict[str, Any], action: str) -> None:
    args = obj(event.get("args"))
    stamp = parse_time(event.get("timestamp"))
    source = event.get("source")
    meta = obj(event.get("tool_call_metadata"))
    response = obj(meta.get("model_response"))
    model = text_of(response.get("model"))
    b.model(model)
    usage = b.usage_of(response)
    base = f"e{event.get('id', line)}"
    if action == "message":
        text = as_text(args.get("content") if args.get("content") is not None else event.get("message") or "")
        images = args.get("image_urls")
        blocks = tuple(Block("image", uri=u) for u in images if isinstance(u, str)) if isinstance(images, list) else ()
        if source == "user":
            b.user(base, text, line, stamp, blocks)
        else:
            b.emit(
                base,
                kind=Kind.ASSISTANT,
                text=text,
                blocks=blocks,
                timestamp=stamp,
                model=model,
                usage=usage,
                line=line,
            )
    elif action == "system":
        b.skip(SYSTEM_PROMPT, line=line)
    elif action in ("change_agent_state", "pause", "resume"):
        b.skip(STATE, line=line)
    elif action == "recall":
        b.skip(RECALL, line=line)
    elif action == "think":
        b.emit(
            base,
            kind=Kind.THINKING,
            text=as_text(args.get("thought") or ""),
            timestamp=stamp,
            model=model,
            usage=usage,
            line=line,
        )
    elif action == "finish":
        text = text_of(args.get("final_thought")) or text_of(args.get("thought")) or as_text(event.get("message") or "")
        b.emit(
            base,
            kind=Kind.ASSISTANT,
            text=text,
            timestamp=stamp,
            model=model,
            usage=usage,
            line=line,
            meta={"finished": True},
        )
    elif action == "condensation":
        b.condensation(base, text_of(args.get("summary")), line, stamp)
    elif action in _TOOL_ACTIONS or meta:
        _tool(b, line, event, action, args, meta, response, usage)
    else:
        b.unknown(base, f"action {action!r}", event, line)


def _tool(
    b: OpenHandsBuilder,
    line: int,
    event: dict[str, Any],
    action: str,
    args: dict[str, Any],
    meta: dict[str, Any],
    response: dict[str, Any],
    usage: Any,
) -> None:
    stamp = parse_time(event.get("timestamp"))
    model = text_of(response.get("model"))
    thought = text_of(args.get("thought"))
    if thought and thought.strip():
        b.emit(
            f"e{event.get('id', line)}-thought",
            kind=Kind.ASSISTANT,
            text=thought,
            timestamp=stamp,
            model=model,
            usage=usage,
            line=line,
        )
        usage = None
    call_id = text_of(meta.get("tool_call_id")) or f"event-{event.get('id', line)}"
    name = text_of(meta.get("function_name")) or action
    arguments = _arguments(response, call_id)
    if not isinstance(arguments, dict):
        arguments = {k: v for k, v in args.items() if k not in _NOISE}
    b.call_of_event[str(event.get("id"))] = call_id
    b.call(
        call_id,
        name,
        arguments,
        line,
        stamp,
        model=model,
        usage=usage,
        meta={"action": action} if action != name else {},
    )


def _arguments(response: dict[str, Any], call_id: str) -> Any:
    """The arguments the model gave the call (``model_response.choices[].message.tool_calls``)."""
    for choice in response.get("choices") or ():
        for call in obj(obj(choice).get("message")).get("tool_calls") or ():
            call = obj(call)
            if call.get("id") == call_id:
                return maybe_json(obj(call.get("function")).get("arguments"))
    return None


def _observation(b: OpenHandsBuilder, line: int, event: dict[str, Any], observation: str) -> None:
    stamp = parse_time(event.get("timestamp"))
    extras = obj(event.get("extras"))
    base = f"e{event.get('id', line)}"
    if observation == "agent_state_changed":
        b.skip(STATE, line=line)
        return
    if observation == "null":
        b.skip(NO_OBSERVATION, line=line)
        return
    call_id = text_of(obj(event.get("tool_call_metadata")).get("tool_call_id")) or b.call_of_event.get(
        str(event.get("cause"))
    )
    content = as_text(event.get("content") or "")
    if call_id is None:
        if observation == "error":
            b.emit(
                base,
                kind=Kind.SYSTEM,
                title="Error",
                text=content or as_text(event.get("message") or ""),
                is_error=True,
                timestamp=stamp,
                line=line,
            )
        elif observation == "recall":
            facts = {k: v for k, v in extras.items() if v not in (None, "", [], {})}
            b.emit(
                base, kind=Kind.SYSTEM, title="Knowledge recalled", text=content, timestamp=stamp, line=line, meta=facts
            )
        else:
            b.unknown(base, f"observation {observation!r} without its action", event, line)
        return
    metadata = obj(extras.get("metadata"))
    exit_code = opt_int(metadata.get("exit_code", extras.get("exit_code")))
    working = text_of(metadata.get("working_dir"))
    if working and b.cwd is None:
        b.cwd = working
    diff = content if observation == "edit" and content.startswith("---") else None
    text = text_of(extras.get("formatted_output_and_error")) or (content if diff is None else "")
    failed = observation in ("error", "user_rejected") or event.get("success") is False
    b.result(call_id, text, line, stamp, exit_code=exit_code, diff=diff, is_error=failed)
