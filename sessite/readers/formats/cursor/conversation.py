"""A composer's conversation: its bubbles in order, each with the record it is, turned into events.

Bubbles come as the composer's headers list them (each stored under its own key), kept
inline in the composer (older builds), or, with neither, as every stored bubble of the
composer in time order. Each bubble's events carry its record number (``records``); a
bubble that shows nothing, a stored bubble the headers leave out and an inline copy of a
stored one are counted with the reason.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sessite.model import Event, Kind, Problems
from sessite.readers import ledger
from sessite.readers._util import Ids, as_str, obj, text_of
from sessite.readers.formats.cursor.bubbles import EMPTY_THINKING, bubble_events, bubble_sort_key, has_empty_thinking
from sessite.readers.formats.cursor.keys import BUBBLE
from sessite.readers.formats.cursor.store import Store, parse_value

# Marks a bubble whose stored value is not JSON (it is kept as raw text).
_UNDECODABLE = "\x00undecodable"
EMPTY = "empty bubble (no text, thinking, tool or tokens)"
UNLISTED = "stored bubble the conversation does not list (an earlier branch)"
INLINE_COPY = "inline copy of a stored bubble"


@dataclass
class Bubble:
    bid: str
    value: Any  # the parsed bubble ({_UNDECODABLE: text} when it is not JSON)
    path: Path  # the file its record is in
    line: int | None  # its record number


class Conversation:
    """One composer's bubbles, and the reasons for what it leaves out."""

    def __init__(self, cid: str, store: Store, source: Path, problems: Problems) -> None:
        self.cid = cid
        self.store = store
        self.source = source
        self.problems = problems
        self.skipped: Counter[str] = Counter()
        self.shown: list[Bubble] = []  # the bubbles that gave events

    def skip(self, reason: str, path: Path, line: int | None) -> None:
        self.skipped[reason] += 1
        ledger.not_shown(path, line, reason)

    def bubbles(self, data: dict[str, Any], inline: list[Any], first: int) -> list[Bubble]:
        """(bubble, record) in conversation order; ``inline``: the composer's inline bubbles, the first
        of them record ``first``."""
        headers = data.get("fullConversationHeadersOnly")
        if isinstance(headers, list) and headers:
            listed = self._listed(headers)
            ids = {b.bid for b in listed}
            for position, bubble in enumerate(inline):
                reason = INLINE_COPY if text_of(obj(bubble).get("bubbleId")) in ids else UNLISTED
                self.skip(reason, self.source, first + position)
            return listed
        if inline:
            return [
                Bubble(text_of(obj(b).get("bubbleId")) or f"b{i}", b, self.source, first + i)
                for i, b in enumerate(inline)
            ]
        stored = [self._stored(bid, value) for bid, value in self.store.bubbles(self.cid).items()]
        return sorted(stored, key=lambda b: bubble_sort_key(b.value))

    def _stored(self, bid: str, value: Any) -> Bubble:
        where = self.store.bubble_record(self.cid, bid)
        parsed = parse_value(value, self.problems, self.source, f"{BUBBLE}{self.cid}:{bid}")
        path, line = where if where else (self.source, None)
        return Bubble(bid, parsed, path, line)

    def _listed(self, headers: list[Any]) -> list[Bubble]:
        """The bubbles the headers list, in their order (a value that is not JSON is kept as raw text);
        the composer's other stored bubbles are counted as left out."""
        stored = self.store.bubbles(self.cid)
        bubbles: list[Bubble] = []
        for position, header in enumerate(headers):
            bid = text_of(obj(header).get("bubbleId"))
            if bid is None:
                self.problems.add(
                    self.source, None, f"cursor: composer {self.cid}: header {position} has no bubbleId; skipped"
                )
                continue
            if bid not in stored:
                self.skipped["bubble listed but not stored"] += 1
                continue
            bubble = self._stored(bid, stored[bid])
            if bubble.value is None:
                bubble.value = {_UNDECODABLE: as_str(stored[bid])}
            bubbles.append(bubble)
        listed = {b.bid for b in bubbles}
        for bid in stored:
            where = self.store.bubble_record(self.cid, bid) if bid not in listed else None
            if where:
                self.skip(UNLISTED, *where)
        return bubbles

    def events(self, bubbles: list[Bubble], default_model: str | None) -> tuple[list[Event], list[str]]:
        """Every bubble's events (each carrying its record number), and the models they name in first-use order."""
        ids = Ids()
        events: list[Event] = []
        models: list[str] = []
        for bubble in bubbles:
            new = self._bubble_events(bubble, ids, default_model)
            if not new:
                empty_thinking = isinstance(bubble.value, dict) and has_empty_thinking(bubble.value, new)
                self.skip(EMPTY_THINKING if empty_thinking else EMPTY, bubble.path, bubble.line)
                continue
            self.shown.append(bubble)
            for event in new:
                if event.model and event.model not in models:
                    models.append(event.model)
                events.append(replace(event, line=bubble.line))
        return events, models

    def _bubble_events(self, bubble: Bubble, ids: Ids, default_model: str | None) -> list[Event]:
        bid, value = bubble.bid, bubble.value
        where = f"{BUBBLE}{self.cid}:{bid}"
        if isinstance(value, dict) and _UNDECODABLE in value:
            return [
                Event(id=ids.take(bid), kind=Kind.UNKNOWN, title="Cursor bubble (not JSON)", raw=value[_UNDECODABLE])
            ]
        if not isinstance(value, dict):
            if value is not None:
                self.problems.add(
                    self.source, None, f"cursor: {where} is a {type(value).__name__}, not an object; shown as raw JSON"
                )
            return [Event(id=ids.take(bid), kind=Kind.UNKNOWN, title="Cursor bubble", raw=value)]
        try:
            return bubble_events(bid, value, ids, default_model, self.problems, self.source, where, self.skipped)
        except Exception as exc:  # noqa: BLE001 - one odd bubble must not stop the composer
            self.problems.add(
                self.source, None, f"cursor: could not interpret {where} ({type(exc).__name__}: {exc}); raw JSON"
            )
            return [Event(id=ids.take(bid), kind=Kind.UNKNOWN, title="unreadable Cursor bubble", raw=value)]
