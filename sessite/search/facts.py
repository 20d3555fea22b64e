"""Per-session facts the search page filters by (``model:``, ``tool:``, ``after:``, ``before:``).

Agent and project numbers travel in ``search/meta.js``, which every first query
loads; the start day, models and tools of every session are in
``search/facts.js``, which the page loads only for a query that filters by them,
so a plain query downloads nothing more.
"""

from __future__ import annotations

from collections.abc import Iterable

from sessite.search.item import js_call

FACTS_URL = "search/facts.js"

Facts = tuple[str, tuple[str, ...], tuple[str, ...]]  # start day (YYYY-MM-DD or ""), models, tools


class FactTable:
    """Facts of every session in build order, names numbered once."""

    def __init__(self) -> None:
        self.days: list[str] = []
        self.models: dict[str, int] = {}
        self.tools: dict[str, int] = {}
        self.session_models: list[list[int]] = []
        self.session_tools: list[list[int]] = []

    def add(self, facts: Facts) -> None:
        day, models, tools = facts
        self.days.append(day[:10])
        self.session_models.append(_numbers(models, self.models))
        self.session_tools.append(_numbers(tools, self.tools))

    def file(self) -> tuple[str, bytes]:
        data = {
            "days": self.days,
            "models": list(self.models),
            "tools": list(self.tools),
            "m": self.session_models,
            "t": self.session_tools,
        }
        return FACTS_URL, js_call("facts", data)


def _numbers(names: Iterable[str], table: dict[str, int]) -> list[int]:
    return [table.setdefault(name, len(table)) for name in dict.fromkeys(names) if name]
