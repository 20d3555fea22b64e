"""Archive insights: per-session figures and their site-wide totals. No I/O, no HTML.

``session_figures(view)`` is what one session adds to the insights (small and
picklable: it crosses processes and sits in the build cache); ``Totals`` adds
those up for the whole archive or one project; ``timeline(session)`` says where a
session's time went, for the strip on its page. Charts are drawn from these
numbers by ``sessite/render/charts.py`` and the templates.

Token figures are the readers' de-duplicated usage (a Claude Code message split
over several records counts once; Codex's cumulative totals are turned into
per-turn figures), summed over every event, sub-agents included.

Costs are estimates from a small price table (``DEFAULT_PRICES``, or the
site's ``prices`` setting); a model not in the table has no cost, only tokens.

Modules: ``prices`` (the price table and costs), ``edits`` (files and lines from
edit calls), ``figures`` (one session's figures), ``totals`` (figures added up over
sessions). Where a session's time went, and its active time: ``sessite.analyze.time_spans``
(the session summary needs it too).
"""

from __future__ import annotations

from sessite.analyze.insights.edits import FileEdit, diff_stats, file_edits, relative_path
from sessite.analyze.insights.figures import (
    MAX_FILES_PER_SESSION,
    UNKNOWN_MODEL,
    SessionFigures,
    session_edits,
    session_figures,
    tool_figures,
    usage_by_model,
)
from sessite.analyze.insights.prices import (
    DEFAULT_PRICES,
    Prices,
    estimate_cost,
    model_price,
    price_table,
    usage_cost,
)
from sessite.analyze.insights.totals import TOP, SessionRow, Totals
from sessite.analyze.time_spans import GAP, TIME_KINDS, TimeSpan, aware, time_by_kind, timeline, utc_day

__all__ = [
    "DEFAULT_PRICES",
    "GAP",
    "MAX_FILES_PER_SESSION",
    "TIME_KINDS",
    "TOP",
    "UNKNOWN_MODEL",
    "FileEdit",
    "Prices",
    "SessionFigures",
    "SessionRow",
    "TimeSpan",
    "Totals",
    "aware",
    "diff_stats",
    "estimate_cost",
    "file_edits",
    "model_price",
    "price_table",
    "relative_path",
    "session_edits",
    "session_figures",
    "time_by_kind",
    "timeline",
    "tool_figures",
    "usage_by_model",
    "usage_cost",
    "utc_day",
]
