"""One Continue session's reading state: the calls made so far, the replies' times, the models."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sessite.model import Problems
from sessite.readers._util import obj, text_of
from sessite.readers.builder import SessionBuilder
from sessite.readers.formats.continue_dev.vocabulary import AGENT, NAME


@dataclass
class Call:
    """What a result needs to know of its call."""

    name: str
    state: dict[str, Any] = field(default_factory=dict)  # its ``toolCallStates`` entry


class SessionFile(SessionBuilder):
    """The events of one session file, with what an item needs to know of those before it."""

    def __init__(self, path: Path, problems: Problems, history: list[Any], replies: list[tuple[str, datetime]]) -> None:
        super().__init__(NAME, path, problems, agent=AGENT, label="Continue")
        self.calls: dict[str, Call] = {}
        self.replies = replies  # (reply, time) from the dev data, oldest first
        self.next_reply = 0
        self.current_model: str | None = None
        self.answered = {  # calls a ``tool`` message answers (the others are answered from their state)
            text_of(obj(obj(item).get("message")).get("toolCallId")) for item in history
        } - {None}

    def reply_time(self, text: str) -> datetime | None:
        """The time the dev data logged this reply at (matched in order)."""
        wanted = " ".join(text.split())
        for index in range(self.next_reply, len(self.replies)):
            if " ".join(self.replies[index][0].split()) == wanted:
                self.next_reply = index + 1
                return self.replies[index][1]
        return None
