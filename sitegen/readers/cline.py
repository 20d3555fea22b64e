"""Cline task folders: ``…/saoudrizwan.claude-dev/tasks/<taskId ms>/`` (and ``~/.cline/data/tasks``).

A task folder is one session:

* ``api_conversation_history.json``: the Anthropic-style messages sent to the
  model (``{role, content:[…]}``; assistant messages may carry
  ``metrics:{tokens:{prompt, completion, cached}, cost}`` and ``modelInfo``).
  Tool calls are ``tool_use`` blocks, or, in the older XML style, tags in the
  assistant text (``<read_file><path>…</path></read_file>``). Tool results
  are plain text blocks in the next user message,
  ``"[read_file for 'x'] Result:"`` followed by the output (in the same block
  or the next ones); they are paired with the preceding call of that name.
  ``<environment_details>`` blocks are context Cline adds, shown as SYSTEM.
* ``ui_messages.json``: what the chat panel showed, with ``ts`` (ms): the
  source of timestamps (``conversationHistoryIndex`` links a panel message to
  the history) and of token counts (``api_req_started``). When the history
  file is missing the session is rebuilt from the panel messages alone.
* ``task_metadata.json``: ``model_usage`` (models), ``environment_history``,
  ``files_in_context``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sitegen.model import Block, Event, Kind, Problems, Session, SourceRef, ToolCategory, Usage, make_session_id
from sitegen.readers._util import Ids, maybe_json, obj, project_of, text_of, to_int, unified_diff
from sitegen.readers.base import Reader, Sniff, as_text, iter_json_array, load_json, parse_time

NAME = "cline"
AGENT = "cline"
API_HISTORY = "api_conversation_history.json"
UI_MESSAGES = "ui_messages.json"
TASK_METADATA = "task_metadata.json"

_CATEGORY = {
    "execute_command": ToolCategory.SHELL,
    "read_file": ToolCategory.READ,
    "write_to_file": ToolCategory.EDIT,
    "replace_in_file": ToolCategory.EDIT,
    "apply_diff": ToolCategory.EDIT,
    "apply_patch": ToolCategory.EDIT,
    "insert_content": ToolCategory.EDIT,
    "search_files": ToolCategory.SEARCH,
    "list_files": ToolCategory.SEARCH,
    "list_code_definition_names": ToolCategory.SEARCH,
    "browser_action": ToolCategory.WEB,
    "web_fetch": ToolCategory.WEB,
    "web_search": ToolCategory.WEB,
}
# Tools whose main argument is prose, shown as the call's text rather than as JSON.
_PROSE_ARG = {
    "attempt_completion": "result",
    "ask_followup_question": "question",
    "plan_mode_respond": "response",
    "new_task": "context",
}
# Tag names the XML tool style uses (Cline's own list plus a few from its forks).
_XML_TOOLS = (
    set(_CATEGORY)
    | set(_PROSE_ARG)
    | {
        "use_mcp_tool",
        "access_mcp_resource",
        "load_mcp_documentation",
        "condense",
        "summarize_task",
        "report_bug",
        "new_rule",
        "focus_chain",
        "generate_explanation",
        "use_skill",
    }
)
_RESULT_HEAD = re.compile(r"\[([A-Za-z0-9_\-]+)(.*?)\] Result:[ \t]*\n?", re.DOTALL)
_XML_CALL = re.compile(r"<(" + "|".join(sorted(_XML_TOOLS, key=len, reverse=True)) + r")>(.*?)</\1>", re.DOTALL)
_XML_PARAM = re.compile(r"<([a-z_]+)>(.*?)</\1>", re.DOTALL)
_THINKING = re.compile(r"<thinking>(.*?)(?:</thinking>|$)", re.DOTALL)
_CWD = re.compile(r"# Current (?:Working|Workspace) Directory \((.+?)\) Files")
_SEARCH_REPLACE = re.compile(
    r"^(?:-{3,} SEARCH|<{3,} SEARCH)[^\n]*\n(.*?)^={3,}[^\n]*\n(.*?)^(?:\+{3,} REPLACE|>{3,} REPLACE)[^\n]*$",
    re.DOTALL | re.MULTILINE,
)
_NOTICES = (
    ("[TASK RESUMPTION]", "Task resumption"),
    ("[ERROR] You did not use a tool", "Cline notice"),
    ("[ERROR]", "Cline error notice"),
    ("<explicit_instructions", "Explicit instructions"),
)


class ClineReader(Reader):
    name = NAME
    claims_directories = True

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if not sniffed.is_dir:
            return False
        has_api = (path / API_HISTORY).is_file()
        has_ui = (path / UI_MESSAGES).is_file()
        if has_api and has_ui:
            return True
        return (has_api or has_ui) and path.name.isdigit()

    def companions(self, path: Path) -> list[Path]:
        try:
            return sorted(p for p in path.rglob("*") if p.is_file())
        except OSError:
            return []

    def read(self, path: Path, problems: Problems) -> Iterator[Session]:
        yield _read_task(path, problems)


READER = ClineReader()


# --------------------------------------------------------------------------- task


def _load_array(path: Path, problems: Problems, what: str) -> list[tuple[int, dict[str, Any]]]:
    if not path.is_file():
        return []
    items = []
    for line, item in iter_json_array(path, problems):
        if isinstance(item, dict):
            items.append((line, item))
        else:
            problems.add(path, line, f"cline: {what} item is a {type(item).__name__}, not an object; skipped")
    return items


@dataclass
class _Ui:
    """What ui_messages.json says about the history: times, token counts, models."""

    start: dict[int, Any] = field(default_factory=dict)  # history index -> first panel time after it
    requests: list[tuple[int | None, Any, dict[str, Any], dict[str, Any]]] = field(
        default_factory=list
    )  # (index, ts, request info, ui record)
    times: list[Any] = field(default_factory=list)
    first_text: str | None = None


def _ui_summary(ui: list[tuple[int, dict[str, Any]]], path: Path, problems: Problems) -> _Ui:
    out = _Ui()
    for line, msg in ui:
        ts = parse_time(msg.get("ts"))
        if msg.get("ts") is not None and ts is None:
            problems.add(path, line, f"cline: ts is not a timestamp: {msg.get('ts')!r}")
        if ts:
            out.times.append(ts)
        index = msg.get("conversationHistoryIndex")
        index = index if isinstance(index, int) and not isinstance(index, bool) else None
        if index is not None and ts is not None and index not in out.start:
            out.start[index] = ts
        if msg.get("say") == "api_req_started":
            info = maybe_json(msg.get("text"))
            out.requests.append((index, ts, info if isinstance(info, dict) else {}, msg))
        if (
            out.first_text is None
            and msg.get("type") == "say"
            and msg.get("say") == "text"
            and isinstance(msg.get("text"), str)
        ):
            out.first_text = msg["text"]
    return out


def _read_task(path: Path, problems: Problems) -> Session:
    api_path, ui_path, meta_path = path / API_HISTORY, path / UI_MESSAGES, path / TASK_METADATA
    api = _load_array(api_path, problems, "history")
    ui = _load_array(ui_path, problems, "panel message")
    metadata = {}
    if meta_path.is_file():
        doc = load_json(meta_path, problems)
        if isinstance(doc, dict):
            metadata = doc
        elif doc is not None:
            problems.add(
                meta_path, None, f"cline: task_metadata.json is a {type(doc).__name__}, not an object; ignored"
            )
    summary = _ui_summary(ui, ui_path, problems)
    models = _models(metadata, api)
    ids = Ids()
    state = _State(ids=ids, path=api_path, problems=problems)
    if api:
        _history_events(api, summary, metadata, state)
    elif ui:
        state.path = ui_path
        _ui_events(ui, state)
    else:
        problems.add(path, None, "cline: task folder has no readable messages")

    meta: dict[str, Any] = {}
    env = (
        [e for e in metadata.get("environment_history") or [] if isinstance(e, dict)]
        if isinstance(metadata.get("environment_history"), list)
        else []
    )
    if env:
        last = env[-1]
        for key, label in (
            ("cline_version", "cline version"),
            ("host_name", "editor"),
            ("host_version", "editor version"),
            ("os_name", "os"),
        ):
            if last.get(key):
                meta[label] = last[key]
    files = metadata.get("files_in_context")
    if isinstance(files, list) and files:
        meta["files in context"] = len(files)
    if state.cost:
        meta["cost"] = round(state.cost, 6)
    if not api and ui:
        meta["rebuilt from"] = UI_MESSAGES
    task_ms = int(path.name) if path.name.isdigit() else None
    started = parse_time(task_ms) if task_ms else None
    times = summary.times + [e.timestamp for e in state.events if e.timestamp]
    return Session(
        id=make_session_id(NAME, path.name),
        source=SourceRef(str(api_path if api_path.is_file() else ui_path if ui_path.is_file() else path), NAME),
        agent=AGENT,
        events=tuple(state.events),
        title=None,
        started=min([t for t in (started, *times) if t], default=None),
        ended=max(times, default=None),
        cwd=state.cwd,
        project=project_of(state.cwd),
        models=tuple(models or state.models),
        meta=meta,
        skipped=dict(state.skipped),
    )


def _models(metadata: dict[str, Any], api: list[tuple[int, dict[str, Any]]]) -> list[str]:
    models: list[str] = []
    usage = metadata.get("model_usage")
    for entry in usage if isinstance(usage, list) else []:
        model = text_of(obj(entry).get("model_id"))
        if model and model not in models:
            models.append(model)
    for _, message in api:
        model = text_of(obj(message.get("modelInfo")).get("modelId"))
        if model and model not in models:
            models.append(model)
    return models


@dataclass
class _State:
    ids: Ids
    path: Path
    problems: Problems
    events: list[Event] = field(default_factory=list)
    open_calls: list[tuple[str, str]] = field(default_factory=list)  # (tool name, call id) awaiting a result
    cwd: str | None = None
    cost: float = 0.0
    models: list[str] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)

    def add(self, **fields: Any) -> Event:
        event = Event(**fields)
        self.events.append(event)
        return event


# --------------------------------------------------------------------------- api_conversation_history.json


def _history_events(api: list[tuple[int, dict[str, Any]]], ui: _Ui, metadata: dict[str, Any], state: _State) -> None:
    model_usage = (
        sorted(
            (
                (parse_time(obj(e).get("ts")), text_of(obj(e).get("model_id")))
                for e in metadata.get("model_usage") or []
                if isinstance(e, dict)
            ),
            key=lambda pair: pair[0].timestamp() if pair[0] else 0,
        )
        if isinstance(metadata.get("model_usage"), list)
        else []
    )
    requests = list(ui.requests)
    indexed = any(index is not None for index, *_ in requests)
    assistant_seen = 0
    last_ts = None
    for position, (line, message) in enumerate(api):
        role = message.get("role")
        # A panel message with history index i was written when the history held i + 1 messages.
        ts = ui.start.get(position - 1) or parse_time(message.get("ts"))
        if ts is None and not indexed and role == "user" and position // 2 < len(requests):
            ts = requests[position // 2][1]
        ts = ts or last_ts
        last_ts = ts
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            state.problems.add(state.path, line, f"cline: message {position} has no content list; shown as raw JSON")
            state.add(
                id=state.ids.take(f"m{position}"),
                kind=Kind.UNKNOWN,
                timestamp=ts,
                title="Cline message",
                raw=message,
                line=line,
            )
            continue
        if role == "assistant":
            model = text_of(obj(message.get("modelInfo")).get("modelId")) or _model_at(model_usage, ts)
            if model and model not in state.models:
                state.models.append(model)
            usage, extra = _assistant_usage(message, position, assistant_seen, requests, indexed)
            assistant_seen += 1
            before = len(state.events)
            _assistant_blocks(content, position, line, ts, model, state)
            if usage or extra:
                _attach_usage(state, before, usage, extra, model, ts, position)
        elif role == "user":
            _user_blocks(content, position, line, ts, state)
        else:
            state.problems.add(state.path, line, f"cline: message {position} has role {role!r}; shown as raw JSON")
            state.add(
                id=state.ids.take(f"m{position}"),
                kind=Kind.UNKNOWN,
                timestamp=ts,
                title=f"Cline message with role {role!r}",
                raw=message,
                line=line,
            )


def _model_at(model_usage: list[tuple[Any, str | None]], ts: Any) -> str | None:
    model = None
    for when, name in model_usage:
        if ts is not None and when is not None and when > ts:
            break
        model = name or model
    return model


def _assistant_usage(
    message: dict[str, Any], position: int, nth: int, requests: list, indexed: bool
) -> tuple[Usage | None, dict[str, Any]]:
    metrics = obj(message.get("metrics"))
    tokens = obj(metrics.get("tokens"))
    extra: dict[str, Any] = {}
    if tokens:
        usage = Usage(
            input_tokens=to_int(tokens.get("prompt")),
            output_tokens=to_int(tokens.get("completion")),
            cache_read_tokens=to_int(tokens.get("cached")),
        )
        if isinstance(metrics.get("cost"), (int, float)) and metrics.get("cost"):
            extra["cost"] = metrics["cost"]
        return usage or None, extra
    # From the panel: the last request started before this message was added.
    chosen = None
    if indexed:
        for index, (hist, _ts, info, _msg) in enumerate(requests):
            if hist is not None and hist < position:
                chosen = index
        if chosen is not None:
            info = requests.pop(chosen)[2]
            # earlier requests (failed retries) can no longer match a later message
            del requests[:chosen]
        else:
            info = {}
    else:
        info = requests[nth][2] if nth < len(requests) else {}
    usage = Usage(
        input_tokens=to_int(info.get("tokensIn")),
        output_tokens=to_int(info.get("tokensOut")),
        cache_read_tokens=to_int(info.get("cacheReads")),
        cache_write_tokens=to_int(info.get("cacheWrites")),
    )
    if isinstance(info.get("cost"), (int, float)) and info.get("cost"):
        extra["cost"] = info["cost"]
    for key in ("cancelReason", "streamingFailedMessage"):
        if info.get(key):
            extra[key] = info[key]
    return usage or None, extra


def _attach_usage(
    state: _State, before: int, usage: Usage | None, extra: dict[str, Any], model: str | None, ts: Any, position: int
) -> None:
    if isinstance(extra.get("cost"), (int, float)):
        state.cost += float(extra["cost"])
    for index in range(len(state.events) - 1, before - 1, -1):
        event = state.events[index]
        if event.kind in (Kind.ASSISTANT, Kind.THINKING, Kind.TOOL_CALL):
            state.events[index] = replace(event, usage=usage, model=event.model or model, meta={**event.meta, **extra})
            return
    state.add(
        id=state.ids.take(f"m{position}-usage"),
        kind=Kind.ASSISTANT,
        timestamp=ts,
        usage=usage,
        model=model,
        meta={**extra, "note": "model response with no content"},
    )


def _assistant_blocks(content: list[Any], position: int, line: int, ts: Any, model: str | None, state: _State) -> None:
    # A new assistant turn: calls left without a result belong to an earlier turn.
    state.open_calls.clear()
    for index, block in enumerate(content):
        bid = f"m{position}-{index}"
        if not isinstance(block, dict):
            state.add(
                id=state.ids.take(bid),
                kind=Kind.UNKNOWN,
                timestamp=ts,
                title="Cline content block",
                raw=block,
                line=line,
            )
            continue
        btype = block.get("type")
        if btype == "text":
            _assistant_text(as_text(block.get("text")), bid, line, ts, model, state)
        elif btype in ("thinking", "reasoning"):
            state.add(
                id=state.ids.take(bid),
                kind=Kind.THINKING,
                timestamp=ts,
                text=as_text(block.get("thinking") or block.get("text")),
                model=model,
                line=line,
            )
        elif btype == "redacted_thinking":
            state.add(
                id=state.ids.take(bid),
                kind=Kind.THINKING,
                timestamp=ts,
                text="(redacted thinking)",
                model=model,
                line=line,
            )
        elif btype == "tool_use":
            name = text_of(block.get("name")) or "tool"
            call_id = text_of(block.get("id")) or bid
            _tool_call(name, block.get("input"), call_id, bid, line, ts, model, state)
        elif btype == "image":
            state.add(
                id=state.ids.take(bid),
                kind=Kind.ASSISTANT,
                timestamp=ts,
                blocks=(_image(block),),
                model=model,
                line=line,
            )
        else:
            state.problems.add(
                state.path, line, f"cline: message {position}: unknown block type {btype!r}; shown as raw JSON"
            )
            state.add(
                id=state.ids.take(bid),
                kind=Kind.UNKNOWN,
                timestamp=ts,
                title=f"Cline block {btype!r}",
                raw=block,
                line=line,
            )


def _assistant_text(text: str, bid: str, line: int, ts: Any, model: str | None, state: _State) -> None:
    """Assistant text, with ``<thinking>`` and XML-style tool calls split out."""
    pos = 0
    piece = 0
    for match in _XML_CALL.finditer(text):
        _prose(text[pos : match.start()], f"{bid}.{piece}", line, ts, model, state)
        piece += 1
        name, body = match.group(1), match.group(2)
        _tool_call(name, _xml_params(body), None, f"{bid}-{name}", line, ts, model, state, xml=True)
        pos = match.end()
    _prose(text[pos:], f"{bid}.{piece}" if piece else bid, line, ts, model, state)


def _prose(text: str, bid: str, line: int, ts: Any, model: str | None, state: _State) -> None:
    pos = 0
    for n, match in enumerate(_THINKING.finditer(text)):
        before = text[pos : match.start()].strip()
        if before:
            state.add(
                id=state.ids.take(f"{bid}-t{n}"), kind=Kind.ASSISTANT, timestamp=ts, text=before, model=model, line=line
            )
        state.add(
            id=state.ids.take(f"{bid}-think{n}"),
            kind=Kind.THINKING,
            timestamp=ts,
            text=match.group(1).strip(),
            model=model,
            line=line,
        )
        pos = match.end()
    rest = text[pos:].strip()
    if rest:
        state.add(id=state.ids.take(bid), kind=Kind.ASSISTANT, timestamp=ts, text=rest, model=model, line=line)


def _xml_params(body: str) -> dict[str, Any]:
    params: dict[str, Any] = {}
    pos = 0
    while True:
        match = _XML_PARAM.search(body, pos)
        if not match:
            break
        name = match.group(1)
        value = match.group(2)
        end = match.end()
        if name in ("content", "diff", "result"):
            # file content may itself hold tags: run to the last closing tag
            last = body.rfind(f"</{name}>")
            if last > match.start():
                value = body[match.start() + len(name) + 2 : last]
                end = last + len(name) + 3
        params[name] = value.strip("\n")
        pos = end
    return params


def _tool_call(
    name: str,
    raw_args: Any,
    call_id: str | None,
    eid: str,
    line: int,
    ts: Any,
    model: str | None,
    state: _State,
    xml: bool = False,
) -> None:
    """A call event; without a call id of its own (XML style) the event id links it to its result."""
    args = maybe_json(raw_args)
    meta: dict[str, Any] = {"style": "xml"} if xml else {}
    text = ""
    shown = args
    if isinstance(args, dict):
        shown = dict(args)
        progress = shown.pop("task_progress", None)
        if progress:
            meta["task_progress"] = progress
        prose_key = _PROSE_ARG.get(name)
        if prose_key and isinstance(shown.get(prose_key), str):
            text = shown.pop(prose_key)
        if not shown:
            shown = None
    category = _CATEGORY.get(name, ToolCategory.OTHER)
    fields: dict[str, Any] = {}
    if isinstance(args, dict):
        path = text_of(args.get("absolutePath")) or text_of(args.get("path")) or text_of(args.get("file_path"))
        if category == ToolCategory.SHELL:
            fields["command"] = text_of(args.get("command"))
        if path and category in (ToolCategory.EDIT, ToolCategory.READ, ToolCategory.SEARCH):
            fields["path"] = path
        if name == "write_to_file" and path:
            fields["diff"] = unified_diff(path, "", as_text(args.get("content")))
        elif name in ("replace_in_file", "apply_diff") and isinstance(args.get("diff"), str):
            fields["diff"] = _search_replace_diff(path, args["diff"])
        if not fields.get("diff"):
            fields.pop("diff", None)
    eid = state.ids.take(eid)
    call_id = call_id or eid
    state.add(
        id=eid,
        kind=Kind.TOOL_CALL,
        timestamp=ts,
        tool_name=name,
        tool_input=shown,
        category=category,
        call_id=call_id,
        text=text,
        model=model,
        line=line,
        meta=meta,
        **fields,
    )
    state.open_calls.append((name, call_id))


def _search_replace_diff(path: str | None, text: str) -> str | None:
    """A unified diff from Cline's SEARCH/REPLACE blocks (hunk line numbers are per block)."""
    hunks = []
    for match in _SEARCH_REPLACE.finditer(text):
        diff = unified_diff(path, match.group(1), match.group(2))
        if diff.count("\n") >= 2:
            hunks.append(diff.split("\n", 2)[2])
    if not hunks:
        return None
    label = path or "file"
    return "\n".join([f"--- {label}", f"+++ {label}", *hunks])


def _image(block: dict[str, Any]) -> Block:
    source = obj(block.get("source"))
    mime = text_of(source.get("media_type"))
    uri = None
    if source.get("type") == "base64" and isinstance(source.get("data"), str):
        uri = f"data:{mime or 'image/png'};base64,{source['data']}"
    elif isinstance(source.get("url"), str):
        uri = source["url"]
    return Block("image", uri=uri, mime=mime)


@dataclass
class _OpenResult:
    name: str
    call_id: str | None
    eid: str
    texts: list[str]
    blocks: list[Block]
    meta: dict[str, Any]


def _user_blocks(content: list[Any], position: int, line: int, ts: Any, state: _State) -> None:
    result: _OpenResult | None = None

    def close() -> None:
        nonlocal result
        if result is None:
            return
        text = "\n\n".join(t for t in result.texts if t)
        stripped = text.lstrip()
        is_error = (
            stripped.startswith(("The tool execution failed", "[ERROR]", "Error executing", "<error>"))
            or "The user denied this operation" in stripped[:200]
        )
        state.add(
            id=state.ids.take(result.eid),
            kind=Kind.TOOL_RESULT,
            timestamp=ts,
            text=text,
            blocks=tuple(result.blocks),
            call_id=result.call_id,
            tool_name=None if result.call_id else result.name,
            is_error=is_error,
            exit_code=_exit_code(text) if result.name == "execute_command" else None,
            line=line,
            meta=result.meta,
        )
        result = None

    for index, block in enumerate(content):
        bid = f"m{position}-{index}"
        if not isinstance(block, dict):
            close()
            state.add(
                id=state.ids.take(bid),
                kind=Kind.UNKNOWN,
                timestamp=ts,
                title="Cline content block",
                raw=block,
                line=line,
            )
            continue
        btype = block.get("type")
        if btype == "text":
            text = as_text(block.get("text"))
            head = _RESULT_HEAD.match(text[:4000])
            if head:
                close()
                name = head.group(1)
                call_id = _take_call(state, name)
                meta = (
                    {"for": head.group(2).strip()[4:].strip("'")}
                    if head.group(2).strip().startswith("for ") and not call_id
                    else {}
                )
                result = _OpenResult(name, call_id, f"{bid}-result", [text[head.end() :].strip("\n")], [], meta)
                continue
            stripped = text.lstrip()
            if stripped.startswith("<environment_details>"):
                close()
                inner = stripped[len("<environment_details>") :]
                inner = inner.split("</environment_details>", 1)[0].strip("\n")
                cwd = _CWD.search(inner)
                if cwd and not state.cwd:
                    state.cwd = cwd.group(1).strip()
                state.add(
                    id=state.ids.take(bid),
                    kind=Kind.SYSTEM,
                    timestamp=ts,
                    title="Environment details",
                    blocks=(Block("text", text=inner),),
                    line=line,
                )
                continue
            if result is not None:
                result.texts.append(text)
                continue
            _user_text(text, bid, line, ts, state)
        elif btype == "image":
            if result is not None:
                result.blocks.append(_image(block))
            else:
                state.add(id=state.ids.take(bid), kind=Kind.USER, timestamp=ts, blocks=(_image(block),), line=line)
        elif btype == "tool_result":
            close()
            call_id = text_of(block.get("tool_use_id"))
            inner = block.get("content")
            texts, blocks = [], []
            for item in inner if isinstance(inner, list) else [inner]:
                if isinstance(item, dict) and item.get("type") == "image":
                    blocks.append(_image(item))
                elif isinstance(item, dict) and item.get("type") == "text":
                    texts.append(as_text(item.get("text")))
                elif item is not None:
                    texts.append(as_text(item))
            if call_id:
                state.open_calls = [c for c in state.open_calls if c[1] != call_id]
            state.add(
                id=state.ids.take(f"{bid}-result"),
                kind=Kind.TOOL_RESULT,
                timestamp=ts,
                text="\n\n".join(texts),
                blocks=tuple(blocks),
                call_id=call_id,
                is_error=bool(block.get("is_error")),
                line=line,
            )
        else:
            close()
            state.problems.add(
                state.path, line, f"cline: message {position}: unknown block type {btype!r}; shown as raw JSON"
            )
            state.add(
                id=state.ids.take(bid),
                kind=Kind.UNKNOWN,
                timestamp=ts,
                title=f"Cline block {btype!r}",
                raw=block,
                line=line,
            )
    close()


def _take_call(state: _State, name: str) -> str | None:
    for index, (call_name, call_id) in enumerate(state.open_calls):
        if call_name == name:
            del state.open_calls[index]
            return call_id
    return None


def _exit_code(text: str) -> int | None:
    match = re.search(r"[Ee]xit code:? (-?\d+)", text[:4000])
    return int(match.group(1)) if match else None


def _user_text(text: str, bid: str, line: int, ts: Any, state: _State) -> None:
    stripped = text.strip()
    for prefix, title in _NOTICES:
        if stripped.startswith(prefix):
            state.add(id=state.ids.take(bid), kind=Kind.SYSTEM, timestamp=ts, title=title, text=stripped, line=line)
            return
    meta: dict[str, Any] = {}
    for tag in ("task", "feedback", "user_message", "answer"):
        if stripped.startswith(f"<{tag}>"):
            inner = stripped[len(tag) + 2 :]
            end = inner.rfind(f"</{tag}>")
            stripped = (inner[:end] if end >= 0 else inner).strip()
            if tag != "task":
                meta["tag"] = tag
            break
    if stripped:
        state.add(id=state.ids.take(bid), kind=Kind.USER, timestamp=ts, text=stripped, line=line, meta=meta)


# --------------------------------------------------------------------------- ui_messages.json only


def _ui_events(ui: list[tuple[int, dict[str, Any]]], state: _State) -> None:
    """The panel's messages as events, for a task whose history file is missing."""
    first = True
    pending_usage: tuple[Usage | None, dict[str, Any]] | None = None
    for line, msg in ui:
        ts = parse_time(msg.get("ts"))
        kind_key = msg.get("say") if msg.get("type") == "say" else msg.get("ask")
        text = as_text(msg.get("text"))
        eid = state.ids.take(f"ui{line}")
        if msg.get("partial"):
            state.skipped["partial panel message"] += 1
            continue
        if kind_key == "text":
            kind = Kind.USER if first else Kind.ASSISTANT
            first = False
            event = state.add(id=eid, kind=kind, timestamp=ts, text=text, line=line)
        elif kind_key in ("user_feedback", "user_feedback_diff"):
            event = state.add(id=eid, kind=Kind.USER, timestamp=ts, text=text, line=line)
        elif kind_key == "reasoning":
            event = state.add(id=eid, kind=Kind.THINKING, timestamp=ts, text=text, line=line)
        elif kind_key in ("completion_result", "followup", "plan_mode_respond"):
            event = state.add(id=eid, kind=Kind.ASSISTANT, timestamp=ts, text=_ui_text(text), line=line)
        elif kind_key == "command":
            call_id = eid
            event = state.add(
                id=eid,
                kind=Kind.TOOL_CALL,
                timestamp=ts,
                tool_name="execute_command",
                category=ToolCategory.SHELL,
                command=text,
                call_id=call_id,
                line=line,
            )
            state.open_calls.append(("execute_command", call_id))
        elif kind_key == "command_output":
            call_id = _take_call(state, "execute_command")
            event = state.add(id=eid, kind=Kind.TOOL_RESULT, timestamp=ts, text=text, call_id=call_id, line=line)
        elif kind_key == "tool":
            info = maybe_json(text)
            info = info if isinstance(info, dict) else {"text": text}
            name = text_of(info.get("tool")) or "tool"
            path = text_of(info.get("path"))
            diff = text_of(info.get("diff"))
            category = {
                "readFile": ToolCategory.READ,
                "newFileCreated": ToolCategory.EDIT,
                "editedExistingFile": ToolCategory.EDIT,
                "searchFiles": ToolCategory.SEARCH,
                "listFilesTopLevel": ToolCategory.SEARCH,
                "listFilesRecursive": ToolCategory.SEARCH,
            }.get(name, ToolCategory.OTHER)
            event = state.add(
                id=eid,
                kind=Kind.TOOL_CALL,
                timestamp=ts,
                tool_name=name,
                tool_input=info,
                category=category,
                path=path,
                diff=diff if diff and diff.lstrip().startswith(("---", "@@")) else None,
                call_id=eid,
                line=line,
            )
        elif kind_key == "api_req_started":
            info = maybe_json(text)
            info = info if isinstance(info, dict) else {}
            usage = Usage(
                input_tokens=to_int(info.get("tokensIn")),
                output_tokens=to_int(info.get("tokensOut")),
                cache_read_tokens=to_int(info.get("cacheReads")),
                cache_write_tokens=to_int(info.get("cacheWrites")),
            )
            pending_usage = (
                usage or None,
                {"cost": info["cost"]} if isinstance(info.get("cost"), (int, float)) and info.get("cost") else {},
            )
            continue
        elif kind_key in ("error", "api_req_failed", "diff_error", "clineignore_error", "mistake_limit_reached"):
            event = state.add(
                id=eid,
                kind=Kind.SYSTEM,
                timestamp=ts,
                title=f"Cline {kind_key.replace('_', ' ')}",
                text=text,
                line=line,
            )
        elif kind_key in (
            "checkpoint_created",
            "api_req_finished",
            "api_req_retried",
            "resume_task",
            "resume_completed_task",
            "task_progress",
            "deleted_api_reqs",
            "shell_integration_warning",
        ):
            state.skipped[f"panel {kind_key}"] += 1
            continue
        else:
            event = state.add(
                id=eid, kind=Kind.UNKNOWN, timestamp=ts, title=f"Cline panel message {kind_key!r}", raw=msg, line=line
            )
        if pending_usage and event.kind in (Kind.ASSISTANT, Kind.THINKING, Kind.TOOL_CALL):
            usage, extra = pending_usage
            if isinstance(extra.get("cost"), (int, float)):
                state.cost += float(extra["cost"])
            state.events[-1] = replace(event, usage=usage, meta={**event.meta, **extra})
            pending_usage = None


def _ui_text(text: str) -> str:
    value = maybe_json(text)
    if isinstance(value, dict):
        return as_text(
            value.get("question") or value.get("response") or value.get("text") or json.dumps(value, ensure_ascii=False)
        )
    return text
