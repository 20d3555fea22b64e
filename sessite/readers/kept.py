"""Earlier versions of a session file that ``sessite collect`` kept, and what the agent dropped.

When an agent deletes, compacts or rewrites a session file, ``sessite collect`` keeps the copy it
had under ``<archive>/.sessite-kept/<UTC time>/`` at the same path the file has in the archive
(``.sessite-kept/20261128T224300Z/.claude/projects/p/s.jsonl``). The same name in the same layout,
so every reader recognises it as it recognises the current file, folder formats included.

Discovery reads a kept copy together with the current file (``join_kept``), and the events only
the earlier copy holds are shown where they were, marked as dropped by the agent
(``mark_dropped``): a compacted session shows what the agent dropped and what it added.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path, PurePath

from sessite.model import Event, Kind, Session

KEPT_DIR = ".sessite-kept"
DROPPED = "dropped_by_agent"  # the event meta key that marks what only an earlier copy holds


def logical_parts(parts: Sequence[str]) -> tuple[str, ...]:
    """``parts`` without ``.sessite-kept/<time>``: where a kept file sits in the archive's layout."""
    parts = tuple(parts)
    if KEPT_DIR not in parts:
        return parts
    i = parts.index(KEPT_DIR)
    return parts[:i] + parts[i + 2 :]


def is_kept(path: PurePath) -> bool:
    """Whether ``path`` is an earlier version kept by ``sessite collect``."""
    return KEPT_DIR in path.parts


def kept_time(path: PurePath) -> str:
    """The time folder a kept copy sits in (``20261128T224300Z``), or ``""``."""
    parts = path.parts
    if KEPT_DIR not in parts:
        return ""
    i = parts.index(KEPT_DIR)
    return parts[i + 1] if i + 1 < len(parts) else ""


def current_path(path: Path) -> Path:
    """The path of the current file a kept copy is an earlier version of (``path`` itself otherwise)."""
    return Path(*logical_parts(path.parts)) if is_kept(path) else path


def mark_dropped(
    merged: Sequence[Session], current: Sequence[Sequence[Session]], kept: Sequence[Sequence[Session]]
) -> list[Session]:
    """Each merged session with the events that only the kept copies hold marked as dropped by
    the agent, each run of them opened and closed by a marker line saying so."""
    now: dict[str, set[str]] = {}
    for sessions in current:
        for session in sessions:
            now.setdefault(session.id, set()).update(e.id for e in session.events)
    earlier: dict[str, dict[str, str]] = {}  # session id -> event id -> kept time
    for sessions in kept:
        for session in sessions:
            when = kept_time(PurePath(session.source.path))
            for e in session.events:
                earlier.setdefault(session.id, {}).setdefault(e.id, when)
    out = []
    for session in merged:
        present = now.get(session.id)
        gone = earlier.get(session.id, {})
        if present is None or not gone:
            out.append(session)
            continue
        out.append(replace(session, events=_marked(session.events, present, gone)))
    return out


def _marked(events: tuple[Event, ...], present: set[str], gone: dict[str, str]) -> tuple[Event, ...]:
    out: list[Event] = []
    run: list[Event] = []

    def close() -> None:
        if not run:
            return
        when = gone[run[0].id]
        out.append(
            Event(
                id=f"dropped-{run[0].id}",
                kind=Kind.COMPACTION,
                timestamp=run[0].timestamp,
                title="Dropped by the agent: what follows, to the end of what the agent dropped",
                text=(
                    "The agent later removed what follows from the session file; "
                    f"`sessite collect` kept the earlier copy ({KEPT_DIR}/{when})."
                ),
            )
        )
        out.extend(run)
        out.append(
            Event(
                id=f"dropped-end-{run[0].id}",
                kind=Kind.COMPACTION,
                timestamp=run[-1].timestamp,
                title="End of what the agent dropped",
            )
        )
        run.clear()

    for event in events:
        if event.id in gone and event.id not in present:
            run.append(replace(event, meta={**event.meta, DROPPED: f"{KEPT_DIR}/{gone[event.id]}"}))
            continue
        close()
        out.append(event)
    close()
    return tuple(out)
