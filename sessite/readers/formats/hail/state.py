"""What reading one HAIL file keeps between records: problems, event ids, the calls seen so
far (results link to them), the models, and the token totals already counted."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessite.model import Problems
from sessite.readers._util import Ids


@dataclass
class ReadState:
    path: Path
    problems: Problems
    json_mode: bool  # HAIL JSON (events[] in one object) rather than JSONL: problems name the index
    header_model: str | None = None
    ids: Ids = field(default_factory=Ids)
    call_ids: dict[str, str] = field(default_factory=dict)  # raw event_id of a call -> its final id
    semantic_calls: dict[str, str] = field(default_factory=dict)  # semantic.call_id / tool_use_id -> final id
    models: list[str] = field(default_factory=list)
    last_totals: tuple[Any, Any] | None = None  # the cumulative token totals last counted
    has_event_usage: bool = False

    def report(self, line: int | None, message: str) -> None:
        if self.json_mode:
            where = f"events[{line - 1}]: " if line else ""
            self.problems.add(self.path, None, f"HAIL JSON: {where}{message}")
        else:
            self.problems.add(self.path, line, f"HAIL: {message}")

    def unique(self, raw_id: str, line: int | None, report: bool = False) -> str:
        """``raw_id``, or ``raw_id-2``, ``-3`` … when it is taken (reported when ``report``)."""
        event_id = self.ids.take(raw_id)  # never empty: callers fall back on "line-N"
        if report and event_id != raw_id:
            self.report(line, f"duplicate event_id {raw_id!r}; renamed to {event_id!r}")
        return event_id

    def add_model(self, model: str) -> None:
        if model not in self.models:
            self.models.append(model)
