"""Archive insights: figures checked against values computed by hand from the raw
example files, the SVG charts' text alternatives, links from every figure, costs,
and a page whose size does not grow with the number of sessions."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner
from helpers import EXAMPLE, build_site

from sessite.analyze.insights import (
    DEFAULT_PRICES,
    GAP,
    SessionFigures,
    diff_stats,
    model_price,
    price_table,
    session_figures,
    time_by_kind,
    timeline,
)
from sessite.analyze.session import summarize
from sessite.analyze.time_spans import active_time
from sessite.cli import main
from sessite.model import Event, Kind, Problems, Session, SourceRef, ToolCategory, Usage
from sessite.outputs.home import SessionIndex
from sessite.readers import discover
from sessite.render.charts import periods
from sessite.render.renderer import Renderer
from sessite.site.view import build_view

CLAUDE_CODE = "claude_code-7b3e9a52-4c1d-4f8e-9a2b-1d6c5e8f0a34"
CODEX = "codex-019e2b7c-4a10-7c3e-9d21-5f8a0b6c1e42"
GEMINI = "gemini-ab12cd34-5e6f-4a7b-8c9d-0e1f2a3b4c5d"


def example_views():
    problems = Problems(EXAMPLE)
    views = {}
    for claim in discover(EXAMPLE, problems).claims:
        for session in claim.reader.read(claim.path, problems):
            views[session.id] = build_view(session)
    return views


@pytest.fixture(scope="module")
def views():
    return example_views()


def parse(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text("utf-8"), "html.parser")


# ---------------------------------------------------------------------------
# figures against hand-computed values


def test_claude_code_tokens_count_each_message_once(views):
    # From the raw JSONL: 11 opus messages, each split over 1-4 records that repeat
    # the usage (output growing); the last record of each message counts, once.
    #   input   3+1+1+1+1+1+3+1+1+3+1                                     = 17
    #   output  236+412+64+188+377+58+118+54+231+97+38                       = 1873
    #   c.write 4120+3270+980+1210+1530+420+8890+310+260+310+140             = 21440
    #   c.read  18240+22360+25630+26790+28120+29650+12040+20930+21240+21500+21810 = 248310
    # and the sub-agent's three sonnet messages: 3+5+1, 90+71+402, 6120+410+1344, 0+6120+9870.
    f = session_figures(views[CLAUDE_CODE])
    assert dict(f.usage_by_model) == {
        "claude-opus-4-6": Usage(17, 1873, 248310, 21440),
        "claude-sonnet-4-5-20250929": Usage(9, 563, 15990, 7874),
    }
    assert views[CLAUDE_CODE].summary.stats.usage == Usage(26, 2436, 264300, 29314)
    # opus 4.6 at 5/25/0.5/6.25 $/MTok: (17*5 + 1873*25 + 248310*0.5 + 21440*6.25) / 1e6 = 0.305065
    # sonnet 4.5 at 3/15/0.3/3.75:       (9*3 + 563*15 + 15990*0.3 + 7874*3.75) / 1e6  = 0.0427965
    assert f.cost == pytest.approx(0.3478615)
    assert not f.cost_partial


def test_codex_cumulative_totals_become_the_last_total(views):
    # The last token_count's total_token_usage: input 40400 of which 35600 cached, output 1290
    # (reasoning 448 included); the repeated token_count at 10:00:15.201 adds nothing.
    f = session_figures(views[CODEX])
    assert f.usage_by_model == (("gpt-5.3-codex", Usage(4800, 1290, 35600, 0, 448)),)
    assert f.cost is None  # gpt-5.3 is not in the price table, and "gpt-5" must not price it


def test_tools_and_their_failures(views):
    f = session_figures(views[CLAUDE_CODE])
    assert f.tools == (("Bash", 5, 1), ("Read", 2, 0), ("Edit", 1, 0), ("Grep", 1, 0), ("Task", 1, 0), ("Write", 1, 0))
    assert f.tool_errors == 1
    assert session_figures(views[CODEX]).tools == (("exec_command", 3, 1), ("apply_patch", 1, 0))


def test_files_and_lines_from_edit_calls(views):
    cc = session_figures(views[CLAUDE_CODE])
    # The Edit of app/auth.py replaces 1 line with 11 (its diff: one '-' line, eleven '+' lines);
    # the Write of templates/login.html adds 11 lines. Paths are made relative to the session's cwd.
    assert cc.files == (("app/auth.py", 1, 11, 1), ("templates/login.html", 1, 11, 0))
    assert (cc.added, cc.removed, cc.edits, cc.files_edited) == (22, 1, 2, 2)
    # One apply_patch touching two files: split by the patch's file headers.
    codex = session_figures(views[CODEX])
    assert sorted(codex.files) == [("ledger/money.py", 1, 2, 1), ("tests/test_money.py", 1, 4, 0)]
    # Two replace calls on one file: +1 and +6 -2.
    gemini = session_figures(views[GEMINI])
    assert gemini.files == (("report.py", 2, 7, 2),)


def test_diff_stats_follows_hunk_lengths():
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n keep\n--- not a header\n+++ not a header either\n keep\n"
    assert diff_stats(diff) == [("x.py", 1, 1)]
    two = "--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+y\n--- /dev/null\n+++ b/new\n@@ -0,0 +1,2 @@\n+1\n+2\n"
    assert diff_stats(two) == [("a", 1, 1), ("new", 2, 0)]
    assert diff_stats("-old\n+new\n+more\n", "f.txt") == [("f.txt", 2, 1)]
    assert diff_stats("--- a/gone\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n") == [("gone", 0, 2)]


def test_a_failed_edit_changes_nothing():
    t = datetime(2026, 1, 1, tzinfo=UTC)
    events = (
        Event(
            "c1",
            Kind.TOOL_CALL,
            t,
            tool_name="Edit",
            category=ToolCategory.EDIT,
            path="/w/a.py",
            diff="-x\n+y\n",
            call_id="k",
        ),
        Event("r1", Kind.TOOL_RESULT, t, text="old_string not found", is_error=True, call_id="k"),
    )
    session = Session("s", SourceRef("s.jsonl", "test"), "test", events, cwd="/w")
    f = session_figures(build_view(session))
    assert (f.edits, f.failed_edits, f.added, f.removed, f.files) == (0, 1, 0, 0, ())
    assert f.tools == (("Edit", 1, 1),)


def test_archive_totals_by_hand(example_site):
    # Per session (see the raw files): tool calls aics 2, amp 3, claude.ai 1, claude-code 11, cline 4,
    # codex 4, cursor 2, gemini 4, hail 6, opencode 4, sage 3 = 44; failed: claude-code 1, codex 1, hail 1.
    # Lines: amp +5, claude-code +22 -1, cline +5 -1, codex +6 -1, cursor +3 -1, gemini +7 -2,
    # hail +9 -6, opencode +10 -1, sage +1 -1 = +68 -14, in 11 files.
    # Tokens: 17349 + 296076 + 24360 + 41690 + 4560 + 39649 + 32651 + 20280 = 476615.
    # Cost: amp .023967 + claude-code .3478615 + cursor .0156 + gemini .029368 estimated, plus what
    # cline (.023) and opencode (.033) recorded themselves = .4727965; codex and hail (74341 tokens)
    # have no known price.
    _, site = example_site
    doc = parse(site / "insights.html")
    cards = {c.dt.get_text(strip=True): c.dd for c in doc.select("dl.cards .card")}
    assert cards["Sessions"].a.get_text(strip=True) == "13"
    assert cards["Tokens"].a.get_text(strip=True) == "476.6k"
    # a floor, not a total: 74,341 of 476,615 tokens have no price, so 84 % are priced
    assert cards["Cost"].a.get_text(strip=True) == "≥ $0.47"
    assert "84 % of tokens priced" in cards["Cost"].get_text()
    assert "recorded by the agent (2 sessions)" in cards["Cost"].get_text()
    assert "74.3k tokens from models with no known price" in cards["Cost"].get_text()
    # some tokens have no price: the table ranks by tokens, so the biggest unpriced sessions are in it
    heading = doc.select_one("#costliest h2").get_text(" ", strip=True)
    assert heading.startswith("Sessions with the most tokens")
    tokens = [r.select("td.num")[1].get_text(strip=True) for r in doc.select("#costliest-table tbody tr")]
    assert tokens[0] == "296.1k" and len(tokens) == 8
    assert cards["Tool calls"].a.get_text(strip=True) == "44"
    assert "3 failed (6.8%)" in cards["Tool calls"].get_text()
    assert cards["Lines changed"].a.get_text(strip=True) == "+68 −14"
    assert "12 edits to 11 files" in cards["Lines changed"].get_text()
    index = SessionIndex.__new__(SessionIndex)
    SessionIndex.__init__(index, type("C", (), {"prices": None})())
    for view in example_views().values():
        index.add(index.collect(view))
    t = index.totals
    assert t.usage.total == 476615
    assert t.cost == pytest.approx(0.4727965)  # two sessions recorded their own cost (see above)
    assert t.unpriced_tokens == 74341
    assert (t.tool_calls, t.tool_errors, t.added, t.removed, len(t.files)) == (44, 3, 68, 14, 11)
    assert t.tools["Bash"] == [6, 1, 2]  # calls, failed, sessions (claude-code 5 + amp 1)


# ---------------------------------------------------------------------------
# where the time went


def test_timeline_spans_by_hand():
    t0 = datetime(2026, 3, 1, 10, 0, 0, tzinfo=UTC)
    at = lambda s: t0 + timedelta(seconds=s)  # noqa: E731
    events = (
        Event("u1", Kind.USER, at(0), text="go"),
        Event("a1", Kind.ASSISTANT, at(10), text="ok"),
        Event("c1", Kind.TOOL_CALL, at(20), tool_name="Bash", category=ToolCategory.SHELL, call_id="k1"),
        Event("r1", Kind.TOOL_RESULT, at(50), text="done", call_id="k1"),
        Event("a2", Kind.ASSISTANT, at(60), text="done"),
        Event("u2", Kind.USER, at(60 + 29 * 60), text="thanks"),  # 29 minutes later: a pause
        Event("a3", Kind.ASSISTANT, at(60 + 29 * 60 + 5), text="bye"),
    )
    spans = timeline(Session("s", SourceRef("s", "t"), "t", events))
    assert [(s.kind, s.seconds, s.event_id) for s in spans] == [
        ("model", 20, "u1"),  # user -> assistant -> tool call: the agent at work
        ("shell", 30, "c1"),  # call -> result
        ("model", 10, "r1"),
        ("idle", 29 * 60, "a2"),  # the user's turn, longer than GAP
        ("model", 5, "u2"),
    ]
    assert timedelta(minutes=29) > GAP
    assert [(k, s) for k, _, s in time_by_kind(spans)] == [("model", 35), ("shell", 30), ("idle", 1740)]
    # active time: everything but the pause, on every page (summary, index, longest sessions)
    session = Session("s", SourceRef("s", "t"), "t", events)
    assert active_time(session) == timedelta(seconds=65)
    summary = summarize(session)
    assert summary.active == timedelta(seconds=65) and summary.duration == timedelta(seconds=60 + 29 * 60 + 5)


def test_session_header_figures_and_strip(example_site):
    _, site = example_site
    doc = parse(site / "sessions" / f"{CLAUDE_CODE}.html")
    box = doc.select_one("section.session-insights")
    assert box is not None
    assert "≈$0.35" in box.get_text() and "estimated cost" in box.get_text()
    chips = {a.contents[0].strip(): a for a in box.select("a.chip")}
    assert set(chips) == {"Bash", "Read", "Edit", "Grep", "Task", "Write"}
    assert chips["Bash"].b.get_text() == "5" and "1✗" in chips["Bash"].get_text()
    assert chips["Bash"]["href"] == "../index.html?tool=Bash"
    files = [li.code.get_text() for li in box.select(".files-touched li")]
    assert files == ["app/auth.py", "templates/login.html"]
    anchor = box.select_one(".files-touched li a")["href"]
    assert doc.find(id=anchor[1:]) is not None, "a file links to its edit"
    svg = box.select_one("svg.chart-svg")
    check_svg_alternatives(svg)
    for a in svg.find_all("a"):
        assert doc.find(id=a["href"][1:]) is not None, "a strip segment links to the event that opened it"
    legend = [li.get_text(" ", strip=True) for li in box.select(".time-legend li")]
    assert any(text.startswith("Agent working") for text in legend)


# ---------------------------------------------------------------------------
# the insights page: SVG text alternatives and links


def check_svg_alternatives(svg) -> None:
    title = svg.find("title", recursive=False)
    desc = svg.find("desc", recursive=False)
    assert title is not None and title.get_text(strip=True), "a chart has a title"
    assert desc is not None and desc.get_text(strip=True), "a chart has a description"
    assert svg.contents and next(c for c in svg.contents if getattr(c, "name", None)) is title, "the title comes first"
    assert svg["aria-labelledby"] == title["id"] and svg["aria-describedby"] == desc["id"]
    assert svg.get("role") in ("img", "group")
    for figure in svg.find_all(["a", "g"], recursive=False):
        own = figure.find("title", recursive=False)
        assert own is not None and own.get_text(strip=True), "every figure says what it is"
    assert not svg.find(attrs={"style": True}), "no style attributes (the CSP blocks them)"
    assert not svg.find("style") and not svg.find("script")


def test_every_chart_has_text_alternatives(example_site):
    _, site = example_site
    pages = [site / "insights.html", site / "index.html", *sorted((site / "insights").glob("*.html"))]
    seen = 0
    for page in pages:
        doc = parse(page)
        ids = [t["id"] for t in doc.find_all(id=True)]
        assert len(ids) == len(set(ids)), f"{page.name}: duplicate ids"
        for svg in doc.select("svg"):
            check_svg_alternatives(svg)
            seen += 1
    assert seen >= 6


def test_every_figure_links_to_what_it_counts(example_site):
    _, site = example_site
    doc = parse(site / "insights.html")
    weeks = doc.select("#ch-sessions > a")
    assert weeks, "one link per non-empty week"
    for a in weeks:
        q = parse_qs(urlsplit(a["href"]).query)
        start, end = date.fromisoformat(q["from"][0]), date.fromisoformat(q["to"][0])
        assert (end - start).days == 6 and start.weekday() == 0
        assert urlsplit(a["href"]).path == "index.html"
    total = sum(int(re.search(r": (\d+) sessions", a.title.get_text()).group(1)) for a in weeks)
    assert total == 13
    tools = {unquote(parse_qs(urlsplit(a["href"]).query)["tool"][0]) for a in doc.select("#ch-tools > a")}
    assert {"Bash", "ShellCommand", "read_file"} <= tools
    models = {parse_qs(urlsplit(a["href"]).query)["model"][0] for a in doc.select("#ch-models > a")}
    assert "claude-opus-4-6" in models
    agents = {parse_qs(urlsplit(a["href"]).query)["agent"][0] for a in doc.select("#ch-agents > a")}
    assert agents == {
        "amp",
        "claude-code",
        "claude.ai",
        "cline",
        "codex",
        "crush",
        "cursor",
        "gemini-cli",
        "opencode",
        "sage",
    }
    file_links = [parse_qs(urlsplit(a["href"]).query) for a in doc.select("table.files td.path a")]
    assert {"project": ["webapp"], "file": ["app/auth.py"]} in file_links
    for a in doc.select("#longest-table a"):
        assert (site / a["href"]).is_file()
    # a project's own page, linked from the projects table
    project = doc.select_one("table.projects a[href^='insights/webapp']")
    page = parse(site / project["href"])
    assert page.h1.get_text() == "webapp"
    for a in page.select("#pr-tools > a"):
        q = parse_qs(urlsplit(a["href"]).query)
        assert q["project"] == ["webapp"] and urlsplit(a["href"]).path == "../index.html"


def test_index_rows_carry_compact_facets(example_site):
    _, site = example_site
    doc = parse(site / "index.html")
    form = doc.select_one("form[data-filters]")
    facets = json.loads(form["data-facets"])
    row = doc.select_one(f"tr:has(a[href='sessions/{CLAUDE_CODE}.html'])")
    used = {facets["tools"][int(i)] for i in row["data-t"].split()}
    assert used == {"Bash", "Read", "Edit", "Grep", "Task", "Write"}
    assert {facets["models"][int(i)] for i in row["data-m"].split()} == {
        "claude-opus-4-6",
        "claude-sonnet-4-5-20250929",
    }
    assert {tuple(facets["files"][int(i)]) for i in row["data-f"].split()} == {
        ("webapp", "app/auth.py"),
        ("webapp", "templates/login.html"),
    }


# ---------------------------------------------------------------------------
# prices


def test_model_prices_match_by_prefix_at_a_boundary():
    assert model_price("claude-sonnet-4-5-20250929", DEFAULT_PRICES) == DEFAULT_PRICES["claude-sonnet-4"]
    assert model_price("claude-opus-4-6", DEFAULT_PRICES) == DEFAULT_PRICES["claude-opus-4-6"]  # longest prefix wins
    assert model_price("claude-opus-4-1-20250805", DEFAULT_PRICES) == DEFAULT_PRICES["claude-opus-4"]
    assert model_price("anthropic/claude-haiku-4-5", DEFAULT_PRICES) == DEFAULT_PRICES["claude-haiku-4-5"]
    assert model_price("gpt-5-mini", DEFAULT_PRICES) == DEFAULT_PRICES["gpt-5-mini"]
    assert model_price("gpt-5.3-codex", DEFAULT_PRICES) is None
    assert model_price("gpt-50", DEFAULT_PRICES) is None
    assert model_price("grok-code", DEFAULT_PRICES) is None
    assert model_price(None, DEFAULT_PRICES) is None


def test_price_table_setting():
    assert price_table(None) == DEFAULT_PRICES
    assert price_table({}) == {}
    assert price_table({"My-Model": {"input": 1, "output": 2}}) == {"my-model": (1.0, 2.0, 0.0, 0.0)}
    for bad in ({"m": {"inputs": 1}}, {"m": {"input": "cheap"}}, {"m": {"input": -1}}, {"m": 3}, ["m"]):
        with pytest.raises(ValueError):
            price_table(bad)


def test_prices_option_sets_or_removes_costs(tmp_path):
    table = tmp_path / "prices.json"
    table.write_text(json.dumps({"gpt-5.3-codex": {"input": 2, "output": 20, "cache_read": 0.2}}))
    result = CliRunner().invoke(
        main, ["build", str(EXAMPLE / "codex"), "-o", str(tmp_path / "site"), "-q", "--prices", str(table)]
    )
    assert result.exit_code == 0, result.output
    # (4800*2 + 1290*20 + 35600*0.2) / 1e6 = 0.04252
    doc = parse(tmp_path / "site" / "insights.html")
    cards = {c.dt.get_text(strip=True): c.dd for c in doc.select("dl.cards .card")}
    assert cards["Estimated cost"].a.get_text(strip=True) == "$0.04"
    assert doc.select_one(".cost-note") is not None
    (tmp_path / "none.toml").write_text("[prices]\n")
    result = CliRunner().invoke(
        main,
        ["build", str(EXAMPLE / "codex"), "-o", str(tmp_path / "site2"), "-q", "--prices", str(tmp_path / "none.toml")],
    )
    assert result.exit_code == 0, result.output
    doc = parse(tmp_path / "site2" / "insights.html")
    assert "Estimated cost" not in doc.get_text() and "Sessions with the most tokens" in doc.get_text()
    (tmp_path / "bad.json").write_text('{"m": {"input": "x"}}')
    result = CliRunner().invoke(
        main, ["build", str(EXAMPLE / "codex"), "-o", str(tmp_path / "site3"), "--prices", str(tmp_path / "bad.json")]
    )
    assert result.exit_code != 0 and "--prices" in result.output


# ---------------------------------------------------------------------------
# one session, ten thousand sessions


def test_an_archive_of_one_session(tmp_path):
    report = build_site(EXAMPLE / "amp", tmp_path / "site")
    assert report.published and report.sessions == 1
    doc = parse(tmp_path / "site" / "insights.html")
    assert doc.select_one("#ch-sessions") is not None
    assert len(doc.select("#ch-sessions > a")) == 1  # one day, one column
    for svg in doc.select("svg"):
        check_svg_alternatives(svg)


def test_periods_fit_the_span():
    unit, cols = periods(date(2026, 10, 14), date(2026, 10, 14))
    assert unit == "day" and len(cols) == 1
    unit, cols = periods(date(2026, 1, 1), date(2026, 3, 31))
    assert unit == "week" and cols[0].start == date(2025, 12, 29) and cols[0].key == "2026-W01"
    assert cols[-1].start <= date(2026, 3, 31) <= cols[-1].end
    unit, cols = periods(date(2020, 1, 15), date(2026, 3, 1))
    assert (
        unit == "month" and cols[0].start == date(2020, 1, 1) and cols[-1].end == date(2026, 3, 31) and len(cols) == 75
    )
    unit, cols = periods(date(2010, 1, 1), date(2026, 3, 1))
    assert unit == "year" and len(cols) == 17


def synthetic(n: int):
    """n sessions over two years, 40 projects, many tools, models and files."""
    base = datetime(2025, 1, 1, tzinfo=UTC)
    template = summarize(Session("x", SourceRef("x", "t"), "a", ()))
    for i in range(n):
        started = base + timedelta(hours=i * 17520 / n)
        summary = replace(
            template,
            id=f"s{i}",
            title=f"Session number {i}",
            agent=f"agent{i % 7}",
            project=f"project{i % 40}",
            models=(f"model-{i % 9}",),
            started=started,
            ended=started + timedelta(minutes=i % 90),
            stats=replace(template.stats, tool_calls=30, usage=Usage(100 + i, 50, 1000, 10)),
        )
        figures = SessionFigures(
            usage_by_model=((f"model-{i % 9}", Usage(100 + i, 50, 1000, 10)),),
            tools=tuple((f"tool{(i + k) % 60}", 3, k % 2) for k in range(10)),
            files=tuple((f"src/mod{(i * 7 + k) % 3000}.py", 1, 5, 2) for k in range(8)),
            edits=8,
            failed_edits=0,
            added=40,
            removed=16,
            files_edited=8,
            cost=None,
        )
        yield summary, figures


def render_aggregate(n: int) -> dict[str, int]:
    index = SessionIndex.__new__(SessionIndex)
    SessionIndex.__init__(index, type("C", (), {"prices": {"model-1": {"input": 1, "output": 2}}})())
    for item in synthetic(n):
        index.add(item)
    renderer = Renderer({"title": "t", "base_url": "", "forge_url": ()})
    return {page.url: len(renderer.render(page).encode()) for page in index.pages()}


def test_insights_pages_do_not_grow_with_sessions():
    small, large = render_aggregate(2_000), render_aggregate(10_000)
    for url in ("insights.html", "insights/project7.html"):
        assert large[url] < 1.25 * small[url], (url, small[url], large[url])
        assert large[url] < 250_000, (url, large[url])
    # the home page grows by its rows only, and each row stays small
    per_row = (large["index.html"] - small["index.html"]) / 8_000
    assert per_row < 1_100, per_row


def test_session_pages_use_the_prices_option(tmp_path):
    table = tmp_path / "prices.json"
    table.write_text(json.dumps({"gpt-5.3-codex": {"input": 2, "output": 20, "cache_read": 0.2}}))
    result = CliRunner().invoke(
        main, ["build", str(EXAMPLE / "codex"), "-o", str(tmp_path / "site"), "-q", "--prices", str(table)]
    )
    assert result.exit_code == 0, result.output
    page = parse(tmp_path / "site" / "sessions" / f"{CODEX}.html")
    assert "≈$0.04" in page.select_one("section.session-insights").get_text()


def test_a_cost_the_agent_recorded_is_shown_as_recorded_not_replaced_by_an_estimate(tmp_path):
    answer = Event(id="e1", kind=Kind.ASSISTANT, text="hi", model="claude-sonnet-4", usage=Usage(1_000_000, 1_000_000))
    session = Session("t-recorded", SourceRef("t.json", "cline"), "cline", [answer], meta={"cost": 2.2006})
    figures = session_figures(build_view(session))
    assert (figures.cost, figures.cost_recorded, figures.cost_partial) == (2.2006, True, False)
    for odd in (float("nan"), -1.0, True, "2.2"):
        odd_figures = session_figures(build_view(replace(session, meta={"cost": odd})))
        assert not odd_figures.cost_recorded and odd_figures.cost != odd  # an estimate, never the odd value

    report = build_site(Path(__file__).resolve().parents[1] / "fixtures" / "cline", tmp_path / "site")
    assert report.published
    pages = {p.name: parse(p) for p in (tmp_path / "site" / "sessions").glob("cline-*.html")}
    recorded = {name: doc.select_one(".session-insights .recorded") for name, doc in pages.items()}
    assert any(recorded.values())
    for name, mark in recorded.items():
        if mark is not None:
            figure = mark.find_previous_sibling("span", class_="fig").get_text()
            assert "$" in figure and "≈" not in figure, name
            assert pages[name].select_one(".session-insights .estimate") is None, name
    cards = {
        c.dt.get_text(strip=True): c.dd for c in parse(tmp_path / "site" / "insights.html").select("dl.cards .card")
    }
    assert "recorded by the agent" in cards["Cost"].get_text()
