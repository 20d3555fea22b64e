"""sage (Emacs, aygp-dr/sage.el): project folders and REPL session files.

* A project folder ``~/.emacs.d/sage/projects/<encoded-path>/`` holds
  ``conversation.jsonl`` (the current conversation, append-only),
  ``metadata.json`` (``project_dir`` …) and ``history/<YYYYMMDD-HHMMSS>.jsonl``
  (archived conversations). Each JSONL file is one session. A line is
  ``{uuid?, role, content, timestamp, session_id?, tool_calls?, tokens?}``;
  timestamps are ``%Y-%m-%dT%H:%M:%S%z`` (offset without a colon).
* A REPL session file ``~/.emacs.d/sage/sessions/<name>.json`` is
  ``{name, model, provider, messages:[{role, content, timestamp}], created_at,
  updated_at, message_count, total_tokens, workspace}``: one session.

A bare ``conversation.jsonl`` or ``history/*.jsonl`` outside a project folder
is read as one session too. The spec's validation rules (role is user,
assistant or system; content is a non-empty string) are reported as problems;
the line is kept when it can be.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from sitegen.model import Event, Kind, Problems, Session, SourceRef, ToolCategory, make_session_id
from sitegen.readers.base import SNIFF_BYTES, Reader, Sniff, as_text, iter_jsonl, load_json, parse_time, sniff

_ROLE_KIND = {"user": Kind.USER, "assistant": Kind.ASSISTANT, "system": Kind.SYSTEM}
_TITLE_LEN = 80
CONVERSATION = "conversation.jsonl"
METADATA = "metadata.json"
HISTORY = "history"
# Keys of a line read into event fields; the rest go to the event's meta.
_LINE_KEYS = {"uuid", "role", "content", "timestamp", "tool_calls", "model"}


class SageReader(Reader):
    name = "sage"
    claims_directories = True
    claims_files = True  # REPL session files and loose conversation files

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if path.is_dir():
            return _is_project_dir(path)
        suffix = path.suffix.lower()
        if suffix == ".json":
            return _is_session_file(sniffed.text())
        if suffix == ".jsonl" and (path.name == CONVERSATION or path.parent.name == HISTORY):
            return _looks_like_sage_lines(sniffed)
        return False

    def companions(self, path: Path) -> list[Path]:
        if not path.is_dir():
            return []
        found = [p for p in (path / CONVERSATION, path / METADATA) if p.is_file()]
        return found + _history_files(path)

    def read(self, path: Path, problems: Problems) -> Iterator[Session]:
        if path.is_dir():
            yield from _read_project(path, problems)
        elif path.suffix.lower() == ".json":
            session = _read_session_file(path, problems)
            if session is not None:
                yield session
        else:
            if path.parent.name == HISTORY:
                key, project_dir = f"{path.parent.parent.name}/history/{path.stem}", path.parent.parent
            else:
                key, project_dir = f"{path.parent.name}/{path.stem}", path.parent
            yield _read_conversation(path, key, problems, project_dir=project_dir, metadata=None)


READER = SageReader()


# ---------------------------------------------------------------------------
# detection


def _history_files(path: Path) -> list[Path]:
    history = path / HISTORY
    if not history.is_dir():
        return []
    try:
        return sorted(p for p in history.iterdir() if p.suffix == ".jsonl" and p.is_file())
    except OSError:
        return []


def _small_json(path: Path) -> Any:
    text = sniff(path)
    try:
        return json.loads(text)
    except ValueError:
        return None


def _is_project_dir(path: Path) -> bool:
    conversation = path / CONVERSATION
    metadata = path / METADATA
    has_conversation = conversation.is_file()
    if metadata.is_file():
        meta = _small_json(metadata)
        if isinstance(meta, dict) and "project_dir" in meta:
            # After a clear, only the metadata and the archives are left.
            return has_conversation or bool(_history_files(path))
    if has_conversation:
        return _looks_like_sage_lines(Sniff(conversation))
    return False


def _looks_sage_line(obj: dict[str, Any]) -> bool:
    # Claude Code, HAIL and Codex lines carry a "type"; Claude Code a "message".
    if any(key in obj for key in ("type", "message", "parentUuid", "sessionId", "payload")):
        return False
    return isinstance(obj.get("role"), str) and "content" in obj


def _looks_like_sage_lines(sniffed: Sniff) -> bool:
    lines = list(sniffed.json_lines(5))
    return bool(lines) and all(_looks_sage_line(obj) for obj in lines)


def _is_session_file(head: str) -> bool:
    if not head.lstrip().startswith("{"):
        return False
    if len(head) < SNIFF_BYTES:
        try:
            doc = json.loads(head)
        except ValueError:
            doc = None
        if isinstance(doc, dict):
            return _session_shaped(doc)
    # Too long to parse here: the top-level keys sage writes before "messages".
    before = head.split('"messages"', 1)[0] if '"messages"' in head else None
    if before is None or '"name"' not in before:
        return False
    if any(f'"{key}"' in before for key in ("sessionId", "projectHash", "composerId", "version")):
        return False
    return '"provider"' in before or '"workspace"' in before


def _session_shaped(doc: dict[str, Any]) -> bool:
    messages = doc.get("messages")
    if not isinstance(messages, list) or "name" not in doc:
        return False
    if "workspace" not in doc and "provider" not in doc:
        return False
    return all(isinstance(m, dict) and "role" in m for m in messages[:5])


# ---------------------------------------------------------------------------
# project folders


def _read_project(path: Path, problems: Problems) -> Iterator[Session]:
    metadata: dict[str, Any] | None = None
    meta_path = path / METADATA
    if meta_path.is_file():
        doc = load_json(meta_path, problems)
        if isinstance(doc, dict):
            metadata = doc
            value = doc.get("project_dir")
            if value is not None and not (isinstance(value, str) and value.strip()):
                problems.add(
                    meta_path,
                    None,
                    f"sage: project_dir is {'empty' if value == '' else 'a ' + type(value).__name__}, not a path; the folder name is used",
                )
        elif doc is not None:
            problems.add(meta_path, None, f"sage: metadata.json is a {type(doc).__name__}, not an object; ignored")
    conversation = path / CONVERSATION
    if conversation.is_file():
        yield _read_conversation(
            conversation, f"{path.name}/conversation", problems, project_dir=path, metadata=metadata
        )
    for archive in _history_files(path):
        yield _read_conversation(
            archive,
            f"{path.name}/history/{archive.stem}",
            problems,
            project_dir=path,
            metadata=metadata,
            archived=archive.stem,
        )


def _decode_folder(name: str) -> str | None:
    """The project path from an encoded folder name: lossy (a '-' may have been a '/', a '.' or a '-')."""
    if not name.startswith("-"):
        return None
    decoded = name.replace("-", "/").rstrip("/")
    return decoded or "/"


def _clean_dir(value: str) -> str:
    return (value.rstrip("/") or "/") if value.strip() else value


def _project_name(cwd: str | None) -> str | None:
    if not cwd:
        return None
    name = PurePosixPath(cwd.replace("\\", "/")).name
    return name or cwd


def _archive_time(stem: str) -> str | None:
    match = re.fullmatch(r"(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})", stem)
    if not match:
        return None
    y, mo, d, h, mi, s = match.groups()
    return f"{y}-{mo}-{d} {h}:{mi}:{s}"


def _read_conversation(
    path: Path,
    key: str,
    problems: Problems,
    *,
    project_dir: Path,
    metadata: dict[str, Any] | None,
    archived: str | None = None,
) -> Session:
    cwd: str | None = None
    meta: dict[str, Any] = {}
    if metadata is not None:
        value = metadata.get("project_dir")
        if isinstance(value, str) and value.strip():
            cwd = _clean_dir(value)
        if archived is None:
            for field in ("message_count", "total_size", "created_at", "updated_at"):
                if metadata.get(field) is not None:
                    meta[f"project {field.replace('_', ' ')}"] = metadata[field]
    if cwd is None:
        cwd = _decode_folder(project_dir.name)
        if cwd is not None:
            meta["cwd source"] = "decoded from the folder name (lossy)"
    if archived is not None:
        meta["archived"] = _archive_time(archived) or archived

    events, models, first_user, session_ids = _line_events(path, problems)
    if session_ids:
        meta["session_id"] = session_ids[0] if len(session_ids) == 1 else session_ids
    timestamps = [e.timestamp for e in events if e.timestamp]
    started = min(timestamps) if timestamps else None
    ended = max(timestamps) if timestamps else None
    if archived is None and metadata is not None and not timestamps:
        started = parse_time(metadata.get("created_at"))
        ended = parse_time(metadata.get("updated_at"))
    return Session(
        id=make_session_id("sage", key),
        source=SourceRef(str(path), "sage"),
        agent="sage",
        events=tuple(events),
        title=_title_from(first_user),
        started=started,
        ended=ended,
        cwd=cwd,
        project=_project_name(cwd),
        models=tuple(models),
        meta=meta,
    )


def _line_events(path: Path, problems: Problems) -> tuple[list[Event], list[str], str | None, list[str]]:
    events: list[Event] = []
    models: list[str] = []
    session_ids: list[str] = []
    seen: set[str] = set()
    first_user: str | None = None
    for lineno, obj in iter_jsonl(path, problems):
        for event in _message_events(obj, lineno, path, problems, seen, where=f"line {lineno}"):
            events.append(event)
            if first_user is None and event.kind == Kind.USER and event.text.strip():
                first_user = event.text
            if event.model and event.model not in models:
                models.append(event.model)
        sid = obj.get("session_id")
        if isinstance(sid, str) and sid and sid not in session_ids:
            session_ids.append(sid)
    return events, models, first_user, session_ids


def _unique(eid: str, seen: set[str]) -> str:
    base, n = eid, 1
    while eid in seen:
        n += 1
        eid = f"{base}~{n}"
    seen.add(eid)
    return eid


def _message_events(
    obj: dict[str, Any],
    line: int | None,
    path: Path,
    problems: Problems,
    seen: set[str],
    *,
    where: str,
    default_model: str | None = None,
) -> Iterator[Event]:
    """One sage message (a JSONL line or a session-file message) as events."""
    uuid = obj.get("uuid")
    eid = _unique(uuid if isinstance(uuid, str) and uuid else f"L{line}" if line else f"m{len(seen) + 1}", seen)
    role = obj.get("role")
    ts = parse_time(obj.get("timestamp"))
    if obj.get("timestamp") is not None and ts is None:
        problems.add(path, line, f"sage: {where}: timestamp is not ISO 8601: {obj.get('timestamp')!r}")
    content = obj.get("content")
    if not isinstance(content, str):
        problems.add(
            path,
            line,
            f"sage: {where}: content is {'missing' if content is None else 'a ' + type(content).__name__}, not a string",
        )
        content = as_text(content)
    elif not content.strip() and not obj.get("tool_calls"):
        problems.add(path, line, f"sage: {where}: content is empty")
    model = obj.get("model") if isinstance(obj.get("model"), str) and obj.get("model") else default_model

    meta: dict[str, Any] = {}
    tokens = obj.get("tokens")
    if isinstance(tokens, dict) and tokens.get("estimated") is not None:
        meta["estimated tokens"] = tokens["estimated"]
        tokens = {k: v for k, v in tokens.items() if k != "estimated"}
    if tokens not in (None, {}, ""):
        meta["tokens"] = tokens
    for key, value in obj.items():
        if key not in _LINE_KEYS and key not in ("tokens", "session_id") and value not in (None, "", [], {}):
            meta[key] = value

    kind = _ROLE_KIND.get(role) if isinstance(role, str) else None
    if kind is None:
        problems.add(
            path, line, f"sage: {where}: invalid role {role!r} (expected user, assistant or system); shown as raw JSON"
        )
        yield Event(
            id=eid, kind=Kind.UNKNOWN, timestamp=ts, title=f"sage message with role {role!r}", raw=obj, line=line
        )
        return

    tool_calls = obj.get("tool_calls")
    if tool_calls is not None and not isinstance(tool_calls, list):
        problems.add(
            path, line, f"sage: {where}: tool_calls is a {type(tool_calls).__name__}, not an array; shown as raw JSON"
        )
        meta["tool_calls"] = tool_calls
        tool_calls = None

    if content.strip() or not tool_calls:
        yield Event(
            id=eid,
            kind=kind,
            timestamp=ts,
            text=content,
            model=model if kind == Kind.ASSISTANT else None,
            line=line,
            meta=meta,
        )
        meta = {}
    for index, call in enumerate(tool_calls or []):
        yield from _tool_events(call, index, eid, ts, line, path, problems, seen, where, meta if index == 0 else {})


def _tool_events(
    call: Any,
    index: int,
    eid: str,
    ts: Any,
    line: int | None,
    path: Path,
    problems: Problems,
    seen: set[str],
    where: str,
    meta: dict[str, Any],
) -> Iterator[Event]:
    call_id = _unique(f"{eid}-tool{index + 1}", seen)
    if not isinstance(call, dict):
        problems.add(
            path,
            line,
            f"sage: {where}: tool_calls[{index}] is a {type(call).__name__}, not an object; shown as raw JSON",
        )
        yield Event(id=call_id, kind=Kind.UNKNOWN, timestamp=ts, title="sage tool call", raw=call, line=line)
        return
    name = call.get("name")
    name = name if isinstance(name, str) and name else "tool"
    args = call.get("args", call.get("arguments"))
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            pass
    category = _category(name)
    command = _arg(args, "command", "cmd") if category == ToolCategory.SHELL else None
    file_path = _arg(args, "path", "file", "file_path", "filename")
    diff = _edit_diff(args, file_path) if category == ToolCategory.EDIT else None
    call_meta = dict(meta)
    if call.get("duration_ms") is not None:
        call_meta["duration_ms"] = call["duration_ms"]
    for key, value in call.items():
        if key not in ("name", "args", "arguments", "result", "duration_ms", "success") and value not in (
            None,
            "",
            [],
            {},
        ):
            call_meta[key] = value
    yield Event(
        id=call_id,
        kind=Kind.TOOL_CALL,
        timestamp=ts,
        tool_name=name,
        tool_input=args,
        category=category,
        command=command,
        path=file_path,
        diff=diff,
        call_id=call_id,
        line=line,
        meta=call_meta,
    )
    success = call.get("success")
    if "result" in call or success is not None:
        result_meta = {"success": success} if success is not None and not isinstance(success, bool) else {}
        yield Event(
            id=_unique(f"{call_id}-result", seen),
            kind=Kind.TOOL_RESULT,
            timestamp=ts,
            text=as_text(call.get("result")),
            tool_name=name,
            call_id=call_id,
            is_error=success is False or success in ("false", "nil", 0),
            line=line,
            meta=result_meta,
        )


def _arg(args: Any, *names: str) -> str | None:
    if isinstance(args, dict):
        for name in names:
            value = args.get(name)
            if isinstance(value, str) and value:
                return value
    return None


# sage-tools.el names: read_file, write_file, edit_file, list_files, code_search,
# glob_files, search_preview, find_definition, describe_*, git_*, web_fetch, …
def _edit_diff(args: Any, path: str | None) -> str | None:
    """A unified diff for an edit_file call's old_text/new_text."""
    if not isinstance(args, dict):
        return None
    for old_key, new_key in (("old_text", "new_text"), ("old_string", "new_string"), ("old", "new")):
        old, new = args.get(old_key), args.get(new_key)
        if isinstance(old, str) and isinstance(new, str):
            name = path or "file"
            lines = difflib.unified_diff(
                old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{name}", f"b/{name}"
            )
            return "".join(line if line.endswith("\n") else line + "\n" for line in lines) or None
    return None


_CATEGORIES = (
    (ToolCategory.WEB, ("web", "fetch", "url", "http")),
    (ToolCategory.SHELL, ("shell", "bash", "command", "exec", "terminal")),
    (ToolCategory.EDIT, ("write", "edit", "replace", "create_file", "delete", "patch", "rename")),
    (ToolCategory.READ, ("read", "describe", "blame", "view")),
    (ToolCategory.SEARCH, ("search", "grep", "find", "glob", "list_files")),
)


def _category(name: str) -> ToolCategory:
    lowered = name.lower().replace("-", "_")
    for category, words in _CATEGORIES:
        if any(word in lowered for word in words):
            return category
    return ToolCategory.OTHER


def _title_from(text: str | None) -> str | None:
    if not text:
        return None
    line = " ".join(text.split())
    return line if len(line) <= _TITLE_LEN else line[: _TITLE_LEN - 1].rstrip() + "…"


# ---------------------------------------------------------------------------
# REPL session files


def _read_session_file(path: Path, problems: Problems) -> Session | None:
    doc = load_json(path, problems)
    if doc is None:
        return None
    if not isinstance(doc, dict):
        problems.add(path, None, f"sage: session file is a {type(doc).__name__}, not an object")
        return None
    name = doc.get("name")
    if name is not None and not isinstance(name, str):
        problems.add(path, None, f"sage: 'name' is a {type(name).__name__}, not a string; ignored")
        name = None
    model = doc.get("model") if isinstance(doc.get("model"), str) and doc.get("model") else None
    messages = doc.get("messages")
    if not isinstance(messages, list):
        problems.add(
            path,
            None,
            f"sage: 'messages' is {'missing' if messages is None else 'a ' + type(messages).__name__}, not an array",
        )
        messages = []
    for key in ("created_at", "updated_at"):
        if doc.get(key) is not None and parse_time(doc.get(key)) is None:
            problems.add(path, None, f"sage: {key} is not ISO 8601: {doc.get(key)!r}")

    events: list[Event] = []
    seen: set[str] = set()
    first_user: str | None = None
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        if not isinstance(message, dict):
            problems.add(path, None, f"sage: {where} is a {type(message).__name__}, not an object; shown as raw JSON")
            events.append(
                Event(id=_unique(f"m{index + 1}", seen), kind=Kind.UNKNOWN, title="sage message", raw=message)
            )
            continue
        for event in _message_events(
            {"uuid": f"m{index + 1}", **message}, None, path, problems, seen, where=where, default_model=model
        ):
            events.append(event)
            if first_user is None and event.kind == Kind.USER and event.text.strip():
                first_user = event.text

    workspace = doc.get("workspace")
    cwd = _clean_dir(workspace) if isinstance(workspace, str) and workspace.strip() else None
    meta: dict[str, Any] = {}
    for key, label in (
        ("provider", "provider"),
        ("message_count", "message count"),
        ("total_tokens", "estimated tokens"),
    ):
        if doc.get(key) not in (None, ""):
            meta[label] = doc[key]
    if isinstance(doc.get("message_count"), int) and doc["message_count"] != len(messages):
        meta["message count"] = f"{doc['message_count']} (file holds {len(messages)})"
    for key, value in doc.items():
        if key not in (
            "name",
            "model",
            "provider",
            "messages",
            "created_at",
            "updated_at",
            "message_count",
            "total_tokens",
            "workspace",
        ) and value not in (None, "", [], {}):
            meta[key] = value
    timestamps = [e.timestamp for e in events if e.timestamp]
    title = name.strip() if name and name.strip() else _title_from(first_user)
    return Session(
        id=make_session_id("sage", f"session/{path.stem}"),
        source=SourceRef(str(path), "sage"),
        agent="sage",
        events=tuple(events),
        title=title,
        started=parse_time(doc.get("created_at")) or (min(timestamps) if timestamps else None),
        ended=parse_time(doc.get("updated_at")) or (max(timestamps) if timestamps else None),
        cwd=cwd,
        project=_project_name(cwd),
        models=(model,) if model else (),
        meta=meta,
    )
