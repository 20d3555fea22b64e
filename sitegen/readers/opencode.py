"""OpenCode (sst/opencode): the JSON storage tree, the SQLite database, and exports.

Three layouts hold the same records:

* the storage tree ``~/.local/share/opencode/storage/`` (up to v1.1):
  ``session/<projectID>/<sessionID>.json`` (session info),
  ``message/<sessionID>/<messageID>.json`` and ``part/<messageID>/<partID>.json``.
  The folder is claimed as a whole; every file under it is a companion.
* ``opencode.db`` (v1.2+): tables ``session`` (columns), ``message`` and
  ``part`` (a JSON ``data`` column each). Opened read-only and immutable, so a
  running OpenCode is neither touched nor blocked.
* ``opencode export <id>`` JSON: ``{info, messages:[{info, parts}]}``.

A message is ``{id, sessionID, role, time:{created, completed?}, …}``; an
assistant message adds ``modelID, providerID, mode, path:{cwd, root}, cost,
tokens:{input, output, reasoning, cache:{read, write}}, finish, error?``. Its
parts become events: ``text`` (user/assistant), ``reasoning`` (thinking),
``tool`` (a call plus its result from ``state``), ``step-finish`` (the usage of
one model call, attached once), ``patch``, ``file``, ``compaction``,
``subtask``, ``agent``, ``retry``; ``step-start`` and ``snapshot`` are counted
only. Anything else is kept as an UNKNOWN event.

A session whose ``parentID`` names a session that is present (a sub-agent the
``task`` tool started) is nested in its parent as a SUBAGENT event, under the
task call that started it when the call names it (``state.metadata.sessionId``).
A session whose parent is absent is a session of its own.

When a storage tree sits next to an ``opencode.db`` that already holds a
session (OpenCode migrates the tree into the database and keeps the folder),
the database copy is the one read.
"""

from __future__ import annotations

import json
import sqlite3
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sitegen.model import Block, Event, Kind, Problems, Session, SourceRef, ToolCategory, Usage, make_session_id
from sitegen.readers._util import (
    Ids,
    as_str,
    connect_ro,
    is_sqlite,
    iter_rows,
    maybe_json,
    obj,
    opt_int,
    project_of,
    shorten,
    table_names,
    text_of,
    to_int,
    unified_diff,
    wal_note,
)
from sitegen.readers.base import Reader, Sniff, as_text, load_json, parse_time, sniff

NAME = "opencode"
AGENT = "opencode"
DB_NAME = "opencode.db"
_TREE = ("session", "message", "part")

_CATEGORY = {
    "bash": ToolCategory.SHELL,
    "shell": ToolCategory.SHELL,
    "edit": ToolCategory.EDIT,
    "multiedit": ToolCategory.EDIT,
    "write": ToolCategory.EDIT,
    "patch": ToolCategory.EDIT,
    "apply_patch": ToolCategory.EDIT,
    "read": ToolCategory.READ,
    "glob": ToolCategory.SEARCH,
    "grep": ToolCategory.SEARCH,
    "list": ToolCategory.SEARCH,
    "ls": ToolCategory.SEARCH,
    "codesearch": ToolCategory.SEARCH,
    "lsp_diagnostics": ToolCategory.SEARCH,
    "lsp_hover": ToolCategory.SEARCH,
    "webfetch": ToolCategory.WEB,
    "websearch": ToolCategory.WEB,
    "task": ToolCategory.TASK,
}
_SKIP_PARTS = {
    "step-start": "step-start part (model call boundary)",
    "snapshot": "snapshot part (workspace snapshot hash)",
}


class OpenCodeReader(Reader):
    name = NAME
    claims_directories = True
    claims_files = True  # opencode.db and export files

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if path.is_dir():
            return _is_tree(path)
        if path.name == DB_NAME or path.suffix.lower() in (".db", ".sqlite", ".sqlite3"):
            return _is_db(path)
        if path.suffix.lower() == ".json":
            return _is_export(sniffed.text(4096))
        return False

    def companions(self, path: Path) -> list[Path]:
        if path.is_dir():
            try:
                return sorted(p for p in path.rglob("*") if p.is_file())
            except OSError:
                return []
        if _is_db_name(path):
            return [p for p in (path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal")) if p.is_file()]
        return []

    def read(self, path: Path, problems: Problems) -> Iterator[Session]:
        if path.is_dir():
            source: _Source = _TreeSource(path, problems)
        elif path.suffix.lower() == ".json":
            source = _ExportSource(path, problems)
        else:
            try:
                source = _DbSource(path, problems)
            except sqlite3.Error as exc:
                problems.add(path, None, f"opencode: cannot open the database ({exc})")
                return
        try:
            yield from _sessions(source, problems)
        except sqlite3.Error as exc:
            problems.add(path, None, f"opencode: database read failed ({exc}); the rest is skipped")
        finally:
            source.close()


READER = OpenCodeReader()


# --------------------------------------------------------------------------- detection


def _is_tree(path: Path) -> bool:
    """A folder holding session/ and message/ (and usually part/) with session JSON in it."""
    if not ((path / "session").is_dir() and (path / "message").is_dir()):
        return False
    if path.name == "storage" and path.parent.name == "opencode":
        return True
    try:
        for child in (path / "session").rglob("*.json"):
            head = sniff(child, 4096)
            return '"id"' in head and any(key in head for key in ('"projectID"', '"directory"', '"slug"', '"ses_'))
    except OSError:
        return False
    return False


def _is_db_name(path: Path) -> bool:
    return path.name == DB_NAME or path.suffix.lower() in (".db", ".sqlite", ".sqlite3")


def _is_db(path: Path) -> bool:
    tables = table_names(path)
    return all(t in tables for t in _TREE)


def _is_export(head: str) -> bool:
    compact = "".join(head.split())
    if not compact.startswith('{"info":{'):
        return False
    return '"messages":' in head or ('"id":"ses_' in compact and ('"projectID"' in head or '"directory"' in head))


# --------------------------------------------------------------------------- sources


@dataclass
class _Where:
    """Where a record came from, for problems: a file (and line) or a database key."""

    path: Path
    key: str | None = None

    def tell(self, problems: Problems, message: str) -> None:
        problems.add(self.path, None, f"opencode: {self.key}: {message}" if self.key else f"opencode: {message}")


@dataclass
class _Info:
    data: dict[str, Any]
    where: _Where
    source_path: Path  # what the session page names as its source

    @property
    def id(self) -> str:
        return str(self.data.get("id"))

    @property
    def parent(self) -> str | None:
        value = self.data.get("parentID")
        return str(value) if isinstance(value, (str, int)) and value != "" else None


class _Source:
    path: Path

    def infos(self) -> list[_Info]:
        raise NotImplementedError

    def messages(self, session_id: str) -> list[tuple[dict[str, Any], _Where]]:
        raise NotImplementedError

    def parts(self, session_id: str, message_id: str) -> list[tuple[dict[str, Any], _Where]]:
        raise NotImplementedError

    def close(self) -> None:
        pass


def _load_object(path: Path, problems: Problems, what: str) -> dict[str, Any] | None:
    doc = load_json(path, problems)
    if doc is None:
        return None
    if not isinstance(doc, dict):
        problems.add(path, None, f"opencode: {what} is a {type(doc).__name__}, not an object; skipped")
        return None
    return doc


def _sorted_files(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.suffix == ".json" and p.is_file())
    except OSError:
        return []


def _message_order(item: tuple[dict[str, Any], _Where]) -> tuple[float, str]:
    message = item[0]
    created = parse_time(obj(message.get("time")).get("created"))
    return (created.timestamp() if created else float("inf"), str(message.get("id") or ""))


class _TreeSource(_Source):
    def __init__(self, path: Path, problems: Problems) -> None:
        self.path = path
        self.problems = problems

    def infos(self) -> list[_Info]:
        infos: list[_Info] = []
        seen: set[str] = set()
        try:
            files = sorted((self.path / "session").rglob("*.json"))
        except OSError as exc:
            self.problems.add(self.path / "session", None, f"opencode: cannot list sessions ({exc})")
            files = []
        for file in files:
            data = _load_object(file, self.problems, "session info")
            if data is None:
                continue
            if not text_of(data.get("id")):
                data = {**data, "id": file.stem}
            seen.add(str(data["id"]))
            infos.append(_Info(data, _Where(file), file))
        # Message folders whose session file is missing: keep them as sessions of their own.
        for folder in sorted(p for p in _iterdir(self.path / "message") if p.is_dir()):
            if folder.name not in seen:
                self.problems.add(folder, None, "opencode: no session file for these messages; read without one")
                infos.append(_Info({"id": folder.name}, _Where(folder), folder))
        return infos

    def messages(self, session_id: str) -> list[tuple[dict[str, Any], _Where]]:
        out = []
        for file in _sorted_files(self.path / "message" / session_id):
            data = _load_object(file, self.problems, "message")
            if data is None:
                continue
            if not text_of(data.get("id")):
                data = {**data, "id": file.stem}
            out.append((data, _Where(file)))
        return sorted(out, key=_message_order)

    def parts(self, session_id: str, message_id: str) -> list[tuple[dict[str, Any], _Where]]:
        out = []
        for file in _sorted_files(self.path / "part" / message_id):
            data = _load_object(file, self.problems, "part")
            if data is not None:
                out.append((data, _Where(file)))
        return out


def _iterdir(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []


class _DbSource(_Source):
    def __init__(self, path: Path, problems: Problems) -> None:
        self.path = path
        self.problems = problems
        if not is_sqlite(path):
            raise sqlite3.DatabaseError("not a SQLite database")
        self.conn = connect_ro(path)
        self.columns = {t: self._columns(t) for t in _TREE}
        note = wal_note(path)
        if note:
            problems.add(path, None, f"opencode: {note}")

    def _columns(self, table: str) -> set[str]:
        return {as_str(row[1]) for row in self.conn.execute(f'PRAGMA table_info("{table}")')}

    def close(self) -> None:
        self.conn.close()

    def _json(self, raw: Any, where: _Where) -> dict[str, Any]:
        if raw is None:
            return {}
        text = as_str(raw)
        try:
            value = json.loads(text)
        except ValueError as exc:
            where.tell(self.problems, f"data is not JSON ({exc}); kept as raw")
            return {"type": "__undecodable__", "raw": text}
        if not isinstance(value, dict):
            where.tell(self.problems, f"data is a {type(value).__name__}, not an object; kept as raw")
            return {"type": "__undecodable__", "raw": value}
        return value

    def infos(self) -> list[_Info]:
        infos = []
        order = "time_created, id" if "time_created" in self.columns["session"] else "id"
        for row in iter_rows(self.conn, f"SELECT * FROM session ORDER BY {order}"):
            sid = as_str(row.get("id"))
            where = _Where(self.path, f"session {sid}")
            data = self._json(row["data"], where) if "data" in row else {}
            info = _session_row(row)
            info.update({k: v for k, v in data.items() if v is not None})
            info.setdefault("id", sid)
            infos.append(_Info(info, where, self.path))
        return infos

    def messages(self, session_id: str) -> list[tuple[dict[str, Any], _Where]]:
        cols = self.columns["message"]
        order = "time_created, id" if "time_created" in cols else "id"
        out = []
        for row in iter_rows(self.conn, f"SELECT * FROM message WHERE session_id = ? ORDER BY {order}", (session_id,)):
            mid = as_str(row.get("id"))
            where = _Where(self.path, f"message {mid}")
            data = self._json(row.get("data"), where)
            data.setdefault("id", mid)
            data.setdefault("sessionID", session_id)
            if "time_created" in row and not obj(data.get("time")).get("created"):
                data["time"] = {**obj(data.get("time")), "created": _cell(row["time_created"])}
            out.append((data, where))
        return out

    def parts(self, session_id: str, message_id: str) -> list[tuple[dict[str, Any], _Where]]:
        out = []
        for row in iter_rows(self.conn, "SELECT * FROM part WHERE message_id = ? ORDER BY id", (message_id,)):
            pid = as_str(row.get("id"))
            where = _Where(self.path, f"part {pid}")
            data = self._json(row.get("data"), where)
            data.setdefault("id", pid)
            data.setdefault("messageID", message_id)
            if (
                "time" not in data
                and data.get("type") in ("text", "reasoning", "file")
                and row.get("time_created") is not None
            ):
                data["time"] = {"start": _cell(row["time_created"])}
            out.append((data, where))
        return out

    def session_ids(self) -> set[str]:
        return {as_str(row[0]) for row in self.conn.execute("SELECT id FROM session")}


def _cell(value: Any) -> Any:
    return as_str(value) if isinstance(value, (bytes, bytearray)) else value


def _session_row(row: dict[str, Any]) -> dict[str, Any]:
    """The columns of a ``session`` row in the shape of a storage-tree session file."""
    value = {k: _cell(v) for k, v in row.items() if k != "data"}
    info: dict[str, Any] = {}
    renames = {
        "id": "id",
        "project_id": "projectID",
        "parent_id": "parentID",
        "slug": "slug",
        "directory": "directory",
        "title": "title",
        "version": "version",
    }
    for column, key in renames.items():
        if value.get(column) not in (None, ""):
            info[key] = value[column]
    times = {key[len("time_") :]: value[key] for key in value if key.startswith("time_") and value[key] is not None}
    if times:
        info["time"] = times
    summary = {
        key[len("summary_") :]: value[key]
        for key in value
        if key.startswith("summary_") and value[key] not in (None, "")
    }
    if summary:
        info["summary"] = summary
    if value.get("share_url"):
        info["share"] = {"url": value["share_url"]}
    for column in value:
        if (
            column not in renames
            and not column.startswith(("time_", "summary_"))
            and column != "share_url"
            and value[column] not in (None, "")
        ):
            info.setdefault(column, value[column])
    return info


class _ExportSource(_Source):
    """``opencode export``: one session and its messages with their parts inline."""

    def __init__(self, path: Path, problems: Problems) -> None:
        self.path = path
        self.problems = problems
        self.doc = _load_object(path, problems, "export") or {}
        self._messages: dict[str, list[tuple[dict[str, Any], _Where]]] = {}
        self._parts: dict[str, list[tuple[dict[str, Any], _Where]]] = {}

    def infos(self) -> list[_Info]:
        if not self.doc:
            return []
        info = obj(self.doc.get("info"))
        if not info:
            self.problems.add(self.path, None, "opencode: export has no session info")
        sid = str(info.get("id") or self.path.stem)
        messages = self.doc.get("messages")
        if not isinstance(messages, list):
            self.problems.add(self.path, None, "opencode: export has no messages array")
            messages = []
        listed = []
        for index, item in enumerate(messages):
            where = _Where(self.path, f"messages[{index}]")
            if not isinstance(item, dict):
                where.tell(self.problems, f"is a {type(item).__name__}, not an object; skipped")
                continue
            message = dict(obj(item.get("info")) or {k: v for k, v in item.items() if k != "parts"})
            mid = str(message.get("id") or f"m{index}")
            message["id"] = mid
            listed.append((message, where))
            parts = []
            for pindex, part in enumerate(item.get("parts") if isinstance(item.get("parts"), list) else []):
                pwhere = _Where(self.path, f"messages[{index}].parts[{pindex}]")
                if isinstance(part, dict):
                    parts.append((part, pwhere))
                else:
                    pwhere.tell(self.problems, f"is a {type(part).__name__}, not an object; skipped")
            self._parts[mid] = parts
        self._messages[sid] = listed
        return [_Info({**info, "id": sid}, _Where(self.path), self.path)]

    def messages(self, session_id: str) -> list[tuple[dict[str, Any], _Where]]:
        return self._messages.get(session_id, [])

    def parts(self, session_id: str, message_id: str) -> list[tuple[dict[str, Any], _Where]]:
        return self._parts.get(message_id, [])


# --------------------------------------------------------------------------- sessions


def _sessions(source: _Source, problems: Problems) -> Iterator[Session]:
    infos = source.infos()
    if isinstance(source, _TreeSource):
        infos = _without_migrated(source.path, infos)
    by_id: dict[str, _Info] = {}
    for info in infos:
        if info.id in by_id:
            info.where.tell(problems, f"session {info.id} appears twice; the first copy is read")
            continue
        by_id[info.id] = info
    children: dict[str, list[str]] = {}
    roots: list[str] = []
    for sid, info in by_id.items():
        parent = info.parent
        if parent and parent in by_id and parent != sid and not _cycle(sid, by_id):
            children.setdefault(parent, []).append(sid)
        else:
            roots.append(sid)
    for sid in roots:
        ids = Ids()
        built = _Built(ids=ids)
        events = _session_events(sid, source, by_id, children, problems, built, depth=0)
        yield _session(by_id[sid], events, built, orphan_parent=by_id[sid].parent)


def _without_migrated(storage: Path, infos: list[_Info]) -> list[_Info]:
    db = storage.parent / DB_NAME
    if not (db.is_file() and _is_db(db)):
        return infos
    try:
        with closing(connect_ro(db)) as conn:
            migrated = {as_str(row[0]) for row in conn.execute("SELECT id FROM session")}
    except sqlite3.Error:
        return infos
    return [info for info in infos if info.id not in migrated]


def _cycle(sid: str, by_id: dict[str, _Info]) -> bool:
    seen = {sid}
    current = by_id[sid].parent
    while current and current in by_id:
        if current in seen:
            return True
        seen.add(current)
        current = by_id[current].parent
    return False


@dataclass
class _Built:
    ids: Ids
    models: list[str] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    cwd: str | None = None
    cost: float = 0.0
    mode: tuple[str, ...] | None = None


def _session_events(
    sid: str,
    source: _Source,
    by_id: dict[str, _Info],
    children: dict[str, list[str]],
    problems: Problems,
    built: _Built,
    depth: int,
) -> list[Event]:
    events: list[Event] = []
    task_calls: dict[str, str] = {}  # child session id -> call id of the task call that started it
    for message, where in source.messages(sid):
        parts = source.parts(sid, str(message.get("id")))
        events.extend(_message_events(message, where, parts, problems, built, task_calls))
    for child_id in children.get(sid, []) if depth < 20 else []:
        child_events = _session_events(child_id, source, by_id, children, problems, built, depth + 1)
        info = by_id[child_id].data
        call_id = task_calls.get(child_id)
        started = parse_time(obj(info.get("time")).get("created")) or next(
            (e.timestamp for e in child_events if e.timestamp), None
        )
        meta = {"session": child_id}
        for key in ("slug", "agent"):
            if info.get(key):
                meta[key] = info[key]
        sub = Event(
            id=built.ids.take(f"sub-{child_id}"),
            kind=Kind.SUBAGENT,
            timestamp=started,
            title=text_of(info.get("title")) or f"Sub-agent session {child_id}",
            children=tuple(child_events),
            call_id=call_id,
            model=next((e.model for e in child_events if e.model), None),
            meta=meta,
        )
        events.insert(_insert_at(events, sub, call_id), sub)
    return events


def _insert_at(events: list[Event], sub: Event, call_id: str | None) -> int:
    if call_id:
        for index, event in enumerate(events):
            if event.call_id == call_id and event.kind == Kind.TOOL_RESULT:
                return index + 1
        for index, event in enumerate(events):
            if event.call_id == call_id:
                return index + 1
    if sub.timestamp is None:
        return len(events)
    stamps = [e.timestamp.timestamp() if e.timestamp else float("-inf") for e in events]
    # events are in time order except for untimed ones, which sort first here
    return bisect_right(_running_max(stamps), sub.timestamp.timestamp())


def _running_max(values: list[float]) -> list[float]:
    out, best = [], float("-inf")
    for value in values:
        best = max(best, value)
        out.append(best)
    return out


def _session(info: _Info, events: list[Event], built: _Built, orphan_parent: str | None) -> Session:
    data = info.data
    times = obj(data.get("time"))
    cwd = text_of(data.get("directory")) or built.cwd
    meta: dict[str, Any] = {}
    for key in ("slug", "version", "projectID"):
        if data.get(key) not in (None, ""):
            meta[key] = data[key]
    summary = obj(data.get("summary"))
    changes = {k: summary[k] for k in ("additions", "deletions", "files") if isinstance(summary.get(k), (int, float))}
    if any(changes.values()):
        meta["changes"] = changes
    share = obj(data.get("share"))
    if text_of(share.get("url")):
        meta["share url"] = share["url"]
    for key in ("archived", "compacting"):
        if times.get(key):
            meta[key] = times[key]
    if orphan_parent:
        meta["parent session"] = f"{orphan_parent} (not in this archive)"
    if built.cost:
        meta["cost"] = round(built.cost, 6)
    stamps = [e.timestamp for e in events if e.timestamp]
    return Session(
        id=make_session_id(NAME, info.id),
        source=SourceRef(str(info.source_path), NAME),
        agent=AGENT,
        events=tuple(events),
        title=text_of(data.get("title")),
        started=parse_time(times.get("created")) or (min(stamps) if stamps else None),
        ended=parse_time(times.get("updated")) or (max(stamps) if stamps else None),
        cwd=cwd,
        project=project_of(cwd),
        models=tuple(built.models),
        meta=meta,
        skipped=dict(built.skipped),
    )


# --------------------------------------------------------------------------- messages and parts


def _usage(tokens: Any) -> Usage | None:
    tokens = obj(tokens)
    cache = obj(tokens.get("cache"))
    usage = Usage(
        input_tokens=to_int(tokens.get("input")),
        output_tokens=to_int(tokens.get("output")),
        cache_read_tokens=to_int(cache.get("read")),
        cache_write_tokens=to_int(cache.get("write")),
        reasoning_tokens=to_int(tokens.get("reasoning")),
    )
    return usage or None


def _message_events(
    message: dict[str, Any],
    where: _Where,
    parts: list[tuple[dict[str, Any], _Where]],
    problems: Problems,
    built: _Built,
    task_calls: dict[str, str],
) -> list[Event]:
    role = message.get("role")
    mid = str(message.get("id"))
    times = obj(message.get("time"))
    ts = parse_time(times.get("created"))
    if times.get("created") is not None and ts is None:
        where.tell(problems, f"message {mid}: time.created is not a timestamp: {times.get('created')!r}")
    model = text_of(message.get("modelID")) or text_of(obj(message.get("model")).get("modelID"))
    if role == "assistant" and model and model not in built.models:
        built.models.append(model)
    if role == "assistant":
        cwd = text_of(obj(message.get("path")).get("cwd"))
        built.cwd = built.cwd or cwd
        if isinstance(message.get("cost"), (int, float)) and not isinstance(message.get("cost"), bool):
            built.cost += float(message["cost"])
    if role not in ("user", "assistant"):
        where.tell(problems, f"message {mid} has role {role!r}; shown as raw JSON")
        return [
            Event(
                id=built.ids.take(mid),
                kind=Kind.UNKNOWN,
                timestamp=ts,
                title=f"OpenCode message with role {role!r}",
                raw=message,
            )
        ]

    events: list[Event] = []
    pending_usage: list[tuple[Usage, dict[str, Any]]] = []  # step usage waiting for an event of this message
    step_usage_seen = False
    base_kind = Kind.USER if role == "user" else Kind.ASSISTANT

    def add(event: Event) -> None:
        events.append(event)

    def attach(usage: Usage | None, extra: dict[str, Any]) -> None:
        """Put one model call's usage on the latest event of this message."""
        if usage is None and not extra:
            return
        for index in range(len(events) - 1, -1, -1):
            event = events[index]
            if event.usage is None and event.kind in (Kind.ASSISTANT, Kind.THINKING, Kind.TOOL_CALL, Kind.SYSTEM):
                events[index] = replace(event, usage=usage, model=event.model or model, meta={**event.meta, **extra})
                return
        if usage:
            pending_usage.append((usage, extra))

    last_ts = ts  # a part without a time of its own happened after the part before it
    for part, pwhere in parts:
        ptype = part.get("type") if isinstance(part.get("type"), str) else repr(part.get("type"))
        pid = str(part.get("id") or f"{mid}-part")
        ptimes = obj(part.get("time"))
        pts = parse_time(ptimes.get("start")) or last_ts
        tool_times = obj(obj(part.get("state")).get("time"))
        last_ts = (
            parse_time(ptimes.get("end"))
            or parse_time(tool_times.get("end"))
            or parse_time(tool_times.get("start"))
            or pts
        )
        if ptype == "text":
            text = as_text(part.get("text"))
            meta = {k: part[k] for k in ("metadata",) if part.get(k)}
            if part.get("ignored"):
                meta["ignored"] = True
            if part.get("synthetic"):
                add(
                    Event(
                        id=built.ids.take(pid),
                        kind=Kind.SYSTEM,
                        timestamp=pts,
                        title="Synthetic text" if role == "assistant" else "Added context",
                        text=text,
                        meta={**meta, "synthetic": True},
                    )
                )
            else:
                add(
                    Event(
                        id=built.ids.take(pid),
                        kind=base_kind,
                        timestamp=pts,
                        text=text,
                        model=model if base_kind == Kind.ASSISTANT else None,
                        meta=meta,
                    )
                )
        elif ptype == "reasoning":
            meta = {k: part[k] for k in ("metadata",) if part.get(k)}
            add(
                Event(
                    id=built.ids.take(pid),
                    kind=Kind.THINKING,
                    timestamp=pts,
                    text=as_text(part.get("text")),
                    model=model,
                    meta=meta,
                )
            )
        elif ptype == "tool":
            call, result = _tool_events(part, pid, ts, model, built.ids)
            add(call)
            if result is not None:
                add(result)
            child = text_of(obj(obj(part.get("state")).get("metadata")).get("sessionId")) or text_of(
                obj(obj(part.get("state")).get("metadata")).get("sessionID")
            )
            if child and call.call_id:
                task_calls.setdefault(child, call.call_id)
        elif ptype in _SKIP_PARTS:
            built.skipped[_SKIP_PARTS[ptype]] += 1
        elif ptype == "step-finish":
            usage = _usage(part.get("tokens"))
            extra = {k: part[k] for k in ("cost",) if part.get(k) not in (None, "", 0)}
            if part.get("reason") not in (None, "", "stop", "tool-calls"):
                extra["finish"] = part["reason"]
            if usage or extra:
                step_usage_seen = step_usage_seen or usage is not None
                attach(usage, extra)
        elif ptype == "patch":
            files = [str(f) for f in part.get("files") or [] if f] if isinstance(part.get("files"), list) else []
            meta = {"hash": part["hash"]} if part.get("hash") else {}
            add(
                Event(
                    id=built.ids.take(pid),
                    kind=Kind.SYSTEM,
                    timestamp=pts,
                    title="Files changed",
                    text="\n".join(f"- `{f}`" for f in files) or "(no files listed)",
                    meta=meta,
                )
            )
        elif ptype == "file":
            block = _file_block(part)
            if events and events[-1].kind == base_kind and not events[-1].usage:
                events[-1] = replace(events[-1], blocks=events[-1].blocks + (block,))
            else:
                add(
                    Event(
                        id=built.ids.take(pid),
                        kind=base_kind,
                        timestamp=pts,
                        blocks=(block,),
                        model=model if base_kind == Kind.ASSISTANT else None,
                    )
                )
        elif ptype == "compaction":
            meta = {k: v for k, v in part.items() if k not in ("id", "type", "sessionID", "messageID", "time")}
            add(
                Event(
                    id=built.ids.take(pid),
                    kind=Kind.COMPACTION,
                    timestamp=pts,
                    title="Context compacted" + (" (automatic)" if part.get("auto") else ""),
                    meta=meta,
                )
            )
        elif ptype == "subtask":
            title = text_of(part.get("description")) or "Sub-task"
            meta = {"agent": part["agent"]} if part.get("agent") else {}
            add(
                Event(
                    id=built.ids.take(pid),
                    kind=Kind.SYSTEM,
                    timestamp=pts,
                    title=f"Sub-task: {shorten(title, 80)}",
                    text=as_text(part.get("prompt")),
                    meta=meta,
                )
            )
        elif ptype == "agent":
            add(
                Event(
                    id=built.ids.take(pid),
                    kind=Kind.SYSTEM,
                    timestamp=pts,
                    title=f"Agent: {as_text(part.get('name')) or '?'}",
                    meta={k: part[k] for k in ("source",) if part.get(k)},
                )
            )
        elif ptype == "retry":
            error = obj(part.get("error"))
            detail = (
                text_of(obj(error.get("data")).get("message"))
                or text_of(error.get("message"))
                or as_text(part.get("error"))
            )
            add(
                Event(
                    id=built.ids.take(pid),
                    kind=Kind.SYSTEM,
                    timestamp=parse_time(ptimes.get("created")) or pts,
                    title=f"Retry {part.get('attempt', '')}".strip(),
                    text=detail,
                    meta={"error": error} if error else {},
                )
            )
        else:
            if ptype == "__undecodable__":
                raw, title = part.get("raw"), "OpenCode part (undecodable data)"
            else:
                raw, title = part, f"OpenCode part {ptype!r}"
                pwhere.tell(problems, f"part {pid} has unknown type {ptype!r}; shown as raw JSON")
            add(Event(id=built.ids.take(pid), kind=Kind.UNKNOWN, timestamp=pts, title=title, raw=raw))

    if role == "assistant" and not step_usage_seen:
        usage = _usage(message.get("tokens"))
        extra = {"cost": message["cost"]} if message.get("cost") not in (None, 0, "") else {}
        if usage:
            attach(usage, extra)
    error = message.get("error")
    if error:
        err = obj(error)
        name = text_of(err.get("name")) or "Error"
        detail = text_of(obj(err.get("data")).get("message")) or text_of(err.get("message")) or as_text(error)
        add(
            Event(
                id=built.ids.take(f"{mid}-error"),
                kind=Kind.SYSTEM,
                timestamp=parse_time(times.get("completed")) or ts,
                title=name,
                text=detail,
                meta={"error": error},
            )
        )
    for usage, extra in pending_usage:
        add(
            Event(
                id=built.ids.take(f"{mid}-usage"),
                kind=Kind.ASSISTANT,
                timestamp=parse_time(times.get("completed")) or ts,
                usage=usage,
                model=model,
                meta={**extra, "note": "model call with no recorded output"},
            )
        )
    if not events:
        built.skipped["message with no parts"] += 1
    # The agent and mode are shown where they change, not on every message.
    mode = tuple(str(message.get(k) or "") for k in ("agent", "mode")) if role == "assistant" else None
    meta_extra: dict[str, Any] = {}
    if mode is not None and mode != built.mode and any(mode):
        meta_extra = {k: v for k, v in zip(("agent", "mode"), mode) if v}
        built.mode = mode
    if meta_extra and events:
        first = events[0]
        events[0] = replace(first, meta={**meta_extra, **first.meta})
    return events


def _file_block(part: dict[str, Any]) -> Block:
    url = text_of(part.get("url"))
    mime = text_of(part.get("mime"))
    name = text_of(part.get("filename"))
    if url and url.startswith("data:image/"):
        return Block("image", uri=url, mime=mime, title=name)
    source = obj(part.get("source"))
    text = as_text(obj(source.get("text")).get("value")) if isinstance(source.get("text"), dict) else ""
    path = url[len("file://") :] if url and url.startswith("file://") else url
    return Block("file", text=text, uri=path, mime=mime, title=name or path)


def _tool_events(part: dict[str, Any], pid: str, ts: Any, model: str | None, ids: Ids) -> tuple[Event, Event | None]:
    name = text_of(part.get("tool")) or "tool"
    state = obj(part.get("state"))
    status = state.get("status")
    args = maybe_json(state.get("input"))
    metadata = obj(state.get("metadata"))
    times = obj(state.get("time"))
    call_id = text_of(part.get("callID")) or pid
    category = _CATEGORY.get(name.lower(), ToolCategory.OTHER)
    fields = _tool_fields(name, category, args, metadata)
    meta: dict[str, Any] = {}
    if text_of(state.get("title")):
        meta["title"] = state["title"]
    if status not in ("completed", "error"):
        meta["status"] = f"{status or 'unknown'} (no result recorded)"
    if part.get("metadata"):
        meta["part metadata"] = part["metadata"]
    call = Event(
        id=ids.take(pid),
        kind=Kind.TOOL_CALL,
        timestamp=parse_time(times.get("start")) or ts,
        tool_name=name,
        tool_input=args,
        call_id=call_id,
        model=model,
        meta=meta,
        **fields,
    )
    if status not in ("completed", "error"):
        return call, None
    exit_code = opt_int(metadata.get("exit")) if "exit" in metadata else opt_int(metadata.get("exitCode"))
    is_error = status == "error" or (exit_code is not None and exit_code != 0)
    text = as_text(state.get("error")) if status == "error" else as_text(state.get("output"))
    if status == "error" and not text:
        text = as_text(state.get("output"))
    result_meta = {
        k: v
        for k, v in metadata.items()
        if k not in ("exit", "exitCode", "diff", "output", "preview", "sessionId", "sessionID")
        and isinstance(v, (str, int, float, bool))
        and v != ""
    }
    if times.get("compacted"):
        result_meta["output compacted"] = True
    blocks = (
        tuple(_file_block(a) for a in state.get("attachments") or [] if isinstance(a, dict))
        if isinstance(state.get("attachments"), list)
        else ()
    )
    result = Event(
        id=ids.take(f"{pid}-result"),
        kind=Kind.TOOL_RESULT,
        timestamp=parse_time(times.get("end")) or call.timestamp,
        text=text,
        blocks=blocks,
        call_id=call_id,
        is_error=is_error,
        exit_code=exit_code,
        meta=result_meta,
    )
    return call, result


def _tool_fields(name: str, category: ToolCategory, args: Any, metadata: dict[str, Any]) -> dict[str, Any]:
    fields: dict[str, Any] = {"category": category}
    if not isinstance(args, dict):
        return fields
    path = text_of(args.get("filePath")) or text_of(args.get("file_path")) or text_of(args.get("path"))
    if category == ToolCategory.SHELL:
        fields["command"] = text_of(args.get("command")) or text_of(args.get("cmd"))
    if category == ToolCategory.TASK:
        return fields
    if path and category in (ToolCategory.EDIT, ToolCategory.READ, ToolCategory.SEARCH):
        fields["path"] = path
    if category == ToolCategory.EDIT:
        diff = text_of(metadata.get("diff"))
        lower = name.lower()
        if not diff and lower == "edit" and path:
            diff = unified_diff(
                path,
                as_text(args.get("oldString", args.get("old_string"))),
                as_text(args.get("newString", args.get("new_string"))),
            )
        elif not diff and lower == "write" and path:
            diff = unified_diff(path, "", as_text(args.get("content")))
        elif not diff and lower == "multiedit" and path and isinstance(args.get("edits"), list):
            parts = [
                unified_diff(path, as_text(e.get("oldString")), as_text(e.get("newString")))
                for e in args["edits"]
                if isinstance(e, dict)
            ]
            diff = (
                parts[0] + "".join("\n" + p.split("\n", 2)[2] for p in parts[1:] if p.count("\n") >= 2)
                if parts
                else None
            )
        elif not diff and lower in ("patch", "apply_patch"):
            diff = text_of(args.get("patchText")) or text_of(args.get("patch"))
        if diff:
            fields["diff"] = diff
    return fields
