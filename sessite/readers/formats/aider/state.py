"""One aider run's reading state: its model, the edits and commands waiting for aider's word, its notes."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from sessite.model import Block, Event, Kind, Problems
from sessite.readers.builder import SessionBuilder
from sessite.readers.formats.aider.edits import Edit
from sessite.readers.formats.aider.vocabulary import AGENT, NAME


@dataclass
class Pending:
    """A call that aider may still report on (an edit applied, a command's output added)."""

    call_id: str
    edit: Edit | None = None
    command: str | None = None
    answered: bool = False


@dataclass
class Facts:
    started: datetime | None = None
    title: str | None = None
    commits: dict[str, None] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)


class AiderRun(SessionBuilder):
    """The events of one run of aider (from one ``# aider chat started at`` to the next)."""

    def __init__(self, path: Path, problems: Problems, number: int) -> None:
        super().__init__(NAME, path, problems, agent=AGENT, label="aider")
        self.number = number
        self.facts = Facts()
        self.current_model: str | None = None
        self.pending: list[Pending] = []  # calls of the latest reply or command
        self.reply_start: int | None = None  # index of the latest reply's first event
        self.command: tuple[str, str] | None = None  # (command, the words it hands on) of the latest prompt
        self.note: int | None = None  # index of the aider note that more output would join
        self.shell_commands: list[str] = []  # commands run, for the typed inputs that name them

    def event(self, base: str, **fields: Any) -> Event:
        """A new event; aider output after it starts a new note."""
        self.note = None
        return self.emit(base, **fields)

    def say(self, line: int, text: str) -> None:
        """Aider output shown as a note: joined to the note just before, or a new one."""
        if self.note is not None:
            last = self.events[self.note]
            block = last.blocks[0]
            self.events[self.note] = replace(last, blocks=(replace(block, text=f"{block.text}\n{text}"),))
            self.merged(line, "aider output (shown in the note of the output around it)")
            return
        self.emit(f"aider-{line}", kind=Kind.SYSTEM, title="aider", blocks=(Block("text", text=text),), line=line)
        self.note = len(self.events) - 1

    def reply_events(self) -> list[Event]:
        return self.events[self.reply_start :] if self.reply_start is not None else []
