"""The compact timeline of a session page (templates/_events.html, sessite/render/timeline.py,
sessite/render/diffs.py, sessite/outputs/neighbours.py), checked on the real output of a build
of a generated archive: runs of tool calls fold into one line, every tool call is one line,
an edit shows one diff with line numbers, a shell command shows once with its description,
times are compact, every event is still on the page, and the header links the project and
its session order."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag
from helpers import build_site, follow_link, parse_html
from timeline_archive import LONG, write_archive

from sessite.model import Event, Kind, Session, SourceRef, ToolCategory, walk
from sessite.outputs.neighbours import ProjectNeighbours
from sessite.render.diffs import changed, edit_diffs, parse, render
from sessite.render.timeline import FILTERS, MIN_RUN, Clock, Timeline, gist
from sessite.site.urls import nav_script_url
from sessite.site.view import build_view

LONG_ID = f"claude_code-{LONG}"
TURNS = 12


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("timeline")
    out = root / "site"
    report = build_site(write_archive(root / "archive", turns=TURNS), out)
    assert report.sessions == 4
    return out


@pytest.fixture(scope="module")
def page(site: Path) -> BeautifulSoup:
    return parse_html(site / "sessions" / f"{LONG_ID}.html")


def timeline(page: BeautifulSoup) -> Tag:
    found = page.select_one("ol.timeline.tl")
    assert found is not None
    return found


# ---------------------------------------------------------------- lines and runs


def test_runs_of_tool_calls_fold_into_one_line(page: BeautifulSoup) -> None:
    runs = timeline(page).select(":scope > li.run")
    assert len(runs) == TURNS, "one run of tool calls per turn"
    summary = runs[0].select_one(":scope > details.run > summary")
    assert summary is not None
    assert summary.select_one(".run-what").get_text() == "8 tool calls: 3 Read, 2 Edit, 2 Bash, 1 Grep"
    assert runs[0].select_one(":scope > details.run").get("open") is None, "folded by default"
    calls = runs[0].select(":scope > details > ol.calls > li.k-tool_call")
    assert [c.select_one("summary .tool-name").get_text() for c in calls] == [
        *["Read"] * 3,
        *["Edit"] * 2,
        "Bash",
        "Grep",
        "Bash",
    ]
    assert all(c.select_one(":scope > details.call") is not None for c in calls), "each call opens in place"
    failed = runs[1].select_one("summary .badge.err")
    assert failed is not None and failed.get_text() == "1 failed", "turn 1's test run failed"


def test_the_top_level_is_conversation_and_one_liners(page: BeautifulSoup) -> None:
    kinds = Counter()
    for li in timeline(page).select(":scope > li"):
        classes = li.get("class") or []
        kinds[next(c for c in classes if c.startswith("f-"))] += 1
        if "line" in classes:
            assert li.select_one(":scope > details") is not None, "a line is a <details>"
            assert li.select_one(":scope > details").get("open") is None, "folded by default"
    subagents = sum(1 for t in range(TURNS) if t % 5 == 2)
    assert kinds == {
        "f-prompt": TURNS,
        "f-thinking": TURNS,
        "f-answer": 2 * TURNS,
        "f-tool": TURNS,
        "f-subagent": subagents,
    }


def test_a_sub_agent_is_one_line_with_its_task_outcome_and_counts(page: BeautifulSoup) -> None:
    line = timeline(page).select_one(":scope > li.f-subagent")
    assert line is not None
    summary = line.select_one(":scope > details > summary")
    words = " ".join(summary.get_text(" ").split())
    assert "Survey module 2" in words
    assert "completed" in words
    assert "4 tool calls" in words and "10 events" in words
    transcript = line.select_one("li.k-subagent ol.timeline")
    assert transcript is not None, "its transcript is inside the line"
    assert transcript.select_one("li.run") is not None, "the sub-agent's own calls are folded too"


def test_every_event_is_on_the_page_and_every_line_has_one_kind(site: Path, page: BeautifulSoup) -> None:
    view = _view(site)
    ids = {el["id"] for el in page.find_all(id=re.compile(r"^e-"))}
    assert ids == {view.anchors[e.id] for e in walk(view.session.events)}, "nothing is left out, only folded"
    text = page.get_text(" ")
    for turn in range(TURNS):
        assert f"Turn {turn} thinking." in text
        assert f"zebra-quartz-{turn}" in text, "folded tool output is in the page"
    names = {f"f-{key}" for key, _ in FILTERS}
    for li in page.select("li.event, li.run"):
        kinds = [c for c in li.get("class") or [] if c.startswith("f-")]
        if "k-subagent" in li["class"] and "line" not in li["class"]:
            continue  # a transcript inside its call's line: the call's kind hides it
        assert len(kinds) == 1 and kinds[0] in names, li.get("id")


def test_an_edit_shows_one_diff_numbered_in_the_file(page: BeautifulSoup) -> None:
    edit = timeline(page).select("li.cat-edit")[0]
    body = edit.select_one(":scope > details > .body")
    shown = [d for d in body.select("pre.dv") if d.find_parent("details", class_="reply") is None]
    assert len(shown) == 1, "one diff, not three"
    lines = shown[0].select(".l")
    changed_lines = [(ln["class"][1], ln.get("data-n", "").split()) for ln in lines if ln["class"][1] in ("i", "d")]
    assert changed_lines == [("d", ["41"]), ("i", ["41"])], "the one changed line, numbered where the file has it"
    assert body.select_one(".l.u").get_text().startswith("@@ -40,2 +40,2 @@")
    reply = body.select_one("details.reply")
    assert reply is not None and reply.get("open") is None, "the tool's echo of the file only on request"
    assert "cat -n" in reply.get_text()
    assert len(reply.select(".diff pre")) == 1, "the tool's own version of the diff is kept, folded"
    stat = edit.select_one("summary .stat").get_text(" ").split()
    assert stat == ["+1", "−1"]


def test_a_shell_command_shows_once_with_its_description(page: BeautifulSoup) -> None:
    bash = next(li for li in timeline(page).select("li.cat-shell") if "tests/test_turn_0.py" in li.get_text())
    summary = bash.select_one("summary")
    assert summary.select_one(".what").get_text() == "Run the turn's tests"
    assert summary.select_one("code.what-code").get_text() == "pytest -q tests/test_turn_0.py"
    assert bash.get_text().count("pytest -q tests/test_turn_0.py") == 1
    failed = next(li for li in timeline(page).select("li.cat-shell") if "tests/test_turn_1.py" in li.get_text())
    assert "error" in failed["class"] and failed.select_one("summary .badge.err") is not None


def test_a_search_line_names_its_pattern_and_folder(page: BeautifulSoup) -> None:
    grep = timeline(page).select("li.cat-search")[0]
    assert grep.select_one("summary code.what-code").get_text() == "handler_0"
    assert grep.select_one("summary .where").get_text() == "in src"


def test_times_are_compact_with_the_date_when_it_changes(page: BeautifulSoup) -> None:
    stamps = [a for a in timeline(page).select(":scope > li > .event-head .permalink, :scope > li > .permalink")]
    labels = [a.get_text() for a in stamps]
    assert re.fullmatch(r"2026-02-01 \d\d:\d\d", labels[0]), "the first time has its date"
    dated = [t for t in labels if len(t) > 5]
    assert len(dated) == 2, f"the date shows again only when it changes: {dated}"
    assert any(t.startswith("2026-02-02") for t in dated)
    assert all(re.fullmatch(r"\d\d:\d\d", t) for t in labels if len(t) == 5)
    for a in stamps:
        assert re.fullmatch(r"2026-02-0[12]T\d\d:\d\d:\d\d\+00:00", a.time["datetime"]), "the full stamp"


def test_the_outline_lists_every_prompt_with_a_jump_link(page: BeautifulSoup) -> None:
    links = page.select("nav.outline ol a")
    assert len(links) == TURNS
    prompts = timeline(page).select(":scope > li.k-user")
    assert [a["href"] for a in links] == [f"#{p['id']}" for p in prompts]
    assert links[3].get_text(" ").startswith("Turn 3: please fix")


def test_the_header_links_the_project_and_its_session_order(site: Path, page: BeautifulSoup) -> None:
    here = site / "sessions" / f"{LONG_ID}.html"
    project = page.select_one("dl.facts a.project-link")
    assert project is not None and project.get_text() == "shop"
    target, _ = follow_link(here, project["href"])
    assert target == site / "insights" / "shop.html"
    sessions = project.find_next_sibling("a")
    assert sessions["href"].endswith("index.html?project=shop")
    nav = page.select("nav[data-session-nav]")
    assert len(nav) == 2, "previous/next at the top and at the bottom"
    script, _ = follow_link(here, nav[0]["data-session-nav"])
    body = script.read_text()
    assert body.startswith("sessiteProjectSessions(") and body.rstrip().endswith(");")
    data = json.loads(body.strip()[len("sessiteProjectSessions(") : -2])
    urls = [row[0] for row in data["sessions"]]
    assert urls == [
        "sessions/claude_code-7e1e0000-0000-4000-8000-00000000000a.html",
        f"sessions/{LONG_ID}.html",
        "sessions/claude_code-7e1e0000-0000-4000-8000-00000000000b.html",
    ], "in the order they started; the other project's session is not there"
    assert nav[0]["data-session"] == urls[1]


def test_the_page_names_its_stylesheet_in_the_head(site: Path, page: BeautifulSoup) -> None:
    link = page.head.select_one('link[rel=stylesheet][href$="static/timeline.css"]')
    assert link is not None
    assert (site / "static" / "timeline.css").is_file()


# ---------------------------------------------------------------- the pieces


def test_runs_break_at_a_sub_agent_and_short_runs_stay_lines() -> None:
    def call(n: int, name: str = "Read", cat: ToolCategory = ToolCategory.READ) -> Event:
        return Event(f"c{n}", Kind.TOOL_CALL, tool_name=name, category=cat, call_id=f"k{n}", path=f"/w/f{n}")

    events = (
        call(1),
        call(2),
        Event("t", Kind.THINKING, text="hm"),
        call(3),
        call(4, "Task", ToolCategory.TASK),
        call(5),
        call(6),
        Event("a", Kind.ASSISTANT, text="ok"),
    )
    session = Session(id="s", source=SourceRef("s.jsonl", "test"), agent="a", events=events, cwd="/w")
    tl = Timeline(build_view(session))
    plan = tl.plan(list(events))
    assert [type(x).__name__ for x in plan] == ["Run", "Event", "Event", "Event", "Event"]
    run = plan[0]
    assert run.calls == 3 and run.thoughts == 1 and run.summary == "3 tool calls: 3 Read"
    assert MIN_RUN == 3
    assert tl.filter_of(events[4]) == "subagent"
    assert tl.call_line(events[0]).what == "f1", "a path inside the session's folder is shown without it"


def test_edit_diffs_prefer_the_tighter_diff_and_number_it_in_the_file() -> None:
    call_diff = "--- a\n+++ a\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n"
    loose = "--- a\n+++ a\n@@ -10,2 +10,2 @@\n-keep\n-old\n+keep\n+new\n"
    tight = "--- a\n+++ a\n@@ -10,2 +10,2 @@\n keep\n-old\n+new\n"
    call = Event("c", Kind.TOOL_CALL, diff=call_diff, call_id="k")
    shown, others = edit_diffs(call, [Event("r", Kind.TOOL_RESULT, diff=loose, call_id="k")])
    assert "@@ -10,2 +10,2 @@" in shown and changed(shown) == (1, 1), "the call's, moved to line 10"
    assert others == [loose]
    shown, others = edit_diffs(call, [Event("r", Kind.TOOL_RESULT, diff=tight, call_id="k")])
    assert shown == tight and others == [call_diff]
    assert edit_diffs(Event("c", Kind.TOOL_CALL), []) == (None, [])
    # a blank first line is found where the lines after it match too, not at the first blank line
    blank_call = "@@ -2,3 +2,4 @@\n \n a\n b\n+c\n"
    blank_result = "@@ -10,6 +10,7 @@\n \n x\n }\n-\n-a\n-b\n+\n+a\n+b\n+c\n"
    call = Event("c", Kind.TOOL_CALL, diff=blank_call, call_id="k")
    shown, _ = edit_diffs(call, [Event("r", Kind.TOOL_RESULT, diff=blank_result, call_id="k")])
    assert shown.startswith("@@ -13,3 +13,4 @@")


def test_a_diff_is_drawn_with_line_numbers_and_escaped() -> None:
    lines = parse("--- x\n+++ x\n@@ -3,2 +3,3 @@\n a\n-<b>\n+<i>\n+c\n--- y\n+++ z\n@@ -1 +1 @@\n-q\n+r\n")
    assert [(ln.mark, ln.old, ln.new) for ln in lines if ln.mark in " +-"] == [
        (" ", 3, 3),
        ("-", 4, None),
        ("+", None, 4),
        ("+", None, 5),
        ("-", 1, None),
        ("+", None, 1),
    ]
    assert [ln.text for ln in lines if ln.mark == "h"] == ["x", "--- y", "+++ z"], "a second file's heads stay heads"
    html = str(render("@@ -3,2 +3,2 @@\n a\n-<b>\n+<i>\n"))
    assert "<b>" not in html and "&lt;b&gt;" in html
    assert 'class="l d" data-n="4  "' in html and 'class="l i" data-n="  4"' in html
    long = str(render("@@ -1,60 +1,60 @@\n" + "".join(f" {n}\n" for n in range(60))))
    assert "data-collapsible" in long and "Show all 61 lines" in long


def test_clock_and_gist() -> None:
    clock = Clock()
    day = datetime(2026, 1, 1, 23, 59, tzinfo=UTC)
    assert clock.label(day) == "2026-01-01 23:59"
    assert clock.label(day.replace(minute=58)) == "23:58"
    assert clock.label(datetime(2026, 1, 2, 0, 1, tzinfo=UTC)) == "2026-01-02 00:01"
    assert clock.label(None) == ""
    assert gist("## Title\n\nSee [the spec](https://x.test/a) **now** in `x`") == "Title See the spec now in x"
    assert gist("x" * 500).endswith("…") and len(gist("x" * 500)) == 140


def test_neighbours_are_per_project_in_start_order() -> None:
    agg = ProjectNeighbours(None)  # type: ignore[arg-type]
    for item in [("p", "2026-01-02T00:00:00+00:00", "sessions/b.html", "B"), ("p", "", "sessions/c.html", "C")]:
        agg.add(item)
    agg.add(("p", "2026-01-01T00:00:00+00:00", "sessions/a.html", "A</script>"))
    agg.add(None)
    scripts = agg.scripts()
    assert list(scripts) == [nav_script_url("p")] == ["insights/p.sessions.js"]
    body = scripts["insights/p.sessions.js"].decode()
    assert "</script>" not in body
    data = json.loads(body[len("sessiteProjectSessions(") : -3])
    assert [row[0] for row in data["sessions"]] == ["sessions/a.html", "sessions/b.html", "sessions/c.html"]


def _view(site: Path):
    from sessite.model import Problems
    from sessite.readers import discover

    archive = site.parent / "archive"
    problems = Problems(archive)
    claims = discover(archive, problems).claims
    claim = next(c for c in claims if c.path.name == f"{LONG}.jsonl")
    session = next(iter(claim.reader.read_group((claim.path, *claim.group), problems)))
    return build_view(session)
