"""What the insights pages and the home page's summary show, from ``Totals``. No HTML.

Every figure carries the link to what it counts: a column to the sessions of
its period, a bar to the sessions of its agent, model or tool, a file to the
sessions that edited it (``index.html`` filters its rows by URL parameters).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jinja2 import Environment

from sessite.analyze.insights import (
    GAP,
    Prices,
    SessionFigures,
    SessionRow,
    Totals,
    price_table,
    session_edits,
    session_figures,
    time_by_kind,
    timeline,
    utc_day,
)
from sessite.render.charts import (
    BarRow,
    Chart,
    Period,
    bar_chart,
    column_chart,
    format_cost,
    format_count,
    format_seconds,
    period_index,
    periods,
    strip_chart,
    svg_marks,
)
from sessite.site.urls import index_url, project_url
from sessite.site.view import SessionView

AGENT_SERIES = 5  # agents drawn in their own colour; the rest are "other agents"
TOKEN_SERIES = (("tok-in", "input"), ("tok-out", "output"), ("tok-cr", "cache read"), ("tok-cw", "cache write"))


@dataclass
class Overview:
    """One insights page's worth of figures (the archive, or one project)."""

    totals: Totals
    project: str | None
    unit: str  # day, week, month, year
    sessions_chart: Chart | None
    tokens_chart: Chart | None
    agents_chart: Chart | None
    models_chart: Chart | None
    tools_chart: Chart | None
    files: list[dict[str, Any]]
    longest: list[SessionRow]
    costliest: list[SessionRow]
    any_cost: bool

    @property
    def cards(self) -> list[dict[str, Any]]:
        t = self.totals
        u = t.usage
        cache = format_count(u.cache_read_tokens + u.cache_write_tokens)
        cards = [
            {
                "label": "Sessions",
                "value": f"{t.sessions:,}",
                "note": "; ".join(
                    note
                    for note in (
                        f"{t.apart:,} listed apart (no messages, sub-agents’ logs)" if t.apart else "",
                        f"{t.undated} without a date" if t.undated else "",
                    )
                    if note
                ),
                "href": index_url(project=self.project),
            },
            {
                "label": "Active time",
                "value": _hours(t.seconds),
                "note": f"pauses over {GAP.total_seconds() / 60:.0f} minutes left out"
                + (
                    f"; {_hours(t.span_seconds)} first to last event"
                    if _hours(t.span_seconds) != _hours(t.seconds)
                    else ""
                ),
                "href": "#longest",
            },
            {
                "label": "Tokens",
                "value": format_count(u.total),
                "note": f"{format_count(u.input_tokens)} in · {format_count(u.output_tokens)} out · {cache} cache",
                "href": "#tokens",
            },
        ]
        if self.any_cost:
            # what the figure covers, first: a cost of a quarter of the tokens is a floor, not a total
            note = f"{_share_of_tokens(t.priced_share)} of tokens priced" if t.unpriced_tokens else "all tokens priced"
            note += "; from list prices per model"
            if t.recorded_cost_sessions:
                note += f", or as recorded by the agent ({_plural(t.recorded_cost_sessions, 'session')})"
            if t.unpriced_tokens:
                note += f"; {format_count(t.unpriced_tokens)} tokens from models with no known price"
            label = "Cost" if t.recorded_cost_sessions else "Estimated cost"
            value = ("≥ " if t.unpriced_tokens else "") + format_cost(t.cost)
            cards.append({"label": label, "value": value, "note": note, "href": "#costliest"})
        cards.append(
            {
                "label": "Tool calls",
                "value": f"{t.tool_calls:,}",
                "note": f"{t.tool_errors:,} failed ({_pct(t.error_rate)})" if t.tool_calls else "",
                "href": "#tools",
            }
        )
        cards.append(
            {
                "label": "Lines changed",
                "value": f"+{_lines(t.added)} −{_lines(t.removed)}",
                "note": f"{t.edits:,} edits to {len(t.files):,} files",
                "href": "#files",
            }
        )
        return cards


def _pct(x: float) -> str:
    if x == 0:
        return "0%"
    if x < 0.001:
        return "<0.1%"
    return f"{x * 100:.1f}%".replace(".0%", "%")


def _share_of_tokens(x: float) -> str:
    """A share as a whole percentage that never rounds to 0 % or 100 % when it is not."""
    pct = x * 100
    if 0 < pct < 1:
        return "<1 %"
    if 99 < pct < 100:
        return ">99 %"
    return f"{pct:.0f} %"


def _lines(n: int) -> str:
    return f"{n:,}" if n < 10_000 else format_count(n)


def _hours(seconds: float) -> str:
    if seconds < 3600:
        return f"{int(seconds // 60)}m"
    hours = seconds / 3600
    return f"{hours:,.1f}h" if hours < 100 else f"{hours:,.0f}h"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _cost_note(cost: float | None) -> str:
    return f" · ≈{format_cost(cost)}" if cost is not None else ""


def overview(totals: Totals, project: str | None = None, id_prefix: str = "ch") -> Overview:
    """The figures and charts of one insights page; ``id_prefix`` keeps chart ids apart on one page."""
    unit, sessions_chart, tokens_chart = _period_charts(totals, project, id_prefix)
    return Overview(
        totals,
        project,
        unit,
        sessions_chart,
        tokens_chart,
        _agents_chart(totals, project, id_prefix),
        _models_chart(totals, project, id_prefix),
        _tools_chart(totals, project, id_prefix),
        _file_rows(totals),
        totals.longest(),
        totals.costliest(),
        totals.priced_sessions > 0,
    )


def _period_charts(totals: Totals, project: str | None, id_prefix: str) -> tuple[str, Chart | None, Chart | None]:
    """(unit, sessions per period by agent, tokens per period by kind); no charts without dated sessions."""
    if not (totals.first and totals.last):
        return "day", None, None
    first = utc_day(totals.first)
    unit, cols = periods(first, utc_day(totals.last))
    index_of = period_index(unit, first)
    named = _named_agents(totals)
    others = len(totals.agents) > len(named)
    series = [(f"c{i}", a) for i, a in enumerate(named)] + ([("c-other", "other agents")] if others else [])
    sess = [[0.0] * len(series) for _ in cols]
    toks = [[0.0] * 4 for _ in cols]
    cost = [0.0] * len(cols)
    for day, (_n, agents, usage, day_cost) in totals.days.items():
        i = index_of(day)
        for agent, k in agents.items():
            j = named.index(agent) if agent in named else len(series) - 1
            sess[i][j] += k
        toks[i][0] += usage.input_tokens
        toks[i][1] += usage.output_tokens
        toks[i][2] += usage.cache_read_tokens
        toks[i][3] += usage.cache_write_tokens
        cost[i] += day_cost

    def link(period: Period) -> str:
        return index_url(project=project, **{"from": period.start.isoformat(), "to": period.end.isoformat()})

    def cost_words(i: int) -> str:
        words = "cost" if totals.recorded_cost_sessions else "estimated cost"
        return f"{words} {format_cost(cost[i])}" if cost[i] else ""

    sessions_chart = column_chart(
        f"{id_prefix}-sessions", f"Sessions per {unit}", cols, series, sess, link, unit="sessions"
    )
    tokens_chart = column_chart(
        f"{id_prefix}-tokens",
        f"Tokens per {unit}",
        cols,
        TOKEN_SERIES,
        toks,
        link,
        unit="tokens",
        extra=cost_words if totals.priced_sessions else None,
    )
    return unit, sessions_chart, tokens_chart


def _agents_chart(totals: Totals, project: str | None, id_prefix: str) -> Chart | None:
    agents = totals.top_agents()
    if not agents:
        return None
    named = _named_agents(totals)
    rows = [
        BarRow(
            a,
            [(f"c{named.index(a)}" if a in named else "c-other", n)],
            _plural(n, "session") + (f" · {format_count(u.total)} tokens" if u.total else "") + _cost_note(c),
            f"{a}: {_plural(n, 'session')}, {format_count(u.total)} tokens"
            + (f", estimated {format_cost(c)}" if c is not None else "")
            + " — show these sessions",
            index_url(agent=a, project=project),
        )
        for a, n, u, c in agents
    ]
    desc = (
        f"{len(agents)} agent{'s' if len(agents) != 1 else ''}; "
        + ", ".join(f"{a} {n}" for a, n, _u, _c in agents[:5])
        + "."
    )
    return bar_chart(f"{id_prefix}-agents", "Sessions by agent", rows, desc)


def _models_chart(totals: Totals, project: str | None, id_prefix: str) -> Chart | None:
    models = totals.top_models()
    if not models:
        return None
    rows = []
    for m, n, u, c in models:
        split = (
            f"{format_count(u.input_tokens)} in, {format_count(u.output_tokens)} out, "
            f"{format_count(u.cache_read_tokens)} cache read, {format_count(u.cache_write_tokens)} cache write"
        )
        rows.append(
            BarRow(
                m,
                [("tok-all", u.total)],
                (f"{format_count(u.total)} tokens" if u.total else "no token counts")
                + _cost_note(c)
                + f" · {_plural(n, 'session')}",
                f"{m}: {format_count(u.total)} tokens ({split})"
                + (f", estimated {format_cost(c)}" if c is not None else ", no known price")
                + f", {_plural(n, 'session')} — show these sessions",
                index_url(model=m, project=project),
            )
        )
    desc = (
        f"{len(models)} model{'s' if len(models) != 1 else ''}; most tokens: "
        + ", ".join(f"{m} {format_count(u.total)}" for m, _n, u, _c in models[:3])
        + "."
    )
    return bar_chart(f"{id_prefix}-models", "Tokens by model", rows, desc)


def _tools_chart(totals: Totals, project: str | None, id_prefix: str) -> Chart | None:
    tools = totals.top_tools()
    if not tools:
        return None
    rows = []
    for name, calls, errors, sessions in tools:
        failed = f"{errors:,} failed ({_pct(errors / calls if calls else 0)})"
        rows.append(
            BarRow(
                name,
                [("bar", calls), ("err", errors)],
                _plural(calls, "call") + (f" · {errors:,} failed ({_pct(errors / calls)})" if errors else ""),
                f"{name}: {_plural(calls, 'call')} in {_plural(sessions, 'session')}, {failed} — show these sessions",
                index_url(tool=name, project=project),
            )
        )
    desc = (
        f"Top {len(tools)} of {len(totals.tools)} tools by calls; "
        + ", ".join(f"{n} {c}" for n, c, _e, _s in tools[:5])
        + "."
    )
    return bar_chart(
        f"{id_prefix}-tools", "Most used tools", rows, desc, legend=[("bar", "calls"), ("err", "failed calls")]
    )


def _file_rows(totals: Totals) -> list[dict[str, Any]]:
    return [
        {
            "project": proj,
            "path": path,
            "edits": e,
            "added": a,
            "removed": r,
            "sessions": s,
            "href": index_url(project=proj or None, file=path),
        }
        for proj, path, e, a, r, s in totals.top_files()
    ]


def _named_agents(totals: Totals) -> list[str]:
    """Agents drawn in their own colour: all of them when one more would only be "other"."""
    ranked = [a for a, _n, _u, _c in totals.top_agents()]
    return ranked if len(ranked) <= AGENT_SERIES + 1 else ranked[:AGENT_SERIES]


def project_rows(projects: dict[str, Totals], limit: int | None = None) -> list[dict[str, Any]]:
    ranked = sorted(projects.items(), key=lambda kv: (-kv[1].sessions, kv[0]))
    if limit is not None:
        ranked = ranked[:limit]
    return [
        {
            "name": name,
            "url": project_url(name),
            "index": index_url(project=name),
            "sessions": t.sessions,
            "tokens": t.usage.total,
            "cost": t.cost if t.priced_sessions else None,
            "tool_calls": t.tool_calls,
            "errors": t.tool_errors,
            "added": t.added,
            "removed": t.removed,
            "last": t.last,
        }
        for name, t in ranked
    ]


# ---------------------------------------------------------------------------
# a session page's own figures


@dataclass
class SessionInsights:
    """The compact figures and the time strip in a session page's header."""

    figures: SessionFigures  # with the estimated cost
    tools: list[tuple[str, int, int, str]]  # name, calls, failed, link to the sessions that used it
    files: list[dict[str, Any]]  # path, edits, added, removed, failed, link to the first edit (SessionView.event_link)
    strip: Chart | None
    # kind, label, seconds, share of the time drawn to scale (None: pauses)
    time: list[tuple[str, str, float, float | None]]


def session_insights(view: SessionView, prices: Prices) -> SessionInsights:
    figures = session_figures(view, prices)
    spans = timeline(view.session)
    strip = strip_chart(
        "time-strip",
        "Where the time went",
        spans,
        {s.event_id: view.event_link(s.event_id) for s in spans if s.event_id},
    )
    by_kind = time_by_kind(spans)
    active = sum(s for k, _l, s in by_kind if k != "idle") or 1.0  # shares of the time drawn to scale
    if strip is not None:
        strip.desc = (
            "; ".join(
                f"{label} {format_seconds(s)}" + ("" if k == "idle" else f" ({_share(s / active)})")
                for k, label, s in by_kind
            )
            + "."
        )
    tools = [(name, calls, failed, index_url(tool=name)) for name, calls, failed in figures.tools]
    return SessionInsights(
        figures,
        tools,
        _edited_files(view),
        strip,
        [(k, label, s, None if k == "idle" else s / active) for k, label, s in by_kind],
    )


def _edited_files(view: SessionView) -> list[dict[str, Any]]:
    """Each file the session edited, with its lines and failed edits, most edits first."""
    files: dict[str, dict[str, Any]] = {}
    for edit in session_edits(view):
        entry = files.get(edit.path)
        if entry is None:
            entry = files[edit.path] = {
                "path": edit.path,
                "edits": 0,
                "added": 0,
                "removed": 0,
                "failed": 0,
                "link": view.event_link(edit.event_id),
            }
        if edit.ok:
            entry["edits"] += 1
            entry["added"] += edit.added
            entry["removed"] += edit.removed
        else:
            entry["failed"] += 1
    return sorted(files.values(), key=lambda f: (-f["edits"], f["path"]))


def _share(x: float) -> str:
    return f"{x * 100:.0f}%" if x >= 0.01 else "<1%"


def register_jinja(env: Environment, site: dict[str, Any]) -> None:
    """Filters and globals the insights templates use (called by render.Renderer)."""
    try:
        prices = price_table(site.get("prices"))
    except ValueError:
        prices = price_table(None)
    env.filters.update(
        cost=format_cost,
        seconds=format_seconds,
        share=_share,
    )
    env.globals.update(
        project_url=project_url,
        session_insights=lambda view: session_insights(view, prices),
        svg_marks=svg_marks,
    )
