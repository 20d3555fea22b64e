"""Amp (Sourcegraph) threads: ``~/.local/share/amp/threads/T-<id>.json``.

One file is one thread: ``{v, id, created (ms), title?, messages:[…], env?}``.
A message is ``{role, messageId, content:[…], state?, usage?, meta?:{sentAt}}``;
content blocks are ``text``, ``thinking``, ``tool_use {id, name, input}`` and
``tool_result {toolUseID, run:{status, result | error}}`` (in user messages).
``usage`` (``{model, inputTokens, outputTokens, cacheCreationInputTokens,
cacheReadInputTokens, credits, timestamp}``) is per assistant message and is
attached once, to its last event.

No real thread file was available when this reader was written (the layout
comes from other parsers), so everything is read defensively: unknown keys
are kept in the details, unknown block kinds become UNKNOWN events.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from sessite.model import Block, Event, Kind, Problems, Session, ToolCategory, Usage
from sessite.readers._util import maybe_json, obj, opt_int, text_of, to_float, to_int
from sessite.readers.base import Reader, Sniff, as_text, parse_time
from sessite.readers.builder import SessionBuilder, last_index
from sessite.readers.files import load_json
from sessite.readers.platform import Platform
from sessite.readers.tools import DiffRule, replace_diff, tool_category, tool_input, write_diff

NAME = "amp"
AGENT = "amp"

# Names only Amp uses; the rest come from the shared table.
_CATEGORIES = {
    "create_file": ToolCategory.EDIT,
    "undo_edit": ToolCategory.EDIT,
    "format_file": ToolCategory.EDIT,
    "codebase_search_agent": ToolCategory.SEARCH,
    "finder": ToolCategory.SEARCH,
    "read_web_page": ToolCategory.WEB,
}
_DIFFS: dict[str, DiffRule] = {"edit_file": replace_diff(("old_str",), ("new_str",)), "create_file": write_diff()}
_PATH_KEYS = ("path", "filePath", "file_path")
_COMMAND_KEYS = ("cmd", "command")
_MESSAGE_KEYS = {"role", "messageId", "content", "state", "usage", "meta"}
_THREAD_KEYS = {"v", "id", "created", "title", "messages", "env"}
# Events a message's usage can be shown on.
_USAGE_KINDS = (Kind.ASSISTANT, Kind.THINKING, Kind.TOOL_CALL, Kind.USER)


class AmpReader(Reader):
    name = NAME
    claims_directories = False
    agent = AGENT

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if path.suffix.lower() != ".json":
            return False
        head = sniffed.text(8192)
        compact = "".join(head.split())
        if not compact.startswith("{"):
            return False
        if path.name.startswith("T-") and ('"messages":' in compact or '"v":' in compact or '"created":' in compact):
            return True
        return '"id":"T-' in compact and '"messages":[' in compact and ('"v":' in compact or '"created":' in compact)

    def default_folders(self, plat: Platform) -> list[Path]:
        """``amp/threads`` in the XDG data folders."""
        return [data / "amp" / "threads" for data in plat.data_dirs]

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        doc = load_json(path, problems)
        if doc is None:
            return
        if not isinstance(doc, dict):
            problems.add(path, None, f"amp: thread is a {type(doc).__name__}, not an object")
            return
        yield _thread(doc, path, problems)


READER = AmpReader()


class _Thread(SessionBuilder):
    """One thread as it is read: its events, and the credits its messages spent."""

    credits: float = 0.0


def _thread(doc: dict[str, Any], path: Path, problems: Problems) -> Session:
    messages = doc.get("messages")
    if not isinstance(messages, list):
        problems.add(path, None, "amp: thread has no messages array")
        messages = []
    thread = _Thread(NAME, path, problems, agent=AGENT, label=NAME)
    last_ts = parse_time(doc.get("created"))
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        if not isinstance(message, dict):
            thread.report(None, f"{where} is a {type(message).__name__}, not an object; shown as raw JSON")
            thread.emit(f"m{index}", kind=Kind.UNKNOWN, title="Amp message", raw=message)
            continue
        before = len(thread.events)
        try:
            ts = _message(thread, message, index, where, last_ts)
        except Exception as exc:  # noqa: BLE001 - one odd message must not stop the thread
            thread.unreadable(None, where, message, exc)
            continue
        last_ts = ts or last_ts
        if len(thread.events) == before:
            thread.skip("empty message")
    return _session(doc, path, thread)


def _session(doc: dict[str, Any], path: Path, thread: _Thread) -> Session:
    env = obj(doc.get("env"))
    initial = obj(env.get("initial"))
    listed = initial.get("trees")
    trees = [t for t in listed or [] if isinstance(t, dict)] if isinstance(listed, list) else []
    cwd = _file_path(text_of(trees[0].get("uri"))) if trees else None
    meta: dict[str, Any] = {}
    if doc.get("v") is not None:
        meta["version"] = doc["v"]
    if len(trees) > 1:
        meta["trees"] = [t.get("displayName") or t.get("uri") for t in trees]
    if isinstance(initial.get("tags"), list) and initial["tags"]:
        meta["tags"] = initial["tags"]
    if thread.credits:
        meta["credits"] = round(thread.credits, 6)
    for key, value in doc.items():
        if key not in _THREAD_KEYS and isinstance(value, (str, int, float, bool)) and value not in ("", None):
            meta[key] = value
    created = parse_time(doc.get("created"))
    return thread.finish(
        text_of(doc.get("id")) or path.stem,
        title=text_of(doc.get("title")),
        started=created,
        ended=thread.span()[1] or created,
        cwd=cwd,
        meta=meta,
    )


def _file_path(uri: str | None) -> str | None:
    if not uri:
        return None
    if uri.startswith("file://"):
        return unquote(urlsplit(uri).path) or None
    return uri


def _message(
    thread: _Thread, message: dict[str, Any], index: int, where: str, last_ts: datetime | None
) -> datetime | None:
    """Emit one message's events; returns its own time (None when it has none)."""
    role = message.get("role")
    mid = message.get("messageId")
    if isinstance(mid, int) and not isinstance(mid, bool):
        base = f"m{mid}"
    else:
        base = str(mid) if isinstance(mid, str) and mid else f"m{index}"
    usage_raw = obj(message.get("usage"))
    ts = (
        parse_time(obj(message.get("meta")).get("sentAt"))
        or parse_time(usage_raw.get("timestamp"))
        or parse_time(message.get("timestamp"))
    )
    content = message.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if role not in ("user", "assistant") or not isinstance(content, list):
        kind_of = type(content).__name__
        thread.report(None, f"{where} has role {role!r} and content of type {kind_of}; shown as raw JSON")
        thread.emit(base, kind=Kind.UNKNOWN, timestamp=ts or last_ts, title="Amp message", raw=message)
        return ts
    model = text_of(usage_raw.get("model"))
    kind = Kind.USER if role == "user" else Kind.ASSISTANT
    start = len(thread.events)
    for bindex, block in enumerate(content):
        _block(thread, block, f"{base}-{bindex}", f"{where}.content[{bindex}]", kind, ts or last_ts, model)
    _message_usage(thread, message, start, base, kind, ts or last_ts, model)
    thread.model(model)
    return ts


def _block(
    thread: _Thread, block: Any, bid: str, where: str, kind: Kind, ts: datetime | None, model: str | None
) -> None:
    if not isinstance(block, dict):
        thread.emit(bid, kind=Kind.UNKNOWN, timestamp=ts, title="Amp content block", raw=block)
        return
    btype = block.get("type")
    if btype == "text":
        own_model = model if kind == Kind.ASSISTANT else None
        thread.emit(bid, kind=kind, timestamp=ts, text=as_text(block.get("text")), model=own_model)
    elif btype in ("thinking", "redacted_thinking"):
        text = as_text(block.get("thinking")) if btype == "thinking" else "(redacted thinking)"
        meta = {"provider": block["provider"]} if text_of(block.get("provider")) else {}
        thread.emit(bid, kind=Kind.THINKING, timestamp=ts, text=text, model=model, meta=meta)
    elif btype == "tool_use":
        thread.add(_tool_call(block, bid, ts, model, thread))
    elif btype == "tool_result":
        thread.add(_tool_result(block, bid, ts, thread))
    elif btype == "image":
        thread.emit(bid, kind=kind, timestamp=ts, blocks=(_image(block),))
    else:
        thread.report(None, f"{where} has unknown type {btype!r}; shown as raw JSON")
        thread.emit(bid, kind=Kind.UNKNOWN, timestamp=ts, title=f"Amp block {btype!r}", raw=block)


def _message_usage(
    thread: _Thread,
    message: dict[str, Any],
    start: int,
    base: str,
    kind: Kind,
    ts: datetime | None,
    model: str | None,
) -> None:
    """The message's usage, credits and other facts, on its last event that can show them."""
    usage_raw = obj(message.get("usage"))
    extra = _message_extra(message)
    usage = Usage(
        input_tokens=to_int(usage_raw.get("inputTokens")),
        output_tokens=to_int(usage_raw.get("outputTokens")),
        cache_read_tokens=to_int(usage_raw.get("cacheReadInputTokens")),
        cache_write_tokens=to_int(usage_raw.get("cacheCreationInputTokens")),
    )
    credits = to_float(usage_raw.get("credits"))
    if credits:
        thread.credits += credits
        extra["credits"] = usage_raw["credits"]
    if not (usage or extra):
        return
    target = last_index(thread.events, lambda e: e.kind in _USAGE_KINDS, since=start)
    if target is None:
        thread.emit(base, kind=kind, timestamp=ts, model=model if kind == Kind.ASSISTANT else None)
        target = len(thread.events) - 1
    event = thread.events[target]
    thread.events[target] = replace(
        event,
        usage=usage or None,
        model=event.model or (model if event.kind != Kind.USER else None),
        meta={**event.meta, **extra},
    )


def _message_extra(message: dict[str, Any]) -> dict[str, Any]:
    """A message's facts worth showing: an unusual state, the agent mode, keys this reader does not know."""
    extra: dict[str, Any] = {}
    state = obj(message.get("state"))
    if state and (
        state.get("type") not in (None, "complete") or state.get("stopReason") not in (None, "end_turn", "tool_use")
    ):
        extra["state"] = state
    if text_of(message.get("agentMode")):
        extra["agent mode"] = message["agentMode"]
    for key, value in message.items():
        if (
            key not in _MESSAGE_KEYS
            and key not in ("agentMode", "timestamp")
            and isinstance(value, (str, int, float, bool))
            and value not in ("", None)
        ):
            extra[key] = value
    return extra


def _tool_call(block: dict[str, Any], bid: str, ts: datetime | None, model: str | None, thread: _Thread) -> Event:
    name = text_of(block.get("name")) or "tool"
    args = maybe_json(block.get("input"))
    call_id = text_of(block.get("id")) or bid
    category = tool_category(name, _CATEGORIES)
    found = tool_input(args, category, _DIFFS.get(name.lower()), path_keys=_PATH_KEYS, command_keys=_COMMAND_KEYS)
    meta: dict[str, Any] = {"complete": False} if block.get("complete") is False else {}
    return Event(
        id=thread.ids.take(call_id),
        kind=Kind.TOOL_CALL,
        timestamp=ts,
        tool_name=name,
        tool_input=args,
        category=category,
        call_id=call_id,
        model=model,
        meta=meta,
        command=found.command,
        path=found.path,
        diff=found.diff,
    )


def _tool_result(block: dict[str, Any], bid: str, ts: datetime | None, thread: _Thread) -> Event:
    call_id = text_of(block.get("toolUseID")) or text_of(block.get("tool_use_id")) or text_of(block.get("toolUseId"))
    run = obj(block.get("run"))
    status = text_of(run.get("status"))
    result = maybe_json(run.get("result")) if "result" in run else block.get("content")
    error = run.get("error")
    text, blocks, meta, exit_code, diff = _result_parts(result)
    if error is not None:
        message = text_of(obj(error).get("message")) or as_text(error)
        text = f"{text}\n{message}" if text else message
    if status and status != "done":
        meta["status"] = status
    is_error = (
        status in ("error", "rejected-by-user", "cancelled")
        or error is not None
        or (exit_code is not None and exit_code != 0)
    )
    return Event(
        id=thread.ids.take(f"{bid}-result"),
        kind=Kind.TOOL_RESULT,
        timestamp=ts,
        text=text,
        blocks=blocks,
        call_id=call_id,
        is_error=is_error,
        exit_code=exit_code,
        diff=diff,
        meta=meta,
    )


def _result_parts(result: Any) -> tuple[str, tuple[Block, ...], dict[str, Any], int | None, str | None]:
    """(text, blocks, meta, exit code, diff) of a tool run's result, whatever its shape."""
    if isinstance(result, dict):
        return _result_object(result)
    if isinstance(result, list):
        parts = []
        blocks: tuple[Block, ...] = ()
        for item in result:
            if isinstance(item, dict) and item.get("type") == "image":
                blocks += (_image(item),)
            elif isinstance(item, dict) and isinstance(item.get("text"), str):
                parts.append(item["text"])
            else:
                parts.append(as_text(item))
        return "\n".join(parts), blocks, {}, None, None
    return (as_text(result) if result is not None else ""), (), {}, None, None


def _result_object(result: dict[str, Any]) -> tuple[str, tuple[Block, ...], dict[str, Any], int | None, str | None]:
    exit_code = opt_int(result.get("exitCode")) if "exitCode" in result else opt_int(result.get("exit_code"))
    diff = text_of(result.get("diff"))
    text = ""
    meta: dict[str, Any] = {}
    for key in ("output", "content", "text", "stdout", "result"):
        if isinstance(result.get(key), str):
            text = result[key]
            break
    else:
        rest = {k: v for k, v in result.items() if k not in ("exitCode", "exit_code", "diff")}
        if diff:  # an edit: the diff is the result; the rest (line range …) goes to the details
            meta.update(rest)
        else:
            text = as_text(rest) if rest else ""
    stderr = result.get("stderr")
    if isinstance(stderr, str) and stderr and text != stderr:
        text = f"{text}\n{stderr}" if text else stderr
    return text, (), meta, exit_code, diff


def _image(block: dict[str, Any]) -> Block:
    source = obj(block.get("source"))
    mime = text_of(source.get("media_type")) or text_of(source.get("mediaType"))
    uri = None
    if source.get("type") == "base64" and isinstance(source.get("data"), str):
        uri = f"data:{mime or 'image/png'};base64,{source['data']}"
    elif isinstance(source.get("url"), str):
        uri = source["url"]
    return Block("image", uri=uri, mime=mime)
