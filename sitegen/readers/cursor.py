"""Cursor: the editor's ``state.vscdb`` SQLite stores (and JSON dumps of them).

``…/Cursor/User/globalStorage/state.vscdb`` holds the chats ("composers") in
table ``cursorDiskKV`` (older builds: ``ItemTable``), as JSON values:

* ``composerData:<composerId>`` → ``{composerId, name, createdAt,
  lastUpdatedAt, fullConversationHeadersOnly:[{bubbleId, type}], …}``; older
  builds keep the bubbles inline in ``conversation:[…]``.
* ``bubbleId:<composerId>:<bubbleId>`` → a bubble: ``type`` 1 (user) or 2
  (assistant), ``text``, ``thinking:{text}``, ``toolFormerData:{name, status,
  rawArgs, result}`` (JSON strings), ``timingInfo``, ``tokenCount``, ``createdAt``.

Each composer with at least one bubble is one session. Each
``workspaceStorage/<hash>/state.vscdb`` lists the composers of one workspace
(``ItemTable`` key ``composer.composerData``) next to a ``workspace.json``
naming its folder: that is where a session's working folder comes from. Old
Cursor builds kept chats per workspace under ``ItemTable`` key
``workbench.panel.aichat.view.aichat.chatdata``; those tabs are sessions too.

Databases are opened read-only and immutable (no lock, no journal), so a
running Cursor is neither touched nor blocked; changes it still holds in a
``-wal`` file are not seen (a problem says so).

A JSON file holding one ``composerData`` object or a ``{key: value}`` dump of
the store is read the same way; the Cursor JSON files of one folder are read
together as one store (the first claims the others as companions).
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Iterator
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from sitegen.model import Block, Event, Kind, Problems, Session, SourceRef, ToolCategory, Usage, make_session_id
from sitegen.readers._util import (
    Ids,
    as_str,
    connect_ro,
    is_sqlite,
    maybe_json,
    obj,
    opt_int,
    project_of,
    table_names,
    text_of,
    to_int,
    unified_diff,
    wal_note,
)
from sitegen.readers.base import Reader, Sniff, as_text, load_json, parse_time, sniff

NAME = "cursor"
AGENT = "cursor"
DB_NAME = "state.vscdb"
_TABLES = ("cursorDiskKV", "ItemTable")
COMPOSER = "composerData:"
BUBBLE = "bubbleId:"
INDEX_KEY = "composer.composerData"
LEGACY_CHAT_KEY = "workbench.panel.aichat.view.aichat.chatdata"
_MAX_WORKSPACES = 2000
_UNDECODABLE = "\x00undecodable"

_CATEGORY = {
    "run_terminal_cmd": ToolCategory.SHELL,
    "run_terminal_command": ToolCategory.SHELL,
    "run_terminal_command_v2": ToolCategory.SHELL,
    "read_file": ToolCategory.READ,
    "read_file_v2": ToolCategory.READ,
    "edit_file": ToolCategory.EDIT,
    "edit_file_v2": ToolCategory.EDIT,
    "search_replace": ToolCategory.EDIT,
    "multi_edit": ToolCategory.EDIT,
    "write": ToolCategory.EDIT,
    "apply_patch": ToolCategory.EDIT,
    "delete_file": ToolCategory.EDIT,
    "reapply": ToolCategory.EDIT,
    "codebase_search": ToolCategory.SEARCH,
    "grep_search": ToolCategory.SEARCH,
    "grep": ToolCategory.SEARCH,
    "ripgrep_search": ToolCategory.SEARCH,
    "file_search": ToolCategory.SEARCH,
    "glob_file_search": ToolCategory.SEARCH,
    "list_dir": ToolCategory.SEARCH,
    "list_dir_v2": ToolCategory.SEARCH,
    "web_search": ToolCategory.WEB,
    "fetch": ToolCategory.WEB,
    "task": ToolCategory.TASK,
}
_PATH_ARGS = (
    "target_file",
    "targetFile",
    "file_path",
    "filePath",
    "path",
    "relative_workspace_path",
    "target_directory",
    "targetDirectory",
)


class CursorReader(Reader):
    name = NAME
    claims_directories = False

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        suffix = path.suffix.lower()
        if suffix == ".json":
            return _json_kind(path, sniffed.text(4096)) is not None
        if path.name == DB_NAME:
            return is_sqlite(path)
        if not is_sqlite(path):
            return False
        tables = table_names(path)
        return "cursorDiskKV" in tables or ("ItemTable" in tables and suffix in (".vscdb", ".backup"))

    def companions(self, path: Path) -> list[Path]:
        if path.suffix.lower() == ".json":
            return [p for p in _json_siblings(path) if p != path]
        found = [path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal", ".backup")]
        if path.name == DB_NAME:
            found.append(path.with_name("workspace.json"))
        return [p for p in found if p.is_file()]

    def read(self, path: Path, problems: Problems) -> Iterator[Session]:
        if path.suffix.lower() == ".json":
            store: _Store = _JsonStore(path, problems)
        else:
            try:
                store = _DbStore(path, problems)
            except sqlite3.Error as exc:
                problems.add(path, None, f"cursor: cannot open the database ({exc})")
                return
        try:
            yield from _sessions(store, path, problems)
        except sqlite3.Error as exc:
            problems.add(path, None, f"cursor: database read failed ({exc}); the rest is skipped")
        finally:
            store.close()


READER = CursorReader()


# --------------------------------------------------------------------------- JSON dumps


def _json_kind(path: Path, head: str | None = None) -> str | None:
    """'composer' for one composerData object, 'dump' for a key/value dump, else None
    (``head``: the file's first 4 KiB when the caller has them)."""
    head = sniff(path, 4096) if head is None else head
    compact = "".join(head.split())
    if compact.startswith(('{"composerData:', '{"bubbleId:')):
        return "dump"
    if (
        compact.startswith("{")
        and '"composerId":' in compact
        and ('"fullConversationHeadersOnly":' in compact or '"conversation":' in compact or '"_v":' in compact)
    ):
        return "composer"
    return None


def _json_siblings(path: Path) -> list[Path]:
    try:
        return sorted(
            p
            for p in path.parent.iterdir()
            if p.suffix.lower() == ".json" and p.is_file() and _json_kind(p) is not None
        )
    except OSError:
        return [path]


class _Store:
    path: Path
    folder: str | None = None  # the workspace folder, for a workspace database

    def composer_ids(self) -> list[str]:
        raise NotImplementedError

    def composer(self, cid: str) -> tuple[Any, Path]:
        raise NotImplementedError

    def bubbles(self, cid: str) -> dict[str, Any]:
        """bubbleId -> stored value (still encoded; parsed only when used)."""
        raise NotImplementedError

    def item(self, key: str) -> Any:
        return None

    def close(self) -> None:
        pass


def _parse(value: Any, problems: Problems, path: Path, key: str) -> Any:
    if value is None:
        return None
    if isinstance(value, (dict, list)):
        return value
    text = as_str(value)
    try:
        return json.loads(text)
    except ValueError as exc:
        problems.add(path, None, f"cursor: {key}: value is not JSON ({exc.msg if hasattr(exc, 'msg') else exc})")
        return None


class _JsonStore(_Store):
    def __init__(self, path: Path, problems: Problems) -> None:
        self.path = path
        self.problems = problems
        self.values: dict[str, tuple[Any, Path]] = {}
        for file in [path, *READER.companions(path)]:
            doc = load_json(file, problems)
            if doc is None:
                continue
            if not isinstance(doc, dict):
                problems.add(file, None, f"cursor: a {type(doc).__name__}, not an object; skipped")
                continue
            if isinstance(doc.get("composerId"), str) and _json_kind(file) == "composer":
                self.values.setdefault(COMPOSER + doc["composerId"], (doc, file))
                continue
            for key, value in doc.items():
                if key.startswith((COMPOSER, BUBBLE)):
                    self.values.setdefault(key, (value, file))

    def composer_ids(self) -> list[str]:
        return [k[len(COMPOSER) :] for k in self.values if k.startswith(COMPOSER)]

    def composer(self, cid: str) -> tuple[Any, Path]:
        value, file = self.values.get(COMPOSER + cid, (None, self.path))
        return _parse(value, self.problems, file, COMPOSER + cid), file

    def bubbles(self, cid: str) -> dict[str, Any]:
        prefix = f"{BUBBLE}{cid}:"
        return {key[len(prefix) :]: value for key, (value, _file) in self.values.items() if key.startswith(prefix)}


# --------------------------------------------------------------------------- SQLite


class _DbStore(_Store):
    def __init__(self, path: Path, problems: Problems) -> None:
        self.path = path
        self.problems = problems
        if not is_sqlite(path):
            raise sqlite3.DatabaseError("not a SQLite database")
        self.conn = connect_ro(path)
        tables = {as_str(r[0]) for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        self.tables = [t for t in _TABLES if t in tables]
        note = wal_note(path)
        if note and self.tables:
            problems.add(path, None, f"cursor: {note}")
        self.folder = _workspace_folder(path.parent / "workspace.json") if path.name == DB_NAME else None

    def close(self) -> None:
        self.conn.close()

    def _range(self, prefix: str) -> Iterator[tuple[str, Any]]:
        # A key range, not LIKE: uses the key index and treats '%' and '_' literally.
        upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        for table in self.tables:
            rows = self.conn.execute(
                f'SELECT key, value FROM "{table}" WHERE key >= ? AND key < ? ORDER BY key', (prefix, upper)
            )
            for key, value in rows:
                yield as_str(key), value

    def _get(self, key: str) -> Any:
        for table in self.tables:
            row = self.conn.execute(f'SELECT value FROM "{table}" WHERE key = ?', (key,)).fetchone()
            if row is not None:
                return row[0]
        return None

    def composer_ids(self) -> list[str]:
        seen: dict[str, None] = {}
        for table in self.tables:
            upper = COMPOSER[:-1] + ";"
            for (key,) in self.conn.execute(
                f'SELECT key FROM "{table}" WHERE key >= ? AND key < ? ORDER BY key', (COMPOSER, upper)
            ):
                seen.setdefault(as_str(key)[len(COMPOSER) :], None)
        return list(seen)

    def composer(self, cid: str) -> tuple[Any, Path]:
        return _parse(self._get(COMPOSER + cid), self.problems, self.path, COMPOSER + cid), self.path

    def bubbles(self, cid: str) -> dict[str, Any]:
        prefix = f"{BUBBLE}{cid}:"
        return {key[len(prefix) :]: value for key, value in self._range(prefix)}

    def item(self, key: str) -> Any:
        if "ItemTable" not in self.tables:
            return None
        row = self.conn.execute('SELECT value FROM "ItemTable" WHERE key = ?', (key,)).fetchone()
        return _parse(row[0], self.problems, self.path, key) if row else None


def _workspace_folder(path: Path) -> str | None:
    """The folder a ``workspaceStorage/<hash>/workspace.json`` names."""
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text("utf-8", errors="replace"))
    except (OSError, ValueError):
        return None
    uri = text_of(obj(doc).get("folder")) or text_of(obj(doc).get("workspace"))
    if not uri:
        return None
    if uri.startswith("file://"):
        local = unquote(urlsplit(uri).path)
        if len(local) > 2 and local[0] == "/" and local[2] == ":":  # /C:/Users/…
            local = local[1:]
        return local or None
    return uri


def _workspace_map(db: Path) -> dict[str, str]:
    """composerId -> workspace folder, from the workspace databases next to a global one."""
    if db.name != DB_NAME or db.parent.name != "globalStorage":
        return {}
    root = db.parent.parent / "workspaceStorage"
    out: dict[str, str] = {}
    try:
        folders = sorted(p for p in root.iterdir() if p.is_dir())[:_MAX_WORKSPACES] if root.is_dir() else []
    except OSError:
        return {}
    for folder in folders:
        workspace = _workspace_folder(folder / "workspace.json")
        state = folder / DB_NAME
        if not workspace or not is_sqlite(state):
            continue
        try:
            with closing(connect_ro(state)) as conn:
                row = conn.execute("SELECT value FROM ItemTable WHERE key = ?", (INDEX_KEY,)).fetchone()
        except sqlite3.Error:
            continue
        if not row:
            continue
        try:
            index = json.loads(as_str(row[0]))
        except ValueError:
            continue
        for entry in obj(index).get("allComposers") or [] if isinstance(obj(index).get("allComposers"), list) else []:
            cid = text_of(obj(entry).get("composerId"))
            if cid:
                out.setdefault(cid, workspace)
    return out


# --------------------------------------------------------------------------- sessions


def _sessions(store: _Store, path: Path, problems: Problems) -> Iterator[Session]:
    folders = _workspace_map(path) if isinstance(store, _DbStore) else {}
    index = store.item(INDEX_KEY)
    names = (
        {text_of(obj(e).get("composerId")): obj(e) for e in obj(index).get("allComposers") or []}
        if isinstance(obj(index).get("allComposers"), list)
        else {}
    )
    for cid in store.composer_ids():
        data, source = store.composer(cid)
        if not isinstance(data, dict):
            if data is not None:
                problems.add(
                    source, None, f"cursor: {COMPOSER}{cid} is a {type(data).__name__}, not an object; skipped"
                )
            continue
        session = _composer_session(
            cid, data, store, source, problems, folders.get(cid) or store.folder, names.get(cid, {})
        )
        if session is not None:
            yield session
    yield from _legacy_chats(store, path, problems)


def _composer_session(
    cid: str,
    data: dict[str, Any],
    store: _Store,
    source: Path,
    problems: Problems,
    folder: str | None,
    index_entry: dict[str, Any],
) -> Session | None:
    headers = data.get("fullConversationHeadersOnly")
    inline = data.get("conversation")
    skipped: Counter = Counter()
    bubbles: list[tuple[str, Any]] = []
    if isinstance(headers, list) and headers:
        stored = store.bubbles(cid)
        for position, header in enumerate(headers):
            bid = text_of(obj(header).get("bubbleId"))
            if bid is None:
                problems.add(source, None, f"cursor: composer {cid}: header {position} has no bubbleId; skipped")
                continue
            if bid not in stored:
                skipped["bubble listed but not stored"] += 1
                continue
            parsed = _parse(stored[bid], problems, source, f"{BUBBLE}{cid}:{bid}")
            bubbles.append((bid, parsed if parsed is not None else {_UNDECODABLE: as_str(stored[bid])}))
    elif isinstance(inline, list) and inline:
        bubbles = [(text_of(obj(b).get("bubbleId")) or f"b{i}", b) for i, b in enumerate(inline)]
    else:
        stored = {
            bid: _parse(value, problems, source, f"{BUBBLE}{cid}:{bid}") for bid, value in store.bubbles(cid).items()
        }
        bubbles = sorted(stored.items(), key=lambda item: _bubble_sort_key(item[1]))
    if not bubbles:
        return None  # Cursor keeps an empty composer for every new chat tab

    ids = Ids()
    events: list[Event] = []
    models: list[str] = []
    default_model = text_of(obj(data.get("modelConfig")).get("modelName"))
    for bid, bubble in bubbles:
        where = f"{BUBBLE}{cid}:{bid}"
        if isinstance(bubble, dict) and _UNDECODABLE in bubble:
            events.append(
                Event(id=ids.take(bid), kind=Kind.UNKNOWN, title="Cursor bubble (not JSON)", raw=bubble[_UNDECODABLE])
            )
            continue
        if not isinstance(bubble, dict):
            if bubble is not None:
                problems.add(
                    source, None, f"cursor: {where} is a {type(bubble).__name__}, not an object; shown as raw JSON"
                )
            events.append(Event(id=ids.take(bid), kind=Kind.UNKNOWN, title="Cursor bubble", raw=bubble))
            continue
        new = _bubble_events(bid, bubble, ids, default_model, problems, source, where)
        for event in new:
            if event.model and event.model not in models:
                models.append(event.model)
        events.extend(new)
    if not events:
        return None
    meta: dict[str, Any] = {}
    for key, label in (
        ("unifiedMode", "mode"),
        ("forceMode", "forced mode"),
        ("status", "status"),
        ("isAgentic", "agentic"),
        ("_v", "version"),
    ):
        if data.get(key) not in (None, "", False):
            meta[label] = data[key]
    if data.get("isArchived") or index_entry.get("isArchived"):
        meta["archived"] = True
    stamps = [e.timestamp for e in events if e.timestamp]
    started = parse_time(data.get("createdAt")) or parse_time(index_entry.get("createdAt"))
    ended = parse_time(data.get("lastUpdatedAt")) or parse_time(index_entry.get("lastUpdatedAt"))
    return Session(
        id=make_session_id(NAME, cid),
        source=SourceRef(str(source), NAME),
        agent=AGENT,
        events=tuple(events),
        title=text_of(data.get("name")) or text_of(index_entry.get("name")),
        started=started or (min(stamps) if stamps else None),
        ended=max([t for t in (ended, *stamps) if t], default=None),
        cwd=folder,
        project=project_of(folder),
        models=tuple(models or ([default_model] if default_model else [])),
        meta=meta,
        skipped=dict(skipped),
    )


def _bubble_sort_key(bubble: Any) -> tuple[float, str]:
    ts = _bubble_time(obj(bubble))
    return (ts.timestamp() if ts else float("inf"), str(obj(bubble).get("bubbleId") or ""))


def _bubble_time(bubble: dict[str, Any]) -> Any:
    ts = parse_time(bubble.get("createdAt"))
    if ts:
        return ts
    timing = obj(bubble.get("timingInfo"))
    for key in ("clientStartTime", "clientRpcSendTime", "clientSettleTime", "clientEndTime", "startTime"):
        value = timing.get(key)
        # Some timing fields are performance.now() offsets, not epoch times.
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 1e12:
            return parse_time(value)
    return None


def _bubble_events(
    bid: str, bubble: dict[str, Any], ids: Ids, default_model: str | None, problems: Problems, source: Path, where: str
) -> list[Event]:
    btype = bubble.get("type")
    ts = _bubble_time(bubble)
    model = text_of(bubble.get("modelType")) or text_of(obj(bubble.get("modelInfo")).get("modelName"))
    events: list[Event] = []
    text = as_text(bubble.get("text")) if bubble.get("text") is not None else as_text(bubble.get("rawText"))
    if btype in (1, "user", "1"):
        blocks = _user_blocks(bubble)
        if text.strip() or blocks:
            events.append(Event(id=ids.take(bid), kind=Kind.USER, timestamp=ts, text=text, blocks=blocks))
        return events
    if btype not in (2, "ai", "assistant", "2"):
        problems.add(source, None, f"cursor: {where} has unknown type {btype!r}; shown as raw JSON")
        return [
            Event(
                id=ids.take(bid), kind=Kind.UNKNOWN, timestamp=ts, title=f"Cursor bubble of type {btype!r}", raw=bubble
            )
        ]
    model = model or default_model
    thinking = bubble.get("thinking")
    thinking_text = (
        as_text(obj(thinking).get("text"))
        if isinstance(thinking, dict)
        else as_text(thinking)
        if isinstance(thinking, str)
        else ""
    )
    if thinking_text.strip():
        meta = (
            {"duration ms": bubble["thinkingDurationMs"]}
            if isinstance(bubble.get("thinkingDurationMs"), (int, float))
            else {}
        )
        events.append(
            Event(
                id=ids.take(f"{bid}-thinking"),
                kind=Kind.THINKING,
                timestamp=ts,
                text=thinking_text,
                model=model,
                meta=meta,
            )
        )
    if text.strip():
        events.append(Event(id=ids.take(bid), kind=Kind.ASSISTANT, timestamp=ts, text=text, model=model))
    tool = bubble.get("toolFormerData")
    if isinstance(tool, dict) and tool:
        events.extend(_tool_events(bid, tool, ts, model, ids))
    elif tool not in (None, {}, ""):
        events.append(
            Event(id=ids.take(f"{bid}-tool"), kind=Kind.UNKNOWN, timestamp=ts, title="Cursor tool data", raw=tool)
        )
    tokens = obj(bubble.get("tokenCount"))
    usage = Usage(input_tokens=to_int(tokens.get("inputTokens")), output_tokens=to_int(tokens.get("outputTokens")))
    if usage:
        if events:
            last = (
                next(i for i in range(len(events) - 1, -1, -1) if events[i].kind != Kind.TOOL_RESULT)
                if any(e.kind != Kind.TOOL_RESULT for e in events)
                else len(events) - 1
            )
            events[last] = replace(events[last], usage=usage, model=events[last].model or model)
        else:
            events.append(Event(id=ids.take(bid), kind=Kind.ASSISTANT, timestamp=ts, usage=usage, model=model))
    return events


def _user_blocks(bubble: dict[str, Any]) -> tuple[Block, ...]:
    blocks: list[Block] = []
    context = obj(bubble.get("context"))
    for item in context.get("fileSelections") or [] if isinstance(context.get("fileSelections"), list) else []:
        uri = obj(obj(item).get("uri"))
        path = text_of(uri.get("fsPath")) or text_of(uri.get("path"))
        if path:
            blocks.append(Block("reference", uri=path, title="file in context"))
    for image in bubble.get("images") or [] if isinstance(bubble.get("images"), list) else []:
        blocks.append(Block("image", title=text_of(obj(image).get("path")) or "image"))
    return tuple(blocks)


def _tool_events(bid: str, tool: dict[str, Any], ts: Any, model: str | None, ids: Ids) -> list[Event]:
    name = text_of(tool.get("name")) or (f"tool {tool.get('tool')}" if tool.get("tool") is not None else "tool")
    args = maybe_json(tool.get("rawArgs")) if tool.get("rawArgs") not in (None, "") else maybe_json(tool.get("params"))
    call_id = text_of(tool.get("toolCallId")) or f"{bid}-call"
    category = _CATEGORY.get(name, ToolCategory.OTHER)
    if name.startswith("mcp_"):
        category = ToolCategory.OTHER
    fields: dict[str, Any] = {}
    if isinstance(args, dict):
        path = next((args[k] for k in _PATH_ARGS if text_of(args.get(k))), None)
        if category == ToolCategory.SHELL:
            fields["command"] = text_of(args.get("command"))
        if path and category in (ToolCategory.EDIT, ToolCategory.READ, ToolCategory.SEARCH):
            fields["path"] = path
        if name in ("search_replace", "multi_edit") and path:
            edits = args.get("edits") if isinstance(args.get("edits"), list) else [args]
            parts = [
                unified_diff(path, as_text(obj(e).get("old_string")), as_text(obj(e).get("new_string"))) for e in edits
            ]
            parts = [p for p in parts if p.count("\n") >= 2]
            if parts:
                fields["diff"] = parts[0] + "".join("\n" + p.split("\n", 2)[2] for p in parts[1:])
        elif name == "write" and path and isinstance(args.get("contents", args.get("content")), str):
            fields["diff"] = unified_diff(path, "", args.get("contents", args.get("content")))
    meta: dict[str, Any] = {}
    status = text_of(tool.get("status"))
    if status and status != "completed":
        meta["status"] = status
    decision = text_of(tool.get("userDecision"))
    if decision and decision != "accepted":
        meta["user decision"] = decision
    if tool.get("tool") is not None:
        meta["tool number"] = tool["tool"]
    call = Event(
        id=ids.take(f"{bid}-call"),
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
    raw_result = tool.get("result")
    error = tool.get("error")
    if raw_result in (None, "") and error in (None, "") and status not in ("error", "cancelled"):
        return [call]
    result = maybe_json(raw_result)
    text, diff, exit_code = _result_fields(result)
    if error not in (None, ""):
        message = text_of(obj(maybe_json(error)).get("message")) or as_text(maybe_json(error))
        text = f"{text}\n{message}" if text else message
    is_error = (
        status in ("error",)
        or error not in (None, "")
        or decision == "rejected"
        or (exit_code is not None and exit_code != 0)
    )
    result_event = Event(
        id=ids.take(f"{bid}-result"),
        kind=Kind.TOOL_RESULT,
        timestamp=ts,
        text=text,
        diff=diff,
        call_id=call_id,
        is_error=is_error,
        exit_code=exit_code,
        meta={"status": status} if status in ("cancelled",) else {},
    )
    return [call, result_event]


def _result_fields(result: Any) -> tuple[str, str | None, int | None]:
    if isinstance(result, dict):
        exit_code = opt_int(result.get("exitCode")) if "exitCode" in result else opt_int(result.get("exitCodeV2"))
        diff = None
        chunks = obj(result.get("diff")).get("chunks")
        if isinstance(chunks, list):
            lines = [as_text(obj(c).get("diffString")) for c in chunks if obj(c).get("diffString")]
            diff = "\n".join(lines) or None
        for key in ("output", "contents", "content", "stdout", "text", "result"):
            if isinstance(result.get(key), str):
                return result[key], diff, exit_code
        rest = {k: v for k, v in result.items() if k not in ("exitCode", "exitCodeV2", "diff")}
        return (as_text(rest) if rest else ""), diff, exit_code
    if result is None:
        return "", None, None
    return as_text(result), None, None


# --------------------------------------------------------------------------- old per-workspace chat tabs


def _legacy_chats(store: _Store, path: Path, problems: Problems) -> Iterator[Session]:
    data = store.item(LEGACY_CHAT_KEY)
    tabs = obj(data).get("tabs")
    if not isinstance(tabs, list):
        return
    for index, tab in enumerate(tabs):
        if not isinstance(tab, dict):
            continue
        tab_id = text_of(tab.get("tabId")) or str(index)
        ids = Ids()
        events: list[Event] = []
        for position, bubble in enumerate(tab.get("bubbles") or [] if isinstance(tab.get("bubbles"), list) else []):
            bubble = obj(bubble)
            bid = text_of(bubble.get("id")) or f"b{position}"
            kind = {"user": Kind.USER, "ai": Kind.ASSISTANT}.get(bubble.get("type"))
            text = as_text(bubble.get("text") if bubble.get("text") is not None else bubble.get("rawText"))
            if kind is None:
                events.append(
                    Event(
                        id=ids.take(bid),
                        kind=Kind.UNKNOWN,
                        title=f"Cursor chat bubble {bubble.get('type')!r}",
                        raw=bubble,
                    )
                )
            elif text.strip():
                events.append(
                    Event(
                        id=ids.take(bid),
                        kind=kind,
                        text=text,
                        model=text_of(bubble.get("modelType")) if kind == Kind.ASSISTANT else None,
                    )
                )
        if not events:
            continue
        models = tuple(dict.fromkeys(e.model for e in events if e.model))
        yield Session(
            id=make_session_id(NAME, f"chat-{tab_id}"),
            source=SourceRef(str(path), NAME),
            agent=AGENT,
            events=tuple(events),
            title=text_of(tab.get("chatTitle")),
            ended=parse_time(tab.get("lastSendTime")),
            cwd=store.folder,
            project=project_of(store.folder),
            models=models,
            meta={"layout": "chat tab (old Cursor)"},
        )
