"""Kiro CLI's ``data.sqlite3``: one conversation per row of ``conversations_v2``.

``conversations_v2(key, conversation_id, value, created_at, updated_at)``: ``key`` is the
working folder, ``value`` the conversation as JSON, the times epoch milliseconds. The
Amazon Q CLI it grew from kept ``conversations(key, value)``, one per folder; both are
read, rows in table order. The database is opened read-only and immutable.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sessite.readers._util import as_str, connect_ro, iter_rows

TABLES = ("conversations_v2", "conversations")
_SELECT = {
    "conversations_v2": "SELECT key, conversation_id, value, created_at, updated_at"
    " FROM conversations_v2 ORDER BY rowid",
    "conversations": "SELECT key, NULL AS conversation_id, value, NULL AS created_at, NULL AS updated_at"
    " FROM conversations ORDER BY rowid",
}
_COLUMNS = {"conversations_v2": {"key", "conversation_id", "value"}, "conversations": {"key", "value"}}


@dataclass
class Row:
    table: str
    key: str  # the working folder
    conversation_id: str | None
    value: str
    created: Any = None
    updated: Any = None


def conversation_tables(conn: sqlite3.Connection) -> list[str]:
    """Kiro's conversation tables present, with the columns Kiro gives them."""
    found = []
    for table in TABLES:
        columns = {as_str(r[1]) for r in conn.execute(f"PRAGMA table_info({table})")}
        if _COLUMNS[table] <= columns:
            found.append(table)
    return found


def rows(path: Path) -> Iterator[Row]:
    """Every conversation row (raises sqlite3.Error when the database cannot be read)."""
    with closing(connect_ro(path)) as conn:
        for table in conversation_tables(conn):
            for row in iter_rows(conn, _SELECT[table]):
                yield Row(
                    table,
                    as_str(row["key"]),
                    as_str(row["conversation_id"]) or None,
                    as_str(row["value"]),
                    row["created_at"],
                    row["updated_at"],
                )
