"""The OpenHands reader: a legacy trajectory (JSON array) and a V1 conversation folder.

Hand-made fixtures in tests/fixtures/openhands. OpenHands is proven on recorded test runs
only (../shared/formats/real-agents/openhands holds OpenHands' and its SDK's own test data,
no user's session), read when they are there.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from helpers import REPO, build_site, detected_by

from sessite.model import Event, Kind, Problems, Session, ToolCategory, Usage, walk
from sessite.readers import discover, registry
from sessite.readers.formats.openhands import READER
from sessite.readers.formats.openhands.reader import event_files
from sessite.readers.ledger import keeping_ledger
from sessite.readers.locations import find

sys.path.insert(0, str(REPO / "benchmarks"))
from fidelity.formats import enumerator  # noqa: E402

REAL = REPO.parent / "shared" / "formats" / "real-agents" / "openhands"
CID = "7d3e2f1a-0b9c-4d8e-a7f6-5e4d3c2b1a09"


@pytest.fixture
def trajectory(fixtures: Path) -> Path:
    return fixtures / "openhands" / "trajectory-widget.json"


@pytest.fixture
def folder(fixtures: Path) -> Path:
    return fixtures / "openhands" / "conversations" / CID.replace("-", "")


def read_one(path: Path, problems: Problems | None = None) -> Session:
    [session] = READER.read(path, problems if problems is not None else Problems())
    return session


def by_kind(session: Session, kind: Kind) -> list[Event]:
    return [e for e in walk(session.events) if e.kind == kind]


def test_registered_and_the_only_reader_of_its_files(trajectory: Path, folder: Path, tmp_path: Path) -> None:
    assert READER.name == "openhands" and READER.agent == "openhands" and READER in registry()
    assert detected_by(trajectory) == ["openhands"] and detected_by(folder) == ["openhands"]
    assert detected_by(folder / "base_state.json") == ["openhands"]  # alone, a session without events
    assert detected_by(folder / "events") == []  # the events folder is its conversation's, not one of its own
    other = tmp_path / "list.json"
    other.write_text(json.dumps([{"id": 1, "name": "not an event"}]))
    assert not READER.detect_path(other)


def test_a_legacy_trajectory(trajectory: Path) -> None:
    problems = Problems()
    session = read_one(trajectory, problems)
    assert not problems.items
    assert session.title == "Make the widget tests pass" and session.cwd == "/workspace/widget"
    assert session.models == ("claude-sonnet-4-5",) and session.meta == {"cost": 0.0123}
    assert [e.text for e in by_kind(session, Kind.ASSISTANT)] == [
        "I'll run the tests first.",
        "One test fails; I'll fix the helper.",
        "Both tests should pass now.",
    ]
    calls = {e.call_id: e for e in by_kind(session, Kind.TOOL_CALL)}
    results = {e.call_id: e for e in by_kind(session, Kind.TOOL_RESULT)}
    assert list(calls) == list(results) == ["toolu_run", "toolu_edit"]
    assert calls["toolu_run"].category == ToolCategory.SHELL and calls["toolu_run"].command == "pytest -q"
    assert results["toolu_run"].exit_code == 1 and results["toolu_run"].is_error
    edit = calls["toolu_edit"]
    assert edit.category == ToolCategory.EDIT and edit.diff is not None and "+return 2" in edit.diff
    assert results["toolu_edit"].diff is None and results["toolu_edit"].text.startswith("The file")
    usages = [e.usage for e in walk(session.events) if e.usage]
    assert usages == [Usage(200, 40, 0, 1000), Usage(250, 60, 1000, 150)]  # once per response, fresh input
    assert session.skipped == {
        "OpenHands' system prompt (its own instructions, repeated each conversation)": 1,
        "agent state change (loading, running, awaiting input…)": 1,
        "placeholder observation (the action had no output)": 1,
    }


def test_a_trajectory_after_a_bom_or_blank_lines_is_read_as_detected(trajectory: Path, tmp_path: Path) -> None:
    for name, head in (("bom.json", b"\xef\xbb\xbf"), ("blank.json", b"\n  ")):
        copy = tmp_path / name
        copy.write_bytes(head + trajectory.read_bytes())
        assert READER.detect_path(copy)
        assert len(read_one(copy).events) == len(read_one(trajectory).events)


def test_a_v1_conversation_folder(folder: Path) -> None:
    problems = Problems()
    session = read_one(folder, problems)
    assert not problems.items
    assert session.id == f"openhands-{CID}" and session.cwd == "/home/dev/notes"
    assert session.models == ("gpt-5-mini",) and session.meta == {"status": "finished", "cost": 0.004}
    assert session.usage == Usage(600, 120, 300, 0, 64)
    assert [e.text for e in by_kind(session, Kind.THINKING)] == ["The file may not exist yet."]
    assert [e.text for e in by_kind(session, Kind.ASSISTANT)] == [
        "Let me look at the file.",
        "Added the TODO line to notes.txt.",
    ]
    calls = {e.call_id: e for e in by_kind(session, Kind.TOOL_CALL)}
    results = {e.call_id: e for e in by_kind(session, Kind.TOOL_RESULT)}
    assert list(calls) == list(results) == ["call_cat", "call_edit"]
    assert calls["call_cat"].command == "cat notes.txt" and calls["call_cat"].meta == {"security_risk": "LOW"}
    assert results["call_cat"].exit_code == 0 and results["call_cat"].text == "buy milk"
    assert calls["call_edit"].diff is not None and "+TODO: call Sam" in calls["call_edit"].diff
    found = discover(folder.parent, Problems())
    assert [c.path for c in found.claims] == [folder] and len(found.claims[0].companions) == 9


@pytest.mark.parametrize("name", ["trajectory", "folder"])
def test_every_record_has_a_fate_and_the_enumerator_agrees(name: str, request: pytest.FixtureRequest) -> None:
    path: Path = request.getfixturevalue(name)
    files = event_files(path) if path.is_dir() else [path]
    records_of = enumerator("openhands")
    assert records_of is not None
    records = [r for f in files for r in records_of(f)]
    assert list(records_of(path / "base_state.json" if path.is_dir() else path.with_name("x.json"))) == []
    with keeping_ledger() as ledger:
        read_one(path)
    assert sorted((Path(p), line) for (p, line) in ledger.fates) == sorted((r.path, r.line) for r in records)
    calls = {c for r in records for c in r.calls}
    assert {c for r in records for c in r.results} == calls - {"call_finish"}


def test_bad_events_cost_only_themselves(trajectory: Path, folder: Path, tmp_path: Path) -> None:
    events = json.loads(trajectory.read_text())
    events.insert(3, "not an event")
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps(events))
    problems = Problems()
    session = read_one(odd, problems)
    assert [p.line for p in problems.items] == [4] and len(by_kind(session, Kind.TOOL_RESULT)) == 2
    cut = tmp_path / "cut.json"
    cut.write_text(trajectory.read_text()[:2500])
    problems = Problems()
    session = read_one(cut, problems)
    assert len(problems.items) == 1 and by_kind(session, Kind.USER)
    copy = tmp_path / "conv"
    (copy / "events").mkdir(parents=True)
    for f in event_files(folder):
        (copy / "events" / f.name).write_bytes(f.read_bytes())
    broken = copy / "events" / event_files(folder)[3].name
    broken.write_text('{"kind": "ObservationEvent", ')
    problems = Problems()
    session = read_one(copy, problems)
    assert [p.source for p in problems.items] == [str(broken)]
    assert len(by_kind(session, Kind.TOOL_CALL)) == 2 and len(by_kind(session, Kind.TOOL_RESULT)) == 1


def test_discovery_finds_the_default_folders(folder: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    conversations = home / ".openhands" / "conversations"
    (conversations / folder.name / "events").mkdir(parents=True)
    for f in event_files(folder):
        (conversations / folder.name / "events" / f.name).write_bytes(f.read_bytes())
    for system in ("linux", "darwin", "windows"):
        found = [loc for loc in find(home=home, system=system) if loc.agent == "openhands"]
        assert [loc.folder for loc in found] == [conversations]
    claims = discover(conversations, Problems()).claims
    assert [c.path.name for c in claims] == [folder.name]


def test_a_built_site_shows_the_conversations(fixtures: Path, tmp_path: Path) -> None:
    report = build_site(fixtures / "openhands", tmp_path / "site")
    assert report.sessions == 2 and [str(p) for p in report.problems] == []
    page = BeautifulSoup((tmp_path / "site" / "sessions" / f"openhands-{CID}.html").read_text(), "html.parser")
    text = " ".join(page.get_text(" ", strip=True).split())
    for expected in ("Add a TODO line to notes.txt", "cat notes.txt", "buy milk", "Added the TODO line"):
        assert expected in text
    assert page.find(id="e-call_cat") is not None


def test_the_recorded_runs_are_read_faithfully() -> None:
    runs = sorted(REAL.glob("*trajs*.json")) if REAL.is_dir() else []
    if not runs:
        pytest.skip("../shared/formats/real-agents/openhands is not here")
    for path in runs:
        problems = Problems()
        session = read_one(path, problems)
        assert not problems.items and not by_kind(session, Kind.UNKNOWN)
        calls = {e.call_id for e in by_kind(session, Kind.TOOL_CALL)}
        assert calls and calls == {e.call_id for e in by_kind(session, Kind.TOOL_RESULT)}
