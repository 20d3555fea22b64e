"""One conversation as a session: the transcript's steps in order, the artifacts, messages and task
logs placed among them by their time, and what could not be read counted."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from sessite.model import Event, Kind, Problems, Session
from sessite.readers.files import iter_jsonl
from sessite.readers.formats.antigravity import extras
from sessite.readers.formats.antigravity.artifacts import artifacts_of, heading, read_artifact
from sessite.readers.formats.antigravity.layout import brain_files, side_files
from sessite.readers.formats.antigravity.state import BrainBuilder
from sessite.readers.formats.antigravity.steps import Step, read_steps
from sessite.readers.formats.antigravity.vocabulary import SAME_STEP, SYSTEM_GENERATED, TRANSCRIPT, TRANSCRIPT_FULL

_EARLIEST = datetime.min.replace(tzinfo=UTC)


def brain_session(folder: Path, problems: Problems) -> Session | None:
    b = BrainBuilder(folder, problems)
    files = brain_files(folder)
    logs = folder / SYSTEM_GENERATED / "logs"
    full, part = logs / TRANSCRIPT_FULL, logs / TRANSCRIPT
    read_steps(b, transcript_steps(b, full if full in files else None, part if part in files else None))
    steps = list(b.events)
    artifacts, others = artifacts_of(files, folder)
    extra = [read_artifact(b, art) for art in artifacts]
    for path in files:
        if path in (full, part) or path.parent == folder and path not in others:
            continue  # the transcript, an artifact's file
        where = path.relative_to(folder).parts
        inside = where[1] if len(where) == 3 and where[0] == SYSTEM_GENERATED else None
        if inside == "messages" and path.suffix == ".json":
            extra.append([e for e in (extras.read_message(b, path),) if e])
        elif inside == "tasks" and path.suffix == ".log":
            extra.append([e for e in (extras.read_task_log(b, path),) if e])
        else:
            extras.other_file(b, path)
    for kind, path in side_files(folder).items():
        if kind == "annotations":
            extras.read_annotations(b, path)
        else:
            extras.unreadable(b, path, kind)
    if not b.events and not b.skipped:
        return None
    events = place(steps, extra)
    said = any(e.kind == Kind.USER and e.text.strip() for e in events)
    return b.finish(folder.name, events=events, source=folder, title=None if said else heading(artifacts), meta=b.meta)


def log_session(path: Path, problems: Problems) -> Session | None:
    """A transcript file on its own (Antigravity CLI, or a copy)."""
    b = BrainBuilder(path, problems)
    read_steps(b, in_step_order([(path, line, record) for line, record in iter_jsonl(path, problems)]))
    if not b.events and not b.skipped:
        return None
    in_brain = path.name in (TRANSCRIPT, TRANSCRIPT_FULL) and path.parent.parent.name == SYSTEM_GENERATED
    return b.finish(path.parents[2].name if in_brain else path.stem, source=path, meta=b.meta)


def transcript_steps(b: BrainBuilder, full: Path | None, part: Path | None) -> list[Step]:
    """The steps of ``transcript_full.jsonl`` (else ``transcript.jsonl``); a step of ``transcript.jsonl``
    the full one also holds (by ``step_index``) is merged into it, any other added."""
    main = full or part
    if main is None:
        return []
    steps: list[Step] = [(main, line, record) for line, record in iter_jsonl(main, b.problems)]
    if full is None or part is None:
        return in_step_order(steps)
    have = {r.get("step_index") for _, _, r in steps if _index(r) is not None}
    added: list[Step] = []
    for line, record in iter_jsonl(part, b.problems):
        if _index(record) is not None and record.get("step_index") in have:
            b.merge_at(part, line, SAME_STEP)
        else:
            added.append((part, line, record))
    return in_step_order(steps + added)


def in_step_order(steps: list[Step]) -> list[Step]:
    """The steps by ``step_index`` when each has its own: Antigravity may write a tool's step before
    the planner response that called it (seen in a real transcript); else as the files have them."""
    indexes = [_index(r) for _, _, r in steps]
    if None in indexes or len(set(indexes)) < len(indexes):
        return steps  # a step without its index, or two with one: the files' own order
    return sorted(steps, key=lambda step: _index(step[2]) or 0)


def place(steps: list[Event], blocks: list[list[Event]]) -> tuple[Event, ...]:
    """The transcript's events in order, each block (an artifact and its revisions, a message)
    after the last step at or before its time; a block without a time at the end."""
    slots: dict[int, list[tuple[datetime | None, int, list[Event]]]] = {}
    for number, block in enumerate(blocks):
        if not block:
            continue
        anchor = max((e.timestamp for e in block if e.timestamp), default=None)
        at = len(steps) if anchor is None else _after(steps, anchor)
        slots.setdefault(at, []).append((anchor, number, block))
    out: list[Event] = []
    for at in range(len(steps) + 1):
        for _, _, block in sorted(slots.get(at, ()), key=lambda s: (s[0] is None, s[0] or _EARLIEST, s[1])):
            out += block
        if at < len(steps):
            out.append(steps[at])
    return tuple(out)


def _after(steps: list[Event], anchor: datetime) -> int:
    at = 0
    for index, event in enumerate(steps):
        if event.timestamp is not None and event.timestamp <= anchor:
            at = index + 1
    return at


def _index(record: dict[str, object]) -> int | None:
    value = record.get("step_index")
    return value if isinstance(value, int) and not isinstance(value, bool) else None
