"""Goose sessions: a database's session rows (and its threads), or one older ``.jsonl`` file.

A session's header (a database row, or a ``.jsonl`` file's first line) gives its name,
working folder, times, token totals, model and kind (``user``, ``scheduled``,
``sub_agent`` …); its messages give the events. A thread (Goose 1.2x: one chat across
sessions) is a session of its own for the messages it holds that are not copies of a
session's messages (the same ``message_id``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sessite.model import Kind, Problems, Session, Usage
from sessite.readers._util import as_str, obj, opt_int, text_of, to_float
from sessite.readers.base import parse_time
from sessite.readers.builder import SessionBuilder
from sessite.readers.formats.goose.content import Message, MessageReader, message_of
from sessite.readers.formats.goose.database import NAME, GooseDb
from sessite.readers.safejson import loads

AGENT = "goose"
# Names Goose gives a session until it names it (or the user does).
PLACEHOLDER_NAMES = frozenset({"CLI Session", "ACP Session", "New Chat", "New session", ""})
THREAD_COPY = "the thread's copy of a session message (shown in that session)"
HEADER = "session header (its name, folder, times and totals are the page's header)"
_META_KEYS = ("session_type", "provider_name", "goose_mode", "schedule_id", "project_id", "archived_at", "thread_id")


def db_sessions(db: GooseDb) -> Iterator[Session]:
    rows = db.sessions()
    known = {as_str(row["id"]) for row in rows}
    rows += [{"id": sid} for sid in db.orphan_sessions(known)]
    for row in rows:
        sid = as_str(row["id"])
        b = _builder(db.path, db.problems)
        reader = MessageReader(b)
        for message in db.messages(sid):
            reader.message(message)
        if b.events:
            yield _session(b, sid, row)
    copies = db.message_keys()
    for thread in db.threads():
        tid = as_str(thread.get("id"))
        b = _builder(db.path, db.problems)
        reader = MessageReader(b)
        for message in db.thread_messages(tid):
            if message.id in copies:
                b.merged(message.line, THREAD_COPY)
            else:
                reader.message(message)
        if b.events:
            yield _session(b, f"thread-{tid}", thread)


def jsonl_session(path: Path, lines: Iterator[tuple[int, dict[str, Any]]], problems: Problems) -> Session | None:
    """An older ``<id>.jsonl``: a header line, then one message per line."""
    b = _builder(path, problems)
    reader = MessageReader(b)
    header: dict[str, Any] = {}
    header_line: int | None = None
    for line, record in lines:
        if header_line is None and "role" not in record and "content" not in record:
            header, header_line = record, line
            continue
        message = message_of(record, line, f"line-{line}")
        if isinstance(message, Message):
            reader.message(message)
        else:
            b.report(line, f"{message}; shown as raw JSON")
            b.emit(f"line-{line}", kind=Kind.UNKNOWN, title="Goose record", raw=record, line=line)
    if not b.events:
        b.skip("session without messages", line=header_line)
        return None
    b.merged(header_line, HEADER)
    sid = text_of(header.get("id")) or path.stem
    return _session(b, sid, header)


def _builder(path: Path, problems: Problems) -> SessionBuilder:
    return SessionBuilder(NAME, path, problems, agent=AGENT, label=NAME)


def _session(b: SessionBuilder, sid: str, row: dict[str, Any]) -> Session:
    """The Session: the header's facts, the events' times where the header has none."""
    name = text_of(row.get("name")) or text_of(row.get("description"))
    user_named = bool(opt_int(row.get("user_set_name")) or row.get("user_set_name") is True)
    title = name if name and (user_named or name not in PLACEHOLDER_NAMES) else None
    config = _json(row.get("model_config_json"))
    model = text_of(obj(config).get("model_name"))
    usage = Usage(
        input_tokens=_count(row, "accumulated_input_tokens", "input_tokens"),
        output_tokens=_count(row, "accumulated_output_tokens", "output_tokens"),
    )
    return b.finish(
        sid,
        title=title,
        started=parse_time(row.get("created_at")),
        ended=parse_time(row.get("updated_at")),
        cwd=text_of(row.get("working_dir")),
        models=[model] if model else None,
        usage=usage or None,
        meta=_meta(row),
    )


def _meta(row: dict[str, Any]) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    for key in _META_KEYS:
        value = row.get(key)
        if value not in (None, "") and not (key == "session_type" and value == "user"):
            meta[key.replace("_", " ")] = value
    cost = to_float(row.get("accumulated_cost"))
    if cost:
        meta["cost"] = round(cost, 6)
    total = opt_int(row.get("accumulated_total_tokens")) or opt_int(row.get("total_tokens"))
    if total:
        meta["total tokens"] = total
    recipe = obj(_json(row.get("recipe_json")))
    if text_of(recipe.get("title")):
        meta["recipe"] = recipe["title"]
    values = _json(row.get("user_recipe_values_json"))
    if isinstance(values, dict) and values:
        meta["recipe values"] = values
    extension = _json(row.get("extension_data")) if not isinstance(row.get("extension_data"), dict) else None
    extension = extension if extension is not None else row.get("extension_data")
    for key, value in obj(extension).items():
        if key.startswith("todo") and text_of(obj(value).get("content")):
            meta["todo"] = obj(value)["content"]
    return meta


def _count(row: dict[str, Any], *keys: str) -> int:
    for key in keys:
        number = opt_int(row.get(key))
        if number is not None and number > 0:
            return number
    return 0


def _json(raw: Any) -> Any:
    if not isinstance(raw, str) or not raw.strip():
        return None
    try:
        return loads(raw)
    except ValueError:
        return None
