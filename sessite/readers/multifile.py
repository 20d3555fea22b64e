"""A session read from many files (a team's configs and inboxes, a brain folder's transcripts and
artifacts): each event, skip and problem names the file its record came from."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from sessite.model import Event
from sessite.readers._util import shown
from sessite.readers.base import parse_time
from sessite.readers.builder import SessionBuilder


class MultiFileBuilder(SessionBuilder):
    """A SessionBuilder whose events, skips and problems each name their own file."""

    def put(self, where: Path, line: int, base: str, **fields: Any) -> Event:
        """An event carrying the record at ``where:line`` (``fields`` may name a ``path`` of its own)."""
        self.path = where
        return self.emit(base, line=line, **fields)

    def merge_at(self, path: Path, line: int, reason: str) -> None:
        self.path = path
        self.merged(line, reason)

    def skip_at(self, path: Path, line: int, reason: str) -> None:
        self.path = path
        self.skip(reason, line=line)

    def problem(self, path: Path, line: int | None, message: str) -> None:
        self.report(line, f"{self.format}: {message}", path=path)

    def time(self, path: Path, line: int, value: Any, what: str) -> datetime | None:
        """A stamp from the log; a value that is not one costs one problem line."""
        stamp = parse_time(value)
        if stamp is None and value not in (None, ""):
            self.problem(path, line, f"{what} is not a time ({shown(value)}); left out")
        return stamp

    def text(self, path: Path, line: int, record: dict[str, Any], key: str, what: str) -> str | None:
        """A string field; another type costs one problem line."""
        value = record.get(key)
        if value is None or isinstance(value, str):
            return value or None
        self.problem(path, line, f"{what} {key} is not text ({shown(value)}); left out")
        return None
