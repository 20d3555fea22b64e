"""Where OpenCode's records come from: the storage tree and an export (the database is in ``database``).

Every source hands out the same records, sessions' info, their messages in
order and each message's parts, each with where it was found, so the rest of
the reader never knows which layout it reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sessite.model import Problems
from sessite.readers._util import obj, text_of
from sessite.readers.base import parse_time
from sessite.readers.files import load_json
from sessite.readers.walk import files_below


@dataclass
class Where:
    """Where a record came from, for problems: a file (and line) or a database key."""

    path: Path
    key: str | None = None

    def tell(self, problems: Problems, message: str) -> None:
        problems.add(self.path, None, f"opencode: {self.key}: {message}" if self.key else f"opencode: {message}")


Record = tuple[dict[str, Any], Where]


@dataclass
class Info:
    """One session's info record, and the path its page names as the source."""

    data: dict[str, Any]
    where: Where
    source_path: Path

    @property
    def id(self) -> str:
        return str(self.data.get("id"))

    @property
    def parent(self) -> str | None:
        value = self.data.get("parentID")
        return str(value) if isinstance(value, (str, int)) and value != "" else None


class Source:
    """One layout's records; ``close`` releases what it holds open."""

    path: Path

    def infos(self) -> list[Info]:
        raise NotImplementedError

    def messages(self, session_id: str) -> list[Record]:
        raise NotImplementedError

    def parts(self, session_id: str, message_id: str) -> list[Record]:
        raise NotImplementedError

    def close(self) -> None:
        pass


def load_object(path: Path, problems: Problems, what: str) -> dict[str, Any] | None:
    doc = load_json(path, problems)
    if doc is None:
        return None
    if not isinstance(doc, dict):
        problems.add(path, None, f"opencode: {what} is a {type(doc).__name__}, not an object; skipped")
        return None
    return doc


def _sorted_files(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.suffix == ".json" and p.is_file())
    except OSError:
        return []


def _iterdir(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []


def _message_order(item: Record) -> tuple[float, str]:
    message = item[0]
    created = parse_time(obj(message.get("time")).get("created"))
    return (created.timestamp() if created else float("inf"), str(message.get("id") or ""))


class TreeSource(Source):
    """The storage tree: one JSON file per session, message and part."""

    def __init__(self, path: Path, problems: Problems) -> None:
        self.path = path
        self.problems = problems

    def infos(self) -> list[Info]:
        infos: list[Info] = []
        seen: set[str] = set()
        try:
            files = files_below(self.path / "session", "*.json")
        except OSError as exc:
            self.problems.add(self.path / "session", None, f"opencode: cannot list sessions ({exc})")
            files = []
        for file in files:
            data = load_object(file, self.problems, "session info")
            if data is None:
                continue
            if not text_of(data.get("id")):
                data = {**data, "id": file.stem}
            seen.add(str(data["id"]))
            infos.append(Info(data, Where(file), file))
        # Message folders whose session file is missing: keep them as sessions of their own.
        for folder in sorted(p for p in _iterdir(self.path / "message") if p.is_dir()):
            if folder.name not in seen:
                self.problems.add(folder, None, "opencode: no session file for these messages; read without one")
                infos.append(Info({"id": folder.name}, Where(folder), folder))
        return infos

    def messages(self, session_id: str) -> list[Record]:
        out = []
        for file in _sorted_files(self.path / "message" / session_id):
            data = load_object(file, self.problems, "message")
            if data is None:
                continue
            if not text_of(data.get("id")):
                data = {**data, "id": file.stem}
            out.append((data, Where(file)))
        return sorted(out, key=_message_order)

    def parts(self, session_id: str, message_id: str) -> list[Record]:
        out = []
        for file in _sorted_files(self.path / "part" / message_id):
            data = load_object(file, self.problems, "part")
            if data is not None:
                out.append((data, Where(file)))
        return out


class ExportSource(Source):
    """``opencode export``: one session and its messages with their parts inline."""

    def __init__(self, path: Path, problems: Problems) -> None:
        self.path = path
        self.problems = problems
        self.doc = load_object(path, problems, "export") or {}
        self._messages: dict[str, list[Record]] = {}
        self._parts: dict[str, list[Record]] = {}

    def infos(self) -> list[Info]:
        if not self.doc:
            return []
        info = obj(self.doc.get("info"))
        if not info:
            self.problems.add(self.path, None, "opencode: export has no session info")
        sid = str(info.get("id") or self.path.stem)
        messages = self.doc.get("messages")
        if not isinstance(messages, list):
            self.problems.add(self.path, None, "opencode: export has no messages array")
            messages = []
        listed = []
        for index, item in enumerate(messages):
            where = Where(self.path, f"messages[{index}]")
            if not isinstance(item, dict):
                where.tell(self.problems, f"is a {type(item).__name__}, not an object; skipped")
                continue
            message = dict(obj(item.get("info")) or {k: v for k, v in item.items() if k != "parts"})
            mid = str(message.get("id") or f"m{index}")
            message["id"] = mid
            listed.append((message, where))
            self._parts[mid] = self._inline_parts(item, index)
        self._messages[sid] = listed
        return [Info({**info, "id": sid}, Where(self.path), self.path)]

    def _inline_parts(self, item: dict[str, Any], index: int) -> list[Record]:
        parts: list[Record] = []
        listed = item.get("parts")
        for pindex, part in enumerate(listed if isinstance(listed, list) else []):
            pwhere = Where(self.path, f"messages[{index}].parts[{pindex}]")
            if isinstance(part, dict):
                parts.append((part, pwhere))
            else:
                pwhere.tell(self.problems, f"is a {type(part).__name__}, not an object; skipped")
        return parts

    def messages(self, session_id: str) -> list[Record]:
        return self._messages.get(session_id, [])

    def parts(self, session_id: str, message_id: str) -> list[Record]:
        return self._parts.get(message_id, [])
