"""One conversation's reading: events from several files, calls awaiting their output, the model in use."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sessite.model import Event, Problems
from sessite.readers.formats.antigravity.vocabulary import AGENT, NAME
from sessite.readers.multifile import MultiFileBuilder


class BrainBuilder(MultiFileBuilder):
    """A brain folder's session as it is read: the calls awaiting their output, the model in use."""

    def __init__(self, path: Path, problems: Problems) -> None:
        super().__init__(NAME, path, problems, agent=AGENT)
        self.pending: list[Event] = []  # the last planner response's calls no step has answered yet
        self.current_model: str | None = None  # as the user's model selection last said
        self.meta: dict[str, Any] = {}
