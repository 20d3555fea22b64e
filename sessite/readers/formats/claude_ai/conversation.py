"""One claude.ai conversation turned into a Session: id, title, messages in time order, meta."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from sessite.model import Event, Kind, Problems, Session, SourceRef, make_session_id, one_line, user_words
from sessite.readers import ledger
from sessite.readers._util import Ids
from sessite.readers.base import parse_time
from sessite.readers.formats.claude_ai.builder import Ctx, what_is
from sessite.readers.formats.claude_ai.messages import message_events
from sessite.readers.formats.claude_ai.pairing import call_ids

NAME = "claude_ai"
_TITLE_LEN = 80
_EMPTY_MESSAGE = "empty message (no text, content or files)"
_NOT_AN_OBJECT = "message that is not an object"

# Conversation keys read into fields; every other non-empty key lands in meta.
_CONV_KEYS = {"uuid", "name", "created_at", "updated_at", "account", "chat_messages", "summary", "project", "model"}


def conversation_session(
    conv: dict[str, Any],
    index: int,
    line: int,
    path: Path,
    problems: Problems,
    reported: dict[str, int],
    first_record: int = 1,
) -> Session:
    """The Session of ``conv``, the ``index``-th conversation of the export, found at ``line``.

    ``reported`` counts the unknown block types already reported for this file. Its messages
    are records ``first_record``, ``first_record + 1`` … of the export (``Event.line``): the
    1-based index of a message among all the export's messages, in file order.
    """
    ctx = Ctx(path, line, problems, reported)
    raw_id = _conversation_id(conv, index, path, ctx)
    name = conv.get("name")
    if name is not None and not isinstance(name, str):
        ctx.problem(f"conversation {raw_id}: 'name' is a {type(name).__name__}, not a string; ignored")
        name = None
    for key in ("created_at", "updated_at"):
        if conv.get(key) is not None and parse_time(conv.get(key)) is None:
            ctx.problem(f"conversation {raw_id}: {key} is not a valid timestamp: {conv.get(key)!r}")
    model = conv.get("model") if isinstance(conv.get("model"), str) and conv.get("model") else None

    messages = conv.get("chat_messages")
    if not isinstance(messages, list):
        ctx.problem(f"conversation {raw_id}: 'chat_messages' is {what_is(messages)}, not an array")
        messages = []

    ordered, reordered = _in_time_order(messages)
    skipped: dict[str, int] = {}
    records = _Records(path, first_record, call_ids(raw_id, messages))
    events = _conversation_events(ordered, raw_id, ctx, skipped, model, records)
    first_human = next((e.text for e in events if e.kind == Kind.USER and user_words(e.text)), None)
    project, meta = _conversation_meta(conv, len(messages), reordered)
    timestamps = [e.timestamp for e in events if e.timestamp]
    return Session(
        id=make_session_id(NAME, raw_id),
        source=SourceRef(str(path), NAME, line),
        agent="claude.ai",
        events=tuple(events),
        title=name.strip() if name and name.strip() else _title_from(first_human),
        started=parse_time(conv.get("created_at")) or (min(timestamps) if timestamps else None),
        ended=parse_time(conv.get("updated_at")) or (max(timestamps) if timestamps else None),
        project=project,
        models=(model,) if model else (),
        meta=meta,
        skipped=skipped,
    )


def _conversation_id(conv: dict[str, Any], index: int, path: Path, ctx: Ctx) -> str:
    """The conversation's uuid (a number is taken as text), else one made from its position."""
    raw_id = conv.get("uuid")
    if isinstance(raw_id, (int, float)) and not isinstance(raw_id, bool):
        raw_id = str(raw_id)
    if not isinstance(raw_id, str) or not raw_id:
        ctx.problem(f"conversation #{index + 1} has no string 'uuid' (using its position)")
        raw_id = f"{path.stem}-{index + 1}"
    return raw_id


class _Records:
    """Where a conversation's messages are in the export (their record numbers) and their call ids."""

    def __init__(self, path: Path, first: int, calls: dict[tuple[int, int], str]) -> None:
        self.path = path
        self.first = first
        self.calls = calls

    def line(self, mindex: int) -> int:
        return self.first + mindex

    def calls_of(self, mindex: int) -> dict[int, str]:
        return {b: call for (m, b), call in self.calls.items() if m == mindex}

    def skip(self, mindex: int, reason: str, skipped: dict[str, int]) -> None:
        skipped[reason] = skipped.get(reason, 0) + 1
        ledger.not_shown(self.path, self.line(mindex), reason)


def _conversation_events(
    ordered: list[tuple[int, Any]],
    conv_id: str,
    ctx: Ctx,
    skipped: dict[str, int],
    model: str | None,
    records: _Records,
) -> list[Event]:
    """Every message's events, ids made unique within the conversation (``~2``, ``~3``…),
    each carrying its message's record number."""
    events: list[Event] = []
    unique = Ids("~")
    for mindex, message in ordered:
        if not isinstance(message, dict):
            ctx.problem(
                f"conversation {conv_id}: chat_messages[{mindex}] is a {type(message).__name__}, not an object; skipped"
            )
            records.skip(mindex, _NOT_AN_OBJECT, skipped)
            continue
        produced = message_events(message, mindex, conv_id, ctx, skipped, model, records.calls_of(mindex))
        if not produced:
            records.skip(mindex, _EMPTY_MESSAGE, skipped)
        line = records.line(mindex)
        for event in produced:
            events.append(replace(event, id=unique.take(event.id), line=line))
    return events


def _conversation_meta(conv: dict[str, Any], message_count: int, reordered: bool) -> tuple[str | None, dict[str, Any]]:
    """The conversation's project name and its meta (account, summary, project details, unread keys)."""
    meta: dict[str, Any] = {}
    account = conv.get("account")
    if isinstance(account, dict) and account.get("uuid"):
        meta["account uuid"] = account["uuid"]
    elif account not in (None, {}, ""):
        meta["account"] = account
    summary = conv.get("summary")
    if isinstance(summary, str) and summary.strip():
        meta["summary"] = summary
    meta["message count"] = message_count
    if reordered:
        meta["message order"] = "sorted by created_at (the export listed them out of order)"
    project, project_meta = _project(conv.get("project"))
    if project_meta:
        meta["project"] = project_meta
    for key, value in conv.items():
        if key not in _CONV_KEYS and value not in (None, "", [], {}):
            meta[key] = value
    return project, meta


def _in_time_order(messages: list[Any]) -> tuple[list[tuple[int, Any]], bool]:
    """Messages with their export index, stably sorted by created_at.

    Exports sometimes list a message out of place; when every message has a
    timestamp, time order is the conversation's order. Otherwise file order.
    """
    indexed = list(enumerate(messages))
    times = [parse_time(m.get("created_at")) if isinstance(m, dict) else None for m in messages]
    present = [t for t in times if t is not None]
    if not times or len(present) < len(times):
        return indexed, False
    if all(a <= b for a, b in zip(present, present[1:])):
        return indexed, False
    order = sorted(range(len(messages)), key=lambda i: present[i])
    return [indexed[i] for i in order], True


def _project(value: Any) -> tuple[str | None, Any]:
    """The project's name, and its details for meta (a bare name has none)."""
    if isinstance(value, str) and value.strip():
        return value.strip(), None
    if isinstance(value, dict):
        name = value.get("name")
        return (name if isinstance(name, str) and name else None), value
    return None, value if value not in (None, "", [], {}) else None


def _title_from(text: str | None) -> str | None:
    """A title from the user's own words in the first prompt, for conversations the export left unnamed."""
    words = user_words(text) if text else ""
    if not words:
        return None
    return one_line(words, _TITLE_LEN)
