"""The GitHub Copilot CLI reader: ``~/.copilot/session-state/<id>/events.jsonl`` (and ``<id>.jsonl``).

One file is one session. Each line is ``{type, data, id, timestamp, parentId}``; the
first is ``session.start`` (``data.sessionId``, ``producer: "copilot-agent"``). The file
is read twice: once to link records that name each other (``index``), once to turn
each record, in order, into events (``messages``, ``calls``, ``hooks``, ``notes``).
Every record is shown, merged into the event that shows it, or counted with a reason.

Snapshots of one session (a checkpointing tool such as Entire keeps several) share the
session id: ``session_key`` lets discovery read them together, and event ids come from
the records' own ids, so the same record is one event whichever file it is read from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sessite.model import GitRefs, Kind, Problems, Session
from sessite.readers._util import obj, text_of
from sessite.readers.base import Reader, Sniff
from sessite.readers.formats.copilot_cli import calls, hooks, messages, notes
from sessite.readers.formats.copilot_cli.index import index_file
from sessite.readers.formats.copilot_cli.state import CopilotFile, record_id
from sessite.readers.formats.copilot_cli.vocabulary import AGENT, NAME, NOT_SHOWN
from sessite.readers.platform import Platform

Handler = Callable[[CopilotFile, int, dict[str, Any], dict[str, Any]], None]

HANDLERS: dict[str, Handler] = {
    "session.start": notes.session_start,
    "user.message": messages.user_message,
    "assistant.message": messages.assistant_message,
    "assistant.reasoning": messages.reasoning,
    "tool.execution_start": calls.tool_start,
    "tool.execution_complete": calls.tool_result,
    "hook.start": hooks.hook_start,
    "hook.end": hooks.hook_end,
    "permission.requested": hooks.permission_requested,
    "permission.completed": hooks.permission_completed,
    "session.compaction_start": notes.compaction,
    "session.compaction_complete": notes.compaction,
    **{kind: notes.note for kind in notes.NOTES},
}
# Record types the reader knows (the rest are titled notes, with one problem per type).
KNOWN_TYPES = frozenset({*HANDLERS, *NOT_SHOWN, "subagent.started", "subagent.completed", "subagent.failed"})
# Types that open a Copilot CLI log, and those of its other records (for a file cut before its start).
_OPENING = ("session.start", "session.resume")
_EVENT_TYPES = ("session.", "user.message", "assistant.", "tool.execution_", "hook.", "permission.", "subagent.")


class CopilotCliReader(Reader):
    name = NAME
    claims_directories = False
    agent = AGENT

    def detect(self, sniffed: Sniff) -> bool:
        if sniffed.path.suffix.lower() != ".jsonl":
            return False
        head = sniffed.object_line()
        if head is None:
            return False
        first = head[2]
        if first is not None and first.get("type") in _OPENING:
            data = obj(first.get("data"))
            return data.get("producer") == "copilot-agent" or "copilotVersion" in data or _shaped(first)
        shaped = [_shaped(record) for record in sniffed.json_lines(5)]
        return len(shaped) >= 2 and all(shaped)

    def session_key(self, sniffed: Sniff) -> str | None:
        """The session id ``session.start`` gives: snapshots of one session are read together."""
        head = sniffed.object_line()
        first = head[2] if head is not None else None
        if first is None or first.get("type") != "session.start":
            return None
        return text_of(obj(first.get("data")).get("sessionId"))

    def default_folders(self, plat: Platform) -> list[Path]:
        """``session-state`` in ``$COPILOT_HOME`` (``~/.copilot`` by default)."""
        return [(plat.var("COPILOT_HOME") or plat.home / ".copilot") / "session-state"]

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        index = index_file(path, problems)
        if not index.records:
            return
        f = CopilotFile(path, problems, index)
        for line, record in index.records:
            _read_record(f, line, record)
        yield _session(f, path)


def _shaped(record: dict[str, Any]) -> bool:
    """A Copilot CLI event line: a dotted type of its vocabulary, a data object, an id and a time."""
    kind = record.get("type")
    return (
        isinstance(kind, str)
        and kind.startswith(_EVENT_TYPES)
        and isinstance(record.get("data"), dict)
        and "id" in record
        and "timestamp" in record
    )


def _read_record(f: CopilotFile, line: int, record: dict[str, Any]) -> None:
    kind = record.get("type")
    data = record.get("data")
    if not isinstance(kind, str) or not isinstance(data, dict):
        f.report(line, "record without a type or a data object; shown as raw JSON")
        f.put(
            record_id(record, "record"),
            None,
            kind=Kind.UNKNOWN,
            title="Copilot record without type or data",
            raw=record,
            line=line,
        )
        return
    try:
        if kind in NOT_SHOWN:
            f.skip(NOT_SHOWN[kind], line=line)
        elif kind in HANDLERS:
            HANDLERS[kind](f, line, record, data)
        elif kind.startswith("subagent."):
            notes.subagent(f, line, record, data)
        else:
            notes.other(f, line, record, data)
    except Exception as exc:  # noqa: BLE001 - one odd record costs that record, never the file
        f.unreadable(line, f"{kind} record", record, exc)


def _session(f: CopilotFile, path: Path) -> Session:
    facts = f.facts
    raw_id = facts.session_id or (path.parent.name if path.name == "events.jsonl" else path.stem)
    meta = dict(facts.meta)
    return f.finish(
        raw_id,
        events=f.transcript(),
        started=facts.started,
        cwd=facts.cwd,
        title=facts.title,
        git=GitRefs(branches=tuple(facts.branches), commits=tuple(facts.commits), repos=tuple(facts.repos)),
        usage=facts.usage,
        meta=meta,
    )


READER = CopilotCliReader()
