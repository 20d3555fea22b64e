"""Crush sessions from a database: sub-agent sessions nested under the call that started them.

Crush's ``agent`` tool (and ``agentic_fetch``) runs a sub-agent in a session of its own
whose ``parent_session_id`` is the caller and whose id is the call's id (newer versions:
``<message id>$$<call id>``); that session becomes a SUBAGENT event after the call's
result. A ``title-<parent>`` session is the request that named its parent: its messages
are counted, not shown (its answer is the parent's title). Sessions whose parent is not
in the database, and messages whose session row is missing, are sessions of their own.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from typing import Any

from sessite.model import Event, GitRefs, Kind, Session, Usage
from sessite.readers import ledger
from sessite.readers._util import as_str, obj, shorten, text_of
from sessite.readers.base import parse_time
from sessite.readers.builder import SessionBuilder
from sessite.readers.formats.crush.decode import decode
from sessite.readers.formats.crush.parts import MessageReader
from sessite.readers.formats.crush.store import NAME, CrushStore, SessionRow
from sessite.readers.safejson import loads

AGENT = "crush"
PLACEHOLDER_TITLE = "New Session"  # what Crush calls a session until its title is generated
FILE_VERSION = "file version snapshot (Crush keeps it to undo edits; the edit calls show the changes)"
TITLE_REQUEST = "title generation request (its answer is the session's title)"
_MAX_DEPTH = 20


def sessions(store: CrushStore) -> Iterator[Session]:
    rows = {}
    for row in store.sessions():
        if row.id in rows:
            store.report(None, f"session {row.id} appears twice; the first row is read")
            continue
        rows[row.id] = row
    for sid in store.orphan_session_ids(set(rows)):
        store.report(None, f"messages of session {sid} have no session row; read as a session of their own")
        rows[sid] = SessionRow(sid, None, None, None, None, 0, 0, None, None)
    children: dict[str, list[str]] = {}
    roots = []
    for sid, row in rows.items():
        if row.parent and row.parent in rows and not _cycle(sid, rows):
            children.setdefault(row.parent, []).append(sid)
        else:
            roots.append(sid)
    assembler = _Assembler(store, rows, children)
    for sid in roots:
        session = assembler.root(sid)
        if session is not None:
            yield session
    for session_id, files in store.tally.files.items():
        if session_id not in rows:
            for file in files:
                ledger.not_shown(store.path, file.line, FILE_VERSION)


def _cycle(sid: str, rows: dict[str, SessionRow]) -> bool:
    seen = {sid}
    current = rows[sid].parent
    while current and current in rows:
        if current in seen:
            return True
        seen.add(current)
        current = rows[current].parent
    return False


class _Assembler:
    def __init__(self, store: CrushStore, rows: dict[str, SessionRow], children: dict[str, list[str]]) -> None:
        self.store = store
        self.rows = rows
        self.children = children

    def root(self, sid: str) -> Session | None:
        b = SessionBuilder(NAME, self.store.path, self.store.problems, agent=AGENT, label=NAME)
        facts: dict[str, Any] = {"cwd": None, "providers": {}}
        events = self._events(sid, b, facts, depth=0)
        if not events:
            return None
        b.events = events
        return _session(self.rows[sid], b, facts, self.rows)

    def _events(self, sid: str, b: SessionBuilder, facts: dict[str, Any], depth: int) -> list[Event]:
        """The events of one session, written to ``b`` (its own, or its parent's transcript's)."""
        decoded = [decode(row, b.report, self.store.zstd_quota) for row in self.store.messages(sid)]
        row = self.rows[sid]
        results: dict[str, dict[str, Any]] = {}
        names: dict[str, str] = {}
        for message in decoded:
            for call_id, call in message.calls.items():
                names.setdefault(call_id, text_of(call.get("name")) or "tool")
            for part in message.parts or []:
                data = obj(obj(part).get("data"))
                if obj(part).get("type") == "tool_result" and text_of(data.get("tool_call_id")):
                    results.setdefault(data["tool_call_id"], data)
        reader = MessageReader(b, results, names)
        for message in decoded:
            provider = message.row.provider
            if provider:
                facts["providers"].setdefault(provider, None)
            summary = message.row.summary or (row.summary_message is not None and message.row.id == row.summary_message)
            reader.message(message, summary)
        facts["cwd"] = facts["cwd"] or reader.cwd
        for file in self.store.tally.files.get(sid, []):
            b.skip(FILE_VERSION, line=file.line)
        events = b.events
        for child_id in self.children.get(sid, []) if depth < _MAX_DEPTH else []:
            if child_id.startswith("title-"):
                for request in self.store.messages(child_id):
                    b.skip(TITLE_REQUEST, line=request.line)
                continue
            events = self._nest(child_id, events, b, facts, depth)
        return events

    def _nest(
        self, child_id: str, events: list[Event], b: SessionBuilder, facts: dict[str, Any], depth: int
    ) -> list[Event]:
        child = SessionBuilder(NAME, self.store.path, self.store.problems, agent=AGENT, label=NAME)
        child.ids = b.ids  # one id space for the whole page
        child_events = self._events(child_id, child, facts, depth + 1)
        for reason, count in child.skipped.items():
            b.skipped[reason] += count
        for model in child.models:
            b.model(model)
        row = self.rows[child_id]
        call_id = child_id.rsplit("$$", 1)[-1]
        title = row.title if row.title and row.title != PLACEHOLDER_TITLE else None
        meta: dict[str, Any] = {"session": child_id}
        if row.prompt_tokens or row.completion_tokens:
            meta["tokens"] = {"prompt": row.prompt_tokens, "completion": row.completion_tokens}
        if row.cost:
            meta["cost"] = round(row.cost, 6)
        sub = Event(
            id=b.ids.take(f"sub-{call_id}"),
            kind=Kind.SUBAGENT,
            timestamp=parse_time(row.created) or next((e.timestamp for e in child_events if e.timestamp), None),
            title=title or f"Sub-agent session {shorten(child_id, 40)}",
            children=tuple(child_events),
            call_id=call_id if any(e.call_id == call_id for e in events) else None,
            model=next((e.model for e in child_events if e.model), None),
            meta=meta,
        )
        out = list(events)
        out.insert(_insert_at(out, sub), sub)
        return out


def _insert_at(events: list[Event], sub: Event) -> int:
    """After the call's result (or the call), else where the sub-agent's start time falls."""
    if sub.call_id:
        for kind in (Kind.TOOL_RESULT, Kind.TOOL_CALL):
            for index, event in enumerate(events):
                if event.call_id == sub.call_id and event.kind == kind:
                    return index + 1
    if sub.timestamp is None:
        return len(events)
    best = float("-inf")
    stamps = []
    for event in events:
        best = max(best, event.timestamp.timestamp() if event.timestamp else float("-inf"))
        stamps.append(best)
    return bisect_right(stamps, sub.timestamp.timestamp())


def _session(row: SessionRow, b: SessionBuilder, facts: dict[str, Any], rows: dict[str, SessionRow]) -> Session:
    meta: dict[str, Any] = {}
    if row.cost:
        meta["cost"] = round(row.cost, 6)
    if facts["providers"]:
        meta["providers"] = ", ".join(facts["providers"])
    if row.parent and row.parent not in rows:
        meta["parent session"] = f"{row.parent} (not in this database)"
    todos = _todos(row.todos)
    if todos:
        meta["todos"] = todos
    usage = Usage(input_tokens=row.prompt_tokens, output_tokens=row.completion_tokens)
    title = row.title if row.title and row.title != PLACEHOLDER_TITLE else None
    return b.finish(
        row.id,
        started=parse_time(row.created),
        ended=parse_time(row.updated),
        title=title,
        cwd=facts["cwd"],
        usage=usage or None,
        git=GitRefs(),
        meta=meta,
    )


def _todos(raw: Any) -> list[str]:
    """The session's todo list (``[{content, status}]`` JSON) as "status: content" lines."""
    if raw in (None, b"", ""):
        return []
    try:
        items = loads(as_str(raw))
    except ValueError:
        return []
    out = []
    for item in items if isinstance(items, list) else []:
        content = text_of(obj(item).get("content"))
        if content:
            out.append(f"{text_of(obj(item).get('status')) or 'pending'}: {content}")
    return out
