"""The AI tables of ``warp.sqlite``, their rows numbered as records (the rest of the file is terminal state).

Records are numbered 1-based per database, in this order: every message of every
``agent_tasks`` row (rows in rowid order, each task's messages in their order; a task
whose bytes do not parse is one record), then every ``ai_queries`` row, then every
``ai_blocks`` row, each in rowid order. ``agent_conversations`` rows (usage and credits
per conversation) are the pages' headers, not records. Blocks, commands, workflows,
notebooks, users and the other tables are Warp's terminal state, not conversations:
they are never read.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessite.model import Problems
from sessite.readers._util import as_str, iter_rows
from sessite.readers.formats.warp.proto import Fields, ProtoError
from sessite.readers.safejson import loads
from sessite.readers.sqlite_wal import open_database

NAME = "warp"


@dataclass
class Task:
    conversation: str
    task_id: str
    row: int
    fields: Fields | None  # None: the bytes did not parse
    first_line: int  # the record number of its first message
    modified: Any = None

    @property
    def description(self) -> str:
        return self.fields.text(2) if self.fields is not None else ""

    @property
    def parent(self) -> str:
        deps = self.fields.message(3) if self.fields is not None else None
        return deps.text(1) if deps is not None else ""

    def messages(self) -> list[tuple[int, bytes]]:
        """(record number, message bytes) of each message."""
        if self.fields is None:
            return []
        return [(self.first_line + i, raw) for i, raw in enumerate(self.fields.raw(5)) if isinstance(raw, bytes)]


@dataclass
class Exchange:
    """An ``ai_queries`` row (one request of a conversation) and its ``ai_blocks`` output, if any."""

    line: int
    conversation: str
    exchange_id: str
    start: Any
    input: Any  # the parsed ``input`` JSON (None when it is not JSON)
    working_directory: str
    status: Any
    model: str
    outputs: list[tuple[int, Any]] = field(default_factory=list)  # (record number, parsed output)


@dataclass
class WarpData:
    tasks: list[Task] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)
    conversations: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> conversation_data
    modified: dict[str, Any] = field(default_factory=dict)  # id -> last_modified_at
    orphan_blocks: list[int] = field(default_factory=list)  # ai_blocks rows whose exchange is not in ai_queries


def read(path: Path, problems: Problems) -> WarpData:
    """Every AI row of the database (its ``-wal`` applied in memory)."""
    conn = open_database(path, problems, NAME)
    try:
        return _read(conn, path, problems)
    finally:
        conn.close()


def _read(conn: sqlite3.Connection, path: Path, problems: Problems) -> WarpData:
    tables = {as_str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    data = WarpData()
    number = 0
    if "agent_tasks" in tables:
        for row in iter_rows(conn, "SELECT rowid AS _rowid, * FROM agent_tasks ORDER BY rowid"):
            fields = _task_fields(row.get("task"), path, number + 1, problems)
            task = Task(
                as_str(row.get("conversation_id")),
                as_str(row.get("task_id")),
                row["_rowid"],
                fields,
                number + 1,
                row.get("last_modified_at"),
            )
            number += sum(1 for v in fields.raw(5) if isinstance(v, bytes)) if fields is not None else 1
            data.tasks.append(task)
    by_exchange: dict[str, Exchange] = {}
    if "ai_queries" in tables:
        for row in iter_rows(conn, "SELECT * FROM ai_queries ORDER BY rowid"):
            number += 1
            exchange = Exchange(
                number,
                as_str(row.get("conversation_id")),
                as_str(row.get("exchange_id")),
                as_str(row.get("start_ts")) or None,
                _json(row.get("input")),
                as_str(row.get("working_directory")),
                _json(row.get("output_status")),
                as_str(row.get("model_id")),
            )
            data.exchanges.append(exchange)
            by_exchange.setdefault(exchange.exchange_id, exchange)
    if "ai_blocks" in tables:
        for row in iter_rows(conn, "SELECT exchange_id, output FROM ai_blocks ORDER BY rowid"):
            number += 1
            owner = by_exchange.get(as_str(row.get("exchange_id")))
            if owner is None:
                data.orphan_blocks.append(number)
            else:
                owner.outputs.append((number, _json(row.get("output"))))
    if "agent_conversations" in tables:
        for row in iter_rows(conn, "SELECT * FROM agent_conversations ORDER BY rowid"):
            cid = as_str(row.get("conversation_id"))
            parsed = _json(row.get("conversation_data"))
            data.conversations.setdefault(cid, parsed if isinstance(parsed, dict) else {})
            data.modified.setdefault(cid, as_str(row.get("last_modified_at")) or None)
    return data


def _task_fields(raw: Any, path: Path, line: int, problems: Problems) -> Fields | None:
    """A task's protobuf bytes, parsed; one problem (and one record) when they are not a message."""
    if not isinstance(raw, (bytes, bytearray)):
        problems.add(path, line, f"warp: an agent task is a {type(raw).__name__}, not protobuf bytes; not shown")
        return None
    try:
        return Fields(bytes(raw))
    except ProtoError as exc:
        problems.add(path, line, f"warp: an agent task is not readable ({exc}); not shown")
        return None


def _json(raw: Any) -> Any:
    if raw is None:
        return None
    try:
        return loads(as_str(raw))
    except ValueError:
        return as_str(raw)


def has_ai_tables(tables: set[str]) -> bool:
    return "agent_tasks" in tables or ("ai_queries" in tables and "__diesel_schema_migrations" in tables)
