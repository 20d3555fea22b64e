"""HAIL 1.0 (Human AI Interaction Log, hwisu/opensession): JSONL and HAIL JSON.

JSONL: a ``header`` line, ``event`` lines, an optional ``stats`` line last.
HAIL JSON: one object ``{version, session_id, agent, context, events[], stats}``.

``event_type`` is adjacently tagged (``{"type": "ToolCall", "data": {"name": …}}``),
content blocks are internally tagged (``{"type": "Text", "text": …}``). All 21
event types (the spec says 22; the enum in opensession's trace.rs has 21) and
8 block types map onto the model; anything else becomes an
UNKNOWN event or a JSON block, with a problem. Sub-agents merged inline (events
sharing a ``task_id``, bracketed by TaskStart/TaskEnd) are nested under a
SUBAGENT event placed where the task started. Codex-derived files put
``task_id`` only on TaskStart/TaskEnd turn markers: those stay flat markers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sitegen.interchange.exports import read_hail_file
from sitegen.model import (
    Block,
    Event,
    GitRefs,
    Kind,
    Problems,
    Session,
    SourceRef,
    ToolCategory,
    Usage,
    make_session_id,
)
from sitegen.readers._util import text_of as _str
from sitegen.readers.base import Reader, Sniff, as_text, iter_jsonl, load_json, parse_time, sniff

_MESSAGE_KINDS = {
    "UserMessage": Kind.USER,
    "AgentMessage": Kind.ASSISTANT,
    "SystemMessage": Kind.SYSTEM,
    "Thinking": Kind.THINKING,
}

# event type -> (category, the data field that is its subject, how it is kept)
_FILE_OPS = {
    "FileRead": ToolCategory.READ,
    "FileEdit": ToolCategory.EDIT,
    "FileCreate": ToolCategory.EDIT,
    "FileDelete": ToolCategory.EDIT,
}
_QUERY_OPS = {
    "CodeSearch": (ToolCategory.SEARCH, "query"),
    "FileSearch": (ToolCategory.SEARCH, "pattern"),
    "WebSearch": (ToolCategory.WEB, "query"),
    "WebFetch": (ToolCategory.WEB, "url"),
    "ImageGenerate": (ToolCategory.MEDIA, "prompt"),
    "VideoGenerate": (ToolCategory.MEDIA, "prompt"),
    "AudioGenerate": (ToolCategory.MEDIA, "prompt"),
}
KNOWN_EVENT_TYPES = frozenset(
    set(_MESSAGE_KINDS)
    | set(_FILE_OPS)
    | set(_QUERY_OPS)
    | {"ToolCall", "ToolResult", "ShellCommand", "TaskStart", "TaskEnd", "Custom"}
)
KNOWN_BLOCK_TYPES = frozenset({"Text", "Code", "Image", "Video", "Audio", "File", "Json", "Reference"})

# semantic.tool_kind attribute (opensession's infer_tool_kind) -> category
_TOOL_KIND = {
    "shell": ToolCategory.SHELL,
    "file_read": ToolCategory.READ,
    "file_write": ToolCategory.EDIT,
    "search": ToolCategory.SEARCH,
    "web": ToolCategory.WEB,
    "task": ToolCategory.TASK,
}
# tool names (lower-cased) from the agents HAIL is converted from -> category
_TOOL_NAMES = {
    "bash": ToolCategory.SHELL,
    "shell": ToolCategory.SHELL,
    "exec_command": ToolCategory.SHELL,
    "local_shell": ToolCategory.SHELL,
    "run_shell_command": ToolCategory.SHELL,
    "bashoutput": ToolCategory.SHELL,
    "read": ToolCategory.READ,
    "read_file": ToolCategory.READ,
    "view": ToolCategory.READ,
    "read_many_files": ToolCategory.READ,
    "edit": ToolCategory.EDIT,
    "multiedit": ToolCategory.EDIT,
    "write": ToolCategory.EDIT,
    "write_file": ToolCategory.EDIT,
    "apply_patch": ToolCategory.EDIT,
    "notebookedit": ToolCategory.EDIT,
    "replace": ToolCategory.EDIT,
    "grep": ToolCategory.SEARCH,
    "glob": ToolCategory.SEARCH,
    "search": ToolCategory.SEARCH,
    "ls": ToolCategory.SEARCH,
    "search_file_content": ToolCategory.SEARCH,
    "list_directory": ToolCategory.SEARCH,
    "webfetch": ToolCategory.WEB,
    "websearch": ToolCategory.WEB,
    "web_fetch": ToolCategory.WEB,
    "web_search": ToolCategory.WEB,
    "google_web_search": ToolCategory.WEB,
    "task": ToolCategory.TASK,
    "agent": ToolCategory.TASK,
}
# per-event token attributes -> Usage field (``*_total`` attributes are cumulative and never added)
_USAGE_ATTRS = {
    "input_tokens": "input_tokens",
    "output_tokens": "output_tokens",
    "cache_read_tokens": "cache_read_tokens",
    "cache_read_input_tokens": "cache_read_tokens",
    "cache_write_tokens": "cache_write_tokens",
    "cache_creation_input_tokens": "cache_write_tokens",
    "reasoning_tokens": "reasoning_tokens",
    "reasoning_output_tokens": "reasoning_tokens",
}
_DETECT_BYTES = 16 * 1024
_CALL_ID_ATTRS = ("semantic.call_id", "tool_use_id", "call_id")  # opensession's correlation order, plus Claude's id
_EVENT_FIELDS = {"type", "event_id", "timestamp", "event_type", "task_id", "content", "duration_ms", "attributes"}
_EXIT_CODE = re.compile(r"^Process exited with code (-?\d+)\s*$", re.MULTILINE)
_PATCH_START = re.compile(r"^(\*\*\* Begin Patch|diff --git |--- \S|Index: \S)", re.MULTILINE)


class HailReader(Reader):
    name = "hail"
    claims_directories = False

    def detect(self, sniffed: Sniff) -> bool:
        line = sniffed.object_line(_DETECT_BYTES)
        if line is None:
            return False
        head, first, obj = line
        if obj is not None:
            return _is_hail_record(obj) or _is_hail_document(obj)
        # Either a pretty-printed HAIL JSON document or a header line longer than the sniff.
        if '"type":"header"' in first.replace(" ", "") and re.search(r'"version"\s*:\s*"hail-', first):
            return True
        keys = _top_level_keys(head)
        version = keys.get("version")
        if not (isinstance(version, str) and version.startswith("hail-") and "session_id" in keys):
            return False
        # serde writes version, session_id, agent, context, events: a long context can push
        # "events" past the sniffed bytes, and then agent/context must do.
        return "events" in keys or (len(head) >= _DETECT_BYTES // 2 and ("agent" in keys or "context" in keys))

    def read(self, path: Path, problems: Problems) -> Iterator[Session]:
        if _is_json_document(path):
            yield from self._read_document(path, problems)
            return
        exported = read_hail_file(path, problems)  # sessite's own export: its extension gives back every field
        if exported is not None:
            yield exported
        else:
            yield from self._read_jsonl(path, problems)

    def _read_jsonl(self, path: Path, problems: Problems) -> Iterator[Session]:
        builder = _Builder(path, problems, json_mode=False)
        for lineno, obj in iter_jsonl(path, problems):
            kind = obj.get("type")
            if kind == "header":
                builder.add_header(obj, lineno)
            elif kind == "event":
                builder.add_event(obj, lineno)
            elif kind == "stats":
                builder.add_stats(obj, lineno)
            else:
                builder.add_unknown_line(obj, lineno)
        session = builder.finish()
        if session is not None:
            yield session

    def _read_document(self, path: Path, problems: Problems) -> Iterator[Session]:
        doc = load_json(path, problems)
        if doc is None:
            return
        if not isinstance(doc, dict):
            problems.add(path, None, f"HAIL JSON: top level is {type(doc).__name__}, expected an object")
            return
        builder = _Builder(path, problems, json_mode=True)
        builder.add_header({k: v for k, v in doc.items() if k not in ("events", "stats")}, None)
        events = doc.get("events")
        if not isinstance(events, list):
            problems.add(path, None, "HAIL JSON: 'events' is missing or not an array")
            events = []
        for index, obj in enumerate(events):
            if not isinstance(obj, dict):
                problems.add(path, None, f"HAIL JSON: events[{index}] is {type(obj).__name__}, not an object; skipped")
                continue
            builder.add_event(obj, index + 1)
        stats = doc.get("stats")
        if isinstance(stats, dict):
            builder.add_stats(stats, None)
        elif stats is not None:
            problems.add(path, None, "HAIL JSON: 'stats' is not an object; ignored")
        session = builder.finish()
        if session is not None:
            yield session


def _is_hail_record(obj: dict[str, Any]) -> bool:
    """A HAIL JSONL line: the header, or (header missing) an event with an adjacently tagged type."""
    if obj.get("type") == "header":
        return isinstance(obj.get("version"), str) and obj["version"].startswith("hail-")
    if obj.get("type") == "event":
        event_type = obj.get("event_type")
        return "event_id" in obj and isinstance(event_type, dict) and isinstance(event_type.get("type"), str)
    return False


def _is_hail_document(obj: dict[str, Any]) -> bool:
    version = obj.get("version")
    return isinstance(version, str) and version.startswith("hail-") and "session_id" in obj and "events" in obj


def _is_json_document(path: Path) -> bool:
    """HAIL JSON (one object) rather than JSONL: decided by the first line, then the suffix."""
    head = sniff(path, 16 * 1024).lstrip()
    first = head.split("\n", 1)[0].strip()
    try:
        obj = json.loads(first)
    except ValueError:
        return path.suffix.lower() == ".json" or (first == "{" and '"events"' in head)
    if isinstance(obj, dict):
        return "type" not in obj and "events" in obj
    return False


def _top_level_keys(text: str) -> dict[str, Any]:
    """Keys at depth 1 of a (possibly cut) JSON object, with string values where they are short."""
    keys: dict[str, Any] = {}
    depth = 0
    i = 0
    n = len(text)
    pending_key: str | None = None
    while i < n:
        ch = text[i]
        if ch == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            if end >= n:
                break
            if depth == 1:
                try:
                    value = json.loads(text[i : end + 1])
                except ValueError:
                    value = None
                rest = text[end + 1 : end + 64].lstrip()
                if pending_key is None and rest.startswith(":"):
                    pending_key = value if isinstance(value, str) else None
                    if pending_key is not None:
                        keys[pending_key] = None
                elif pending_key is not None:
                    keys[pending_key] = value
                    pending_key = None
            i = end + 1
            continue
        if ch in "{[":
            depth += 1
            if depth == 2:
                pending_key = None
        elif ch in "}]":
            depth -= 1
            if depth <= 0:
                break
        elif ch == "," and depth == 1:
            pending_key = None
        i += 1
    return keys


def _file_stem(path: Path) -> str:
    name = path.name
    for suffix in (".hail.jsonl", ".hail.json", ".jsonl", ".json"):
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return path.stem or name


def _project(cwd: str) -> str | None:
    parts = [p for p in re.split(r"[\\/]+", cwd) if p]
    return parts[-1] if parts else None


def _looks_like_patch(text: str) -> bool:
    return bool(_PATCH_START.search(text)) and (
        "\n@@" in text or text.lstrip().startswith("*** Begin Patch") or "\n+" in text
    )


class _Builder:
    """Accumulates one HAIL session, record by record, and assembles the Session."""

    def __init__(self, path: Path, problems: Problems, json_mode: bool) -> None:
        self.path = path
        self.problems = problems
        self.json_mode = json_mode
        self.header: dict[str, Any] | None = None
        self.header_model: str | None = None
        self.stats: dict[str, Any] | None = None
        self.records: list[tuple[Event, str | None, str]] = []  # (event, task_id, HAIL type)
        self.ids: set[str] = set()
        self.call_ids: dict[str, str] = {}  # raw event_id of a call -> its final id
        self.semantic_calls: dict[str, str] = {}  # semantic.call_id / tool_use_id of a call -> its final id
        self.models: list[str] = []
        self.last_totals: tuple[Any, Any] | None = None
        self.has_event_usage = False
        self.seen_event = False

    # -- problems -----------------------------------------------------------

    def report(self, line: int | None, message: str) -> None:
        if self.json_mode:
            where = f"events[{line - 1}]: " if line else ""
            self.problems.add(self.path, None, f"HAIL JSON: {where}{message}")
        else:
            self.problems.add(self.path, line, f"HAIL: {message}")

    # -- records ------------------------------------------------------------

    def add_header(self, obj: dict[str, Any], line: int | None) -> None:
        if self.header is not None:
            self.report(line, "a second header line; kept as an unknown record")
            self.records.append(
                (
                    Event(
                        id=self.unique(f"line-{line}", line),
                        kind=Kind.UNKNOWN,
                        title="extra HAIL header",
                        raw=obj,
                        line=line,
                    ),
                    None,
                    "header",
                )
            )
            return
        if self.seen_event:
            self.report(line, "the header is not the first line")
        self.header = obj
        version = obj.get("version")
        if not isinstance(version, str) or not version.startswith("hail-"):
            self.report(line, f"header has no HAIL version (got {version!r})")
        elif not version.startswith("hail-1."):
            self.report(line, f"unsupported HAIL version {version!r} (read as 1.0)")
        agent = obj.get("agent")
        if isinstance(agent, dict):
            model = _str(agent.get("model"))
            if model and model != "unknown":
                self.header_model = model
                self.add_model(model)
        elif agent is not None:
            self.report(line, "header 'agent' is not an object")

    def add_stats(self, obj: dict[str, Any], line: int | None) -> None:
        if self.stats is not None:
            self.report(line, "a second stats line; the last one is kept")
        self.stats = {k: v for k, v in obj.items() if k != "type"}

    def add_unknown_line(self, obj: dict[str, Any], line: int) -> None:
        self.report(line, f"unknown line type {obj.get('type')!r}; shown as raw JSON")
        self.seen_event = True
        event = Event(
            id=self.unique(f"line-{line}", line),
            kind=Kind.UNKNOWN,
            title=f"HAIL record {obj.get('type')!r}",
            raw=obj,
            line=line,
        )
        self.records.append((event, None, "?"))

    def add_model(self, model: str) -> None:
        if model not in self.models:
            self.models.append(model)

    def unique(self, raw_id: str, line: int | None, report: bool = False) -> str:
        event_id = raw_id
        if event_id in self.ids:
            n = 2
            while f"{raw_id}-{n}" in self.ids:
                n += 1
            event_id = f"{raw_id}-{n}"
            if report:
                self.report(line, f"duplicate event_id {raw_id!r}; renamed to {event_id!r}")
        self.ids.add(event_id)
        return event_id

    def add_event(self, obj: dict[str, Any], line: int) -> None:
        self.seen_event = True
        try:
            event, task_id, hail_type = self._event(obj, line)
        except Exception as exc:  # a reader bug must not lose the record
            self.report(line, f"could not read event ({type(exc).__name__}: {exc}); shown as raw JSON")
            event = Event(
                id=self.unique(f"line-{line}", line),
                kind=Kind.UNKNOWN,
                title="unreadable HAIL event",
                raw=obj,
                line=line,
            )
            task_id, hail_type = None, "?"
        self.records.append((event, task_id, hail_type))

    def _event(self, obj: dict[str, Any], line: int) -> tuple[Event, str | None, str]:
        raw_id = obj.get("event_id")
        if isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)) or not str(raw_id).strip():
            self.report(line, f"event has no usable event_id ({raw_id!r})")
            raw_id = f"line-{line}"
        raw_id = str(raw_id)
        event_id = self.unique(raw_id, line, report=True)
        meta: dict[str, Any] = {}

        ts_raw = obj.get("timestamp")
        timestamp = parse_time(ts_raw) if isinstance(ts_raw, str) else None
        if ts_raw is None:
            self.report(line, f"event {raw_id!r} has no timestamp")
        elif timestamp is None:
            self.report(line, f"event {raw_id!r} has an invalid timestamp {ts_raw!r} (expected RFC 3339)")
            meta["timestamp"] = ts_raw

        attrs = obj.get("attributes")
        if attrs is None:
            attrs = {}
        elif not isinstance(attrs, dict):
            self.report(line, f"event {raw_id!r}: 'attributes' is not an object")
            meta["attributes"] = attrs
            attrs = {}
        task_id = obj.get("task_id")
        if task_id is not None and not isinstance(task_id, str):
            self.report(line, f"event {raw_id!r}: 'task_id' is not a string")
            task_id = as_text(task_id)
        task_id = task_id or None
        if task_id:
            meta["task_id"] = task_id
        if "duration_ms" in obj:
            meta["duration_ms"] = obj["duration_ms"]
        for key, value in obj.items():
            if key not in _EVENT_FIELDS:
                meta[key] = value

        event_type = obj.get("event_type")
        data: dict[str, Any] = {}
        if isinstance(event_type, dict) and isinstance(event_type.get("type"), str):
            hail_type = event_type["type"]
            raw_data = event_type.get("data")
            if isinstance(raw_data, dict):
                data = raw_data
            elif raw_data is not None:
                self.report(line, f"event {raw_id!r}: event_type.data is not an object")
                meta["event_type.data"] = raw_data
        elif isinstance(event_type, str):
            self.report(line, f'event {raw_id!r}: event_type is a bare string, expected {{"type": …}}')
            hail_type = event_type
        else:
            self.report(line, f"event {raw_id!r} has no event_type; shown as raw JSON")
            return (
                Event(
                    id=event_id,
                    kind=Kind.UNKNOWN,
                    timestamp=timestamp,
                    title="HAIL event without a type",
                    raw=obj,
                    line=line,
                    meta=meta,
                ),
                task_id,
                "?",
            )

        if hail_type not in KNOWN_EVENT_TYPES:
            self.report(line, f"unknown event type {hail_type!r}; shown as raw JSON")
            return (
                Event(
                    id=event_id,
                    kind=Kind.UNKNOWN,
                    timestamp=timestamp,
                    title=f"HAIL event {hail_type!r}",
                    raw=obj,
                    line=line,
                    meta=meta,
                ),
                task_id,
                hail_type,
            )

        content = obj.get("content")
        raw_blocks: Any = []
        if isinstance(content, dict):
            raw_blocks = content.get("blocks", [])
            for key, value in content.items():
                if key != "blocks":
                    meta[f"content.{key}"] = value
        elif content is not None:
            self.report(line, f"event {raw_id!r}: 'content' is not an object")
            raw_blocks = [{"type": "Text", "text": content}] if isinstance(content, str) else []
            if not isinstance(content, str):
                meta["content"] = content
        if not isinstance(raw_blocks, list):
            self.report(line, f"event {raw_id!r}: content.blocks is not an array")
            meta["content.blocks"] = raw_blocks
            raw_blocks = []
        parts = self._blocks(raw_blocks, raw_id, line)

        model = _str(attrs.get("model"))
        if model:
            self.add_model(model)
        usage = self._usage(attrs, meta, raw_id, line)
        meta.update({k: v for k, v in attrs.items() if not (k == "model" and model) and k not in _USAGE_ATTRS})

        fields: dict[str, Any] = dict(id=event_id, timestamp=timestamp, line=line, model=model, usage=usage, meta=meta)
        fields.update(self._typed_fields(hail_type, data, parts, attrs, meta, raw_id, event_id, line))
        if fields.get("kind") == Kind.ASSISTANT and not fields.get("model"):
            fields["model"] = self.header_model
        event = Event(**fields)
        if event.kind == Kind.TOOL_CALL:
            self.call_ids[raw_id] = event_id
            for key in _CALL_ID_ATTRS:
                if isinstance(attrs.get(key), str):
                    self.semantic_calls[attrs[key]] = event_id
        return event, task_id, hail_type

    # -- event type mapping ---------------------------------------------------

    def _typed_fields(
        self,
        hail_type: str,
        data: dict[str, Any],
        parts: list[Block],
        attrs: dict[str, Any],
        meta: dict[str, Any],
        raw_id: str,
        event_id: str,
        line: int,
    ) -> dict[str, Any]:
        def field(name: str) -> str | None:
            value = data.get(name)
            if value is None:
                return None
            if not isinstance(value, str):
                self.report(line, f"event {raw_id!r}: {hail_type}.{name} is not a string")
                return as_text(value)
            return value

        if hail_type in _MESSAGE_KINDS:
            text, blocks = _split(parts, "\n\n")
            return dict(kind=_MESSAGE_KINDS[hail_type], text=text, blocks=blocks)

        tool_name = _str(attrs.get("tool_use_name")) or hail_type
        call = dict(kind=Kind.TOOL_CALL, call_id=event_id, tool_name=tool_name)

        if hail_type == "ToolCall":
            name = field("name") or "tool"
            call["tool_name"] = name
            call["category"] = _category(name, attrs.get("semantic.tool_kind"))
            jsons = [b for b in parts if b.type == "json" and b.title is None]
            if len(jsons) == 1:
                call["tool_input"] = jsons[0].data
                parts = [b for b in parts if b is not jsons[0]]
            text, blocks = _split(parts, "\n\n")
            call.update(text=text, blocks=blocks)
            tool_input = call.get("tool_input")
            if isinstance(tool_input, dict):
                command = tool_input.get("command", tool_input.get("cmd"))
                if call["category"] == ToolCategory.SHELL and command:
                    call["command"] = " ".join(map(str, command)) if isinstance(command, list) else as_text(command)
                file_path = tool_input.get("file_path", tool_input.get("path"))
                if call["category"] in (ToolCategory.EDIT, ToolCategory.READ) and isinstance(file_path, str):
                    call["path"] = file_path
            return call

        if hail_type == "ShellCommand":
            command = field("command") or ""
            exit_code = data.get("exit_code")
            if exit_code is not None and (isinstance(exit_code, bool) or not isinstance(exit_code, int)):
                self.report(line, f"event {raw_id!r}: ShellCommand.exit_code is not an integer")
                meta["exit_code"] = exit_code
                exit_code = None
            text, blocks = _split(_drop_echo(parts, command), "\n\n")
            call.update(category=ToolCategory.SHELL, command=command, exit_code=exit_code, text=text, blocks=blocks)
            return call

        if hail_type in _FILE_OPS:
            file_path = field("path") or ""
            parts = _drop_echo(parts, file_path)
            diff = field("diff") if hail_type == "FileEdit" else None
            if hail_type == "FileEdit" and diff is None:
                # Codex-derived edits carry the apply_patch text as a Text block.
                for part in parts:
                    if part.type == "text" and _looks_like_patch(part.text):
                        diff = part.text
                        parts = [p for p in parts if p is not part]
                        break
            text, blocks = _split(parts, "\n\n")
            if hail_type in ("FileCreate", "FileDelete"):
                meta["op"] = "create" if hail_type == "FileCreate" else "delete"
            call.update(category=_FILE_OPS[hail_type], path=file_path or None, diff=diff, text=text, blocks=blocks)
            return call

        if hail_type in _QUERY_OPS:
            category, key = _QUERY_OPS[hail_type]
            value = field(key) or ""
            text, blocks = _split(_drop_echo(parts, value), "\n\n")
            call.update(category=category, tool_input={key: value}, text=text, blocks=blocks)
            return call

        if hail_type == "ToolResult":
            text, blocks = _split(parts, "\n")
            is_error = data.get("is_error", False)
            if not isinstance(is_error, bool):
                self.report(line, f"event {raw_id!r}: ToolResult.is_error is not a boolean")
                is_error = bool(is_error)
            raw_call = data.get("call_id")
            if raw_call is not None and not isinstance(raw_call, str):
                self.report(line, f"event {raw_id!r}: ToolResult.call_id is not a string")
                raw_call = as_text(raw_call)
            call_id = self.call_ids.get(raw_call) if raw_call else None
            if call_id is None:
                for key in _CALL_ID_ATTRS:
                    if isinstance(attrs.get(key), str) and attrs[key] in self.semantic_calls:
                        call_id = self.semantic_calls[attrs[key]]
                        break
            match = _EXIT_CODE.search(text[:2000])
            return dict(
                kind=Kind.TOOL_RESULT,
                tool_name=field("name"),
                is_error=is_error,
                call_id=call_id or raw_call or None,
                exit_code=int(match.group(1)) if match else None,
                text=text,
                blocks=blocks,
            )

        if hail_type == "TaskStart":
            text, blocks = _split(parts, "\n\n")
            return dict(kind=Kind.TASK_START, title=field("title"), text=text, blocks=blocks)

        if hail_type == "TaskEnd":
            summary = field("summary") or ""
            text, blocks = _split(parts, "\n\n")
            if summary and text.strip() and text.strip() != summary.strip():
                text = f"{summary}\n\n{text}"
            elif summary:
                text = summary
            return dict(kind=Kind.TASK_END, text=text, blocks=blocks)

        # Custom{kind}
        kind = field("kind") or "custom"
        text, blocks = _split(parts, "\n\n")
        meta["custom.kind"] = kind
        return dict(kind=Kind.SYSTEM, title=f"custom: {kind}", text=text, blocks=blocks)

    # -- blocks and usage -------------------------------------------------------

    def _blocks(self, raw_blocks: list[Any], raw_id: str, line: int) -> list[Block]:
        """HAIL content blocks; Text comes back as Block("text") for the caller to fold into ``text``."""
        out: list[Block] = []
        for index, block in enumerate(raw_blocks):
            if not isinstance(block, dict):
                self.report(line, f"event {raw_id!r}: content block {index} is not an object; shown as JSON")
                out.append(Block("json", data=block, title="malformed block"))
                continue
            btype = block.get("type")

            def text_of(key: str, required: bool = False) -> str | None:
                value = block.get(key)
                if value is None:
                    if required:
                        self.report(line, f"event {raw_id!r}: {btype} block has no '{key}'")
                    return None
                if not isinstance(value, str):
                    self.report(line, f"event {raw_id!r}: {btype}.{key} is not a string")
                    return as_text(value)
                return value

            if btype == "Text":
                out.append(Block("text", text=text_of("text", True) or ""))
            elif btype == "Code":
                start = block.get("start_line")
                out.append(
                    Block(
                        "code",
                        text=text_of("code", True) or "",
                        language=text_of("language"),
                        data={"start_line": start} if start is not None else None,
                    )
                )
            elif btype in ("Image", "Video", "Audio"):
                out.append(Block(btype.lower(), uri=text_of("url", True), mime=text_of("mime"), title=text_of("alt")))
            elif btype == "File":
                file_path = text_of("path", True)
                out.append(Block("file", text=text_of("content") or "", uri=file_path, title=file_path))
            elif btype == "Json":
                out.append(Block("json", data=block.get("data")))
            elif btype == "Reference":
                out.append(Block("reference", uri=text_of("uri", True), mime=text_of("media_type")))
            else:
                self.report(line, f"event {raw_id!r}: unknown content block type {btype!r}; shown as JSON")
                out.append(Block("json", data=block, title=f"unknown block {btype!r}"))
        return out

    def _usage(self, attrs: dict[str, Any], meta: dict[str, Any], raw_id: str, line: int) -> Usage | None:
        counts: dict[str, int] = {}
        for key, target in _USAGE_ATTRS.items():
            if key not in attrs:
                continue
            value = attrs[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                self.report(line, f"event {raw_id!r}: attribute {key} is not a token count ({value!r})")
                meta[key] = value
                continue
            counts[target] = counts.get(target, 0) + value
        if not counts:
            return None
        totals = (attrs.get("input_tokens_total"), attrs.get("output_tokens_total"))
        if totals != (None, None):
            # Codex reports each turn's token_count more than once; the cumulative
            # totals only move when a new response was counted.
            if totals == self.last_totals:
                meta["usage"] = "repeated report, not counted again"
                meta.update({k: attrs[k] for k in _USAGE_ATTRS if k in attrs})
                return None
            self.last_totals = totals
        usage = Usage(**counts)
        if usage:
            self.has_event_usage = True
        return usage or None

    # -- the session ----------------------------------------------------------

    def finish(self) -> Session | None:
        header = self.header
        if header is None:
            if not self.records:
                self.report(None, "no HAIL header and no events")
                return None
            self.report(None, "no header line; session id taken from the file name")
            header = {}
        events = self._nest()

        sid = header.get("session_id")
        if not isinstance(sid, (str, int)) or isinstance(sid, bool) or not str(sid).strip():
            if self.header is not None:
                self.report(None, "header has no session_id; using the file name")
            sid = _file_stem(self.path)
        agent = header.get("agent") if isinstance(header.get("agent"), dict) else {}
        context = header.get("context")
        if context is not None and not isinstance(context, dict):
            self.report(None, "header 'context' is not an object")
            context = None
        context = context or {}
        attributes = context.get("attributes")
        if attributes is not None and not isinstance(attributes, dict):
            self.report(None, "context.attributes is not an object")
            attributes = None
        attributes = dict(attributes or {})

        meta: dict[str, Any] = {}
        if header.get("version"):
            meta["hail.version"] = header["version"]
        for key in ("provider", "tool_version"):
            if agent.get(key):
                meta[key] = agent[key]
        for key, value in agent.items():
            if key not in ("provider", "model", "tool", "tool_version"):
                meta[f"agent.{key}"] = value
        for key in ("description", "tags", "related_session_ids"):
            if context.get(key):
                meta[key] = context[key]
        for key, value in context.items():
            if key not in (
                "title",
                "description",
                "tags",
                "related_session_ids",
                "created_at",
                "updated_at",
                "attributes",
            ):
                meta[f"context.{key}"] = value
        for key, value in header.items():
            if key not in ("type", "version", "session_id", "agent", "context"):
                meta[f"hail.header.{key}"] = value

        cwd = attributes.pop("cwd", None)
        if cwd is not None and not isinstance(cwd, str):
            meta["cwd"] = cwd
            cwd = None
        git = self._git(attributes, meta)
        meta.update(attributes)
        if self.stats is not None:
            meta["hail.stats"] = self.stats

        stamps = [e.timestamp for e in _walk(events) if e.timestamp]
        started = parse_time(context.get("created_at"))
        ended = parse_time(context.get("updated_at"))
        for key in ("created_at", "updated_at"):
            if context.get(key) is not None and parse_time(context.get(key)) is None:
                self.report(None, f"context.{key} is not a valid timestamp: {context.get(key)!r}")

        usage = None
        if self.stats is not None and not self.has_event_usage:
            counts = [self.stats.get(k) for k in ("total_input_tokens", "total_output_tokens")]
            if all(isinstance(c, int) and not isinstance(c, bool) for c in counts) and any(counts):
                usage = Usage(input_tokens=counts[0], output_tokens=counts[1])

        title = context.get("title")
        tool = agent.get("tool")
        return Session(
            id=make_session_id("hail", str(sid)),
            source=SourceRef(str(self.path), "hail"),
            agent=tool if isinstance(tool, str) and tool else "hail",
            events=tuple(events),
            title=title if isinstance(title, str) and title.strip() else None,
            started=started or (min(stamps) if stamps else None),
            ended=ended or (max(stamps) if stamps else None),
            cwd=cwd or None,
            project=_project(cwd) if cwd else None,
            models=tuple(self.models),
            git=git,
            usage=usage,
            meta=meta,
        )

    def _git(self, attributes: dict[str, Any], meta: dict[str, Any]) -> GitRefs:
        branches: list[str] = []
        commits: list[str] = []
        repos: list[str] = []

        def add(bucket: list[str], value: Any) -> None:
            if isinstance(value, str) and value.strip() and value != "HEAD" and value not in bucket:
                bucket.append(value.strip())

        git = attributes.pop("git", None)
        if isinstance(git, dict):
            add(branches, git.get("branch"))
            add(commits, git.get("commit_hash") or git.get("commit"))
            add(repos, git.get("repository_url") or git.get("remote_url"))
            for key, value in git.items():
                if key not in ("branch", "commit_hash", "commit", "repository_url", "remote_url"):
                    meta[f"git.{key}"] = value
        elif git is not None:
            self.report(None, "context.attributes.git is not an object")
            meta["git"] = git
        branch = attributes.pop("git_branch", None)
        if isinstance(branch, str):
            add(branches, branch)
            if branch == "HEAD":
                meta["git_branch"] = branch  # a detached HEAD is a fact, not a branch
        elif branch is not None:
            meta["git_branch"] = branch
        return GitRefs(branches=tuple(branches), commits=tuple(commits), repos=tuple(repos))

    def _nest(self) -> list[Event]:
        """Fold merged sub-agents (events sharing a task_id besides its markers) into SUBAGENT events."""
        groups: dict[str, list[tuple[Event, str]]] = {}
        for event, task_id, hail_type in self.records:
            if task_id:
                groups.setdefault(task_id, []).append((event, hail_type))
        nested = {tid for tid, members in groups.items() if any(t not in ("TaskStart", "TaskEnd") for _, t in members)}
        out: list[Event] = []
        placed: set[str] = set()
        linked: set[str] = set()
        for event, task_id, _ in self.records:
            if task_id not in nested:
                out.append(event)
                continue
            if task_id in placed:
                continue
            placed.add(task_id)
            members = groups[task_id]
            children = tuple(e for e, _ in members)
            start = next((e for e, t in members if t == "TaskStart"), None)
            end = next((e for e, t in members if t == "TaskEnd"), None)
            meta: dict[str, Any] = {
                "task_id": task_id,
                "events": sum(1 for _, t in members if t not in ("TaskStart", "TaskEnd")),
            }
            if end is not None and end.text:
                meta["summary"] = end.text
            model = (start.model if start else None) or next((e.model for e in children if e.model), None)
            spawn = self._spawning_call(out, children, linked)
            if spawn is not None:
                linked.add(spawn)
            out.append(
                Event(
                    id=self.unique(f"subagent-{task_id}", None),
                    kind=Kind.SUBAGENT,
                    timestamp=children[0].timestamp,
                    title=(start.title if start else None) or task_id,
                    model=model,
                    call_id=spawn,
                    children=children,
                    line=children[0].line,
                    meta=meta,
                )
            )
        return out

    @staticmethod
    def _spawning_call(before: list[Event], children: tuple[Event, ...], linked: set[str]) -> str | None:
        """The Task/Agent call that spawned a merged sub-agent: the one whose text holds the
        sub-agent's first prompt, else the only unclaimed one before it. HAIL keeps no link."""
        candidates = [
            e
            for e in before
            if e.kind == Kind.TOOL_CALL and e.category == ToolCategory.TASK and e.call_id and e.call_id not in linked
        ]
        prompt = next((c.text.strip() for c in children if c.kind == Kind.USER and c.text.strip()), "")
        for call in reversed(candidates):
            if prompt and (prompt in call.text or prompt in as_text(call.tool_input)):
                return call.call_id
        return candidates[0].call_id if len(candidates) == 1 else None


def _split(parts: list[Block], sep: str) -> tuple[str, tuple[Block, ...]]:
    texts = [b.text for b in parts if b.type == "text"]
    return sep.join(t for t in texts if t), tuple(b for b in parts if b.type != "text")


def _drop_echo(parts: list[Block], value: str) -> list[Block]:
    """Drop Text/Code blocks that only repeat the event's subject (command, path, query)."""
    if not value:
        return parts
    value = value.strip()
    return [b for b in parts if not (b.type in ("text", "code") and b.text.strip() == value)]


def _category(name: str, tool_kind: Any) -> ToolCategory:
    by_name = _TOOL_NAMES.get(name.lower())
    if by_name is not None:
        return by_name
    if isinstance(tool_kind, str) and tool_kind in _TOOL_KIND:
        return _TOOL_KIND[tool_kind]
    return ToolCategory.OTHER


def _walk(events: list[Event] | tuple[Event, ...]) -> Iterator[Event]:
    for event in events:
        yield event
        yield from _walk(event.children)


READER = HailReader()
