"""Goose's ``sessions.db``: its rows, type-checked, each message numbered as the record it is.

Records are numbered 1-based per database: every ``messages`` row in rowid order, then
every ``thread_messages`` row (Goose 1.2x keeps a chat's messages per thread too) in
rowid order; the fidelity enumerator numbers them the same way. Session and thread rows
are not records: they are the pages' headers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sessite.model import Problems
from sessite.readers._util import SQLITE_ERRORS, as_str, iter_rows, opt_int
from sessite.readers.formats.goose.content import Message
from sessite.readers.safejson import loads
from sessite.readers.sqlite_wal import open_database

NAME = "goose"
DB_NAME = "sessions.db"


class GooseDb:
    """A Goose database opened without writing (a ``-wal`` beside it applied in memory)."""

    def __init__(self, path: Path, problems: Problems) -> None:
        self.path = path
        self.problems = problems
        self.conn = open_database(path, problems, NAME)
        try:
            names = {as_str(r[0]) for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except SQLITE_ERRORS:
            self.conn.close()
            raise
        self.tables = names
        self.lines: dict[tuple[str, int], int] = {}  # (table, rowid) -> record number
        number = 0
        for table in ("messages", "thread_messages"):
            if table in names:
                for (rowid,) in self.conn.execute(f"SELECT rowid FROM {table} ORDER BY rowid"):
                    number += 1
                    self.lines[(table, rowid)] = number

    def close(self) -> None:
        self.conn.close()

    def report(self, line: int | None, message: str) -> None:
        self.problems.add(self.path, line, f"{NAME}: {message}")

    def sessions(self) -> list[dict[str, Any]]:
        """Every session row (columns decoded), oldest first."""
        if "sessions" not in self.tables:
            return []
        rows = [_decoded(row) for row in iter_rows(self.conn, "SELECT * FROM sessions ORDER BY created_at, rowid")]
        return [row for row in rows if row.get("id")]

    def threads(self) -> list[dict[str, Any]]:
        if "threads" not in self.tables:
            return []
        return [_decoded(row) for row in iter_rows(self.conn, "SELECT * FROM threads ORDER BY created_at, rowid")]

    def messages(self, session_id: str) -> list[Message]:
        return self._messages("messages", "session_id", session_id)

    def thread_messages(self, thread_id: str) -> list[Message]:
        return self._messages("thread_messages", "thread_id", thread_id)

    def orphan_sessions(self, known: set[str]) -> list[str]:
        """Session ids messages name that have no session row, in the order their messages came."""
        if "messages" not in self.tables:
            return []
        found: dict[str, None] = {}
        for (sid,) in self.conn.execute("SELECT session_id FROM messages ORDER BY rowid"):
            if as_str(sid) not in known:
                found.setdefault(as_str(sid), None)
        return list(found)

    def message_keys(self) -> set[str]:
        """The ``message_id`` of every session message (to find a thread's copies of them)."""
        if "messages" not in self.tables or "message_id" not in self._columns("messages"):
            return set()
        return {as_str(v) for (v,) in self.conn.execute("SELECT message_id FROM messages") if v is not None}

    def _columns(self, table: str) -> set[str]:
        return {as_str(row[1]) for row in self.conn.execute(f'PRAGMA table_info("{table}")')}

    def _messages(self, table: str, key: str, value: str) -> list[Message]:
        if table not in self.tables:
            return []
        out = []
        sql = f'SELECT rowid AS _rowid, * FROM "{table}" WHERE {key} = ? ORDER BY created_timestamp, rowid'
        for row in iter_rows(self.conn, sql, (value,)):
            line = self.lines.get((table, row["_rowid"]), 0)
            content = self._json(row.get("content_json"), line, "content_json")
            if not isinstance(content, list):
                if content is not None:
                    self.report(line, f"content_json is a {type(content).__name__}, not a list; message not shown")
                content = None
            metadata = self._json(row.get("metadata_json"), line, "metadata_json")
            out.append(
                Message(
                    line=line,
                    id=as_str(row.get("message_id")) or f"{table}-{row['_rowid']}",
                    role=as_str(row.get("role")) or "assistant",
                    created=opt_int(row.get("created_timestamp")) or as_str(row.get("timestamp")) or None,
                    content=content if content is not None else [],
                    metadata=metadata if isinstance(metadata, dict) else {},
                    tokens=opt_int(row.get("tokens")),
                    unreadable=content is None,
                )
            )
        return out

    def _json(self, raw: Any, line: int, column: str) -> Any:
        if raw is None:
            return None
        notes: list[str] = []
        try:
            value = loads(as_str(raw), notes)
        except ValueError as exc:
            self.report(line, f"{column} is not JSON ({exc})")
            return None
        for note in notes:
            self.report(line, note)
        return value


def _decoded(row: dict[str, Any]) -> dict[str, Any]:
    return {k: as_str(v) if isinstance(v, (bytes, bytearray)) else v for k, v in row.items()}
