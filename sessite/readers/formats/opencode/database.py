"""``opencode.db`` (OpenCode 1.2+): the storage tree's records as rows, opened read-only with its
``-wal`` applied in memory (``sqlite_wal``: a running OpenCode keeps recent rows only there).

Tables ``session`` (columns), ``message`` and ``part`` (a JSON ``data`` column
each). The columns of a row are folded into the shape of a storage-tree file, so
the rest of the reader sees one kind of record.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sessite.model import Problems
from sessite.readers._util import as_str, iter_rows, obj
from sessite.readers.formats.opencode.detect import TREE
from sessite.readers.formats.opencode.sources import Info, Record, Source, Where
from sessite.readers.safejson import loads
from sessite.readers.sqlite_wal import open_database

# session columns -> the key a storage-tree session file uses
_RENAMES = {
    "id": "id",
    "project_id": "projectID",
    "parent_id": "parentID",
    "slug": "slug",
    "directory": "directory",
    "title": "title",
    "version": "version",
}


class DbSource(Source):
    """The database and its log, read in memory: a running OpenCode is neither touched nor blocked."""

    def __init__(self, path: Path, problems: Problems) -> None:
        self.path = path
        self.problems = problems
        self.conn = open_database(path, problems, "opencode")
        self.columns = {t: self._columns(t) for t in TREE}

    def _columns(self, table: str) -> set[str]:
        return {as_str(row[1]) for row in self.conn.execute(f'PRAGMA table_info("{table}")')}

    def close(self) -> None:
        self.conn.close()

    def _json(self, raw: Any, where: Where) -> dict[str, Any]:
        if raw is None:
            return {}
        text = as_str(raw)
        notes: list[str] = []
        try:
            value = loads(text, notes)
        except ValueError as exc:
            where.tell(self.problems, f"data is not JSON ({exc}); kept as raw")
            return {"type": "__undecodable__", "raw": text}
        for note in notes:
            where.tell(self.problems, note)
        if not isinstance(value, dict):
            where.tell(self.problems, f"data is a {type(value).__name__}, not an object; kept as raw")
            return {"type": "__undecodable__", "raw": value}
        return value

    def infos(self) -> list[Info]:
        infos = []
        order = "time_created, id" if "time_created" in self.columns["session"] else "id"
        for row in iter_rows(self.conn, f"SELECT * FROM session ORDER BY {order}"):
            sid = as_str(row.get("id"))
            where = Where(self.path, f"session {sid}")
            data = self._json(row["data"], where) if "data" in row else {}
            info = session_row(row)
            info.update({k: v for k, v in data.items() if v is not None})
            info.setdefault("id", sid)
            infos.append(Info(info, where, self.path))
        return infos

    def messages(self, session_id: str) -> list[Record]:
        cols = self.columns["message"]
        order = "time_created, id" if "time_created" in cols else "id"
        out = []
        for row in iter_rows(self.conn, f"SELECT * FROM message WHERE session_id = ? ORDER BY {order}", (session_id,)):
            mid = as_str(row.get("id"))
            where = Where(self.path, f"message {mid}")
            data = self._json(row.get("data"), where)
            data.setdefault("id", mid)
            data.setdefault("sessionID", session_id)
            if "time_created" in row and not obj(data.get("time")).get("created"):
                data["time"] = {**obj(data.get("time")), "created": _cell(row["time_created"])}
            out.append((data, where))
        return out

    def parts(self, session_id: str, message_id: str) -> list[Record]:
        out = []
        for row in iter_rows(self.conn, "SELECT * FROM part WHERE message_id = ? ORDER BY id", (message_id,)):
            pid = as_str(row.get("id"))
            where = Where(self.path, f"part {pid}")
            data = self._json(row.get("data"), where)
            data.setdefault("id", pid)
            data.setdefault("messageID", message_id)
            if (
                "time" not in data
                and data.get("type") in ("text", "reasoning", "file")
                and row.get("time_created") is not None
            ):
                data["time"] = {"start": _cell(row["time_created"])}
            out.append((data, where))
        return out


def _cell(value: Any) -> Any:
    return as_str(value) if isinstance(value, (bytes, bytearray)) else value


def session_row(row: dict[str, Any]) -> dict[str, Any]:
    """The columns of a ``session`` row in the shape of a storage-tree session file."""
    value = {k: _cell(v) for k, v in row.items() if k != "data"}
    info: dict[str, Any] = {}
    for column, key in _RENAMES.items():
        if value.get(column) not in (None, ""):
            info[key] = value[column]
    times = {key[len("time_") :]: value[key] for key in value if key.startswith("time_") and value[key] is not None}
    if times:
        info["time"] = times
    summary = {
        key[len("summary_") :]: value[key]
        for key in value
        if key.startswith("summary_") and value[key] not in (None, "")
    }
    if summary:
        info["summary"] = summary
    if value.get("share_url"):
        info["share"] = {"url": value["share_url"]}
    for column in value:
        if (
            column not in _RENAMES
            and not column.startswith(("time_", "summary_"))
            and column != "share_url"
            and value[column] not in (None, "")
        ):
            info.setdefault(column, value[column])
    return info
