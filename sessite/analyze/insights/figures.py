"""What one session adds to the insights: tokens by model, tools with their failures, files edited, cost."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, replace

from sessite.analyze.insights.edits import FileEdit, file_edits
from sessite.analyze.insights.prices import DEFAULT_PRICES, Prices, estimate_cost
from sessite.analyze.session import PairedSession
from sessite.model import Kind, Session, Usage, walk

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
    cost: float | None = None  # USD: recorded by the agent, else estimated; None when neither is known
    cost_partial: bool = False  # an estimate where some tokens came from models with no known price
    cost_recorded: bool = False  # ``cost`` is what the agent recorded (Cline, OpenCode), not our estimate

    @property
    def tool_errors(self) -> int:
        return sum(e for _, _, e in self.tools)


UNKNOWN_MODEL = "unknown model"


def usage_by_model(session: Session, models: tuple[str, ...]) -> tuple[tuple[str, Usage], ...]:
    """Tokens per model, most first; usage with no model goes to the session's only model, if it has one."""
    default = models[0] if len(models) == 1 else None
    totals: dict[str, Usage] = {}
    for event in walk(session.events):
        if event.usage:
            name = event.model or default or UNKNOWN_MODEL
            totals[name] = totals.get(name, Usage()) + event.usage
    if not totals and session.usage:
        totals[models[0] if models else UNKNOWN_MODEL] = session.usage
    return tuple(sorted(totals.items(), key=lambda kv: (-kv[1].total, kv[0])))


def tool_figures(view: PairedSession) -> tuple[tuple[str, int, int], ...]:
    """(tool name, calls, failed calls), most calls first; a call failed when it or a result says so."""
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


@dataclass(slots=True)
class _Memo:
    """The last view's price-independent figures and its edits: the session page and the
    aggregates both ask for one view's figures, one after the other."""

    view: PairedSession | None = None
    figures: SessionFigures | None = None
    edits: list[FileEdit] | None = None


_MEMO = _Memo()


def _figures_and_edits(view: PairedSession) -> tuple[SessionFigures, list[FileEdit]]:
    if _MEMO.view is view and _MEMO.figures is not None and _MEMO.edits is not None:
        return _MEMO.figures, _MEMO.edits
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
    _MEMO.view, _MEMO.figures, _MEMO.edits = view, figures, edits
    return figures, edits


def recorded_cost(session: Session) -> float | None:
    """The cost in USD the agent itself recorded for the session (``meta["cost"]``), if it did."""
    value = session.meta.get("cost")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


def session_figures(view: PairedSession, prices: Prices | None = None) -> SessionFigures:
    """A session's figures, with its cost as the agent recorded it, else estimated from
    ``prices`` (the built-in table when None): a recorded cost is never replaced by a guess."""
    figures, _ = _figures_and_edits(view)
    recorded = recorded_cost(view.session)
    if recorded is not None:
        return replace(figures, cost=recorded, cost_partial=False, cost_recorded=True)
    cost, partial = estimate_cost(figures.usage_by_model, DEFAULT_PRICES if prices is None else prices)
    if cost == figures.cost and partial == figures.cost_partial:
        return figures
    return replace(figures, cost=cost, cost_partial=partial)


def session_edits(view: PairedSession) -> list[FileEdit]:
    """Every edit of the session, failed ones included (the session page lists them per file)."""
    return _figures_and_edits(view)[1]
