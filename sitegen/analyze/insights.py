"""Archive insights: per-session figures and their site-wide totals. No I/O, no HTML.

``session_figures(view)`` is what one session adds to the insights (small and
picklable: it crosses processes and sits in the build cache); ``Totals`` adds
those up for the whole archive or one project; ``timeline(view)`` says where a
session's time went, for the strip on its page. Charts are drawn from these
numbers by ``charts.py`` and the templates.

Token figures are the readers' de-duplicated usage (a Claude Code message split
over several records counts once; Codex's cumulative totals are turned into
per-turn figures), summed over every event, sub-agents included.

Costs are estimates from a small price table (``DEFAULT_PRICES``, or the
site's ``prices`` setting); a model not in the table has no cost, only tokens.
"""

from __future__ import annotations

import heapq
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sitegen.analyze.session import SessionSummary
from sitegen.model import Event, Kind, Session, ToolCategory, Usage, walk
from sitegen.site.view import SessionView

# ---------------------------------------------------------------------------
# prices

# USD per million tokens: (input, output, cache read, cache write).
# An ESTIMATE from the vendors' public list prices as last checked (late 2025);
# it may be out of date, ignores batch/long-context/regional tiers, and is
# matched by model-name prefix. Override with the ``prices`` setting.
DEFAULT_PRICES: dict[str, tuple[float, float, float, float]] = {
    # Anthropic (cache write = 5-minute cache)
    "claude-opus-4": (15.0, 75.0, 1.5, 18.75),  # Opus 4 and 4.1
    "claude-opus-4-5": (5.0, 25.0, 0.5, 6.25),
    "claude-opus-4-6": (5.0, 25.0, 0.5, 6.25),
    "claude-sonnet-4": (3.0, 15.0, 0.3, 3.75),  # Sonnet 4 and 4.5
    "claude-3-7-sonnet": (3.0, 15.0, 0.3, 3.75),
    "claude-3-5-sonnet": (3.0, 15.0, 0.3, 3.75),
    "claude-haiku-4-5": (1.0, 5.0, 0.1, 1.25),
    "claude-3-5-haiku": (0.8, 4.0, 0.08, 1.0),
    # Cursor's spelling of the same models
    "claude-4-opus": (15.0, 75.0, 1.5, 18.75),
    "claude-4.1-opus": (15.0, 75.0, 1.5, 18.75),
    "claude-4.5-opus": (5.0, 25.0, 0.5, 6.25),
    "claude-4-sonnet": (3.0, 15.0, 0.3, 3.75),
    "claude-4.5-sonnet": (3.0, 15.0, 0.3, 3.75),
    "claude-4.5-haiku": (1.0, 5.0, 0.1, 1.25),
    # OpenAI (cached input; no charge for cache writes)
    "gpt-5": (1.25, 10.0, 0.125, 0.0),  # gpt-5, gpt-5-codex
    "gpt-5-mini": (0.25, 2.0, 0.025, 0.0),
    "gpt-5-nano": (0.05, 0.4, 0.005, 0.0),
    "gpt-5.1": (1.25, 10.0, 0.125, 0.0),
    "gpt-4.1": (2.0, 8.0, 0.5, 0.0),
    "gpt-4.1-mini": (0.4, 1.6, 0.1, 0.0),
    "gpt-4o": (2.5, 10.0, 1.25, 0.0),
    "gpt-4o-mini": (0.15, 0.6, 0.075, 0.0),
    "o3": (2.0, 8.0, 0.5, 0.0),
    "o4-mini": (1.1, 4.4, 0.275, 0.0),
    # Google (prompts up to 200k tokens)
    "gemini-2.5-pro": (1.25, 10.0, 0.125, 0.0),
    "gemini-2.5-flash": (0.3, 2.5, 0.03, 0.0),
    "gemini-2.5-flash-lite": (0.1, 0.4, 0.01, 0.0),
}

Prices = Mapping[str, tuple[float, float, float, float]]
_PRICE_KEYS = ("input", "output", "cache_read", "cache_write")


def price_table(value: Mapping[str, Any] | None) -> dict[str, tuple[float, float, float, float]]:
    """The site's price table: the built-in estimate when unset, else the user's.

    The user's table maps a model-name prefix to ``{input, output, cache_read,
    cache_write}`` in USD per million tokens (missing keys count 0); an empty
    table turns costs off. Raises ValueError on a malformed table.
    """
    if value is None:
        return dict(DEFAULT_PRICES)
    if not isinstance(value, Mapping):
        raise ValueError("prices: expected a table of model prefix -> {input, output, cache_read, cache_write}")
    table: dict[str, tuple[float, float, float, float]] = {}
    for prefix, entry in value.items():
        if isinstance(entry, (list, tuple)) and len(entry) == 4:
            numbers = tuple(entry)
        elif isinstance(entry, Mapping):
            unknown = set(entry) - set(_PRICE_KEYS)
            if unknown:
                raise ValueError(
                    f"prices.{prefix}: unknown key(s) {', '.join(sorted(unknown))}; use {', '.join(_PRICE_KEYS)}"
                )
            numbers = tuple(entry.get(k, 0) for k in _PRICE_KEYS)
        else:
            raise ValueError(f"prices.{prefix}: expected {{input, output, cache_read, cache_write}}")
        try:
            floats = tuple(float(n) for n in numbers)
        except (TypeError, ValueError):
            raise ValueError(f"prices.{prefix}: prices must be numbers (USD per million tokens)") from None
        if any(n < 0 or n != n for n in floats):
            raise ValueError(f"prices.{prefix}: prices must be zero or more")
        table[str(prefix).lower()] = floats  # type: ignore[assignment]
    return table


_BOUNDARY = "-_:@/ "  # after a prefix; "." is not one, so gpt-5 never prices gpt-5.3


def model_price(model: str | None, prices: Prices) -> tuple[float, float, float, float] | None:
    """The longest table prefix that matches the model name at a word boundary."""
    if not model or not prices:
        return None
    name = model.strip().lower()
    name = name.rsplit("/", 1)[-1]  # provider/model
    best: str | None = None
    for prefix in prices:
        if name.startswith(prefix) and (len(name) == len(prefix) or name[len(prefix)] in _BOUNDARY):
            if best is None or len(prefix) > len(best):
                best = prefix
    return prices[best] if best is not None else None


def usage_cost(usage: Usage, price: tuple[float, float, float, float]) -> float:
    pin, pout, pread, pwrite = price
    return (
        usage.input_tokens * pin
        + usage.output_tokens * pout
        + usage.cache_read_tokens * pread
        + usage.cache_write_tokens * pwrite
    ) / 1_000_000


def estimate_cost(by_model: Iterable[tuple[str, Usage]], prices: Prices) -> tuple[float | None, bool]:
    """(estimated USD, partial): None when no model is priced; partial when some tokens are not."""
    cost: float | None = None
    partial = False
    for model, usage in by_model:
        if not usage:
            continue
        price = model_price(model, prices)
        if price is None:
            partial = True
            continue
        cost = (cost or 0.0) + usage_cost(usage, price)
    return cost, (partial and cost is not None)


# ---------------------------------------------------------------------------
# edits: files and lines, from EDIT tool calls


@dataclass(frozen=True, slots=True)
class FileEdit:
    path: str  # as the tool named it (relative to the session's folder when it was under it)
    added: int
    removed: int
    ok: bool  # False when the tool reported an error: lines are then not counted
    event_id: str


_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def _header_path(text: str, strip: str) -> str | None:
    path = text.split("\t", 1)[0].strip()
    if path.startswith('"') and path.endswith('"') and len(path) > 1:
        path = path[1:-1]
    if not path or path == "/dev/null":
        return None
    if path.startswith(strip):
        path = path[len(strip) :]
    return path


def diff_stats(diff: str, fallback: str | None = None) -> list[tuple[str | None, int, int]]:
    """[(path, lines added, lines removed)] per file of a unified diff.

    File headers (``--- a`` / ``+++ b``) split a multi-file patch; a diff with
    no header counts against ``fallback``. Hunk headers with line counts are
    followed exactly, so a removed line that reads ``-- x`` is not a header.
    """
    files: list[list[Any]] = []
    current: list[Any] | None = None
    old_left = new_left = 0
    lines = diff.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if old_left > 0 or new_left > 0:  # inside a hunk with known lengths
            if current is None:
                current = [fallback, 0, 0]
                files.append(current)
            if line.startswith("+"):
                current[1] += 1
                new_left -= 1
            elif line.startswith("-"):
                current[2] += 1
                old_left -= 1
            elif line.startswith("\\"):
                pass
            else:
                old_left -= 1
                new_left -= 1
            continue
        if line.startswith("--- ") and i < len(lines) and lines[i].startswith("+++ "):
            old = _header_path(line[4:], "a/")
            new = _header_path(lines[i][4:], "b/")
            i += 1
            current = [new or old or fallback, 0, 0]
            files.append(current)
            continue
        match = _HUNK.match(line)
        if match:
            old_left = int(match.group(1)) if match.group(1) is not None else 1
            new_left = int(match.group(2)) if match.group(2) is not None else 1
            continue
        if line.startswith(
            (
                "@@",
                "diff --git ",
                "index ",
                "Index: ",
                "===",
                "new file mode",
                "deleted file mode",
                "similarity ",
                "rename ",
                "*** ",
            )
        ):
            continue
        if current is None:
            current = [fallback, 0, 0]
            files.append(current)
        if line.startswith("+"):
            current[1] += 1
        elif line.startswith("-"):
            current[2] += 1
    return [(f[0], f[1], f[2]) for f in files]


def relative_path(path: str, cwd: str | None) -> str:
    """A path under the session's folder, relative to it; any other path as given."""
    if cwd:
        norm, base = path.replace("\\", "/"), cwd.replace("\\", "/").rstrip("/")
        if base and norm.startswith(base + "/"):
            return norm[len(base) + 1 :]
    return path


def file_edits(view: SessionView) -> list[FileEdit]:
    """Every file an EDIT tool call changed, with its lines added and removed.

    The call's diff is preferred; a result's diff stands in when the call has
    none. An edit whose result is an error counts as attempted, not changed.
    """
    cwd = view.session.cwd
    out: list[FileEdit] = []
    for event in walk(view.session.events):
        if event.kind != Kind.TOOL_CALL or not (event.category == ToolCategory.EDIT or event.diff):
            continue
        results = view.results_for(event)
        ok = not event.is_error and not any(r.is_error for r in results)
        diff = event.diff or next((r.diff for r in results if r.diff), None)
        path = event.path
        if diff:
            parts = diff_stats(diff, path)
            if len(parts) > 1 or (parts and parts[0][0]):
                for p, added, removed in parts:
                    if p:
                        out.append(
                            FileEdit(relative_path(p, cwd), added if ok else 0, removed if ok else 0, ok, event.id)
                        )
                continue
            added = sum(a for _, a, _ in parts)
            removed = sum(r for _, _, r in parts)
        else:
            added = removed = 0
        if path:
            out.append(FileEdit(relative_path(path, cwd), added if ok else 0, removed if ok else 0, ok, event.id))
    return out


# ---------------------------------------------------------------------------
# one session's figures


MAX_FILES_PER_SESSION = 200  # in the collected item; the session page lists them all


@dataclass(frozen=True, slots=True)
class SessionFigures:
    """What a session adds to the archive's insights, besides its summary."""

    usage_by_model: tuple[tuple[str, Usage], ...]  # most tokens first
    tools: tuple[tuple[str, int, int], ...]  # (name, calls, calls that failed), most calls first
    files: tuple[tuple[str, int, int, int], ...]  # (path, edits, lines added, lines removed), most edits first
    edits: int  # successful edit calls
    failed_edits: int
    added: int
    removed: int
    files_edited: int  # all of them, even beyond MAX_FILES_PER_SESSION
    cost: float | None = None  # estimated USD; None when no model used is priced
    cost_partial: bool = False  # some tokens came from models with no known price

    @property
    def tool_errors(self) -> int:
        return sum(e for _, _, e in self.tools)


UNKNOWN_MODEL = "unknown model"


def usage_by_model(session: Session, models: tuple[str, ...]) -> tuple[tuple[str, Usage], ...]:
    default = models[0] if len(models) == 1 else None
    totals: dict[str, Usage] = {}
    for event in walk(session.events):
        if event.usage:
            name = event.model or default or UNKNOWN_MODEL
            totals[name] = totals.get(name, Usage()) + event.usage
    if not totals and session.usage:
        totals[models[0] if models else UNKNOWN_MODEL] = session.usage
    return tuple(sorted(totals.items(), key=lambda kv: (-kv[1].total, kv[0])))


def tool_figures(view: SessionView) -> tuple[tuple[str, int, int], ...]:
    calls: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    for event in walk(view.session.events):
        if event.kind != Kind.TOOL_CALL:
            continue
        name = event.tool_name or "tool"
        calls[name] += 1
        if event.is_error or any(r.is_error for r in view.results_for(event)):
            errors[name] += 1
    return tuple((name, n, errors[name]) for name, n in sorted(calls.items(), key=lambda kv: (-kv[1], kv[0])))


_MEMO: list[Any] = [None, None, None]  # view, its price-independent figures, its edits


def _figures_and_edits(view: SessionView) -> tuple[SessionFigures, list[FileEdit]]:
    # The session page and the aggregates both ask for one view's figures, one after the other.
    if _MEMO[0] is view:
        return _MEMO[1], _MEMO[2]
    edits = file_edits(view)
    per_file: dict[str, list[int]] = {}
    for edit in edits:
        if edit.ok:
            entry = per_file.setdefault(edit.path, [0, 0, 0])
            entry[0] += 1
            entry[1] += edit.added
            entry[2] += edit.removed
    files = sorted(per_file.items(), key=lambda kv: (-kv[1][0], -(kv[1][1] + kv[1][2]), kv[0]))
    figures = SessionFigures(
        usage_by_model=usage_by_model(view.session, view.summary.models),
        tools=tool_figures(view),
        files=tuple((p, e, a, r) for p, (e, a, r) in files[:MAX_FILES_PER_SESSION]),
        edits=sum(1 for e in edits if e.ok),
        failed_edits=sum(1 for e in edits if not e.ok),
        added=sum(e.added for e in edits),
        removed=sum(e.removed for e in edits),
        files_edited=len(files),
    )
    _MEMO[:] = [view, figures, edits]
    return figures, edits


def session_figures(view: SessionView, prices: Prices | None = None) -> SessionFigures:
    """A session's figures, with its cost estimated from ``prices`` (the built-in table when None)."""
    figures, _ = _figures_and_edits(view)
    cost, partial = estimate_cost(figures.usage_by_model, DEFAULT_PRICES if prices is None else prices)
    if cost == figures.cost and partial == figures.cost_partial:
        return figures
    return replace(figures, cost=cost, cost_partial=partial)


def session_edits(view: SessionView) -> list[FileEdit]:
    return _figures_and_edits(view)[1]


# ---------------------------------------------------------------------------
# where a session's time went


GAP = timedelta(minutes=15)  # a pause longer than this is drawn as a break, not to scale

# segment kinds, in legend order
TIME_KINDS = (
    ("model", "Agent working"),
    ("shell", "Shell"),
    ("edit", "Edits"),
    ("read", "Reading"),
    ("search", "Search"),
    ("web", "Web"),
    ("task", "Sub-agents"),
    ("tool", "Other tools"),
    ("waiting", "Waiting for the user"),
    ("idle", "Pauses"),
)
_TOOL_KINDS_SET = {"shell", "edit", "read", "search", "web", "task", "tool"}
_TOOL_KIND = {
    ToolCategory.SHELL: "shell",
    ToolCategory.EDIT: "edit",
    ToolCategory.READ: "read",
    ToolCategory.SEARCH: "search",
    ToolCategory.WEB: "web",
    ToolCategory.TASK: "task",
}


@dataclass(frozen=True, slots=True)
class TimeSpan:
    kind: str  # one of TIME_KINDS
    start: datetime
    end: datetime
    event_id: str  # the event that opened it (link target)
    label: str  # tool name, or the kind's label
    events: int = 1  # spans merged into this one

    @property
    def seconds(self) -> float:
        return (self.end - self.start).total_seconds()


def _span_kind(event: Event, following: Event) -> tuple[str, str]:
    if event.kind == Kind.TOOL_CALL:
        kind = _TOOL_KIND.get(event.category, "tool") if event.category else "tool"
        return kind, event.tool_name or "tool"
    if event.kind == Kind.ASSISTANT and following.kind == Kind.USER:
        return "waiting", "Waiting for the user"
    if event.kind == Kind.SUBAGENT:
        return "task", event.title or "sub-agent"
    return "model", "Agent working"


def timeline(session: Session) -> list[TimeSpan]:
    """Consecutive spans between the session's timed top-level events.

    A span belongs to the event that opened it: a tool call's span lasts until
    the next event (usually its result), an assistant message followed by a
    user message is the user's turn, anything else is the agent at work. A
    span longer than GAP is a pause. Neighbouring spans of one kind merge.
    """
    timed = [(aware(e.timestamp), e) for e in session.events if e.timestamp is not None]
    timed.sort(key=lambda pair: pair[0])  # stable: file order breaks ties
    spans: list[TimeSpan] = []
    for (start, event), (end, following) in zip(timed, timed[1:]):
        if end <= start:
            continue
        kind, label = _span_kind(event, following)
        if end - start > GAP and kind in ("model", "waiting"):
            kind, label = "idle", "Pause"
        last = spans[-1] if spans else None
        if last and last.kind == kind and last.end == start and (kind not in _TOOL_KINDS_SET or last.label == label):
            spans[-1] = TimeSpan(kind, last.start, end, last.event_id, last.label, last.events + 1)
        else:
            spans.append(TimeSpan(kind, start, end, event.id, label))
    return spans


def time_by_kind(spans: list[TimeSpan]) -> list[tuple[str, str, float]]:
    """[(kind, label, seconds)] in legend order, kinds with no time left out."""
    seconds: Counter[str] = Counter()
    for span in spans:
        seconds[span.kind] += span.seconds
    return [(k, label, seconds[k]) for k, label in TIME_KINDS if seconds[k] > 0]


# ---------------------------------------------------------------------------
# totals over many sessions


TOP = 15  # rows in each top-N table


@dataclass(frozen=True, slots=True)
class SessionRow:
    """A session in a top-N table."""

    id: str
    url: str
    title: str
    agent: str
    project: str | None
    started: datetime | None
    seconds: float
    tokens: int
    cost: float | None


def aware(value: datetime) -> datetime:
    """A timestamp with a zone (one without is taken as UTC), so any two compare."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def utc_day(value: datetime) -> date:
    return aware(value).astimezone(UTC).date()


class Totals:
    """Figures added up over sessions: the whole archive, or one project."""

    def __init__(self, top: int = TOP) -> None:
        self.top = top
        self.sessions = 0
        self.undated = 0
        self.seconds = 0.0
        self.usage = Usage()
        self.cost = 0.0
        self.priced_sessions = 0
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
        self._longest: list[tuple[Any, tuple[float, str, SessionRow]]] = []  # heaps of the top sessions
        self._costliest: list[tuple[Any, tuple[tuple[float, int], str, SessionRow]]] = []

    def add(self, s: SessionSummary, f: SessionFigures, prices: Prices) -> None:
        self.sessions += 1
        duration = s.duration.total_seconds() if s.duration else 0.0
        self.seconds += duration
        usage = s.stats.usage
        self.usage = self.usage + usage
        if f.cost is not None:
            self.cost += f.cost
            self.priced_sessions += 1
        self.tool_calls += s.stats.tool_calls
        self.tool_errors += f.tool_errors
        self.edits += f.edits
        self.added += f.added
        self.removed += f.removed
        cost = f.cost or 0.0
        if s.started:
            started = aware(s.started).astimezone(UTC)
            day = started.date()
            bucket = self.days.get(day)
            if bucket is None:
                bucket = self.days[day] = [0, Counter(), Usage(), 0.0]
            bucket[0] += 1
            bucket[1][s.agent] += 1
            bucket[2] = bucket[2] + usage
            bucket[3] += cost
            self.first = started if self.first is None or started < self.first else self.first
            self.last = started if self.last is None or started > self.last else self.last
        else:
            self.undated += 1
        agent = self.agents.get(s.agent)
        if agent is None:
            agent = self.agents[s.agent] = [0, Usage(), 0.0, 0]
        agent[0] += 1
        agent[1] = agent[1] + usage
        if f.cost is not None:
            agent[2] += f.cost
            agent[3] += 1
        for model, mu in f.usage_by_model:
            entry = self.models.get(model)
            if entry is None:
                entry = self.models[model] = [0, Usage(), None]
            entry[0] += 1
            entry[1] = entry[1] + mu
            price = model_price(model, prices)
            if price is not None:
                entry[2] = (entry[2] or 0.0) + usage_cost(mu, price)
            else:
                self.unpriced_tokens += mu.total
        for model in s.models:  # models named with no usage still count their sessions
            if model not in self.models:
                self.models[model] = [1, Usage(), None]
            elif not any(m == model for m, _ in f.usage_by_model):
                self.models[model][0] += 1
        for name, calls, errors in f.tools:
            entry = self.tools.get(name)
            if entry is None:
                entry = self.tools[name] = [0, 0, 0]
            entry[0] += calls
            entry[1] += errors
            entry[2] += 1
        project = s.project or ""
        for path, edits, added, removed in f.files:
            entry = self.files.get((project, path))
            if entry is None:
                entry = self.files[(project, path)] = [0, 0, 0, 0]
            entry[0] += edits
            entry[1] += added
            entry[2] += removed
            entry[3] += 1
        row = SessionRow(s.id, s.url, s.title, s.agent, s.project, s.started, duration, usage.total, f.cost)
        _push(self._longest, (duration, s.id, row), self.top)
        _push(self._costliest, ((f.cost if f.cost is not None else -1.0, usage.total), s.id, row), self.top)

    # ---- views for the templates

    @property
    def error_rate(self) -> float:
        return self.tool_errors / self.tool_calls if self.tool_calls else 0.0

    def longest(self) -> list[SessionRow]:
        return [row for d, _, row in sorted((item for _, item in self._longest), key=lambda t: (-t[0], t[1])) if d > 0]

    def costliest(self) -> list[SessionRow]:
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


def _push(heap: list, item: tuple, size: int) -> None:
    # keep the ``size`` largest; ties broken by id so the result does not depend on order
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
