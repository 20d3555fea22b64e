"""Figures added up over many sessions: the whole archive, or one project, with its top-N tables."""

from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from sessite.analyze.insights.figures import SessionFigures
from sessite.analyze.insights.prices import Prices, model_price, usage_cost
from sessite.analyze.session import SessionSummary
from sessite.analyze.time_spans import aware
from sessite.model import Usage

TOP = 15  # rows in each top-N table


@dataclass(frozen=True, slots=True)
class SessionRow:
    """A session in a top-N table."""

    id: str  # its page: site.urls.session_url(id)
    title: str
    agent: str
    project: str | None
    started: datetime | None
    seconds: float
    tokens: int
    cost: float | None
    cost_partial: bool = False  # some of its tokens have no known price: the cost is a lower bound


_Ranked = tuple[Any, str, SessionRow]  # (what ranks it, session id, row)


class Totals:
    """Figures added up over sessions: the whole archive, or one project."""

    def __init__(self, top: int = TOP) -> None:
        self.top = top
        self.sessions = 0
        self.apart = 0  # not index rows: no messages, or sub-agents' logs (SessionSummary.listed_apart)
        self.undated = 0
        self.seconds = 0.0  # active time (analyze.time_spans)
        self.span_seconds = 0.0  # first to last event, added up
        self.usage = Usage()
        self.cost = 0.0
        self.priced_sessions = 0
        self.recorded_cost_sessions = 0  # sessions whose cost the agent recorded (the rest are estimates)
        self.unpriced_tokens = 0  # tokens from models with no known price
        self.tool_calls = 0
        self.tool_errors = 0
        self.edits = 0
        self.added = 0
        self.removed = 0
        self.first: datetime | None = None
        self.last: datetime | None = None
        self.days: dict[date, list[Any]] = {}  # day -> [sessions, Counter(agent), Usage, cost]
        self.agents: dict[str, list[Any]] = {}  # agent -> [sessions, Usage, cost, priced]
        self.models: dict[str, list[Any]] = {}  # model -> [sessions, Usage, cost or None]
        self.tools: dict[str, list[int]] = {}  # name -> [calls, errors, sessions]
        self.files: dict[tuple[str, str], list[int]] = {}  # (project, path) -> [edits, added, removed, sessions]
        self._longest: list[tuple[tuple[Any, _Rev], _Ranked]] = []  # heaps of the top sessions: (seconds, id, row)
        self._costliest: list[tuple[tuple[Any, _Rev], _Ranked]] = []  # ((cost, tokens), id, row)
        self._biggest: list[tuple[tuple[Any, _Rev], _Ranked]] = []  # (tokens, id, row)

    def add(self, s: SessionSummary, f: SessionFigures, prices: Prices) -> None:
        """Add one session: its summary and its figures (costed with ``prices``)."""
        self.sessions += 1
        self.apart += s.listed_apart is not None
        duration = s.active.total_seconds() if s.active else 0.0
        self.seconds += duration
        self.span_seconds += s.duration.total_seconds() if s.duration else 0.0
        usage = s.stats.usage
        self.usage = self.usage + usage
        if f.cost is not None:
            self.cost += f.cost
            self.priced_sessions += 1
            self.recorded_cost_sessions += f.cost_recorded
        self.tool_calls += s.stats.tool_calls
        self.tool_errors += f.tool_errors
        self.edits += f.edits
        self.added += f.added
        self.removed += f.removed
        if s.started:
            self._add_day(aware(s.started).astimezone(UTC), s.agent, usage, f.cost or 0.0)
        else:
            self.undated += 1
        self._add_agent(s.agent, usage, f.cost)
        self._add_models(s.models, f.usage_by_model, prices, f.cost_recorded)
        self._add_tools(f.tools)
        self._add_files(s.project or "", f.files)
        partial = f.cost_partial or (f.cost is None and usage.total > 0)
        row = SessionRow(s.id, s.title, s.agent, s.project, s.started, duration, usage.total, f.cost, partial)
        _push(self._longest, (duration, s.id, row), self.top)
        _push(self._costliest, ((f.cost if f.cost is not None else -1.0, usage.total), s.id, row), self.top)
        _push(self._biggest, (usage.total, s.id, row), self.top)

    def _add_day(self, started: datetime, agent: str, usage: Usage, cost: float) -> None:
        day = started.date()
        bucket = self.days.get(day)
        if bucket is None:
            bucket = self.days[day] = [0, Counter(), Usage(), 0.0]
        bucket[0] += 1
        bucket[1][agent] += 1
        bucket[2] = bucket[2] + usage
        bucket[3] += cost
        self.first = started if self.first is None or started < self.first else self.first
        self.last = started if self.last is None or started > self.last else self.last

    def _add_agent(self, name: str, usage: Usage, cost: float | None) -> None:
        agent = self.agents.get(name)
        if agent is None:
            agent = self.agents[name] = [0, Usage(), 0.0, 0]
        agent[0] += 1
        agent[1] = agent[1] + usage
        if cost is not None:
            agent[2] += cost
            agent[3] += 1

    def _add_models(
        self,
        named: tuple[str, ...],
        usage_by_model: tuple[tuple[str, Usage], ...],
        prices: Prices,
        recorded: bool = False,
    ) -> None:
        for model, mu in usage_by_model:
            entry = self.models.get(model)
            if entry is None:
                entry = self.models[model] = [0, Usage(), None]
            entry[0] += 1
            entry[1] = entry[1] + mu
            price = model_price(model, prices)
            if price is not None:
                entry[2] = (entry[2] or 0.0) + usage_cost(mu, price)
            elif not recorded:  # a cost the agent recorded covers every model
                self.unpriced_tokens += mu.total
        for model in named:  # models named with no usage still count their sessions
            if model not in self.models:
                self.models[model] = [1, Usage(), None]
            elif not any(m == model for m, _ in usage_by_model):
                self.models[model][0] += 1

    def _add_tools(self, tools: tuple[tuple[str, int, int], ...]) -> None:
        for name, calls, errors in tools:
            entry = self.tools.get(name)
            if entry is None:
                entry = self.tools[name] = [0, 0, 0]
            entry[0] += calls
            entry[1] += errors
            entry[2] += 1

    def _add_files(self, project: str, files: tuple[tuple[str, int, int, int], ...]) -> None:
        for path, edits, added, removed in files:
            entry = self.files.get((project, path))
            if entry is None:
                entry = self.files[(project, path)] = [0, 0, 0, 0]
            entry[0] += edits
            entry[1] += added
            entry[2] += removed
            entry[3] += 1

    # ---- views for the templates

    @property
    def error_rate(self) -> float:
        return self.tool_errors / self.tool_calls if self.tool_calls else 0.0

    def longest(self) -> list[SessionRow]:
        return [row for d, _, row in sorted((item for _, item in self._longest), key=lambda t: (-t[0], t[1])) if d > 0]

    @property
    def priced_share(self) -> float:
        """The share of the tokens a cost covers (recorded, or priced from the table)."""
        total = self.usage.total
        return 1.0 - self.unpriced_tokens / total if total else 1.0

    @property
    def costs_complete(self) -> bool:
        """Every token is covered by a cost, so sessions can be ranked by cost."""
        return self.unpriced_tokens == 0

    def costliest(self) -> list[SessionRow]:
        """The top sessions by cost, or by tokens when some tokens have no price (a cost ranking
        would leave out the biggest sessions of models with no known price)."""
        if not self.costs_complete:
            ranked_tokens = sorted((item for _, item in self._biggest), key=lambda t: (-t[0], t[1]))
            return [row for k, _, row in ranked_tokens if k > 0]
        ranked = sorted((item for _, item in self._costliest), key=lambda t: (-t[0][0], -t[0][1], t[1]))
        return [row for k, _, row in ranked if k[0] > 0 or k[1] > 0]

    def top_tools(self, n: int | None = None) -> list[tuple[str, int, int, int]]:
        items = sorted(self.tools.items(), key=lambda kv: (-kv[1][0], kv[0]))[: n or self.top]
        return [(name, c, e, s) for name, (c, e, s) in items]

    def top_files(self, n: int | None = None) -> list[tuple[str, str, int, int, int, int]]:
        items = sorted(self.files.items(), key=lambda kv: (-kv[1][0], -(kv[1][1] + kv[1][2]), kv[0]))[: n or self.top]
        return [(project, path, e, a, r, s) for (project, path), (e, a, r, s) in items]

    def top_agents(self) -> list[tuple[str, int, Usage, float | None]]:
        items = sorted(self.agents.items(), key=lambda kv: (-kv[1][0], kv[0]))[: self.top]
        return [(name, n, u, cost if priced else None) for name, (n, u, cost, priced) in items]

    def top_models(self) -> list[tuple[str, int, Usage, float | None]]:
        items = sorted(self.models.items(), key=lambda kv: (-kv[1][1].total, -kv[1][0], kv[0]))[: self.top]
        return [(name, n, u, cost) for name, (n, u, cost) in items]


def _push(heap: list[tuple[tuple[Any, _Rev], _Ranked]], item: _Ranked, size: int) -> None:
    """Keep the ``size`` largest; ties broken by id so the result does not depend on order."""
    key = (item[0], _Rev(item[1]))
    entry = (key, item)
    if len(heap) < size:
        heapq.heappush(heap, entry)
    elif key > heap[0][0]:
        heapq.heapreplace(heap, entry)


class _Rev:
    """Reverses string order inside a heap key (smaller ids rank higher on ties)."""

    __slots__ = ("s",)

    def __init__(self, s: str) -> None:
        self.s = s

    def __lt__(self, other: _Rev) -> bool:
        return self.s > other.s

    def __gt__(self, other: _Rev) -> bool:
        return self.s < other.s

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Rev) and self.s == other.s
