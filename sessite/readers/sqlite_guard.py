"""What a SQLite database from an archive may make SQLite do while a reader queries it.

A database is code as much as data: a 12 KB file whose column is ``GENERATED ALWAYS AS
(printf('%.*c', 500000000, 'x'))`` builds a 500 MB string for every row read, a view can
loop for hours. Every connection a reader gets is guarded: generated columns read as NULL
(never evaluated: an authorizer turns each reference into NULL when the query is
prepared), no string or blob may grow past ``SQLITE_MAX_LENGTH``, and one database may
take at most ``SQLITE_STEP_BUDGET`` virtual-machine steps. Past a cap a query fails with
an error that names it, which the reader reports as one problem line.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from sessite.readers.limits import MIB, SQLITE_MAX_LENGTH, SQLITE_PROGRESS_EVERY, SQLITE_STEP_BUDGET

OVER_BUDGET = (
    f"the database needs more than {SQLITE_STEP_BUDGET:,} SQLite steps (the cap on work per database); not read further"
)
TOO_BIG = f"a value longer than {SQLITE_MAX_LENGTH // MIB} MB (the cap on one SQLite value)"


class GuardedConnection(sqlite3.Connection):
    """A connection whose cap errors say which cap (SQLite says only "interrupted")."""

    over_budget = False
    generated: tuple[str, ...] = ()  # "table.column" of each generated column, read as NULL

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        try:
            return super().execute(sql, parameters)
        except sqlite3.Error as exc:
            raise _named(self, exc) from None


def _named(conn: GuardedConnection, exc: sqlite3.Error) -> sqlite3.Error:
    if conn.over_budget and "interrupt" in str(exc):
        return type(exc)(OVER_BUDGET)
    if "too big" in str(exc):
        return type(exc)(TOO_BIG)
    return exc


def generated_note(conn: sqlite3.Connection) -> str | None:
    """A problem line's words when the database has generated columns (read as NULL), else None."""
    names = getattr(conn, "generated", ())
    if not names:
        return None
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return f"generated columns ({shown}) are read as empty: a database's own SQL is never run"


def named_error(conn: sqlite3.Connection, exc: sqlite3.Error) -> sqlite3.Error:
    """``exc`` in words that name the cap it met, when it met one (for errors raised while
    fetching rows, past ``execute``)."""
    return _named(conn, exc) if isinstance(conn, GuardedConnection) else exc


def guard(conn: sqlite3.Connection) -> sqlite3.Connection:
    """``conn`` with the caps set (see the module's docstring); returns it."""
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, SQLITE_MAX_LENGTH)
    conn.set_progress_handler(_budget(conn), SQLITE_PROGRESS_EVERY)
    generated = _generated_columns(conn)
    if generated:
        conn.set_authorizer(_no_generated(generated))
        if isinstance(conn, GuardedConnection):
            conn.generated = tuple(sorted(f"{table}.{column}" for table, column in generated))
    return conn


def _budget(conn: sqlite3.Connection) -> Callable[[], int]:
    left = SQLITE_STEP_BUDGET // SQLITE_PROGRESS_EVERY

    def tick() -> int:
        nonlocal left
        left -= 1
        if left > 0:
            return 0
        if isinstance(conn, GuardedConnection):
            conn.over_budget = True
        return 1  # non-zero: SQLite stops the statement

    return tick


def _generated_columns(conn: sqlite3.Connection) -> set[tuple[str, str]]:
    """(table, column) of every generated column (``table_xinfo``'s hidden 2: virtual, 3: stored)."""
    found: set[tuple[str, str]] = set()
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            name = table.decode("utf-8", "replace") if isinstance(table, bytes) else str(table)
            for row in conn.execute("SELECT name, hidden FROM pragma_table_xinfo(?)", (name,)):
                if row[1] in (2, 3):
                    column = row[0].decode("utf-8", "replace") if isinstance(row[0], bytes) else str(row[0])
                    found.add((name.lower(), column.lower()))
    except sqlite3.Error:
        pass  # not readable: the reader's own first query says so
    return found


def _no_generated(
    generated: set[tuple[str, str]],
) -> Callable[[int, str | None, str | None, str | None, str | None], int]:
    def authorize(action: int, table: str | None, column: str | None, _db: str | None, _src: str | None) -> int:
        if action == sqlite3.SQLITE_READ and table and column and (table.lower(), column.lower()) in generated:
            return sqlite3.SQLITE_IGNORE  # the column reads as NULL; its expression is never run
        return sqlite3.SQLITE_OK

    return authorize
