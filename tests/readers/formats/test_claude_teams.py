"""The Claude Code agent teams reader: a team as one session (members, messages in time order,
protocol messages decoded, tasks), copies of a team folder, inboxes alone, damaged files, discovery.

The hand-made fixture (tests/fixtures/claude_teams/) is a piece of ``~/.claude``: ``teams/bug-hunt/``
(config and inboxes) and ``tasks/bug-hunt/``; the real copies in
../shared/formats/real-agents/claude-code-teams are read when they are there.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from helpers import FIXTURES, REPO, build_site, detected_by, parse_html

import sessite.readers as readers
from sessite.model import Event, Kind, Problems, Session, walk
from sessite.readers import discover
from sessite.readers.formats.claude_teams import READER
from sessite.readers.ledger import Fate, keeping_ledger
from sessite.readers.locations import find

sys.path.insert(0, str(REPO / "benchmarks"))
import fidelity.formats as formats  # noqa: E402

HOME = FIXTURES / "claude_teams"
TEAM = HOME / "teams" / "bug-hunt"
TASKS = HOME / "tasks" / "bug-hunt"
LEAD = "7d1c0a2e-0000-4000-8000-00000000beef"
REAL = REPO.parent / "shared" / "formats" / "real-agents" / "claude-code-teams"


def read_home(root: Path = HOME, problems: Problems | None = None) -> list[Session]:
    problems = problems if problems is not None else Problems(root)
    return [s for claim in discover(root, problems).claims for s in claim.read(problems)]


def the_team(problems: Problems | None = None) -> Session:
    [session] = read_home(problems=problems)
    return session


def by_kind(session: Session, kind: Kind) -> list[Event]:
    return [e for e in walk(session.events) if e.kind == kind]


def test_registered_and_the_only_reader_of_its_files() -> None:
    assert READER.agent == "claude-teams" and READER in readers.registry()
    for path in (TEAM / "config.json", TASKS / "1.json", TEAM / "inboxes" / "fixer.json"):
        assert detected_by(path) == ["claude_teams"], path
    assert not READER.detect_path(TEAM) and not READER.detect_path(HOME)


def test_claude_codes_own_files_stay_claude_codes() -> None:
    others = [p for p in (FIXTURES / "claude_code").rglob("*")]
    assert others and not [p for p in others if READER.detect_path(p)]
    problems = Problems(FIXTURES / "claude_code")
    assert {c.reader.name for c in discover(FIXTURES / "claude_code", problems).claims} == {"claude_code"}


def test_the_config_and_the_task_files_are_one_source() -> None:
    problems = Problems(HOME)
    [claim] = discover(HOME, problems).claims
    assert claim.key == f"claude_teams:{TEAM}"
    assert set(claim.sources) == {TEAM / "config.json", *TASKS.glob("*.json")}
    assert set(claim.companions) >= set((TEAM / "inboxes").glob("*.json"))
    assert not problems.items


def test_the_team_members_and_the_lead_session() -> None:
    problems = Problems(HOME)
    session = the_team(problems)
    assert not problems.items, [str(p) for p in problems.items]
    assert session.id == "claude_teams-bug-hunt-7d1c0a2e" and session.agent == "claude-teams"
    assert session.title == "Find and fix the flaky date parser test"
    assert session.started is not None and session.started.isoformat() == "2026-01-01T10:00:00+00:00"
    assert session.cwd == "/home/dev/dateparse" and session.project == "dateparse"
    assert session.models == ("claude-opus-4-6", "claude-sonnet-4-5-20250929", "haiku")
    assert session.meta["lead session"] == f"claude_code-{LEAD}" and session.meta["leadSessionId"] == LEAD
    note = session.events[0]
    assert note.kind == Kind.SYSTEM and note.title == "Agent team bug-hunt"
    assert LEAD in note.text and f"claude_code-{LEAD}" in note.text and "team-lead@bug-hunt" in note.text
    members = [e for e in session.events if e.id.startswith("member-")]
    assert [e.title for e in members] == ["Team lead: team-lead", "Teammate joined: fixer", "Teammate joined: planner"]
    assert "Reproduce the flaky test" in members[1].text and "general-purpose" in members[1].text
    assert members[2].meta["planModeRequired"] is True and members[2].model == "haiku"


def test_messages_in_time_order_with_the_protocol_decoded() -> None:
    session = the_team()
    said = [(e.kind, e.title) for e in session.events if e.meta.get("to")]
    assert said == [
        (Kind.TASK_START, "Task #1: Fix the flaky date parser test"),
        (Kind.SYSTEM, "Plan approval request: planner → team-lead"),
        (Kind.SYSTEM, "Plan approval response: team-lead → planner"),
        (Kind.ASSISTANT, "team-lead → fixer"),
        (Kind.ASSISTANT, "fixer → team-lead"),
        (Kind.SYSTEM, "Idle notification: fixer → team-lead"),
        (Kind.SYSTEM, "Shutdown request: team-lead → fixer"),
        (Kind.SYSTEM, "Shutdown approved: fixer → team-lead"),
    ]
    by_title = {e.title: e for e in session.events}
    assert by_title["fixer → team-lead"].model == "claude-sonnet-4-5-20250929"
    assert by_title["fixer → team-lead"].meta["summary"] == "Flaky test fixed"
    assert by_title["Idle notification: fixer → team-lead"].text == "fixer is idle (available)"
    assert "The fix is merged" in by_title["Shutdown request: team-lead → fixer"].text
    assert "UTC+14" in by_title["Plan approval request: planner → team-lead"].text
    assert (
        "approves planner's plan: Good, add UTC+5:30 too."
        in by_title["Plan approval response: team-lead → planner"].text
    )
    assignment = by_title["Task #1: Fix the flaky date parser test"]
    assert assignment.text.startswith("Task #1 assigned to fixer by team-lead") and "not the test" in assignment.text
    assert assignment.meta["message"]["type"] == "task_assignment"
    assert not by_kind(session, Kind.UNKNOWN)


def test_tasks_as_the_list_last_stood() -> None:
    session = the_team()
    tasks = [e for e in session.events if e.id.startswith("task-")]
    assert [e.title for e in tasks] == [
        "Task #1: Fix the flaky date parser test",
        "Teammate tracker #2: planner",
        "Task #3: Add the time-zone regression test",
    ]
    assert tasks[0].text.startswith("**completed** · owner fixer · blocks #3")
    assert tasks[2].text.startswith("**pending** · blocked by #1") and tasks[2].timestamp is None


def test_every_record_has_a_fate() -> None:
    with keeping_ledger() as ledger:
        the_team()
    fates = {(Path(p).relative_to(HOME).as_posix(), line): fate for (p, line), (fate, _) in ledger.fates.items()}
    assert {line for (p, line) in fates if p.endswith("config.json")} == {1, 2, 3, 4}
    assert {line for (p, line) in fates if p.endswith("team-lead.json")} == {1, 2, 3, 4}
    assert {p for (p, _) in fates if p.startswith("tasks/")} == {f"tasks/bug-hunt/{n}.json" for n in (1, 2, 3)}
    assert set(fates.values()) == {Fate.SHOWN}


def test_the_tasks_are_read_when_the_walk_starts_at_teams() -> None:
    [session] = read_home(HOME / "teams")
    assert [e.id for e in session.events] == [e.id for e in the_team().events]


def test_tasks_whose_team_folder_is_outside_the_archive_say_so(tmp_path: Path) -> None:
    shutil.copytree(HOME, tmp_path / ".claude")
    root = tmp_path / ".claude" / "tasks"
    problems = Problems(root)
    with keeping_ledger() as ledger:
        assert read_home(root, problems) == []
    assert [p.message for p in problems.items] == [
        "claude_teams: a task of team bug-hunt, whose folder is not in the archive; not read"
    ] * 3
    assert {fate for fate, _ in ledger.fates.values()} == {Fate.NOT_SHOWN} and len(ledger.fates) == 3


def test_a_copy_with_several_configs_and_flattened_inboxes(tmp_path: Path) -> None:
    """hive's snapshots: team/config-<team>[-COPY].json, inboxes/<team>/, inboxes/<team>-<copy>-<agent>.json."""
    raw = tmp_path / "raw"
    (raw / "team").mkdir(parents=True)
    (raw / "inboxes" / "bug-hunt").mkdir(parents=True)
    shutil.copyfile(TEAM / "config.json", raw / "team" / "config-bug-hunt.json")
    final = json.loads((TEAM / "config.json").read_text())
    final["members"] = final["members"][:1]  # the teammates left
    (raw / "team" / "config-bug-hunt-FINAL.json").write_text(json.dumps(final))
    shutil.copyfile(TEAM / "inboxes" / "fixer.json", raw / "inboxes" / "bug-hunt" / "fixer.json")
    lead = json.loads((TEAM / "inboxes" / "team-lead.json").read_text())
    (raw / "inboxes" / "bug-hunt-live-team-lead.json").write_text(json.dumps(lead[:2]))
    (raw / "inboxes" / "bug-hunt-final-team-lead.json").write_text(json.dumps(lead))
    problems = Problems(tmp_path)
    [claim] = discover(tmp_path, problems).claims
    assert claim.path == raw and len(claim.companions) == 5
    with keeping_ledger() as ledger:
        [session] = claim.read(problems)
    assert not problems.items
    assert len([e for e in session.events if e.id.startswith("member-")]) == 3
    assert len([e for e in session.events if e.meta.get("to") == "team-lead"]) == 4
    copied = [e for e in session.events if e.meta.get("to") == "team-lead"]
    assert {e.meta.get("copy") for e in copied} == {"final"}  # read first; the live copy's two are the same
    merged = [reason for (fate, reason) in ledger.fates.values() if fate == Fate.MERGED]
    assert merged.count("the same message in another copy of this inbox") == 2
    assert merged.count("the same member in another copy of the team's config") == 1


def test_an_inbox_without_its_team_is_a_session_of_its_own(tmp_path: Path) -> None:
    inbox = tmp_path / "inboxes" / "fixer.json"
    inbox.parent.mkdir()
    shutil.copyfile(TEAM / "inboxes" / "fixer.json", inbox)
    problems = Problems(tmp_path)
    [session] = read_home(tmp_path, problems)
    assert session.title == "Messages to fixer" and len(session.events) == 3 and not problems.items


def test_bad_values_cost_one_problem_line_each(tmp_path: Path) -> None:
    team = tmp_path / "teams" / "bug-hunt"
    shutil.copytree(TEAM, team)
    config = json.loads((TEAM / "config.json").read_text())
    config["members"][1] = "fixer"  # not an object
    config["members"][2]["model"] = ["haiku"]  # not text
    config["createdAt"] = "yesterday"
    (team / "config.json").write_text(json.dumps(config))
    inbox = json.loads((TEAM / "inboxes" / "team-lead.json").read_text())
    inbox[1]["timestamp"] = {"when": "now"}
    inbox[2] = 42
    text = json.dumps(inbox)
    (team / "inboxes" / "team-lead.json").write_text(text[: text.rindex("{")])  # the last message cut short
    problems = Problems(tmp_path)
    [session] = read_home(tmp_path, problems)
    said = sorted(f"{Path(p.source).name}:{p.line}" for p in problems.items)
    # the cut is said at its line in the text (the whole array is on line 1), the rest at their record
    assert said == [
        "config.json:1",
        "config.json:3",
        "config.json:4",
        "team-lead.json:1",
        "team-lead.json:2",
        "team-lead.json:3",
    ]
    assert session.skipped == {"team member that is not a JSON object": 1, "inbox entry that is not a JSON object": 1}
    assert "Teammate joined: planner" in [e.title for e in session.events]
    assert [e.title for e in session.events if e.meta.get("to") == "team-lead"] == [
        "Plan approval request: planner → team-lead",
        "fixer → team-lead",
    ]


def test_discovery_finds_the_default_folders(tmp_path: Path) -> None:
    claude = tmp_path / ".claude"
    shutil.copytree(HOME, claude)
    for system in ("linux", "darwin", "windows"):
        found = [loc for loc in find(home=tmp_path, system=system) if loc.agent == "claude-teams"]
        assert [loc.roots for loc in found] == [(claude / "teams",)], system
    problems = Problems(claude / "teams")
    [claim] = discover([claude / "teams"], problems).claims
    assert claim.reader.name == "claude_teams" and not problems.items
    moved = tmp_path / "elsewhere"
    shutil.copytree(claude, moved)
    env = {"CLAUDE_CONFIG_DIR": str(moved)}
    assert [loc.folder for loc in find(home=tmp_path, env=env) if loc.agent == "claude-teams"][0] == moved / "teams"


def test_the_enumerator_reads_the_files_independently() -> None:
    records_of = formats.enumerator("claude_teams")
    assert records_of is not None
    config = list(records_of(TEAM / "config.json"))
    assert [(r.line, r.type) for r in config] == [(1, "team"), (2, "member"), (3, "member"), (4, "member")]
    assert config[2].assistant_texts[0].startswith("Reproduce the flaky test")
    inbox = list(records_of(TEAM / "inboxes" / "fixer.json"))
    assert [r.type for r in inbox] == ["message/task_assignment", "message", "message/shutdown_request"]
    assert inbox[0].assistant_texts[0].endswith("not the test.") and not inbox[2].assistant_texts
    assert [r.type for r in records_of(TASKS / "2.json")] == ["task"]


def test_the_site_shows_the_team(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    shutil.copytree(HOME, archive)
    report = build_site(archive, tmp_path / "site")
    assert report.sessions == 1 and [str(p) for p in report.problems] == []
    page = parse_html(tmp_path / "site" / "sessions" / "claude_teams-bug-hunt-7d1c0a2e.html")
    assert page.select_one("h1").get_text(strip=True) == "Find and fix the flaky date parser test"
    text = page.get_text(" ")
    for words in (
        f"claude_code-{LEAD}",
        "Teammate joined: fixer",
        "Reproduce the flaky test in tests/test_dates.py",
        "fixer is idle (available)",
        "Found it: the parser used the local time zone",
        "Teammate tracker #2: planner",
    ):
        assert words in text, words
    assert page.select(".event.k-task_start") and page.select(".event.k-assistant")


def test_the_real_copies_are_read_faithfully() -> None:
    if not REAL.is_dir():
        pytest.skip("../shared/formats/real-agents/claude-code-teams is not here")
    records_of = formats.enumerator("claude_teams")
    assert records_of is not None
    problems = Problems(REAL)
    with keeping_ledger() as ledger:
        claims = [c for c in discover(REAL, problems).claims if c.reader.name == "claude_teams"]
        sessions = [s for c in claims for s in c.read(problems)]
    assert len(sessions) == 3 and not problems.items
    files = [p for c in claims for p in (*c.sources, *c.companions) if p.is_file()]
    records = {(str(r.path), r.line) for p in files for r in records_of(p)}
    assert records and records <= set(ledger.fates)
    assert not [e for s in sessions for e in by_kind(s, Kind.UNKNOWN)]
