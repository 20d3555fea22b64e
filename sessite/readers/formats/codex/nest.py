"""Reading a family of rollouts: each sub-agent's session nested under the call that spawned it.

Each session id of the family is read from all its files (snapshots merged
record by record, ``readers.merge``), its sub-agents first, and each sub-agent
becomes a SUBAGENT event of its parent: placed after the result of the call
that started it (the call a ``sub_agent_activity`` or ``collab_agent_spawn_end``
notice names, or whose output names the thread), else where its time puts it.
A sub-agent's events get ids of their own (``id_prefix``), its left-out
records are counted on the parent's page, and its models are the session's too.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from sessite.model import Event, Kind, Problems, Session
from sessite.readers.files import iter_jsonl
from sessite.readers.formats.codex.family import Family
from sessite.readers.formats.codex.layout import agent_label
from sessite.readers.formats.codex.records import RolloutBuilder
from sessite.readers.merge import merge_copies

_SPAWN_FACTS = ("sub_agent_thread_id", "new_thread_id")


def read_rollout(path: Path, problems: Problems, id_prefix: str = "") -> Session | None:
    """One rollout file as a Session (None, and a problem, when it holds no conversation)."""
    builder = RolloutBuilder(path, problems, id_prefix)
    for lineno, rec in iter_jsonl(path, problems):
        builder.feed(lineno, rec)
    return builder.finish()


def read_family(fam: Family, problems: Problems) -> Iterator[Session]:
    """The root session of a family with every sub-agent nested (and any conflicting copy of the root)."""
    if fam.root is not None:
        yield from _read_member(fam, fam.root, problems, "", set())


def _read_member(fam: Family, sid: str, problems: Problems, prefix: str, seen: set[str]) -> list[Session]:
    seen.add(sid)
    copies = [s for path in fam.files.get(sid, []) if (s := read_rollout(path, problems, prefix)) is not None]
    sessions = merge_copies([[c] for c in copies], problems) if len(copies) > 1 else copies
    children: list[tuple[str, Session]] = []
    for child in fam.children(sid):
        if child not in seen:
            children += [(child, s) for s in _read_member(fam, child, problems, _prefix(child), seen)]
    children.sort(key=lambda pair: pair[1].started.isoformat() if pair[1].started else "~")
    if not sessions:  # a parent with nothing to show: its sub-agents are not lost with it
        return [child for _, child in children]
    return [nest(session, children) for session in sessions]


def nest(parent: Session, children: list[tuple[str, Session]]) -> Session:
    """``parent`` with each child session as a SUBAGENT event where it was spawned."""
    if not children:
        return parent
    events = list(parent.events)
    skipped: Counter[str] = Counter(parent.skipped)
    models = dict.fromkeys(parent.models)
    taken = {e.id for e in events}
    for thread, child in children:
        call_id = spawning_call(events, thread)
        event = _subagent_event(child, thread, call_id, taken)
        taken.add(event.id)
        events.insert(_position(events, call_id, event), event)
        skipped.update(child.skipped)
        models.update(dict.fromkeys(child.models))
    ended = max((t for t in (parent.ended, *(c.ended for _, c in children)) if t is not None), default=None)
    return replace(parent, events=tuple(events), skipped=dict(skipped), models=tuple(models), ended=ended)


def spawning_call(events: list[Event], thread: str) -> str | None:
    """The id of the call that started sub-agent ``thread``: named by a notice merged into it,
    else by its output."""
    for event in events:
        if event.kind == Kind.TOOL_CALL and event.call_id and any(event.meta.get(k) == thread for k in _SPAWN_FACTS):
            return event.call_id
    for event in events:
        if (
            event.kind == Kind.TOOL_RESULT
            and event.call_id
            and (event.tool_name or "").endswith("spawn_agent")
            and thread in event.text
        ):
            return event.call_id
    return None


def _position(events: list[Event], call_id: str | None, sub: Event) -> int:
    """Just after the spawning call's result (or the call), else before the first later event."""
    if call_id:
        for kind in (Kind.TOOL_RESULT, Kind.TOOL_CALL):
            found = [i for i, e in enumerate(events) if e.kind == kind and e.call_id == call_id]
            if found:
                return found[-1] + 1
    if sub.timestamp is not None:
        for index, event in enumerate(events):
            if event.timestamp is not None and event.timestamp > sub.timestamp:
                return index
    return len(events)


def _subagent_event(child: Session, thread: str, call_id: str | None, taken: set[str]) -> Event:
    info: dict[str, Any] = dict(child.meta.get("sub_agent") or {})
    label = agent_label(info) or f"Sub-agent {thread}"
    title = child.title.removeprefix("Sub-agent ") if child.title else label
    meta: dict[str, Any] = {"thread_id": thread, "source": child.source.path}
    meta.update({k: info[k] for k in ("agent_nickname", "agent_role", "agent_path", "depth") if k in info})
    base = f"agent-{thread}"
    event_id, n = base, 2
    while event_id in taken:
        event_id, n = f"{base}-{n}", n + 1
    return Event(
        id=event_id,
        kind=Kind.SUBAGENT,
        timestamp=child.started,
        title=title,
        children=child.events,
        call_id=call_id,
        model=next(iter(child.models), None),
        meta=meta,
    )


def _prefix(thread: str) -> str:
    """A short, stable prefix for a sub-agent's event ids (siblings' thread ids share their first digits)."""
    return "a" + hashlib.sha1(thread.encode("utf-8", "surrogatepass")).hexdigest()[:6] + "-"
