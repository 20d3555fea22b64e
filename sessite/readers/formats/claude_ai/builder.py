"""Where one conversation's problems go, and how one message's events are collected in order."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from sessite.model import Block, Event, Kind, Problems


def what_is(value: Any) -> str:
    """'missing', or 'a <type>' for a value of the wrong type (for problem messages)."""
    return "missing" if value is None else "a " + type(value).__name__


class Ctx:
    """Where problems go for one conversation."""

    def __init__(self, path: Path, line: int, problems: Problems, reported: dict[str, int]) -> None:
        self.path = path
        self.line = line
        self.problems = problems
        self.reported = reported  # unknown block types already reported in this file

    def problem(self, message: str) -> None:
        self.problems.add(self.path, self.line, f"claude.ai: {message}")

    def unknown_type(self, what: str, conv_id: str) -> None:
        count = self.reported.get(what, 0)
        self.reported[what] = count + 1
        if count == 0:
            self.problem(
                f"conversation {conv_id}: unknown {what}; shown as raw JSON (further ones in this file not reported)"
            )


class MessageBuilder:
    """Collects one message's events in order: prose and blocks are grouped
    into message events; thinking and tools interrupt them."""

    def __init__(self, mid: str, kind: Kind, ts: datetime | None, model: str | None) -> None:
        self.mid = mid
        self.kind = kind
        self.ts = ts
        self.model = model if kind == Kind.ASSISTANT else None
        self.events: list[Event] = []
        self.text: list[str] = []
        self.blocks: list[Block] = []
        self.text_ts: datetime | None = None
        self.message_events = 0
        self.last_ts = ts
        self.call_ids: dict[int, str] = {}  # block index -> the call id it makes or answers (``pairing``)

    def add_text(self, text: str, ts: datetime | None = None) -> None:
        text = text.strip()
        if not text:
            return
        if self.blocks:  # keep prose that follows a block after it
            self.flush()
        if not self.text:
            self.text_ts = ts
        self.text.append(text)

    def add_block(self, block: Block) -> None:
        self.blocks.append(block)

    def add_event(self, event: Event) -> None:
        self.flush()
        self.events.append(event)

    def flush(self) -> None:
        if not self.text and not self.blocks:
            return
        eid = self.mid if self.message_events == 0 else f"{self.mid}-t{self.message_events}"
        self.message_events += 1
        self.events.append(
            Event(
                id=eid,
                kind=self.kind,
                timestamp=self.text_ts or self.ts,
                text="\n\n".join(self.text),
                blocks=tuple(self.blocks),
                model=self.model,
            )
        )
        self.text, self.blocks, self.text_ts = [], [], None

    def finish(self, files: list[Block], refs: list[Block], meta: dict[str, Any]) -> list[Event]:
        """The events, with attached files on the first message event, references on the last,
        and the message's meta on the first event."""
        self.flush()
        events = self.events
        positions = [
            i
            for i, e in enumerate(events)
            if e.kind == self.kind and e.call_id is None and (e.id == self.mid or e.id.startswith(f"{self.mid}-t"))
        ]
        if files:
            if positions:
                events[positions[0]] = replace(events[positions[0]], blocks=tuple(files) + events[positions[0]].blocks)
            else:
                events.insert(
                    0, Event(id=self.mid, kind=self.kind, timestamp=self.ts, blocks=tuple(files), model=self.model)
                )
                positions = [0]
        if refs:
            if positions:
                last = positions[-1]
                events[last] = replace(events[last], blocks=events[last].blocks + tuple(refs))
            else:
                events.append(
                    Event(
                        id=f"{self.mid}-refs", kind=self.kind, timestamp=self.ts, blocks=tuple(refs), model=self.model
                    )
                )
        if events and meta:
            events[0] = replace(events[0], meta={**meta, **events[0].meta})
        return events
