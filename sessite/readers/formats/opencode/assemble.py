"""OpenCode sessions from a source's records: sub-agent sessions nested in their parents.

A session whose ``parentID`` names a session that is present (a sub-agent the
``task`` tool started) becomes a SUBAGENT event of its parent, placed after the
task call that started it when the call names it; a session whose parent is
absent is a session of its own.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from sessite.model import Event, Kind, Problems, Session
from sessite.readers._util import SQLITE_ERRORS, as_str, connect_ro, obj, text_of
from sessite.readers.base import parse_time
from sessite.readers.formats.opencode.detect import AGENT, DB_NAME, NAME, is_db
from sessite.readers.formats.opencode.parts import Built, message_events
from sessite.readers.formats.opencode.sources import Info, Source, TreeSource

_MAX_DEPTH = 20  # sub-agents of sub-agents … nested at most this deep


def sessions(source: Source, problems: Problems) -> Iterator[Session]:
    """Every root session of ``source``, its sub-agent sessions inside it."""
    infos = source.infos()
    if isinstance(source, TreeSource):
        infos = _without_migrated(source.path, infos)
    by_id: dict[str, Info] = {}
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
        built = Built(NAME, by_id[sid].source_path, problems, agent=AGENT, label=NAME)
        tree = _Tree(source, by_id, children, built)
        events = tree.events(sid, depth=0)
        yield _session(by_id[sid], events, built, orphan_parent=by_id[sid].parent)


def _without_migrated(storage: Path, infos: list[Info]) -> list[Info]:
    """The tree's sessions that the ``opencode.db`` beside it does not hold (OpenCode migrates, keeping the tree)."""
    db = storage.parent / DB_NAME
    if not (db.is_file() and is_db(db)):
        return infos
    try:
        with closing(connect_ro(db)) as conn:
            migrated = {as_str(row[0]) for row in conn.execute("SELECT id FROM session")}
    except SQLITE_ERRORS:
        return infos
    return [info for info in infos if info.id not in migrated]


def _cycle(sid: str, by_id: dict[str, Info]) -> bool:
    seen = {sid}
    current = by_id[sid].parent
    while current and current in by_id:
        if current in seen:
            return True
        seen.add(current)
        current = by_id[current].parent
    return False


class _Tree:
    """Reads a session's messages, then nests each of its sub-agent sessions."""

    def __init__(self, source: Source, by_id: dict[str, Info], children: dict[str, list[str]], built: Built) -> None:
        self.source = source
        self.by_id = by_id
        self.children = children
        self.built = built

    def events(self, sid: str, depth: int) -> list[Event]:
        events: list[Event] = []
        task_calls: dict[str, str] = {}  # child session id -> call id of the task call that started it
        for message, where in self.source.messages(sid):
            try:
                parts = self.source.parts(sid, str(message.get("id")))
                events.extend(message_events(message, where, parts, self.built, task_calls))
            except Exception as exc:  # noqa: BLE001 - one odd message must not stop the session
                where.tell(
                    self.built.problems, f"could not interpret the message ({type(exc).__name__}: {exc}); skipped"
                )
        for child_id in self.children.get(sid, []) if depth < _MAX_DEPTH else []:
            child_events = self.events(child_id, depth + 1)
            call_id = task_calls.get(child_id)
            sub = self._subagent(child_id, child_events, call_id)
            events.insert(_insert_at(events, sub, call_id), sub)
        return events

    def _subagent(self, child_id: str, child_events: list[Event], call_id: str | None) -> Event:
        info = self.by_id[child_id].data
        started = parse_time(obj(info.get("time")).get("created")) or next(
            (e.timestamp for e in child_events if e.timestamp), None
        )
        meta = {"session": child_id}
        for key in ("slug", "agent"):
            if info.get(key):
                meta[key] = info[key]
        return Event(
            id=self.built.ids.take(f"sub-{child_id}"),
            kind=Kind.SUBAGENT,
            timestamp=started,
            title=text_of(info.get("title")) or f"Sub-agent session {child_id}",
            children=tuple(child_events),
            call_id=call_id,
            model=next((e.model for e in child_events if e.model), None),
            meta=meta,
        )


def _insert_at(events: list[Event], sub: Event, call_id: str | None) -> int:
    """After the task call's result (or the call), else where its start time falls."""
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


def _session(info: Info, events: list[Event], built: Built, orphan_parent: str | None) -> Session:
    data = info.data
    times = obj(data.get("time"))
    cwd = text_of(data.get("directory")) or built.cwd
    return built.finish(
        info.id,
        events=events,
        source=info.source_path,
        title=text_of(data.get("title")),
        started=parse_time(times.get("created")),
        ended=parse_time(times.get("updated")),
        cwd=cwd,
        meta=_session_meta(data, times, built, orphan_parent),
    )


def _session_meta(
    data: dict[str, Any], times: dict[str, Any], built: Built, orphan_parent: str | None
) -> dict[str, Any]:
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
    return meta
