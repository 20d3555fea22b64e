"""Split a big session's timeline into pages ("parts") before anything is rendered.

One page of tens of MB stalls a browser and makes the build hold the whole HTML
in memory; a session whose estimated HTML is over a budget is cut into parts
that are rendered and written one at a time. The plan comes from the model
alone: each top-level event is weighed by its content sizes (text, tool input,
results, sub-agent transcripts) and events are packed in order, whole, into
parts of about ``PART_BYTES``. Small sessions (nearly all) get one part and
render exactly as before.

URLs: part 1 keeps the session's URL ``sessions/<id>.html``; part n is
``sessions/<id>/p<n>.html`` and ``sessions/<id>/parts.js`` maps every anchor to
its part (for old links to part 1, see ``static/app.js``). A folder named after
the id cannot collide with any session's page or export, which are files
directly in ``sessions/``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sessite.analyze.session import PairedSession
from sessite.model import Event, Kind
from sessite.site.urls import part_url

PART_BYTES = 4_000_000  # target estimated HTML per part: a few MB, far from the 10 MB a page may weigh
EVENT_OVERHEAD = 900  # markup around one event: list item, head, time, permalink, body
RESULT_OVERHEAD = 500  # markup around one tool result
HIGHLIGHT_GROWTH = 5  # extra bytes per character of markdown that holds fenced code
DIFF_LINE_MARKUP = 50  # a diff line's block and its line numbers (sessite/render/diffs.py)
_ITEM = 12  # JSON punctuation, indentation and escaped quotes around one value of a tool input


@dataclass(frozen=True, slots=True)
class Part:
    """One page of a split session: a run of whole top-level events."""

    number: int  # 1-based
    url: str  # path inside the site
    start: int  # index of its first top-level event in ``PairedSession.timeline``
    end: int  # one past its last
    first: datetime | None  # earliest timestamp among its events (sub-agents included)
    last: datetime | None
    events: int  # events shown on it, nested ones included


def shown_under(event: Event, view: PairedSession, seen: set[str] | None = None) -> Iterator[Event]:
    """The events drawn inside ``event``'s list item, itself first (as ``templates/_events.html`` nests them).

    ``seen`` guards against a malformed session whose sub-agent is attached to a call it contains.
    """
    seen = set() if seen is None else seen
    if event.id in seen:
        return
    seen.add(event.id)
    yield event
    if event.kind == Kind.TOOL_CALL:
        yield from view.results_for(event)
        for sub in view.subagents_for(event):
            yield from shown_under(sub, view, seen)
    elif event.kind == Kind.SUBAGENT:
        for child in event.children:
            if child.id not in view.inline:
                yield from shown_under(child, view, seen)


def _value_size(value: Any, depth: int = 0) -> int:
    """Rough size of a JSON-ish value as pretty, escaped JSON (tool inputs, block data, raw records)."""
    if isinstance(value, str):
        return len(value) + _ITEM
    if depth < 20 and isinstance(value, dict):
        return _ITEM + sum(len(str(k)) + _ITEM + _value_size(v, depth + 1) for k, v in value.items())
    if depth < 20 and isinstance(value, (list, tuple)):
        return _ITEM + sum(_value_size(v, depth + 1) for v in value)
    return _ITEM if value is None or isinstance(value, (bool, int, float)) else len(str(value)) + _ITEM


def event_weight(event: Event) -> int:
    """Estimated HTML bytes of one event's own content (not its nested events).

    Errs high: diffs and highlighted code grow by markup per line, and a part
    that comes out smaller than planned costs nothing.
    """
    n = RESULT_OVERHEAD if event.kind == Kind.TOOL_RESULT else EVENT_OVERHEAD
    n += len(event.text) + len(event.command or "") * 2 + len(event.path or "") + len(event.title or "")
    if event.kind != Kind.TOOL_RESULT and "```" in event.text:
        n += HIGHLIGHT_GROWTH * len(event.text)  # markdown with fenced code: pygments adds a span per token
    if event.diff:
        n += len(event.diff) + DIFF_LINE_MARKUP * event.diff.count("\n")
    if event.tool_input is not None:
        n += _value_size(event.tool_input)
    for block in event.blocks:
        n += 200 + len(block.text) + len(block.uri or "") + (_value_size(block.data) if block.data is not None else 0)
    if event.meta:
        n += _value_size(dict(event.meta))
    if event.kind == Kind.UNKNOWN and event.raw is not None:
        n += _value_size(event.raw)
    return n


def plan_parts(view: PairedSession, budget: int = PART_BYTES) -> tuple[tuple[Part, ...], dict[str, int]]:
    """Cut the timeline into parts of about ``budget`` estimated bytes.

    Returns the parts and, for a split session, every event id → the index of
    the part it is drawn on; a session that fits gets ``((), {})``.
    """
    timeline = view.timeline
    weights: list[int] = []
    groups: list[list[Event]] = []
    for event in timeline:
        group = list(shown_under(event, view))
        groups.append(group)
        weights.append(sum(event_weight(e) for e in group))
    if sum(weights) <= budget or len(timeline) < 2:
        return (), {}
    bounds = _pack(weights, budget)
    sid = view.session.id
    parts: list[Part] = []
    where: dict[str, int] = {}
    for index, (start, end) in enumerate(bounds):
        times = []
        count = 0
        for group in groups[start:end]:
            count += len(group)
            for e in group:
                where.setdefault(e.id, index)
                if e.timestamp:
                    times.append(e.timestamp)
        parts.append(
            Part(
                index + 1,
                part_url(sid, index + 1),
                start,
                end,
                min(times, default=None),
                max(times, default=None),
                count,
            )
        )
    _place_the_rest(view, where)
    return tuple(parts), where


def _pack(weights: Sequence[int], budget: int) -> list[tuple[int, int]]:
    """Consecutive runs of weights, each closed before it would pass ``budget``
    (a heavy event gets a part of its own)."""
    bounds: list[tuple[int, int]] = []
    start, size = 0, 0
    for i, w in enumerate(weights):
        if i > start and size + w > budget:
            bounds.append((start, i))
            start, size = i, 0
        size += w
    bounds.append((start, len(weights)))
    return bounds


def _place_the_rest(view: PairedSession, where: dict[str, int]) -> None:
    """Events no part draws (nested where the timeline does not show them) go with their top-level event's part."""
    last = 0
    for top in view.session.events:
        home = where.get(top.id, last)
        last = home
        stack = [top]
        while stack:
            e = stack.pop()
            where.setdefault(e.id, home)
            stack.extend(e.children)
