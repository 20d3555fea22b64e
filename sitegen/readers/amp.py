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

from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from sitegen.model import Block, Event, Kind, Problems, Session, SourceRef, ToolCategory, Usage, make_session_id
from sitegen.readers._util import Ids, maybe_json, obj, opt_int, project_of, text_of, to_int, unified_diff
from sitegen.readers.base import Reader, Sniff, as_text, load_json, parse_time

NAME = "amp"
AGENT = "amp"

_CATEGORY = {
    "bash": ToolCategory.SHELL,
    "shell": ToolCategory.SHELL,
    "edit_file": ToolCategory.EDIT,
    "create_file": ToolCategory.EDIT,
    "undo_edit": ToolCategory.EDIT,
    "format_file": ToolCategory.EDIT,
    "apply_patch": ToolCategory.EDIT,
    "read": ToolCategory.READ,
    "read_file": ToolCategory.READ,
    "grep": ToolCategory.SEARCH,
    "glob": ToolCategory.SEARCH,
    "list_directory": ToolCategory.SEARCH,
    "codebase_search_agent": ToolCategory.SEARCH,
    "finder": ToolCategory.SEARCH,
    "web_search": ToolCategory.WEB,
    "read_web_page": ToolCategory.WEB,
    "task": ToolCategory.TASK,
}
_MESSAGE_KEYS = {"role", "messageId", "content", "state", "usage", "meta"}
_THREAD_KEYS = {"v", "id", "created", "title", "messages", "env"}


class AmpReader(Reader):
    name = NAME
    claims_directories = False

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

    def read(self, path: Path, problems: Problems) -> Iterator[Session]:
        doc = load_json(path, problems)
        if doc is None:
            return
        if not isinstance(doc, dict):
            problems.add(path, None, f"amp: thread is a {type(doc).__name__}, not an object")
            return
        yield _thread(doc, path, problems)


READER = AmpReader()


def _thread(doc: dict[str, Any], path: Path, problems: Problems) -> Session:
    tid = text_of(doc.get("id")) or path.stem
    messages = doc.get("messages")
    if not isinstance(messages, list):
        problems.add(path, None, "amp: thread has no messages array")
        messages = []
    ids = Ids()
    events: list[Event] = []
    models: list[str] = []
    skipped: Counter = Counter()
    credits = 0.0
    last_ts = parse_time(doc.get("created"))
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        if not isinstance(message, dict):
            problems.add(path, None, f"amp: {where} is a {type(message).__name__}, not an object; shown as raw JSON")
            events.append(Event(id=ids.take(f"m{index}"), kind=Kind.UNKNOWN, title="Amp message", raw=message))
            continue
        new, model, ts, spent = _message_events(message, index, where, path, problems, ids, last_ts)
        last_ts = ts or last_ts
        credits += spent
        if model and model not in models:
            models.append(model)
        if not new:
            skipped["empty message"] += 1
        events.extend(new)

    env = obj(doc.get("env"))
    initial = obj(env.get("initial"))
    trees = (
        [t for t in initial.get("trees") or [] if isinstance(t, dict)] if isinstance(initial.get("trees"), list) else []
    )
    cwd = _file_path(text_of(trees[0].get("uri"))) if trees else None
    meta: dict[str, Any] = {}
    if doc.get("v") is not None:
        meta["version"] = doc["v"]
    if len(trees) > 1:
        meta["trees"] = [t.get("displayName") or t.get("uri") for t in trees]
    if isinstance(initial.get("tags"), list) and initial["tags"]:
        meta["tags"] = initial["tags"]
    if credits:
        meta["credits"] = round(credits, 6)
    for key, value in doc.items():
        if key not in _THREAD_KEYS and isinstance(value, (str, int, float, bool)) and value not in ("", None):
            meta[key] = value
    stamps = [e.timestamp for e in events if e.timestamp]
    started = parse_time(doc.get("created"))
    return Session(
        id=make_session_id(NAME, tid),
        source=SourceRef(str(path), NAME),
        agent=AGENT,
        events=tuple(events),
        title=text_of(doc.get("title")),
        started=started or (min(stamps) if stamps else None),
        ended=max(stamps) if stamps else started,
        cwd=cwd,
        project=project_of(cwd),
        models=tuple(models),
        meta=meta,
        skipped=dict(skipped),
    )


def _file_path(uri: str | None) -> str | None:
    if not uri:
        return None
    if uri.startswith("file://"):
        return unquote(urlsplit(uri).path) or None
    return uri


def _message_events(
    message: dict[str, Any], index: int, where: str, path: Path, problems: Problems, ids: Ids, last_ts: Any
) -> tuple[list[Event], str | None, Any, float]:
    role = message.get("role")
    mid = message.get("messageId")
    base = (
        f"m{mid}"
        if isinstance(mid, int) and not isinstance(mid, bool)
        else (str(mid) if isinstance(mid, str) and mid else f"m{index}")
    )
    usage_raw = obj(message.get("usage"))
    meta_raw = obj(message.get("meta"))
    ts = (
        parse_time(meta_raw.get("sentAt"))
        or parse_time(usage_raw.get("timestamp"))
        or parse_time(message.get("timestamp"))
    )
    model = text_of(usage_raw.get("model"))
    content = message.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if role not in ("user", "assistant") or not isinstance(content, list):
        problems.add(
            path,
            None,
            f"amp: {where} has role {role!r} and content of type {type(content).__name__}; shown as raw JSON",
        )
        return (
            [Event(id=ids.take(base), kind=Kind.UNKNOWN, timestamp=ts or last_ts, title="Amp message", raw=message)],
            None,
            ts,
            0.0,
        )
    ts_shown = ts or last_ts
    kind = Kind.USER if role == "user" else Kind.ASSISTANT
    events: list[Event] = []
    for bindex, block in enumerate(content):
        bid = f"{base}-{bindex}"
        if not isinstance(block, dict):
            events.append(
                Event(id=ids.take(bid), kind=Kind.UNKNOWN, timestamp=ts_shown, title="Amp content block", raw=block)
            )
            continue
        btype = block.get("type")
        if btype == "text":
            events.append(
                Event(
                    id=ids.take(bid),
                    kind=kind,
                    timestamp=ts_shown,
                    text=as_text(block.get("text")),
                    model=model if kind == Kind.ASSISTANT else None,
                )
            )
        elif btype in ("thinking", "redacted_thinking"):
            text = as_text(block.get("thinking")) if btype == "thinking" else "(redacted thinking)"
            meta = {"provider": block["provider"]} if text_of(block.get("provider")) else {}
            events.append(
                Event(id=ids.take(bid), kind=Kind.THINKING, timestamp=ts_shown, text=text, model=model, meta=meta)
            )
        elif btype == "tool_use":
            events.append(_tool_call(block, bid, ts_shown, model, ids))
        elif btype == "tool_result":
            events.append(_tool_result(block, bid, ts_shown, ids))
        elif btype == "image":
            events.append(Event(id=ids.take(bid), kind=kind, timestamp=ts_shown, blocks=(_image(block),)))
        else:
            problems.add(path, None, f"amp: {where}.content[{bindex}] has unknown type {btype!r}; shown as raw JSON")
            events.append(
                Event(id=ids.take(bid), kind=Kind.UNKNOWN, timestamp=ts_shown, title=f"Amp block {btype!r}", raw=block)
            )

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
    usage = Usage(
        input_tokens=to_int(usage_raw.get("inputTokens")),
        output_tokens=to_int(usage_raw.get("outputTokens")),
        cache_read_tokens=to_int(usage_raw.get("cacheReadInputTokens")),
        cache_write_tokens=to_int(usage_raw.get("cacheCreationInputTokens")),
    )
    spent = (
        float(usage_raw["credits"])
        if isinstance(usage_raw.get("credits"), (int, float)) and not isinstance(usage_raw.get("credits"), bool)
        else 0.0
    )
    if spent:
        extra["credits"] = usage_raw["credits"]
    if usage or extra:
        target = next(
            (
                i
                for i in range(len(events) - 1, -1, -1)
                if events[i].kind in (Kind.ASSISTANT, Kind.THINKING, Kind.TOOL_CALL, Kind.USER)
            ),
            None,
        )
        if target is None and (usage or extra):
            events.append(
                Event(id=ids.take(base), kind=kind, timestamp=ts_shown, model=model if kind == Kind.ASSISTANT else None)
            )
            target = len(events) - 1
        event = events[target]
        events[target] = replace(
            event,
            usage=usage or None,
            model=event.model or (model if event.kind != Kind.USER else None),
            meta={**event.meta, **extra},
        )
    return events, model, ts, spent


def _tool_call(block: dict[str, Any], bid: str, ts: Any, model: str | None, ids: Ids) -> Event:
    name = text_of(block.get("name")) or "tool"
    args = maybe_json(block.get("input"))
    call_id = text_of(block.get("id")) or bid
    category = _CATEGORY.get(name.lower(), ToolCategory.OTHER)
    fields: dict[str, Any] = {}
    meta: dict[str, Any] = {}
    if block.get("complete") is False:
        meta["complete"] = False
    if isinstance(args, dict):
        file_path = text_of(args.get("path")) or text_of(args.get("filePath")) or text_of(args.get("file_path"))
        if category == ToolCategory.SHELL:
            fields["command"] = text_of(args.get("cmd")) or text_of(args.get("command"))
        if file_path and category in (ToolCategory.EDIT, ToolCategory.READ, ToolCategory.SEARCH):
            fields["path"] = file_path
        lower = name.lower()
        if lower == "edit_file" and file_path:
            fields["diff"] = unified_diff(file_path, as_text(args.get("old_str")), as_text(args.get("new_str"))) or None
        elif lower == "create_file" and file_path:
            fields["diff"] = unified_diff(file_path, "", as_text(args.get("content"))) or None
        if not fields.get("diff"):
            fields.pop("diff", None)
    return Event(
        id=ids.take(call_id),
        kind=Kind.TOOL_CALL,
        timestamp=ts,
        tool_name=name,
        tool_input=args,
        category=category,
        call_id=call_id,
        model=model,
        meta=meta,
        **fields,
    )


def _tool_result(block: dict[str, Any], bid: str, ts: Any, ids: Ids) -> Event:
    call_id = text_of(block.get("toolUseID")) or text_of(block.get("tool_use_id")) or text_of(block.get("toolUseId"))
    run = obj(block.get("run"))
    status = text_of(run.get("status"))
    result = maybe_json(run.get("result")) if "result" in run else block.get("content")
    error = run.get("error")
    text = ""
    diff = None
    exit_code = None
    blocks: tuple[Block, ...] = ()
    meta: dict[str, Any] = {}
    if isinstance(result, dict):
        exit_code = opt_int(result.get("exitCode")) if "exitCode" in result else opt_int(result.get("exit_code"))
        diff = text_of(result.get("diff"))
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
        if isinstance(result.get("stderr"), str) and result["stderr"] and text != result["stderr"]:
            text = f"{text}\n{result['stderr']}" if text else result["stderr"]
    elif isinstance(result, list):
        parts = []
        for item in result:
            if isinstance(item, dict) and item.get("type") == "image":
                blocks += (_image(item),)
            elif isinstance(item, dict) and isinstance(item.get("text"), str):
                parts.append(item["text"])
            else:
                parts.append(as_text(item))
        text = "\n".join(parts)
    elif result is not None:
        text = as_text(result)
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
        id=ids.take(f"{bid}-result"),
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


def _image(block: dict[str, Any]) -> Block:
    source = obj(block.get("source"))
    mime = text_of(source.get("media_type")) or text_of(source.get("mediaType"))
    uri = None
    if source.get("type") == "base64" and isinstance(source.get("data"), str):
        uri = f"data:{mime or 'image/png'};base64,{source['data']}"
    elif isinstance(source.get("url"), str):
        uri = source["url"]
    return Block("image", uri=uri, mime=mime)
