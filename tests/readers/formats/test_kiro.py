"""The Kiro CLI reader: saved conversations (JSON) and the CLI's data.sqlite3.

Hand-made fixtures in tests/fixtures/kiro (a /save of the current shape, and an older
Amazon Q save whose entries are [user, assistant] pairs); databases are made in a temporary
folder. The real (Entire-normalized) logs in ../shared/formats/real-agents/kiro are read
when they are there.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from helpers import REPO, build_site, detected_by

from sessite.model import Event, Kind, Problems, Session, ToolCategory, walk
from sessite.readers import registry
from sessite.readers.formats.kiro import READER
from sessite.readers.ledger import keeping_ledger
from sessite.readers.locations import find

sys.path.insert(0, str(REPO / "benchmarks"))
from fidelity.formats import enumerator  # noqa: E402

REAL = REPO.parent / "shared" / "formats" / "real-agents" / "kiro"
SID = "3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"


@pytest.fixture
def saved(fixtures: Path) -> Path:
    return fixtures / "kiro" / "kiro-save-widget.json"


@pytest.fixture
def older(fixtures: Path) -> Path:
    return fixtures / "kiro" / "amazon-q-save-notes.json"


def read_all(path: Path, problems: Problems | None = None) -> list[Session]:
    return list(READER.read(path, problems if problems is not None else Problems()))


def by_kind(session: Session, kind: Kind) -> list[Event]:
    return [e for e in walk(session.events) if e.kind == kind]


def make_db(path: Path, saved: Path, *, extra: list[tuple[str, str, str]] = ()) -> Path:
    """A data.sqlite3 as Kiro CLI keeps it: the saved conversation, and a short one in another folder."""
    short = {"conversation_id": "c-2", "history": [{"user": {"content": {"Prompt": {"prompt": "hello"}}}}]}
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE conversations_v2 (key TEXT NOT NULL, conversation_id TEXT NOT NULL, value TEXT NOT NULL,"
            " created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (key, conversation_id))"
        )
        conn.execute("CREATE TABLE migrations (id INTEGER PRIMARY KEY, version INTEGER)")
        rows = [
            ("/home/dev/widget", SID, saved.read_text(), 1772438400000, 1772438422000),
            ("/home/dev/other", "c-2", json.dumps(short), 1772500000000, 1772500001000),
            *[(k, c, v, 1772600000000, 1772600000000) for k, c, v in extra],
        ]
        conn.executemany("INSERT INTO conversations_v2 VALUES (?, ?, ?, ?, ?)", rows)
    conn.close()
    return path


def test_registered_and_the_only_reader_of_its_files(saved: Path, older: Path, tmp_path: Path) -> None:
    assert READER.name == "kiro" and READER.agent == "kiro" and READER in registry()
    db = make_db(tmp_path / "data.sqlite3", saved)
    for path in (saved, older, db):
        assert detected_by(path) == ["kiro"], path
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"conversation_id": "x", "history": [{"role": "user", "text": "hi"}]}))
    unrelated = tmp_path / "app.sqlite3"
    with sqlite3.connect(unrelated) as conn:
        conn.execute("CREATE TABLE conversations (id TEXT, body TEXT)")
    conn.close()
    assert not READER.detect_path(other) and not READER.detect_path(unrelated)


def test_a_saved_conversation(saved: Path) -> None:
    problems = Problems()
    [session] = read_all(saved, problems)
    assert not problems.items
    assert session.id == f"kiro-{SID}" and session.agent == "kiro"
    assert session.title == "Add a README to the widget folder and list the files"
    assert [e.text for e in by_kind(session, Kind.USER)] == [
        "Add a README to the widget folder and list the files",
        "Stop, keep the README short",
    ]
    assert [e.text for e in by_kind(session, Kind.ASSISTANT)] == [
        "I'll write the README first.",
        "Understood: the README keeps its one heading.",
    ]
    assert session.cwd == "/home/dev/widget" and session.models == ("claude-sonnet-4.5",)
    assert session.started is not None and session.started.isoformat() == "2026-03-02T09:00:00+01:00"
    assert session.meta == {"operating system": "linux", "context window": 200000, "tools offered": 2, "credits": 0.15}
    first = by_kind(session, Kind.ASSISTANT)[0]
    assert first.meta == {"request": "req-1", "context used (%)": 1.25} and first.model == "claude-sonnet-4.5"
    assert first.timestamp is not None and first.timestamp.isoformat() == "2026-03-02T08:00:02+00:00"


def test_calls_are_paired_with_their_results(saved: Path) -> None:
    [session] = read_all(saved)
    calls = {e.call_id: e for e in by_kind(session, Kind.TOOL_CALL)}
    results = {e.call_id: e for e in by_kind(session, Kind.TOOL_RESULT)}
    assert list(calls) == list(results) == ["tooluse_write", "tooluse_ls", "tooluse_edit"]
    write, ls, edit = calls.values()
    assert write.category == ToolCategory.EDIT and write.path == "/home/dev/widget/README.md"
    assert write.diff is not None and "+# Widget" in write.diff
    assert edit.diff is not None and "+A small widget." in edit.diff
    assert ls.category == ToolCategory.SHELL and ls.command == "ls /home/dev/widget"
    ran = results["tooluse_ls"]
    assert ran.exit_code == 0 and not ran.is_error and ran.text == "README.md\nwidget.py"
    cancelled = results["tooluse_edit"]
    assert cancelled.is_error and cancelled.meta == {"cancelled": True}


def test_an_older_save_of_pairs(older: Path) -> None:
    [session] = read_all(older)
    assert [e.kind for e in session.events] == [Kind.USER, Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.ASSISTANT]
    assert session.models == ("CLAUDE_3_7_SONNET_20250219_V1_0",) and session.cwd == "/Users/dev/notes"
    assert session.events[1].category == ToolCategory.READ and session.events[2].text == "buy milk"


def test_the_database_one_session_per_conversation(saved: Path, tmp_path: Path) -> None:
    db = make_db(tmp_path / "data.sqlite3", saved)
    before = sorted(p.name for p in tmp_path.iterdir())
    problems = Problems()
    with keeping_ledger() as ledger:
        first, second = read_all(db, problems)
    assert not problems.items and sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written
    assert first.id == f"kiro-{SID}" and second.id == "kiro-c-2"
    assert second.cwd == "/home/dev/other"  # the row's key: the entry names no folder
    assert second.started is not None and second.started.isoformat() == "2026-03-03T01:06:40+00:00"
    assert second.meta["stored in"] == "conversations_v2"
    assert [e.line for e in second.events] == [4]  # numbered on from the first conversation's 3 entries
    records_of = enumerator("kiro")
    assert records_of is not None
    records = list(records_of(db))
    assert [r.line for r in records] == [1, 2, 3, 4]
    assert sorted(line for (path, line) in ledger.fates if path == str(db)) == [1, 2, 3, 4]


@pytest.mark.parametrize("name", ["saved", "older"])
def test_every_entry_has_a_fate_and_the_enumerator_agrees(name: str, request: pytest.FixtureRequest) -> None:
    path: Path = request.getfixturevalue(name)
    records_of = enumerator("kiro")
    assert records_of is not None
    records = list(records_of(path))
    with keeping_ledger() as ledger:
        read_all(path)
    assert sorted(line for (where, line) in ledger.fates if where == str(path)) == [r.line for r in records]
    calls = {c for r in records for c in r.calls}
    assert calls and {c for r in records for c in r.results} == calls


def test_a_bad_entry_or_row_costs_that_entry_or_row(saved: Path, tmp_path: Path) -> None:
    value = json.loads(saved.read_text())
    value["history"].insert(1, "not an entry")
    value["history"][0]["assistant"]["ToolUse"]["tool_uses"][0]["args"] = ["wrong", "type"]
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps(value))
    problems = Problems()
    [session] = read_all(odd, problems)
    assert [(p.line, "not an object" in p.message) for p in problems.items] == [(2, True)]
    assert len(by_kind(session, Kind.UNKNOWN)) == 1 and len(by_kind(session, Kind.TOOL_RESULT)) == 3
    assert by_kind(session, Kind.TOOL_CALL)[0].diff is None  # args of the wrong type: no diff, no crash
    broken = tmp_path / "broken.json"
    broken.write_text('{"conversation_id": "x", "history": [{"user": ')
    problems = Problems()
    assert read_all(broken, problems) == [] and len(problems.items) == 1
    db = make_db(tmp_path / "data.sqlite3", saved, extra=[("/x", "c-3", "{not json")])
    problems = Problems()
    assert [s.id for s in read_all(db, problems)] == [f"kiro-{SID}", "kiro-c-2"]
    assert len(problems.items) == 1 and "c-3" in problems.items[0].message


def test_discovery_finds_the_store_on_each_system(saved: Path, tmp_path: Path) -> None:
    homes = {
        "linux": Path(".local/share/kiro-cli"),
        "darwin": Path("Library/Application Support/kiro-cli"),
        "windows": Path("AppData/Local/kiro-cli"),
    }
    for system, where in homes.items():
        home = tmp_path / system
        (home / where).mkdir(parents=True)
        make_db(home / where / "data.sqlite3", saved)
        found = [loc for loc in find(home=home, system=system) if loc.agent == "kiro"]
        assert [loc.folder for loc in found] == [home / where / "data.sqlite3"], system


def test_a_built_site_shows_the_conversation(fixtures: Path, tmp_path: Path) -> None:
    report = build_site(fixtures / "kiro", tmp_path / "site")
    assert report.sessions == 2 and [str(p) for p in report.problems] == []
    page = BeautifulSoup((tmp_path / "site" / "sessions" / f"kiro-{SID}.html").read_text(), "html.parser")
    text = " ".join(page.get_text(" ", strip=True).split())
    for expected in ("Stop, keep the README short", "ls /home/dev/widget", "README.md widget.py", "claude-sonnet-4.5"):
        assert expected in text
    assert page.find(id="e-tooluse_ls") is not None


def test_the_real_logs_are_read_faithfully() -> None:
    real = sorted(REAL.glob("*.json")) if REAL.is_dir() else []
    if not real:
        pytest.skip("../shared/formats/real-agents/kiro is not here")
    for path in real:
        problems = Problems()
        [session] = read_all(path, problems)
        assert not problems.items and not by_kind(session, Kind.UNKNOWN)
        assert by_kind(session, Kind.USER) and session.title
