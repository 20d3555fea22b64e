"""The Trae reader: Trae Agent trajectories (Python and Rust ports); TRAE CLI rollouts stay Codex's.

Hand-made fixtures in tests/fixtures/trae. Trae is proven on fixtures only: the files in
../shared/formats/real-agents/trae are other projects' test data (read when they are there).
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
from sessite.readers.formats.trae import READER
from sessite.readers.ledger import Fate, keeping_ledger
from sessite.readers.locations import find

sys.path.insert(0, str(REPO / "benchmarks"))
from fidelity.formats import enumerator  # noqa: E402

REAL = REPO.parent / "shared" / "formats" / "real-agents" / "trae"
ROLLOUT = [
    {
        "timestamp": "2026-08-01T18:07:04.550Z",
        "type": "session_meta",
        "payload": {
            "id": "019f0000-0000-7000-8000-000000000001",
            "timestamp": "2026-08-01T18:07:03.636Z",
            "cwd": "/repo",
            "originator": "codex-tui",
            "cli_version": "0.200.19",
            "model_provider": "trae",
        },
    },
    {
        "timestamp": "2026-08-01T18:07:04.580Z",
        "type": "response_item",
        "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
    },
]


@pytest.fixture
def python_run(fixtures: Path) -> Path:
    return fixtures / "trae" / "trajectory_20250612_220546.json"


@pytest.fixture
def rust_run(fixtures: Path) -> Path:
    return fixtures / "trae" / "demo_trajectory_rust.json"


def read_one(path: Path, problems: Problems | None = None) -> Session:
    [session] = READER.read(path, problems if problems is not None else Problems())
    return session


def by_kind(session: Session, kind: Kind) -> list[Event]:
    return [e for e in walk(session.events) if e.kind == kind]


def test_registered_and_codex_rollouts_stay_codex(python_run: Path, rust_run: Path, tmp_path: Path) -> None:
    assert READER.name == "trae" and READER.agent == "trae" and READER in registry()
    assert detected_by(python_run) == ["trae"] and detected_by(rust_run) == ["trae"]
    rollout = tmp_path / "rollout-2026-08-01T18-07-03-019f0000.jsonl"
    rollout.write_text("".join(json.dumps(r) + "\n" for r in ROLLOUT))
    assert detected_by(rollout) == ["codex"]  # TRAE CLI writes Codex rollouts: the codex reader's


def test_a_python_trajectory(python_run: Path) -> None:
    problems = Problems()
    with keeping_ledger() as ledger:
        session = read_one(python_run, problems)
    assert not problems.items
    assert [e.text for e in by_kind(session, Kind.USER)] == ["Create a hello world Python script"]
    assert [e.text for e in by_kind(session, Kind.ASSISTANT)] == [
        "Let me look at the project first.",
        "I'll create the script.",
        "The script is in place.",
    ]
    calls = {e.call_id: e for e in by_kind(session, Kind.TOOL_CALL)}
    results = {e.call_id: e for e in by_kind(session, Kind.TOOL_RESULT)}
    assert list(calls) == list(results) == ["call_ls", "call_create", "call_done"]
    assert calls["call_ls"].category == ToolCategory.SHELL and calls["call_ls"].command == "ls /repo"
    create = calls["call_create"]
    assert create.category == ToolCategory.EDIT and create.diff is not None and "+print('Hello, World!')" in create.diff
    assert results["call_create"].text == "File created successfully at: /repo/hello.py"
    notes = {e.title: e.text for e in by_kind(session, Kind.SYSTEM)}
    assert notes == {
        "Reflection": "The file exists now; the task can end.",
        "Result": "Hello world Python script created successfully!",
    }
    assert session.models == ("claude-sonnet-4-20250514",)
    assert [e.usage for e in by_kind(session, Kind.ASSISTANT)][0] == Usage(900, 40)
    assert session.started is not None and session.started.isoformat().startswith("2025-06-12T22:05:46")
    assert session.meta == {"provider": "anthropic", "success": True, "execution_time": 28.689999, "max_steps": 20}
    fates = {line: fate for (p, line), (fate, _) in ledger.fates.items() if p == str(python_run)}
    assert fates == {
        1: Fate.SHOWN,
        2: Fate.SHOWN,
        3: Fate.SHOWN,
        4: Fate.SHOWN,
        5: Fate.MERGED,
        6: Fate.MERGED,
        7: Fate.MERGED,
        8: Fate.SHOWN,
    }


def test_a_rust_trajectory(rust_run: Path) -> None:
    session = read_one(rust_run)
    assert [e.kind for e in session.events] == [Kind.USER, Kind.THINKING, Kind.ASSISTANT, Kind.SYSTEM]
    assert session.models == ("gpt-4o",)  # the response's "model" is the provider's name there
    assert (
        session.events[2].timestamp is not None
        and session.events[2].timestamp.isoformat() == "2025-09-24T07:32:56.500000+00:00"
    )


@pytest.mark.parametrize("name", ["python_run", "rust_run"])
def test_the_enumerator_agrees(name: str, request: pytest.FixtureRequest) -> None:
    path: Path = request.getfixturevalue(name)
    records_of = enumerator("trae")
    assert records_of is not None
    records = list(records_of(path))
    with keeping_ledger() as ledger:
        read_one(path)
    assert sorted(line for (p, line) in ledger.fates if p == str(path)) == [r.line for r in records]


def test_an_unmatched_interaction_is_shown_and_bad_records_cost_themselves(python_run: Path, tmp_path: Path) -> None:
    doc = json.loads(python_run.read_text())
    doc["llm_interactions"][1]["response"] = {"content": "A reply no step recorded.", "tool_calls": []}
    doc["agent_steps"].insert(0, "not a step")
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps(doc))
    problems = Problems()
    session = read_one(odd, problems)
    assert [p.line for p in problems.items] == [2] and len(by_kind(session, Kind.UNKNOWN)) == 1
    assert "A reply no step recorded." in [e.text for e in by_kind(session, Kind.ASSISTANT)]
    broken = tmp_path / "broken.json"
    broken.write_text('{"task": "x", "start_time": "1", "agent_steps": [')
    problems = Problems()
    assert list(READER.read(broken, problems)) == [] and len(problems.items) == 1


def test_discovery_names_the_trae_cli_folders_whose_rollouts_codex_reads(tmp_path: Path) -> None:
    sessions = tmp_path / ".trae" / "cli" / "sessions" / "2026" / "08" / "01"
    sessions.mkdir(parents=True)
    (sessions / "rollout-x.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROLLOUT))
    for system in ("linux", "darwin", "windows"):
        found = [loc for loc in find(home=tmp_path, system=system) if loc.agent == "trae"]
        assert [loc.folder for loc in found] == [tmp_path / ".trae" / "cli" / "sessions"]
    [claim] = discover(tmp_path / ".trae", Problems()).claims
    assert claim.reader.name == "codex"


def test_a_built_site_shows_the_trajectory(fixtures: Path, tmp_path: Path) -> None:
    report = build_site(fixtures / "trae", tmp_path / "site")
    assert report.sessions == 2 and [str(p) for p in report.problems] == []
    page = tmp_path / "site" / "sessions" / "trae-trajectory_20250612_220546.html"
    text = " ".join(BeautifulSoup(page.read_text(), "html.parser").get_text(" ", strip=True).split())
    for expected in (
        "Create a hello world Python script",
        "ls /repo",
        "README.md",
        "Hello world Python script created",
    ):
        assert expected in text


def test_the_recorded_files_are_read() -> None:
    runs = sorted(REAL.glob("*.json")) if REAL.is_dir() else []
    if not runs:
        pytest.skip("../shared/formats/real-agents/trae is not here")
    for path in runs:
        problems = Problems()
        session = read_one(path, problems)
        assert not problems.items and not by_kind(session, Kind.UNKNOWN) and by_kind(session, Kind.USER)
