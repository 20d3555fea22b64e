"""The rows of a ``crush.db``, type-checked, each numbered as the record it is.

Records are numbered 1-based per database: every ``messages`` row in rowid (insertion)
order, then every ``files`` row in rowid order (the fidelity enumerator numbers them the
same way). Sessions are not records: a session row is the page's header.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessite.model import Problems
from sessite.readers._util import SQLITE_ERRORS, as_str, iter_rows, opt_int, shown, to_float
from sessite.readers.sqlite_wal import open_database
from sessite.readers.zstd import Quota

NAME = "crush"
DB_NAME = "crush.db"
# The tables a Crush database has whatever its version (``goose_db_version``: Crush migrates with goose).
TABLES = frozenset({"sessions", "messages", "files", "goose_db_version"})


@dataclass
class SessionRow:
    id: str
    parent: str | None
    title: str | None
    created: int | None
    updated: int | None
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    summary_message: str | None
    todos: Any = None


@dataclass
class MessageRow:
    line: int  # the record number
    id: str
    role: str
    parts: Any  # the column as stored: JSON text (bytes) or a compressed blob
    model: str | None
    provider: str | None
    created: int | None
    summary: bool = False


@dataclass
class FileRow:
    line: int
    session: str
    path: str
    version: int | None


@dataclass
class Tally:
    """What the database holds per session, gathered in one pass over the rowids."""

    message_lines: dict[int, int] = field(default_factory=dict)  # rowid -> record number
    files: dict[str, list[FileRow]] = field(default_factory=dict)


class CrushStore:
    """A Crush database opened without writing (its ``-wal`` applied in memory)."""

    def __init__(self, path: Path, problems: Problems) -> None:
        self.path = path
        self.problems = problems
        self.zstd_quota = Quota()  # what all its zstd parts may decompress to, together
        self.conn = open_database(path, problems, NAME)
        try:
            tables = {as_str(r[0]) for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except SQLITE_ERRORS:
            self.conn.close()
            raise
        if not {"sessions", "messages"} <= tables:
            self.report(None, "the database has no sessions and messages tables; nothing to read")
        self.columns = {t: self._columns(t) for t in ("sessions", "messages", "files")}
        self.tally = self._tally()

    def close(self) -> None:
        self.conn.close()

    def report(self, line: int | None, message: str) -> None:
        self.problems.add(self.path, line, f"{NAME}: {message}")

    def _columns(self, table: str) -> set[str]:
        try:
            return {as_str(row[1]) for row in self.conn.execute(f'PRAGMA table_info("{table}")')}
        except SQLITE_ERRORS:
            return set()

    def _tally(self) -> Tally:
        tally = Tally()
        number = 0
        if "id" in self.columns["messages"]:
            for (rowid,) in self.conn.execute("SELECT rowid FROM messages ORDER BY rowid"):
                number += 1
                tally.message_lines[rowid] = number
        if {"session_id", "path"} <= self.columns["files"]:
            version = "version" if "version" in self.columns["files"] else "NULL"
            for _rowid, session, path, ver in self.conn.execute(
                f"SELECT rowid, session_id, path, {version} FROM files ORDER BY rowid"
            ):
                number += 1
                row = FileRow(number, as_str(session), as_str(path), opt_int(ver))
                tally.files.setdefault(row.session, []).append(row)
        return tally

    def sessions(self) -> list[SessionRow]:
        """Every session row, oldest first; a row without an id is one problem."""
        cols = self.columns["sessions"]
        if "id" not in cols:
            return []
        order = "created_at, rowid" if "created_at" in cols else "rowid"
        out = []
        for row in iter_rows(self.conn, f"SELECT * FROM sessions ORDER BY {order}"):
            sid = as_str(row.get("id"))
            if not sid:
                self.report(None, f"a session row without an id ({shown(row.get('title'))}) is skipped")
                continue
            out.append(
                SessionRow(
                    id=sid,
                    parent=_text(row.get("parent_session_id")),
                    title=_text(row.get("title")),
                    created=opt_int(row.get("created_at")),
                    updated=opt_int(row.get("updated_at")),
                    prompt_tokens=_count(row.get("prompt_tokens")),
                    completion_tokens=_count(row.get("completion_tokens")),
                    cost=to_float(row.get("cost")),
                    summary_message=_text(row.get("summary_message_id")),
                    todos=row.get("todos"),
                )
            )
        return out

    def orphan_session_ids(self, known: set[str]) -> list[str]:
        """Sessions named by messages but missing from ``sessions``, in the order their messages came."""
        if "session_id" not in self.columns["messages"]:
            return []
        seen: dict[str, None] = {}
        for (sid,) in self.conn.execute("SELECT session_id FROM messages ORDER BY rowid"):
            text = as_str(sid)
            if text not in known:
                seen.setdefault(text, None)
        return list(seen)

    def messages(self, session_id: str) -> list[MessageRow]:
        """A session's messages in Crush's own order (creation time, then insertion)."""
        cols = self.columns["messages"]
        if not {"id", "session_id"} <= cols:
            return []
        order = "created_at, rowid" if "created_at" in cols else "rowid"
        out = []
        for row in iter_rows(
            self.conn, f"SELECT rowid AS _rowid, * FROM messages WHERE session_id = ? ORDER BY {order}", (session_id,)
        ):
            line = self.tally.message_lines.get(row["_rowid"], 0)
            role = _text(row.get("role"))
            if role is None:
                self.report(line, f"message without a role ({shown(row.get('role'))}); read as an assistant message")
            out.append(
                MessageRow(
                    line=line,
                    id=as_str(row.get("id")) or f"message-{line}",
                    role=role or "assistant",
                    parts=row.get("parts"),
                    model=_text(row.get("model")),
                    provider=_text(row.get("provider")),
                    created=opt_int(row.get("created_at")),
                    summary=bool(opt_int(row.get("is_summary_message"))),
                )
            )
        return out


def _text(value: Any) -> str | None:
    text = as_str(value) if isinstance(value, (bytes, bytearray, str)) else None
    return text or None


def _count(value: Any) -> int:
    number = opt_int(value)
    return number if number is not None and number > 0 else 0
