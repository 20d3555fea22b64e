"""A session as a readable Markdown transcript: its facts, then every event.

Tool results sit under their call; code, diffs and JSON are fenced with a
fence longer than any inside them; only plain web links become links. The text
is produced an event at a time (``markdown_chunks``) so a huge session is never
held whole.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from sessite.interchange.extension import encode, jsonable
from sessite.interchange.streaming import joined_lines, trim_end
from sessite.model import Block, Event, Kind, Session, session_title, walk

_MD_TITLES = {
    Kind.USER: "User",
    Kind.ASSISTANT: "Assistant",
    Kind.SYSTEM: "System",
    Kind.THINKING: "Thinking",
    Kind.COMPACTION: "Compaction",
    Kind.TASK_START: "Task start",
    Kind.TASK_END: "Task end",
    Kind.UNKNOWN: "Unrecognized record",
}
_WEB_LINK = re.compile(r"https?://[^\s<>]+$")

# A tool call's id -> the results that answer it (shown under the call, not on their own).
_Results = dict[str, list[Event]]


def to_markdown(session: Session) -> str:
    """A readable Markdown transcript: facts, then every event (tool results under their call)."""
    return "".join(markdown_texts(session))


def markdown_chunks(session: Session) -> Iterator[bytes]:
    """``to_markdown`` as UTF-8 pieces (one per event), for writing without the whole text."""
    for text in markdown_texts(session):
        yield encode(text)


def markdown_texts(session: Session) -> Iterator[str]:
    """The transcript's text in pieces: the lines joined by newlines, trailing newlines trimmed to one."""
    return trim_end(joined_lines(markdown_line_groups(session)))


def markdown_line_groups(session: Session) -> Iterator[list[str]]:
    """The transcript's lines, a group at a time: the title and facts, then each event."""
    out: list[str] = [f"# {_md_line(session_title(session, 200))}", ""]
    out += [f"- **{k}:** {_md_line(v)}" for k, v in _facts(session)]
    out.append("")
    yield out
    results: _Results = {}
    calls = {e.call_id for e in walk(session.events) if e.kind == Kind.TOOL_CALL and e.call_id}
    for event in walk(session.events):
        if event.kind == Kind.TOOL_RESULT and event.call_id in calls:
            results.setdefault(event.call_id, []).append(event)
    yield from _md_events(session.events, 2, results)


def _facts(session: Session) -> list[tuple[str, str]]:
    """The list under the title: agent, ids, model, project, times, git refs, source."""
    facts = [("Agent", f"{session.agent} ({session.source.format})"), ("Session", session.id)]
    if session.models:
        facts.append(("Model", ", ".join(session.models)))
    if session.project or session.cwd:
        facts.append(
            ("Project", " ".join(x for x in (session.project, f"`{session.cwd}`" if session.cwd else None) if x))
        )
    if session.started:
        facts.append(("Started", _md_time(session.started)))
    if session.ended:
        facts.append(("Ended", _md_time(session.ended)))
    for name in ("branches", "commits", "issues", "tags", "repos"):
        values = getattr(session.git, name)
        if values:
            facts.append((f"Git {name}", ", ".join(values)))
    facts.append(("Source", f"`{session.source.path}`"))
    return facts


def _md_events(events: Iterable[Event], level: int, results: _Results) -> Iterator[list[str]]:
    """Each event's lines, then its children's, one event at a time."""
    hashes = "#" * min(level, 6)
    for event in events:
        if event.kind == Kind.TOOL_RESULT and event.call_id in results and event in results[event.call_id]:
            continue  # shown under its call
        extras = [
            x
            for x in (
                event.model if event.kind == Kind.ASSISTANT else None,
                _md_time(event.timestamp) if event.timestamp else None,
            )
            if x
        ]
        head = _md_line(_heading(event))
        out = [f"{hashes} {head}{' · ' + _md_line(' · '.join(extras)) if extras else ''}", ""]
        _md_body(event, results, out)
        if event.diff and event.kind != Kind.TOOL_CALL:
            out += [_fence(event.diff, "diff"), ""]
        _md_blocks(event.blocks, out)
        yield out
        if event.children:
            yield from _md_events(event.children, level + 1, results)


def _heading(event: Event) -> str:
    if event.kind == Kind.TOOL_CALL:
        return f"Tool call: {event.tool_name or 'tool'}"
    if event.kind == Kind.TOOL_RESULT:
        return f"Tool result{': ' + event.tool_name if event.tool_name else ''}"
    if event.kind == Kind.SUBAGENT:
        return f"Sub-agent: {event.title or event.id}"
    head = _MD_TITLES.get(event.kind, event.kind.value.title())
    return head + f": {event.title}" if event.title else head


def _md_body(event: Event, results: _Results, out: list[str]) -> None:
    """The event's own content, by kind."""
    if event.kind == Kind.TOOL_CALL:
        _md_tool_call(event, results, out)
    elif event.kind == Kind.TOOL_RESULT:
        label = ("Error" if event.is_error else "Output") + (
            f" · exit {event.exit_code}" if event.exit_code is not None else ""
        )
        out += [f"**{label}:**", "", _fence(event.text, "text"), ""]
    elif event.kind == Kind.UNKNOWN and event.raw is not None:
        out += [_fence(json.dumps(jsonable(event.raw), ensure_ascii=False, indent=2), "json"), ""]
    elif event.kind == Kind.THINKING and event.text:
        out += ["\n".join("> " + line if line else ">" for line in event.text.splitlines()), ""]
    elif event.text:
        out += [event.text, ""]


def _md_tool_call(event: Event, results: _Results, out: list[str]) -> None:
    """The command or path, the input, the text and diff, then each result that answers the call."""
    if event.command:
        out += [_fence(event.command, "sh"), ""]
    elif event.path:
        out += [f"`{_md_line(event.path)}`", ""]
    if event.tool_input is not None and not (event.command and _only_command(event.tool_input)):
        out += [_fence(json.dumps(jsonable(event.tool_input), ensure_ascii=False, indent=2), "json"), ""]
    if event.text:
        out += [event.text, ""]
    if event.diff:
        out += [_fence(event.diff, "diff"), ""]
    for result in results.get(event.call_id or "", []):
        label = (
            "Result"
            + (" (error)" if result.is_error else "")
            + (f" · exit {result.exit_code}" if result.exit_code is not None else "")
        )
        out += [f"**{label}:**", "", _fence(result.text, "text"), ""]
        _md_blocks(result.blocks, out)


def _md_blocks(blocks: Iterable[Block], out: list[str]) -> None:
    for block in blocks:
        if block.type == "code":
            out += [_fence(block.text, block.language or ""), ""]
        elif block.type == "json":
            out += [_fence(json.dumps(jsonable(block.data), ensure_ascii=False, indent=2), "json"), ""]
        elif block.type == "file":
            out += [f"File `{_md_line(block.uri or block.title or '')}`:", "", _fence(block.text, ""), ""]
        elif block.type in ("image", "video", "audio", "reference"):
            uri = block.uri or ""
            label = _md_line(block.title or block.type)
            # Only plain web links become links; anything else (data:, javascript:) stays code.
            out += [
                f"[{label}](<{uri}>)" if _WEB_LINK.match(uri) else f"{block.type}: `{_md_line(uri[:200])}`",
                "",
            ]
        elif block.text:
            out += [_fence(block.text, "text"), ""]


def _only_command(tool_input: Any) -> bool:
    return isinstance(tool_input, dict) and set(tool_input) <= {"command", "cmd", "description"}


def _fence(text: str, language: str) -> str:
    text = text or ""
    # The substring test first: scanning every position with the regex is the slow part of a big export.
    longest = (
        max((len(m) for m in re.findall(r"`{3,}|~{3,}", text)), default=0) if "```" in text or "~~~" in text else 0
    )
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text or ''}\n{fence}"


def _md_line(text: str) -> str:
    return " ".join(str(text).split())


def _md_time(dt: datetime | None) -> str:
    return dt.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC") if dt else ""
