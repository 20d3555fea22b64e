"""One Kiro conversation (``{conversation_id, history, …}``) as events.

``history`` is a list of entries, each one request to the model: ``{user, assistant,
request_metadata}`` (older saves: a ``[user, assistant]`` pair). ``user.content`` is one of
``{"Prompt": {prompt}}`` (typed), ``{"ToolUseResults": {tool_use_results}}`` (the answers
to the previous reply's calls) or ``{"CancelledToolUses": {prompt, tool_use_results}}``;
``assistant`` is ``{"Response": {message_id, content}}`` or ``{"ToolUse": {message_id,
content, tool_uses: [{id, name, args}]}}``. ``request_metadata`` times the reply
(``stream_end_timestamp_ms``) and names its model. Entries are the records, numbered from
``first`` (1 for a file; a database counts on from its previous conversation).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from sessite.model import Block, Kind, Problems, ToolCategory
from sessite.readers._util import obj, opt_int, shorten, shown, text_of
from sessite.readers.base import as_text, parse_time
from sessite.readers.builder import SessionBuilder
from sessite.readers.formats.kiro.vocabulary import (
    AGENT,
    CATEGORIES,
    COMMAND_KEYS,
    DIFFS,
    EMPTY_ENTRY,
    NAME,
    PATH_KEYS,
    STATUS_ERROR,
)
from sessite.readers.tools import tool_category, tool_input


class KiroBuilder(SessionBuilder):
    """The events of one conversation, and the facts its entries give."""

    def __init__(self, path: Path, problems: Problems) -> None:
        super().__init__(NAME, path, problems, agent=AGENT, label=NAME)
        self.cwd: str | None = None
        self.title: str | None = None
        self.system: str | None = None
        self.open_calls: list[str] = []  # calls not yet answered, oldest first
        self.categories: dict[str, ToolCategory] = {}


def entries(value: dict[str, Any]) -> list[Any]:
    """The conversation's history entries, plus a message queued to be sent (``next_message``)."""
    history = value.get("history")
    out = list(history) if isinstance(history, list) else []
    if isinstance(value.get("next_message"), dict):
        out.append({"user": value["next_message"], "queued": True})
    return out


def read_entry(b: KiroBuilder, line: int, entry: Any) -> None:
    if isinstance(entry, list) and len(entry) == 2:  # an older save: [user, assistant]
        entry = {"user": entry[0], "assistant": entry[1]}
    if not isinstance(entry, dict):
        b.report(line, f"history entry is {type(entry).__name__}, not an object; shown as raw JSON")
        b.emit(f"h{line}", kind=Kind.UNKNOWN, title="history entry", raw=entry, line=line)
        return
    try:
        before = (len(b.events), sum(b.skipped.values()))
        meta = obj(entry.get("request_metadata"))
        _user(b, line, obj(entry.get("user")), queued=entry.get("queued") is True)
        _assistant(b, line, obj(entry.get("assistant")), meta)
        if (len(b.events), sum(b.skipped.values())) == before:
            b.skip(EMPTY_ENTRY, line=line)
    except Exception as exc:  # noqa: BLE001 - one odd entry costs that entry, never the conversation
        b.unreadable(line, "history entry", entry, exc)


def _user(b: KiroBuilder, line: int, user: dict[str, Any], queued: bool) -> None:
    state = obj(obj(user.get("env_context")).get("env_state"))
    if b.cwd is None and text_of(state.get("current_working_directory")):
        b.cwd = state["current_working_directory"]
    if b.system is None and text_of(state.get("operating_system")):
        b.system = state["operating_system"]
    stamp = parse_time(user.get("timestamp"))
    content = obj(user.get("content"))
    extra = text_of(user.get("additional_context"))
    if extra and extra.strip():
        b.emit(f"h{line}-context", kind=Kind.SYSTEM, title="Context given with the message", text=extra, line=line)
    kind, body = next(iter(content.items()), (None, None))
    body = obj(body)
    for k, result in enumerate(body.get("tool_use_results") or ()):
        _result(b, line, k, obj(result), stamp, cancelled=kind == "CancelledToolUses")
    prompt = text_of(body.get("prompt"))
    images = user.get("images")
    blocks = tuple(Block("json", title="image", data=i) for i in images) if isinstance(images, list) else ()
    if prompt or blocks:
        meta = {"state": "queued, not yet sent"} if queued else {}
        b.emit(f"h{line}-user", kind=Kind.USER, text=prompt or "", blocks=blocks, timestamp=stamp, line=line, meta=meta)
        if b.title is None and prompt:
            b.title = shorten(prompt, 200)
    elif kind is not None and kind not in ("Prompt", "ToolUseResults", "CancelledToolUses"):
        b.report(line, f"user content {shown(kind, 40)} is not known; shown as raw JSON")
        b.emit(f"h{line}-user", kind=Kind.UNKNOWN, title=f"user content {shown(kind, 30)}", raw=content, line=line)


def _result(b: KiroBuilder, line: int, k: int, result: dict[str, Any], stamp: datetime | None, cancelled: bool) -> None:
    call_id = text_of(result.get("tool_use_id"))
    if call_id is None or call_id not in b.open_calls:
        call_id = call_id or (b.open_calls[0] if b.open_calls else f"result-{line}-{k}")
    if call_id in b.open_calls:
        b.open_calls.remove(call_id)
    texts: list[str] = []
    blocks: list[Block] = []
    exit_code: int | None = None
    for item in result.get("content") or ():
        item = obj(item)
        if isinstance(item.get("Text"), str):
            texts.append(item["Text"])
        elif "Json" in item:
            data = item["Json"]
            shell = obj(data)
            if "exit_status" in shell or "stdout" in shell:
                exit_code = opt_int(shell.get("exit_status"))
                texts.extend(as_text(shell[key]) for key in ("stdout", "stderr") if text_of(shell.get(key)))
            else:
                blocks.append(Block("json", title="result", data=data))
    status = text_of(result.get("status"))
    meta: dict[str, Any] = {"cancelled": True} if cancelled else {}
    b.emit(
        f"{call_id}-result",
        kind=Kind.TOOL_RESULT,
        text="\n".join(texts),
        blocks=tuple(blocks),
        call_id=call_id,
        is_error=status in STATUS_ERROR or (exit_code is not None and exit_code != 0),
        exit_code=exit_code,
        timestamp=stamp,
        line=line,
        meta=meta,
    )


def _assistant(b: KiroBuilder, line: int, assistant: dict[str, Any], request: dict[str, Any]) -> None:
    kind, body = next(iter(assistant.items()), (None, None))
    if kind is None:
        return
    body = obj(body)
    model = text_of(request.get("model_id"))
    b.model(model)
    stamp = parse_time(request.get("stream_end_timestamp_ms")) or parse_time(request.get("request_start_timestamp_ms"))
    meta = _request_facts(request)
    if kind not in ("Response", "ToolUse"):
        b.report(line, f"reply {shown(kind, 40)} is not known; shown as raw JSON")
        b.emit(f"h{line}-reply", kind=Kind.UNKNOWN, title=f"reply {shown(kind, 30)}", raw=assistant, line=line)
        return
    text = text_of(body.get("content"))
    if text and text.strip():
        b.emit(f"h{line}-reply", kind=Kind.ASSISTANT, text=text, model=model, timestamp=stamp, line=line, meta=meta)
        meta = {}
    for k, use in enumerate(body.get("tool_uses") or ()):
        use = obj(use)
        name = text_of(use.get("name")) or text_of(use.get("orig_name")) or "tool"
        call_id = text_of(use.get("id")) or f"call-{line}-{k}"
        args = use.get("args")
        category = tool_category(name, CATEGORIES)
        found = tool_input(args, category, DIFFS.get(name.lower()), path_keys=PATH_KEYS, command_keys=COMMAND_KEYS)
        if text_of(use.get("orig_name")) and use["orig_name"] != name:
            meta = {**meta, "named by the model": use["orig_name"]}
        b.open_calls.append(call_id)
        b.emit(
            call_id,
            kind=Kind.TOOL_CALL,
            tool_name=name,
            tool_input=args,
            category=category,
            call_id=call_id,
            model=model,
            timestamp=stamp,
            line=line,
            meta=meta,
            **found.fields(),
        )
        meta = {}


def _request_facts(request: dict[str, Any]) -> dict[str, Any]:
    """What ``request_metadata`` says of the reply, for its details."""
    facts: dict[str, Any] = {}
    for key, label in (
        ("request_id", "request"),
        ("context_usage_percentage", "context used (%)"),
        ("time_to_first_chunk", "time to first chunk"),
    ):
        value = request.get(key)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool) and value != "":
            facts[label] = value if not isinstance(value, float) else round(value, 2)
    return facts
