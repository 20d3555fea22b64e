"""Several files of one session become one session: nothing is dropped as a "copy".

Agents and the tools around them keep a session in more than one file: a
checkpointing tool stores successive snapshots of one append-only log, a user
copies a session folder. Readers give events ids derived from their records, so
the same record read from two files is the same event id. Sessions with one id
are merged event by event: each event once, in order, the events only one file
has put after the event that precedes them there. Two files that share no event,
or whose shared events differ, truly conflict: both are kept (the later one under
a new id) and a problem says so.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from sessite.model import Event, Problems, Session


def merge_copies(reads: Sequence[Sequence[Session]], problems: Problems) -> list[Session]:
    """The sessions of several files read together, those with one id merged (in first-seen order)."""
    merged: dict[str, Session] = {}
    kept: list[Session] = []  # conflicting copies kept under their own id
    for sessions in reads:
        for session in sessions:
            known = merged.get(session.id)
            if known is None:
                merged[session.id] = session
                continue
            union = merge_sessions(known, session)
            if union is not None:
                merged[session.id] = union
                continue
            renamed = replace(session, id=copy_id(session.id, session.source.path, set(merged) | {s.id for s in kept}))
            problems.add(
                session.source.path,
                session.source.line,
                f"session id {session.id} is also in {known.source.path} with different content; "
                f"both are kept (this one as {renamed.id})",
            )
            kept.append(renamed)
    return [*merged.values(), *kept]


def distinct_ids(sessions: Iterable[Session], problems: Problems) -> Iterator[Session]:
    """The sessions of one file as they stream, a second session with an id already given
    (a damaged or hand-edited file) under a new id, with a problem, so no page is overwritten."""
    seen: set[str] = set()
    for session in sessions:
        if session.id in seen:
            new_id = copy_id(session.id, f"{session.source.path}#{len(seen)}", seen)
            problems.add(
                session.source.path,
                session.source.line,
                f"session id {session.id} given twice in this file; the second is kept as {new_id}",
            )
            session = replace(session, id=new_id)
        seen.add(session.id)
        yield session


def merge_sessions(first: Session, second: Session) -> Session | None:
    """One session holding every event of both, or None when they truly conflict."""
    a, b = first.events, second.events
    shared = {e.id for e in a} & {e.id for e in b}
    if not shared and a and b:
        return _joined(first, second)
    mine = {e.id: e for e in a}
    if any(not _same_record(mine[e.id], e) for e in b if e.id in shared):
        return None
    fuller, other = (second, first) if len(b) > len(a) else (first, second)
    events = _union(fuller.events, other.events)
    return _combined(fuller, other, events)


def _joined(first: Session, second: Session) -> Session | None:
    """Slices of one session with no record in common (a checkpointing tool that keeps
    each stretch of a session apart): one after the other, when their times do not overlap."""
    if not (first.started and first.ended and second.started and second.ended):
        return None
    if first.ended <= second.started:
        return _combined(first, second, first.events + second.events)
    if second.ended <= first.started:
        return _combined(second, first, second.events + first.events)
    return None


def _same_record(x: Event, y: Event) -> bool:
    """The same record read from two files: same kind, text and call (a later snapshot
    may have more of a sub-agent's transcript, so children are merged, not compared)."""
    return _identity(x) == _identity(y)


def _identity(e: Event) -> tuple[object, ...]:
    return (e.kind, e.text, e.tool_name, e.call_id, e.timestamp)


def _union(base: tuple[Event, ...], other: tuple[Event, ...]) -> tuple[Event, ...]:
    """``base`` in order, each event of ``other`` it lacks inserted after the event that
    precedes it in ``other``; an event both have keeps the fuller transcript of a sub-agent."""
    in_base = {e.id: e for e in base}
    after: dict[str | None, list[Event]] = {}
    anchor: str | None = None
    for event in other:
        if event.id in in_base:
            anchor = event.id
            if event.children and in_base[event.id].children != event.children:
                in_base[event.id] = replace(
                    in_base[event.id], children=_union(in_base[event.id].children, event.children)
                )
        else:
            after.setdefault(anchor, []).append(event)
    out: list[Event] = list(after.get(None, ()))
    for event in base:
        out.append(in_base[event.id])
        out.extend(after.get(event.id, ()))
    return tuple(out)


def _combined(fuller: Session, other: Session, events: tuple[Event, ...]) -> Session:
    """``fuller``'s fields, filled in from ``other`` where it has none; times span both."""
    meta: dict[str, Any] = {**other.meta, **fuller.meta}
    sources = [*_merged_from(fuller), *_merged_from(other)]
    meta["merged_from"] = list(dict.fromkeys(sources))
    skipped = dict(other.skipped)
    for reason, count in fuller.skipped.items():
        skipped[reason] = max(count, skipped.get(reason, 0))  # a record both files hold counts once
    return replace(
        fuller,
        events=events,
        title=fuller.title or other.title,
        started=_earliest((fuller.started, other.started)),
        ended=_latest((fuller.ended, other.ended)),
        cwd=fuller.cwd or other.cwd,
        project=fuller.project or other.project,
        models=tuple(dict.fromkeys((*fuller.models, *other.models))),
        usage=fuller.usage or other.usage,
        meta=meta,
        skipped=skipped,
    )


def _merged_from(session: Session) -> list[str]:
    known = session.meta.get("merged_from")
    return [str(p) for p in known] if isinstance(known, list) else [session.source.path]


def _earliest(stamps: Iterable[Any]) -> Any:
    present = [s for s in stamps if s is not None]
    return min(present) if present else None


def _latest(stamps: Iterable[Any]) -> Any:
    present = [s for s in stamps if s is not None]
    return max(present) if present else None


def copy_id(session_id: str, source: str, taken: Collection[str]) -> str:
    """A new id for a conflicting copy of a session, stable for the file it came from."""
    digest = hashlib.sha1(source.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    new_id = f"{session_id}-{digest}"
    suffix = 2
    while new_id in taken:
        new_id = f"{session_id}-{digest}-{suffix}"
        suffix += 1
    return new_id
