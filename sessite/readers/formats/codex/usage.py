"""Token usage: ``token_count`` records turned into usage on model events.

``token_count`` carries a cumulative ``total_token_usage`` and the turn's
``last_token_usage``, and is often repeated with unchanged totals. Only the
last usage of a changed total is attached, to the turn's last model event, so
the sum of event usage equals the final total.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sessite.model import Event, Kind, Usage
from sessite.readers._util import to_int

# Events a model produced: the ones usage is attached to.
MODEL_KINDS = (Kind.ASSISTANT, Kind.THINKING, Kind.TOOL_CALL)
_TOTAL_FIELDS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens")


def usage_of(raw: Any) -> Usage | None:
    """OpenAI usage: input includes cached input, output includes reasoning."""
    if not isinstance(raw, dict):
        return None
    inp = to_int(raw.get("input_tokens"))
    cached = to_int(raw.get("cached_input_tokens"))
    usage = Usage(
        input_tokens=max(inp - cached, 0),
        output_tokens=to_int(raw.get("output_tokens")),
        cache_read_tokens=cached,
        reasoning_tokens=to_int(raw.get("reasoning_output_tokens")),
    )
    return usage or None


def _with_usage(event: Event, usage: Usage) -> Event:
    return replace(event, usage=(event.usage + usage) if event.usage else usage)


class UsageLedger:
    """Where each reported usage goes: the last model event before it, or the next one."""

    def __init__(self) -> None:
        self.last_total: tuple[int, ...] | None = None
        self.final_total: dict[str, Any] | None = None  # the last cumulative total, for the session meta
        self.targets: list[int] = []  # model events since the last attached usage
        self.pending: Usage | None = None  # usage reported before any model event took it

    def model_event(self, events: list[Event], index: int) -> None:
        """A new model event: it takes usage reported before it, or waits for the next count."""
        if self.pending is not None:
            events[index] = replace(events[index], usage=self.pending)
            self.pending = None
            self.targets = []
        else:
            self.targets.append(index)

    def token_count(self, payload: dict[str, Any], events: list[Event]) -> str | None:
        """Book one ``token_count`` event; returns why it was skipped, or None when its usage was kept."""
        info = payload.get("info")
        if not isinstance(info, dict):
            if not any(k in payload for k in ("input_tokens", "output_tokens")):
                return "token_count with rate limits only (no token info)"
            info = {"last_token_usage": payload}  # a flat count (seen in converters' fixtures)
        total = info.get("total_token_usage")
        key: tuple[int, ...] | None = None
        previous: tuple[int, ...] | None = None
        if isinstance(total, dict):
            key = tuple(to_int(total.get(k)) for k in _TOTAL_FIELDS)
            if key == self.last_total:
                return "token_count repeated (cumulative total unchanged; counted once)"
            previous = self.last_total
            self.last_total = key
            self.final_total = total
        usage = usage_of(info.get("last_token_usage"))
        if usage is None and key is not None:
            # No per-turn figure: the growth of the cumulative total is this turn's usage.
            base = previous or (0, 0, 0, 0, 0)
            usage = usage_of(dict(zip(_TOTAL_FIELDS[:4], (a - b for a, b in zip(key, base)))))
        if usage is None:
            return "token_count with no usage"
        self._attach(usage, events)
        return None

    def _attach(self, usage: Usage, events: list[Event]) -> None:
        if self.targets:
            index = self.targets[-1]
            events[index] = _with_usage(events[index], usage)
            self.targets = []
        else:
            self.pending = (self.pending + usage) if self.pending else usage

    def settle(self, events: list[Event]) -> Usage | None:
        """At the end: usage reported before any model output goes on the last model event (never
        dropped); returns what no event could take."""
        if self.pending is not None:
            targets = [i for i, e in enumerate(events) if e.kind in MODEL_KINDS]
            if targets:
                events[targets[-1]] = _with_usage(events[targets[-1]], self.pending)
                self.pending = None
        return self.pending
