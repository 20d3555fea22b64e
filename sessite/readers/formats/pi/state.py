"""One session's reading: its events in order and its facts."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessite.model import Event, Problems
from sessite.readers.builder import SessionBuilder
from sessite.readers.formats.pi.index import FileIndex
from sessite.readers.formats.pi.vocabulary import AGENT, NAME

OFF_PATH = "on a branch the session left (/tree)"


@dataclass
class Facts:
    prompt: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class Call:
    name: str
    has_diff: bool


class PiFile(SessionBuilder):
    """The events of one pi session."""

    def __init__(self, path: Path, problems: Problems, index: FileIndex) -> None:
        super().__init__(NAME, path, problems, agent=AGENT, label=NAME)
        self.index = index
        self.facts = Facts()
        self.calls: dict[str, Call] = {}
        self.noted: set[str] = set()
        self.shown_entries: set[str] = set()

    def put(self, base: str, entry: str | None, **fields: Any) -> Event:
        """An event of entry ``entry``: marked when the entry is off the session's path, and with its label."""
        meta = dict(fields.pop("meta", {}))
        if entry and entry in self.index.off_path:
            meta["branch"] = OFF_PATH
        if entry and entry in self.index.labels:
            meta["label"] = self.index.labels[entry]
        if entry:
            self.shown_entries.add(entry)
        return self.emit(base, meta=meta, **fields)

    def other(self, line: int, kind: str) -> None:
        if kind not in self.noted:
            self.noted.add(kind)
            self.report(line, f"entry type {kind!r} is not known; shown as a system note")
