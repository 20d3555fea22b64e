"""What the insights pages and the home page's summary show, from ``Totals``. No HTML.

Every figure carries the link to what it counts: a column to the sessions of
its period, a bar to the sessions of its agent, model or tool, a file to the
sessions that edited it (``index.html`` filters its rows by URL parameters).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

from sitegen.analyze.insights import Totals, utc_day
from sitegen.site.charts import (
    BarRow,
    Chart,
    bar_chart,
    column_chart,
    format_cost,
    format_count,
    format_seconds,
    href,
    period_index,
    periods,
)

AGENT_SERIES = 5  # agents drawn in their own colour; the rest are "other agents"
TOKEN_SERIES = (("tok-in", "input"), ("tok-out", "output"), ("tok-cr", "cache read"), ("tok-cw", "cache write"))
_SLUG_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def project_url(project: str) -> str:
    slug = _SLUG_UNSAFE.sub("-", project).strip("-.")[:60] or "project"
    if slug != project:
        slug += "-" + hashlib.sha1(project.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"insights/{slug}.html"


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
    longest: list[Any]
    costliest: list[Any]
    any_cost: bool

    @property
    def cards(self) -> list[dict[str, Any]]:
        t = self.totals
        p = self.project
        u = t.usage
        cards = [
            {
                "label": "Sessions",
                "value": f"{t.sessions:,}",
                "note": f"{t.undated} without a date" if t.undated else "",
                "href": href("index.html", project=p),
            },
            {
                "label": "Time in sessions",
                "value": _hours(t.seconds),
                "note": "from first to last event",
                "href": "#longest",
            },
            {
                "label": "Tokens",
                "value": format_count(u.total),
                "note": f"{format_count(u.input_tokens)} in · {format_count(u.output_tokens)} out · {format_count(u.cache_read_tokens + u.cache_write_tokens)} cache",
                "href": "#tokens",
            },
        ]
        if self.any_cost:
            note = "from list prices per model"
            if t.unpriced_tokens:
                note += f"; {format_count(t.unpriced_tokens)} tokens unpriced"
            cards.append({"label": "Estimated cost", "value": format_cost(t.cost), "note": note, "href": "#costliest"})
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


def _lines(n: int) -> str:
    return f"{n:,}" if n < 10_000 else format_count(n)


def _hours(seconds: float) -> str:
    if seconds < 3600:
        return f"{int(seconds // 60)}m"
    hours = seconds / 3600
    return f"{hours:,.1f}h" if hours < 100 else f"{hours:,.0f}h"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def overview(totals: Totals, project: str | None = None, id_prefix: str = "ch") -> Overview:
    p = project
    unit, cols, sessions_chart, tokens_chart = "day", [], None, None
    if totals.first and totals.last:
        first = utc_day(totals.first)
        unit, cols = periods(first, utc_day(totals.last))
        index_of = period_index(unit, first)
        named = _named_agents(totals)
        others = len(totals.agents) > len(named)
        series = [(f"c{i}", a) for i, a in enumerate(named)] + ([("c-other", "other agents")] if others else [])
        sess = [[0.0] * len(series) for _ in cols]
        toks = [[0.0] * 4 for _ in cols]
        cost = [0.0] * len(cols)
        for day, (n, agents, usage, day_cost) in totals.days.items():
            i = index_of(day)
            for agent, k in agents.items():
                j = named.index(agent) if agent in named else len(series) - 1
                sess[i][j] += k
            toks[i][0] += usage.input_tokens
            toks[i][1] += usage.output_tokens
            toks[i][2] += usage.cache_read_tokens
            toks[i][3] += usage.cache_write_tokens
            cost[i] += day_cost

        def link(period):
            return href("index.html", project=p, **{"from": period.start.isoformat(), "to": period.end.isoformat()})

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
            extra=(lambda i: f"estimated cost {format_cost(cost[i])}" if cost[i] else "")
            if totals.priced_sessions
            else None,
        )

    agents = totals.top_agents()
    named = _named_agents(totals)
    agents_chart = (
        bar_chart(
            f"{id_prefix}-agents",
            "Sessions by agent",
            [
                BarRow(
                    a,
                    [(f"c{named.index(a)}" if a in named else "c-other", n)],
                    _plural(n, "session")
                    + (f" · {format_count(u.total)} tokens" if u.total else "")
                    + (f" · ≈{format_cost(c)}" if c is not None else ""),
                    f"{a}: {_plural(n, 'session')}, {format_count(u.total)} tokens"
                    + (f", estimated {format_cost(c)}" if c is not None else "")
                    + " — show these sessions",
                    href("index.html", agent=a, project=p),
                )
                for a, n, u, c in agents
            ],
            f"{len(agents)} agent{'s' if len(agents) != 1 else ''}; "
            + ", ".join(f"{a} {n}" for a, n, _u, _c in agents[:5])
            + ".",
        )
        if agents
        else None
    )

    models = [m for m in totals.top_models()]
    models_chart = (
        bar_chart(
            f"{id_prefix}-models",
            "Tokens by model",
            [
                BarRow(
                    m,
                    [("tok-all", u.total)],
                    (f"{format_count(u.total)} tokens" if u.total else "no token counts")
                    + (f" · ≈{format_cost(c)}" if c is not None else "")
                    + f" · {_plural(n, 'session')}",
                    f"{m}: {format_count(u.total)} tokens ({format_count(u.input_tokens)} in, {format_count(u.output_tokens)} out, {format_count(u.cache_read_tokens)} cache read, {format_count(u.cache_write_tokens)} cache write)"
                    + (f", estimated {format_cost(c)}" if c is not None else ", no known price")
                    + f", {_plural(n, 'session')} — show these sessions",
                    href("index.html", model=m, project=p),
                )
                for m, n, u, c in models
            ],
            f"{len(models)} model{'s' if len(models) != 1 else ''}; most tokens: "
            + ", ".join(f"{m} {format_count(u.total)}" for m, _n, u, _c in models[:3])
            + ".",
        )
        if models
        else None
    )

    tools = totals.top_tools()
    tools_chart = (
        bar_chart(
            f"{id_prefix}-tools",
            "Most used tools",
            [
                BarRow(
                    name,
                    [("bar", calls), ("err", errors)],
                    _plural(calls, "call") + (f" · {errors:,} failed ({_pct(errors / calls)})" if errors else ""),
                    f"{name}: {_plural(calls, 'call')} in {_plural(sessions, 'session')}, {errors:,} failed ({_pct(errors / calls if calls else 0)}) — show these sessions",
                    href("index.html", tool=name, project=p),
                )
                for name, calls, errors, sessions in tools
            ],
            f"Top {len(tools)} of {len(totals.tools)} tools by calls; "
            + ", ".join(f"{n} {c}" for n, c, _e, _s in tools[:5])
            + ".",
            legend=[("bar", "calls"), ("err", "failed calls")],
        )
        if tools
        else None
    )

    files = [
        {
            "project": proj,
            "path": path,
            "edits": e,
            "added": a,
            "removed": r,
            "sessions": s,
            "href": href("index.html", project=proj or None, file=path),
        }
        for proj, path, e, a, r, s in totals.top_files()
    ]
    costliest = totals.costliest()
    return Overview(
        totals,
        project,
        unit,
        sessions_chart,
        tokens_chart,
        agents_chart,
        models_chart,
        tools_chart,
        files,
        totals.longest(),
        costliest,
        totals.priced_sessions > 0,
    )


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
            "index": href("index.html", project=name),
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

    figures: Any  # SessionFigures, with the estimated cost
    tools: list[tuple[str, int, int, str]]  # name, calls, failed, link to the sessions that used it
    files: list[dict[str, Any]]  # path, edits, added, removed, failed, link to the first edit (SessionView.event_link)
    strip: Chart | None
    time: list[
        tuple[str, str, float, float | None]
    ]  # kind, label, seconds, share of the time drawn to scale (None: pauses)


def session_insights(view: Any, prices: Any) -> SessionInsights:
    from sitegen.analyze.insights import session_edits, session_figures, time_by_kind, timeline
    from sitegen.site.charts import strip_chart

    figures = session_figures(view, prices)
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
    tools = [(name, calls, failed, href("index.html", tool=name)) for name, calls, failed in figures.tools]
    ordered = sorted(files.values(), key=lambda f: (-f["edits"], f["path"]))
    return SessionInsights(
        figures, tools, ordered, strip, [(k, label, s, None if k == "idle" else s / active) for k, label, s in by_kind]
    )


def _share(x: float) -> str:
    return f"{x * 100:.0f}%" if x >= 0.01 else "<1%"


def register_jinja(env: Any, site: dict[str, Any]) -> None:
    """Filters and globals the insights templates use (called by render.Renderer)."""
    from sitegen.analyze.insights import price_table

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
    )
