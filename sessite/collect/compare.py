"""Whether a new copy of a file only adds to the copy in the archive, or the agent dropped some of it.

"Dropped" means content of the archived copy is no longer in the new one: a JSON-lines or other
file that is not the old one plus more, a JSON document whose lists lost items or whose long texts
changed, a SQLite store whose rows (by key) are gone. A changed timestamp, status or count is not
content. When something was dropped the archived copy is kept (``run``); otherwise it is replaced.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from sessite.collect.snapshot import Kind

_CHUNK = 1 << 20
_JSON_LIMIT = 256 * 1024 * 1024  # beyond this a JSON file is compared byte by byte
_SHORT = 80  # strings up to this long (ids, times, states) may change without being "content"


def same(old: Path, new: Path) -> bool:
    """Byte for byte the same file."""
    if old.stat().st_size != new.stat().st_size:
        return False
    with open(old, "rb") as a, open(new, "rb") as b:
        while True:
            x, y = a.read(_CHUNK), b.read(_CHUNK)
            if x != y:
                return False
            if not x:
                return True


def only_adds(old: Path, new: Path, kind: Kind) -> bool:
    """Whether ``new`` holds everything ``old`` held (see the module doc)."""
    if kind == "sqlite":
        try:
            return _rows_kept(old, new)
        except sqlite3.Error:
            return False
    if kind == "json" and max(old.stat().st_size, new.stat().st_size) <= _JSON_LIMIT:
        try:
            return contains(json.loads(old.read_bytes()), json.loads(new.read_bytes()))
        except (ValueError, RecursionError):
            pass
    return _prefix(old, new)


def _prefix(old: Path, new: Path) -> bool:
    if old.stat().st_size > new.stat().st_size:
        return False
    with open(old, "rb") as a, open(new, "rb") as b:
        while True:
            x = a.read(_CHUNK)
            if not x:
                return True
            if b.read(len(x)) != x:
                return False


def contains(old: Any, new: Any) -> bool:
    """``new`` keeps ``old``'s content: every key, every list item (in order, more may follow),
    every long text (or a longer one it starts); short strings and numbers may change."""
    if isinstance(old, dict):
        return isinstance(new, dict) and all(k in new and contains(v, new[k]) for k, v in old.items())
    if isinstance(old, list):
        return isinstance(new, list) and len(new) >= len(old) and all(contains(a, b) for a, b in zip(old, new))
    if isinstance(old, str) and len(old) > _SHORT:
        return isinstance(new, str) and new.startswith(old)
    return True


def _rows_kept(old: Path, new: Path) -> bool:
    """Every table of ``old`` is in ``new``, with every row's key (primary key, else rowid)."""
    conn = sqlite3.connect(f"{new.absolute().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        conn.execute("ATTACH DATABASE ? AS old", (f"{old.absolute().as_uri()}?mode=ro&immutable=1",))
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM old.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        have = {r[0] for r in conn.execute("SELECT name FROM main.sqlite_master WHERE type = 'table'")}
        for table in tables:
            if table not in have:
                return False
            key = _key(conn, table)
            q = _quote(table)
            gone = conn.execute(f"SELECT 1 FROM (SELECT {key} FROM old.{q} EXCEPT SELECT {key} FROM main.{q}) LIMIT 1")  # noqa: S608
            if gone.fetchone() is not None:
                return False
        return True
    finally:
        conn.close()


def _key(conn: sqlite3.Connection, table: str) -> str:
    cols = [(r[5], r[1]) for r in conn.execute(f"PRAGMA old.table_info({_quote(table)})") if r[5]]
    return ", ".join(_quote(name) for _, name in sorted(cols)) if cols else "rowid"


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
