"""One team's reading: events from several files, the facts the configs give, times checked.

A team's records come from many files (configs, one inbox per member, task files), so each
event, skip and problem names the file it came from; the events are put in time order at the end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sessite.model import Event, Problems
from sessite.readers.formats.claude_teams.vocabulary import AGENT, NAME
from sessite.readers.multifile import MultiFileBuilder

_EARLIEST = datetime.min.replace(tzinfo=UTC)


@dataclass
class TeamFacts:
    """What the team's configs say of it (the first copy that says a thing wins)."""

    name: str = ""
    description: str | None = None
    created: datetime | None = None
    lead_agent_id: str | None = None
    lead_session_id: str | None = None
    cwd: str | None = None
    models: dict[str, str] = field(default_factory=dict)  # member name -> model
    members: set[str] = field(default_factory=set)  # agentId or name of each member shown
    messages: set[tuple[Any, ...]] = field(default_factory=set)  # each message shown once
    extra: dict[str, Any] = field(default_factory=dict)  # config keys the reader does not know


class TeamBuilder(MultiFileBuilder):
    """A team's session as it is read, with the facts its configs give."""

    def __init__(self, folder: Path, problems: Problems) -> None:
        super().__init__(NAME, folder, problems, agent=AGENT)
        self.facts = TeamFacts()

    def in_time_order(self, first: Event | None) -> tuple[Event, ...]:
        """``first`` (the team's own note), then every other event by its time, in reading
        order among equal times; events without a time last."""
        rest = [e for e in self.events if e is not first]
        ordered = sorted(enumerate(rest), key=lambda item: _when(item[1], item[0]))
        return (*([first] if first is not None else []), *(e for _, e in ordered))


def _when(event: Event, index: int) -> tuple[bool, datetime, int]:
    return (event.timestamp is None, event.timestamp or _EARLIEST, index)
