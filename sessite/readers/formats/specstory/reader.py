"""The SpecStory reader: one session per ``.specstory/history/*.md`` file.

Each role line is one record: a user's turn is one message; an agent's turn gives its words,
thinking and tool uses as events, a tool's output as the call's result. A sub-agent's turns
(``Agent - sidechain``) in a row become one sub-agent event holding them.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from sessite.model import Event, Kind, Problems, Session, ToolCategory
from sessite.readers import ledger
from sessite.readers.base import Reader, Sniff, parse_time
from sessite.readers.builder import SessionBuilder
from sessite.readers.files import decode_bytes, read_bytes
from sessite.readers.formats.specstory.markdown import (
    GENERATED,
    ROLE,
    Header,
    Part,
    Turn,
    command,
    parts,
    tool_output,
    turns,
)
from sessite.readers.platform import Platform

NAME = "specstory"
_CATEGORIES = {
    "shell": ToolCategory.SHELL,
    "read": ToolCategory.READ,
    "write": ToolCategory.EDIT,
    "search": ToolCategory.SEARCH,
    "task": ToolCategory.TASK,
}


class SpecStoryReader(Reader):
    name = NAME
    agent = NAME
    dot_names = (".specstory",)  # committed inside a project

    def detect(self, sniffed: Sniff) -> bool:
        if sniffed.is_dir or sniffed.path.suffix.lower() != ".md":
            return False
        head = sniffed.text(4096).lstrip("\ufeff").lstrip()
        if head.startswith(GENERATED):
            return True
        # The Cursor extension's older files, kept in .specstory/history: a title, then bare role lines.
        return (
            sniffed.path.parent.name == "history"
            and sniffed.path.parent.parent.name == ".specstory"
            and any(ROLE.match(line) for line in head.split("\n")[:60])
        )

    def default_folders(self, plat: Platform) -> list[Path]:
        """None: SpecStory writes ``.specstory/history`` inside each project, not below the home."""
        return []

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        data = read_bytes(path, problems)
        if data is None:
            return
        text, replaced = decode_bytes(data)
        if replaced:
            problems.add(path, None, "invalid UTF-8; undecodable bytes replaced")
        header, found = turns([line.rstrip("\r") for line in text.split("\n")])
        if not found:
            problems.add(path, None, "specstory: no turns (no _**User**_ or _**Agent**_ line); skipped")
            return
        yield _session(path, problems, header, found)


def _session(path: Path, problems: Problems, header: Header, found: list[Turn]) -> Session:
    b = SessionBuilder(NAME, path, problems)
    side: list[Event] = []
    side_builder = SessionBuilder(NAME, path, problems)
    side_builder.ids, side_builder.models, side_builder.skipped = b.ids, b.models, b.skipped  # one session's
    for turn in found:
        if turn.sidechain:
            side.extend(_turn_events(side_builder, turn))
            continue
        _close_side(b, side)
        for event in _turn_events(b, turn):
            b.add(event)
    _close_side(b, side)
    stamp = parse_time(_iso(header.stamp)) if header.stamp else None
    title = header.title if header.title and parse_time(_iso(header.title)) is None else None
    meta = {"recorded from": header.provider} if header.provider else {}
    return b.finish(header.session_id or path.stem, started=stamp, title=title, meta=meta)


def _close_side(b: SessionBuilder, side: list[Event]) -> None:
    if not side:
        return
    for event in side:
        ledger.shown(b.path, event.line)
    b.add(
        Event(
            id=b.ids.take(f"side-{side[0].id}"),
            kind=Kind.SUBAGENT,
            timestamp=side[0].timestamp,
            title="sub-agent (sidechain)",
            children=tuple(side),
            line=side[0].line,
        )
    )
    side.clear()


def _iso(stamp: str) -> str:
    return stamp.replace(" ", "T")


def _turn_events(b: SessionBuilder, turn: Turn) -> list[Event]:
    when = parse_time(_iso(turn.stamp)) if turn.stamp else None
    b.model(turn.model if turn.role == "agent" else None)
    if turn.role == "user":
        body = turn.body
        if not body.strip():
            b.skip("empty user turn", line=turn.line)
            return []
        return [Event(id=b.ids.take(f"l{turn.line}"), kind=Kind.USER, timestamp=when, text=body, line=turn.line)]
    out: list[Event] = []
    for part in parts(turn):
        out.extend(_part_events(b, turn, part, when))
    if not out:
        b.skip("empty agent turn", line=turn.line)
    return out


def _part_events(b: SessionBuilder, turn: Turn, part: Part, stamp: datetime | None) -> list[Event]:
    base = f"l{part.line}"
    model = turn.model
    if part.kind == "thinking":
        return [Event(id=b.ids.take(base), kind=Kind.THINKING, timestamp=stamp, text=part.text, line=turn.line)]
    if part.kind == "text":
        return [
            Event(
                id=b.ids.take(base), kind=Kind.ASSISTANT, timestamp=stamp, text=part.text, model=model, line=turn.line
            )
        ]
    asked, output = tool_output(part.text)
    category = _CATEGORIES.get(part.tool_type)
    call_id = b.ids.take(f"{base}-call")
    cmd = command(asked) if category == ToolCategory.SHELL else None
    call = Event(
        id=call_id,
        kind=Kind.TOOL_CALL,
        timestamp=stamp,
        tool_name=part.tool_name or part.summary or "tool",
        category=category,
        command=cmd,
        text=asked,
        call_id=call_id,
        model=model,
        line=turn.line,
    )
    if output is None:
        return [call]
    result = Event(
        id=b.ids.take(f"{base}-result"),
        kind=Kind.TOOL_RESULT,
        timestamp=stamp,
        text=output,
        call_id=call_id,
        tool_name=call.tool_name,
        line=turn.line,
    )
    return [call, result]


READER = SpecStoryReader()
