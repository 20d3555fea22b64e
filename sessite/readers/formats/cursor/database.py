"""Cursor's SQLite stores, opened read-only, and the workspace folder each composer belongs to."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from sessite.model import Problems
from sessite.readers._util import SQLITE_ERRORS, as_str, connect_ro, is_sqlite, obj, text_of, wal_note
from sessite.readers.files import decode_bytes, outside_archive, read_bytes
from sessite.readers.formats.cursor.keys import BUBBLE, COMPOSER, DB_NAME, INDEX_KEY, TABLES
from sessite.readers.formats.cursor.records import Records
from sessite.readers.formats.cursor.store import Store, parse_value
from sessite.readers.safejson import loads

# At most this many workspace folders are searched for a global database's composers.
_MAX_WORKSPACES = 2000


class DbStore(Store):
    """A ``state.vscdb`` (or a copy of one): keys and values of ``cursorDiskKV`` / ``ItemTable``."""

    def __init__(self, path: Path, problems: Problems) -> None:
        self.path = path
        self.problems = problems
        if not is_sqlite(path):
            raise sqlite3.DatabaseError("not a SQLite database")
        self.conn = connect_ro(path)
        tables = {as_str(r[0]) for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        self.tables = [t for t in TABLES if t in tables]
        note = wal_note(path)
        if note and self.tables:
            problems.add(path, None, f"cursor: {note}")
        self.folder = workspace_folder(path.parent / "workspace.json", problems) if path.name == DB_NAME else None
        self.records = Records()
        self.records.add_bubble_keys(path, self._keys(BUBBLE))

    def close(self) -> None:
        self.conn.close()

    def _range(self, prefix: str) -> Iterator[tuple[str, Any]]:
        # A key range, not LIKE: uses the key index and treats '%' and '_' literally.
        upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        for table in self.tables:
            rows = self.conn.execute(
                f'SELECT key, value FROM "{table}" WHERE key >= ? AND key < ? ORDER BY key', (prefix, upper)
            )
            for key, value in rows:
                yield as_str(key), value

    def _get(self, key: str) -> Any:
        for table in self.tables:
            row = self.conn.execute(f'SELECT value FROM "{table}" WHERE key = ?', (key,)).fetchone()
            if row is not None:
                return row[0]
        return None

    def _keys(self, prefix: str) -> list[str]:
        """The distinct keys with ``prefix``: table by table, each in key order."""
        seen: dict[str, None] = {}
        upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        for table in self.tables:
            for (key,) in self.conn.execute(
                f'SELECT key FROM "{table}" WHERE key >= ? AND key < ? ORDER BY key', (prefix, upper)
            ):
                seen.setdefault(as_str(key), None)
        return list(seen)

    def composer_ids(self) -> list[str]:
        return [key[len(COMPOSER) :] for key in self._keys(COMPOSER)]

    def composer(self, cid: str) -> tuple[Any, Path]:
        return parse_value(self._get(COMPOSER + cid), self.problems, self.path, COMPOSER + cid), self.path

    def bubbles(self, cid: str) -> dict[str, Any]:
        prefix = f"{BUBBLE}{cid}:"
        found: dict[str, Any] = {}
        for key, value in self._range(prefix):
            found.setdefault(key[len(prefix) :], value)  # the first table's, as ``_get`` reads
        return found

    def item(self, key: str) -> Any:
        if "ItemTable" not in self.tables:
            return None
        row = self.conn.execute('SELECT value FROM "ItemTable" WHERE key = ?', (key,)).fetchone()
        return parse_value(row[0], self.problems, self.path, key) if row else None


def workspace_folder(path: Path, problems: Problems) -> str | None:
    """The folder a ``workspaceStorage/<hash>/workspace.json`` names."""
    if not path.is_file():
        return None
    data = read_bytes(path, problems)
    if data is None:
        return None
    try:
        doc = loads(decode_bytes(data)[0])
    except ValueError:
        return None
    uri = text_of(obj(doc).get("folder")) or text_of(obj(doc).get("workspace"))
    if not uri:
        return None
    if uri.startswith("file://"):
        local = unquote(urlsplit(uri).path)
        if len(local) > 2 and local[0] == "/" and local[2] == ":":  # /C:/Users/…
            local = local[1:]
        return local or None
    return uri


def workspace_map(db: Path, problems: Problems) -> dict[str, str]:
    """composerId -> workspace folder, from the workspace databases next to a global one."""
    if db.name != DB_NAME or db.parent.name != "globalStorage":
        return {}
    root = db.parent.parent / "workspaceStorage"
    out: dict[str, str] = {}
    try:
        folders = sorted(p for p in root.iterdir() if p.is_dir())[:_MAX_WORKSPACES] if root.is_dir() else []
    except OSError:
        return {}
    for folder in folders:
        workspace = workspace_folder(folder / "workspace.json", problems)
        if not workspace:
            continue
        for cid in _workspace_composers(folder / DB_NAME, problems):
            out.setdefault(cid, workspace)
    return out


def _workspace_composers(state: Path, problems: Problems) -> list[str]:
    """The composer ids a workspace database lists (none when it cannot be read)."""
    if not is_sqlite(state) or outside_archive(state, problems):
        return []
    try:
        with closing(connect_ro(state)) as conn:
            row = conn.execute("SELECT value FROM ItemTable WHERE key = ?", (INDEX_KEY,)).fetchone()
    except SQLITE_ERRORS:
        return []
    if not row:
        return []
    try:
        index = loads(as_str(row[0]))
    except ValueError:
        return []
    entries = obj(index).get("allComposers")
    if not isinstance(entries, list):
        return []
    return [cid for cid in (text_of(obj(entry).get("composerId")) for entry in entries) if cid]
