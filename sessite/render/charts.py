"""Chart geometry for build-time inline SVG: numbers in, shapes out.

``templates/_charts.html`` draws a ``Chart``: every linked figure is a ``Mark``
(an SVG link with its own title), colours are CSS classes (``static/insights.css``
gives them light and dark values), and each chart has a title and a one-line
description as its text alternative. Nothing here grows with the number of
sessions: a time series has at most ``MAX_COLUMNS`` columns (days, weeks,
months or years, whichever fits), a bar chart one row per top-N item.

Hand-written on purpose: the SVG charting libraries looked at (pygal, leather,
matplotlib) write ``<style>`` blocks or ``style=`` attributes that the site's
CSP blocks, cannot follow the page's light/dark theme, or cannot make each bar
a link; the few shapes needed here are simpler than adapting one of them.

The one piece of markup here is ``svg_marks``: a chart's marks as SVG text, written in
one pass, because the template's loop over hundreds of marks cost a macro call and a
dozen escapes each (the rest of the chart stays in the template).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from markupsafe import Markup, escape

from sessite.analyze.insights import GAP, TIME_KINDS, TimeSpan

MAX_COLUMNS = 104
WIDE = 1000  # user units of a chart drawn for a laptop
NARROW = 400  # and of its second drawing for a phone (static/insights.css shows one of the two)


@dataclass(frozen=True, slots=True)
class Seg:
    cls: str
    x: float
    y: float
    w: float
    h: float


@dataclass(slots=True)
class Mark:
    """One figure: a column, a bar or a strip segment, linked to what it counts."""

    title: str
    segs: list[Seg]
    href: str | None = None  # relative to the site root
    hit: Seg | None = None  # a transparent target, so thin figures are easy to point at
    label: tuple[float, float, str] | None = None  # x, y, text (left of a bar)
    value: tuple[float, float, str] | None = None  # x, y, text (after a bar)
    row: tuple[str, str] | None = None  # (name, figures) for the chart's data table


@dataclass(slots=True)
class Chart:
    id: str
    kind: str  # columns, bars, strip
    title: str
    desc: str
    width: int
    height: int
    marks: list[Mark] = field(default_factory=list)
    grid: list[tuple[float, str]] = field(default_factory=list)  # y, label
    xlabels: list[tuple[float, float, str, str]] = field(default_factory=list)  # x, y, text, anchor
    legend: list[tuple[str, str]] = field(default_factory=list)  # css class, text
    links: bool = True  # marks are keyboard-reachable links (False: pointer shortcuts only)
    label_anchor: str = "end"  # of the marks' labels: "end" (left of a bar) or "start" (above it)
    narrow: Chart | None = None  # the same figures drawn for a phone's width, where this one would shrink

    @property
    def role(self) -> str:
        """A chart that holds links is a group (an ``img`` may hold nothing focusable, even with
        tabindex=-1: WCAG's nested-interactive); a drawing without links is an image."""
        return "group" if self.links or any(m.href for m in self.marks) else "img"


def r1(v: float) -> float:
    """Coordinates with one decimal: smaller SVG, no visible difference."""
    return round(v, 1)


# ---------------------------------------------------------------------------
# periods


@dataclass(frozen=True, slots=True)
class Period:
    start: date
    end: date  # inclusive
    key: str  # 2026-10-14, 2026-W42, 2026-10, 2026
    label: str  # for titles: "week 2026-W42 (12–18 Oct 2026)"
    short: str  # for the axis


def _monday(d: date) -> date:
    return d - timedelta(days=d.weekday())


def periods(first: date, last: date) -> tuple[str, list[Period]]:
    """The finest unit (day, week, month, year) that covers first..last in at most MAX_COLUMNS columns."""
    days = (last - first).days + 1
    if days <= 45:
        out = []
        for i in range(days):
            d = first + timedelta(days=i)
            out.append(Period(d, d, d.isoformat(), d.strftime("%a %d %b %Y"), d.strftime("%d %b")))
        return "day", out
    start = _monday(first)
    weeks = (_monday(last) - start).days // 7 + 1
    if weeks <= MAX_COLUMNS:
        out = []
        for i in range(weeks):
            d = start + timedelta(weeks=i)
            end = d + timedelta(days=6)
            y, w, _ = d.isocalendar()
            out.append(
                Period(
                    d,
                    end,
                    f"{y}-W{w:02d}",
                    f"week {y}-W{w:02d} ({d.strftime('%d %b')} – {end.strftime('%d %b %Y')})",
                    d.strftime("%d %b %y"),
                )
            )
        return "week", out
    months = (last.year * 12 + last.month) - (first.year * 12 + first.month) + 1
    if months <= MAX_COLUMNS:
        out = []
        for i in range(months):
            y, m = divmod(first.year * 12 + first.month - 1 + i, 12)
            d = date(y, m + 1, 1)
            nxt = date(y + (m + 1) // 12, (m + 1) % 12 + 1, 1)
            out.append(
                Period(d, nxt - timedelta(days=1), d.strftime("%Y-%m"), d.strftime("%B %Y"), d.strftime("%b %y"))
            )
        return "month", out
    out = [Period(date(y, 1, 1), date(y, 12, 31), str(y), str(y), str(y)) for y in range(first.year, last.year + 1)]
    return "year", out


def period_index(unit: str, first: date) -> Callable[[date], int]:
    if unit == "day":
        return lambda d: (d - first).days
    if unit == "week":
        base = _monday(first)
        return lambda d: (_monday(d) - base).days // 7
    if unit == "month":
        return lambda d: (d.year * 12 + d.month) - (first.year * 12 + first.month)
    return lambda d: d.year - first.year


# ---------------------------------------------------------------------------
# scales


def nice_step(span: float, ticks: int = 4) -> float:
    if span <= 0:
        return 1.0
    raw = span / ticks
    exp = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if m * exp >= raw:
            return m * exp
    return 10 * exp


def format_count(value: float) -> str:
    value = float(value)
    if value == 0:
        return "0"
    for limit, div, suffix in ((1e9, 1e9, "B"), (1e6, 1e6, "M"), (1e3, 1e3, "k")):
        if abs(value) >= limit:
            text = f"{value / div:.1f}".rstrip("0").rstrip(".")
            return f"{text}{suffix}"
    return f"{value:.0f}" if value == int(value) else f"{value:.1f}"


def format_cost(value: float | None) -> str:
    if value is None:
        return ""
    if value == 0:
        return "$0"
    if value < 0.01:
        return "<$0.01"
    if value < 1000:
        return f"${value:,.2f}"
    return f"${value:,.0f}"


def format_seconds(seconds: float) -> str:
    if 0 < seconds < 0.5:
        return "<1s"
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    m, s = divmod(s, 60)
    if m < 60:
        return f"{m}m {s:02d}s"
    h, m = divmod(m, 60)
    if h < 48:
        return f"{h}h {m:02d}m"
    return f"{h // 24}d {h % 24}h"


# ---------------------------------------------------------------------------
# charts


def column_chart(
    chart_id: str,
    title: str,
    cols: Sequence[Period],
    series: Sequence[tuple[str, str]],  # (css class, name), bottom first
    values: Sequence[Sequence[float]],  # per column, per series
    link: Callable[[Period], str | None],
    fmt: Callable[[float], str] = format_count,
    unit: str = "",
    extra: Callable[[int], str] | None = None,  # more words for a column's title
    height: int = 200,
    width: int = WIDE,
) -> Chart:
    """Stacked columns over time; each column links to its period. A wide chart carries
    its ``narrow`` drawing: the same columns, with fewer axis labels, for a phone."""
    left, right, top, bottom = 52, 8, 10, 26
    plot_w, plot_h = width - left - right, height - top - bottom
    totals = [sum(v) for v in values]
    peak = max(totals, default=0)
    step = max(nice_step(peak), 1.0)  # counts: never a fractional tick
    ymax = max(step, math.ceil(peak / step) * step) if peak else step
    n = max(len(cols), 1)
    band = plot_w / n
    bar_w = max(min(band * 0.78, 60), 1.0)
    chart = Chart(chart_id, "columns", title, "", width, height)
    t = 0.0
    while t <= ymax + 1e-9:
        chart.grid.append((r1(top + plot_h - t / ymax * plot_h), fmt(t)))
        t += step
    for i, (period, vals) in enumerate(zip(cols, values)):
        x = left + i * band + (band - bar_w) / 2
        y: float = top + plot_h
        segs = []
        for (cls, _name), v in zip(series, vals):
            if v <= 0:
                continue
            h = v / ymax * plot_h
            y -= h
            segs.append(Seg(cls, r1(x), r1(y), r1(bar_w), r1(max(h, 0.5))))
        total = totals[i]
        parts = [f"{fmt(v)} {name}" for (_cls, name), v in zip(series, vals) if v > 0] if len(series) > 1 else []
        figures = f"{fmt(total)}{(' ' + unit) if unit else ''}"
        if parts:
            figures += " (" + ", ".join(parts) + ")"
        if extra:
            more = extra(i)
            if more:
                figures += f"; {more}"
        name = period.label[:1].upper() + period.label[1:]
        hit = Seg("hit", r1(left + i * band), top, r1(band), plot_h)
        chart.marks.append(Mark(f"{name}: {figures}", segs, link(period) if total else None, hit, row=(name, figures)))
    chart.xlabels = _axis_labels(cols, left, band, width, height)
    if len(series) > 1:
        chart.legend = [(cls, name) for cls, name in series]
    chart.desc = _columns_desc(cols, totals, fmt, unit)
    if width >= WIDE:
        chart.narrow = column_chart(
            f"{chart_id}-n", title, cols, series, values, link, fmt, unit, extra, height, width=NARROW
        )
    return chart


def _axis_labels(
    cols: Sequence[Period], left: float, band: float, width: int, height: int
) -> list[tuple[float, float, str, str]]:
    """About eight period names under a wide chart, four under a narrow one; the last stays inside."""
    every = max(1, math.ceil(len(cols) / (8 if width >= WIDE else 4)))
    labels: list[tuple[float, float, str, str]] = []
    for i, period in enumerate(cols):
        if i % every == 0:
            x = r1(left + i * band + band / 2)
            anchor = "end" if x > width - 40 else "middle"
            labels.append((min(x, width - 2) if anchor == "end" else x, height - 8, period.short, anchor))
    return labels


def _columns_desc(cols: Sequence[Period], totals: Sequence[float], fmt: Callable[[float], str], unit: str) -> str:
    """The text alternative of a column chart: its span and its highest column."""
    peak = max(totals, default=0)
    busiest = max(range(len(totals)), key=lambda i: totals[i]) if totals and peak else None
    desc = (
        f"{len(cols)} column{'s' if len(cols) != 1 else ''} from {cols[0].label} to {cols[-1].label}"
        if cols
        else "No dated data"
    )
    if busiest is not None:
        desc += f"; the highest is {cols[busiest].label} with {fmt(totals[busiest])}{(' ' + unit) if unit else ''}"
    return desc + "."


@dataclass(frozen=True, slots=True)
class BarRow:
    label: str
    # (css class, value), left to right; the first is the bar, the rest overlay it from the left
    parts: Sequence[tuple[str, float]]
    value: str  # text after the bar
    title: str
    href: str | None = None


def bar_chart(
    chart_id: str,
    title: str,
    rows: Sequence[BarRow],
    desc: str,
    legend: Sequence[tuple[str, str]] = (),
    width: int = WIDE,
) -> Chart:
    """Horizontal bars, one linked row each, largest first: labels left of the bars on a
    wide chart; above them on its ``narrow`` drawing, where a label column would not fit."""
    stacked = width < WIDE
    row_h, label_w, cut = (40, 0, 48) if stacked else (26, 300, 40)
    longest = max((len(row.value) for row in rows), default=0)
    # room for the longest value text; on a narrow chart the bars give way to it, down to a third of the width
    value_w = min(longest * 6.5 + 12, width * 2 / 3) if stacked else min(longest * 7 + 16, 420)
    height = max(len(rows), 1) * row_h + 4
    bar_x = 0 if stacked else label_w + 10
    bar_span = width - bar_x - value_w
    peak = max((row.parts[0][1] for row in rows if row.parts), default=0) or 1
    chart = Chart(chart_id, "bars", title, desc, width, height, legend=list(legend))
    if stacked:
        chart.label_anchor = "start"
    for i, row in enumerate(rows):
        y = 2 + i * row_h
        bar_y, bar_h = (y + 20, row_h - 26) if stacked else (y + 5, row_h - 10)
        segs = []
        end: float = bar_x
        for j, (cls, v) in enumerate(row.parts):
            w = v / peak * bar_span if v > 0 else 0
            if j == 0:
                end = bar_x + w
            if w > 0:
                segs.append(Seg(cls, bar_x, r1(bar_y), r1(max(w, 1.5)), bar_h))
        label = row.label if len(row.label) <= cut else row.label[: cut - 1] + "…"
        chart.marks.append(
            Mark(
                row.title,
                segs,
                row.href,
                Seg("hit", 0, y, width, row_h),
                label=(0, y + 14, label) if stacked else (label_w, r1(y + row_h / 2 + 4), label),
                value=(r1(end + 8), r1(bar_y + bar_h / 2 + 4), row.value),
            )
        )
    if not stacked:
        chart.narrow = bar_chart(f"{chart_id}-n", title, rows, desc, legend, width=NARROW)
    return chart


def strip_chart(
    chart_id: str, title: str, spans: Sequence[TimeSpan], links: Mapping[str | None, str | None], max_marks: int = 80
) -> Chart | None:
    """Where a session's time went: one horizontal strip, spans to scale, long pauses as short breaks.

    ``links``: event id -> where its span leads (``#anchor``, or a site-relative URL on another part
    of a split session).
    """
    if not spans:
        return None
    width, height, strip_h, top = 1000, 46, 22, 2
    seconds = [s.seconds for s in spans]  # a property: computed once per span
    total = sum(sec for s, sec in zip(spans, seconds) if s.kind != "idle")
    pauses = [s for s in spans if s.kind == "idle"]
    pause_w = 14.0 if pauses else 0.0
    scale_w = width - pause_w * len(pauses)
    if scale_w < width * 0.5:  # very many pauses: give them less room
        pause_w = width * 0.5 / len(pauses)
        scale_w = width * 0.5
    per_sec = scale_w / total if total > 0 else 0.0
    if total <= 0:  # nothing but pauses
        pause_w = width / len(pauses)
    marks: list[Mark] = []
    x = 0.0
    labels = dict(TIME_KINDS)
    drawn: list[tuple[TimeSpan, float, float]] = []
    for span, sec in zip(spans, seconds):
        w = pause_w if span.kind == "idle" else sec * per_sec
        drawn.append((span, x, w))
        x += w
    if len(drawn) > max_marks:
        drawn = _coarsen(drawn, width / max_marks)
    plain = ("model", "waiting", "idle")
    for span, x, w in drawn:
        what = span.label if span.kind in plain else f"{labels[span.kind]}: {span.label}"
        when = _utc(span.start)
        count = f", {span.events} steps" if span.events > 1 else ""
        clock = f"{when.hour:02d}:{when.minute:02d}:{when.second:02d}"  # strftime's %H:%M:%S, cheaper
        text = f"{what} — {format_seconds(span.seconds)} from {clock}{count}"
        seg = Seg("tk-" + span.kind, round(x, 1), top, round(w if w > 0.6 else 0.6, 1), strip_h)
        marks.append(Mark(text, [seg], links.get(span.event_id)))
    chart = Chart(chart_id, "strip", title, "", width, height, marks, links=False)
    start, end = _utc(spans[0].start), _utc(spans[-1].end)
    chart.xlabels = [(0, height - 6, f"{start:%H:%M} UTC", "start"), (width, height - 6, f"{end:%H:%M} UTC", "end")]
    if pauses:
        gap = format_seconds(GAP.total_seconds())
        said = f"{len(pauses)} pause{'s' if len(pauses) != 1 else ''} over {gap} drawn short"
        chart.xlabels.append((width / 2, height - 6, said, "middle"))
    return chart


def _coarsen(drawn: list[tuple[TimeSpan, float, float]], bin_w: float) -> list[tuple[TimeSpan, float, float]]:
    """Too many spans to draw: each bin shows the kind that took most of its width."""
    out: list[tuple[TimeSpan, float, float]] = []
    i = 0
    while i < len(drawn):
        span, x, w = drawn[i]
        if w >= bin_w:
            out.append((span, x, w))
            i += 1
            continue
        group = [(span, x, w)]
        width = w
        i += 1
        while i < len(drawn) and drawn[i][2] < bin_w and width < bin_w:
            group.append(drawn[i])
            width += drawn[i][2]
            i += 1
        best = max(group, key=lambda t: t[2])[0]
        first, last = group[0][0], group[-1][0]
        label = best.label if len({g[0].label for g in group}) == 1 else f"mostly {best.label}"
        merged = TimeSpan(best.kind, first.start, last.end, first.event_id, label, sum(g[0].events for g in group))
        if out and out[-1][0].kind == merged.kind and out[-1][2] < bin_w:
            prev, px, pw = out[-1]
            out[-1] = (
                TimeSpan(prev.kind, prev.start, merged.end, prev.event_id, prev.label, prev.events + merged.events),
                px,
                pw + width,
            )
        else:
            out.append((merged, x, width))
    return out


def _utc(value: datetime) -> datetime:
    return value.astimezone(UTC) if value.tzinfo else value


# ---------------------------------------------------------------------------
# the marks as SVG text


def svg_marks(chart: Chart, root: str) -> Markup:
    """Each mark of ``chart`` as ``templates/_charts.html`` drew it (link or group, title,
    hit area, segments, label, value; one line each): text escaped, numbers as ``str``."""
    tab = "" if chart.links else ' tabindex="-1"'
    anchor = escape(chart.label_anchor)
    out: list[str] = []
    for m in chart.marks:
        if m.href:
            out.append(f'<a href="{escape("" if m.href.startswith("#") else root)}{escape(m.href)}"{tab}>')
        else:
            out.append("<g>")
        out.append(f"<title>{escape(m.title)}</title>")
        if m.hit:
            out.append(_rect(m.hit, "hit"))
        out.extend(_rect(s, escape(s.cls)) for s in m.segs)
        if m.label:
            x, y, text = m.label
            out.append(f'<text class="label" x="{x}" y="{y}" text-anchor="{anchor}">{escape(text)}</text>')
        if m.value:
            x, y, text = m.value
            out.append(f'<text class="value" x="{x}" y="{y}">{escape(text)}</text>')
        out.append("</a>\n" if m.href else "</g>\n")
    return Markup("".join(out))


def _rect(s: Seg, cls: str) -> str:
    return f'<rect class="{cls}" x="{s.x}" y="{s.y}" width="{s.w}" height="{s.h}"/>'
