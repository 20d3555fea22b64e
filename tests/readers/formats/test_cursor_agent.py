"""The Cursor Agent reader: the CLI's store.db (with its WAL), the JSONL and .txt agent transcripts.

Hand-made fixtures in tests/fixtures/cursor_agent (the store is written by
tests/cursor_agent_store.py); the real logs in ../shared/formats/real-agents/cursor are read
when they are there.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from cursor_agent_store import AGENT_ID, HASH, write_store
from helpers import REPO, build_site, detected_by

from sessite.model import Event, Kind, Problems, Session, ToolCategory, walk
from sessite.readers import discover, registry
from sessite.readers.formats.cursor_agent import READER
from sessite.readers.ledger import Fate, keeping_ledger
from sessite.readers.locations import find

sys.path.insert(0, str(REPO / "benchmarks"))
from fidelity.formats import enumerator  # noqa: E402

REAL = REPO.parent / "shared" / "formats" / "real-agents" / "cursor"
TRANSCRIPT_ID = "7c1f0e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b"


@pytest.fixture
def root(fixtures: Path) -> Path:
    return fixtures / "cursor_agent"


@pytest.fixture
def store(root: Path) -> Path:
    return root / "chats" / HASH / AGENT_ID / "store.db"


@pytest.fixture
def jsonl(root: Path) -> Path:
    return root / "projects" / "home-dev-widget" / "agent-transcripts" / TRANSCRIPT_ID / f"{TRANSCRIPT_ID}.jsonl"


@pytest.fixture
def txt(root: Path) -> Path:
    return root / "projects" / "home-dev-widget" / "agent-transcripts" / "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b.txt"


def read_one(path: Path, problems: Problems | None = None) -> Session:
    [session] = READER.read(path, problems if problems is not None else Problems())
    return session


def by_kind(session: Session, kind: Kind) -> list[Event]:
    return [e for e in walk(session.events) if e.kind == kind]


def test_registered_and_the_only_reader_of_its_files(store: Path, jsonl: Path, txt: Path, tmp_path: Path) -> None:
    assert READER.name == "cursor_agent" and READER.agent == "cursor-agent" and READER in registry()
    for path in (store, jsonl, txt):
        assert detected_by(path) == ["cursor_agent"], path
    claude = tmp_path / "claude.jsonl"  # Claude Code lines hold a message too, with a type and ids
    claude.write_text(json.dumps({"type": "user", "role": "user", "message": {"content": "hi"}, "uuid": "u"}) + "\n")
    notes = tmp_path / "notes.txt"
    notes.write_text("user:\nremember the milk\n")
    other_db = tmp_path / "other.db"
    with sqlite3.connect(other_db) as conn:
        conn.execute("CREATE TABLE blobs (id TEXT, data BLOB)")
        conn.execute("CREATE TABLE meta (key TEXT, value TEXT)")
        conn.execute("CREATE TABLE sessions (id TEXT)")
    conn.close()
    for path in (claude, notes, other_db):
        assert not READER.detect_path(path), path


def test_the_store_messages_context_and_facts(store: Path) -> None:
    problems = Problems()
    session = read_one(store, problems)
    assert not problems.items
    assert session.id == f"cursor_agent-{AGENT_ID}" and session.agent == "cursor-agent"
    assert session.title == "Rename old_name to new_name and run the tests"  # "New Agent" is no title
    assert [e.text for e in by_kind(session, Kind.USER)] == ["Rename old_name to new_name and run the tests"]
    assert by_kind(session, Kind.USER)[0].meta == {"request": "req-1"}
    notes = {e.title: e.text for e in by_kind(session, Kind.SYSTEM)}
    assert set(notes) == {"Environment", "Git status"} and "Workspace Path: /home/dev/widget" in notes["Environment"]
    assert [e.text for e in by_kind(session, Kind.THINKING)] == ["The helper is used in two places."]
    assert [e.text for e in by_kind(session, Kind.ASSISTANT)] == [
        "I'll rename the helper, then run the tests.",
        "Renamed `old_name`; one test still fails.",
    ]
    assert session.cwd == "/home/dev/widget" and session.project == "widget"
    assert session.git.branches == ("main",)
    assert session.models == ("gpt-5",)
    assert session.started is not None and session.started.isoformat().startswith("2026-01-02T19:34:21")
    assert session.meta == {
        "mode": "auto-run",
        "context window": "2,048 of 200,000 tokens in use",
        "files written": ["/home/dev/widget/src/helper.py"],
    }
    assert session.skipped == {
        "Cursor's system prompt (its own long instructions, repeated each session)": 1,
        "stored message not in the conversation's latest state (an earlier or abandoned branch)": 1,
    }
    assert not by_kind(session, Kind.UNKNOWN)


def test_the_store_calls_are_paired_with_their_outcomes(store: Path) -> None:
    session = read_one(store)
    calls = {e.call_id: e for e in by_kind(session, Kind.TOOL_CALL)}
    results = {e.call_id: e for e in by_kind(session, Kind.TOOL_RESULT)}
    assert list(calls) == list(results) == ["call_edit", "call_shell", "call_write"]
    edit = calls["call_edit"]
    assert edit.category == ToolCategory.EDIT and edit.path == "/home/dev/widget/src/helper.py"
    assert "-def old_name():" in str(edit.diff) and "+def new_name():" in str(edit.diff)
    assert results["call_edit"].meta == {"lines added": 1, "lines removed": 1} and not results["call_edit"].is_error
    shell = calls["call_shell"]
    assert shell.category == ToolCategory.SHELL and shell.command == "pytest -q" and shell.model == "gpt-5"
    ran = results["call_shell"]
    assert ran.exit_code == 1 and ran.is_error and ran.text == "1 failed, 3 passed"
    assert [(b.title, b.text) for b in ran.blocks] == [("System reminder", "Keep going until the task is done.")]
    denied = results["call_write"]
    assert denied.is_error and denied.meta == {"outcome": "writePermissionDenied"}
    assert "Write permission denied: /home/dev/widget/NOTES.md" in denied.text


def test_a_store_kept_only_in_its_wal_is_read_whole_and_left_untouched(store: Path, tmp_path: Path) -> None:
    live = write_store(tmp_path / "chat" / "store.db", wal=True)
    before = {p.name: p.read_bytes() for p in live.parent.iterdir()}
    assert set(before) == {"store.db", "store.db-wal"}
    assert detected_by(live) == ["cursor_agent"]
    problems = Problems()
    session = read_one(live, problems)
    assert not problems.items
    whole = read_one(store)
    assert [(e.id, e.kind, e.text) for e in walk(session.events)] == [
        (e.id, e.kind, e.text) for e in walk(whole.events)
    ]
    assert {p.name: p.read_bytes() for p in live.parent.iterdir()} == before  # no -shm, nothing written
    found = discover(live.parent, Problems(live.parent))
    assert [c.path.name for c in found.claims] == ["store.db"] and found.claims[0].companions == (
        live.with_name("store.db-wal"),
    )
    assert not found.ignored


def test_the_jsonl_transcript_with_its_sub_agent(jsonl: Path) -> None:
    problems = Problems()
    session = read_one(jsonl, problems)
    assert not problems.items
    assert session.id == f"cursor_agent-{TRANSCRIPT_ID}" and session.title == "Why does test_new_name fail?"
    assert session.meta == {"Cursor project folder": "home-dev-widget"}
    [attached] = [e for e in session.events if e.kind == Kind.SYSTEM]
    assert attached.title == "Attached files" and "code_selection" in attached.text
    calls = {e.call_id: e for e in by_kind(session, Kind.TOOL_CALL)}
    results = {e.call_id: e for e in by_kind(session, Kind.TOOL_RESULT)}
    assert set(results) == {"call-2-1", "toolu_task"} and results["call-2-1"].text.startswith("def new_name")
    assert calls["call-2-1"].category == ToolCategory.READ and calls["toolu_task"].category == ToolCategory.TASK
    [agent] = by_kind(session, Kind.SUBAGENT)
    assert agent.call_id == "toolu_task" and agent.title == "Find every caller of new_name"
    assert [e.kind for e in agent.children] == [Kind.USER, Kind.TOOL_CALL, Kind.ASSISTANT]
    assert [e.text for e in by_kind(session, Kind.THINKING)] == ["It returns 1, the test expects 2."]
    found = discover(jsonl.parent, Problems())
    assert [c.path for c in found.claims] == [jsonl] and len(found.claims[0].companions) == 1


def test_the_txt_transcript(txt: Path) -> None:
    problems = Problems()
    session = read_one(txt, problems)
    assert not problems.items
    assert [e.text for e in by_kind(session, Kind.USER)] == ["list the src folder", "thanks"]
    assert [e.text for e in by_kind(session, Kind.THINKING)] == ["The user wants the contents of src.", "Two files."]
    prose = [e.text for e in by_kind(session, Kind.ASSISTANT)]
    assert prose[0].startswith("`src` holds two files:") and "user:\nhelper.py" in prose[0]  # a fenced "user:"
    assert prose[1] == "You're welcome!"
    calls = by_kind(session, Kind.TOOL_CALL)
    assert [(c.tool_name, c.call_id) for c in calls] == [("LS", "txt-12"), ("Shell", "txt-14")]
    assert calls[1].command == "ls -la /home/dev/widget/src" and calls[0].path == "/home/dev/widget/src"
    assert calls[1].tool_input == {"command": "ls -la /home/dev/widget/src", "description": "List src in long form"}
    results = by_kind(session, Kind.TOOL_RESULT)
    assert [(r.call_id, r.line) for r in results] == [("txt-12", 18), ("txt-14", 20)]
    assert results[0].meta == {"output": "not kept in the .txt transcript"}


@pytest.mark.parametrize("name", ["store", "jsonl", "txt"])
def test_every_record_has_a_fate_and_the_enumerator_agrees(name: str, request: pytest.FixtureRequest) -> None:
    path: Path = request.getfixturevalue(name)
    records_of = enumerator("cursor_agent")
    assert records_of is not None
    records = list(records_of(path))
    with keeping_ledger() as ledger:
        read_one(path)
    fates = {line: fate for (where, line), (fate, _) in ledger.fates.items() if where == str(path)}
    assert sorted(fates) == [r.line for r in records]
    if name == "store":
        assert records[-1].type == "(off the conversation)" and fates[len(records)] == Fate.NOT_SHOWN
        assert [t for r in records for t in r.user_texts] == ["Rename old_name to new_name and run the tests"]
    calls = {c for r in records for c in r.calls}
    assert {c for r in records for c in r.results} <= calls


def test_a_broken_line_or_a_wrong_type_costs_one_problem(jsonl: Path, tmp_path: Path) -> None:
    lines = jsonl.read_text().splitlines()
    damaged = tmp_path / "x.jsonl"
    odd = json.dumps({"role": "assistant", "message": {"content": 42}})
    damaged.write_text("\n".join([lines[0], '{"role": "assistant", "mess', odd, *lines[1:]]) + "\n")
    problems = Problems()
    session = read_one(damaged, problems)
    assert [(p.line, p.message.split(" (")[0]) for p in problems.items] == [
        (2, "malformed JSON"),
        (3, "cursor_agent: transcript line of an unknown shape"),
    ]
    assert [e.line for e in by_kind(session, Kind.UNKNOWN)] == [3]
    assert len(by_kind(session, Kind.ASSISTANT)) == 3  # the rest is all there


def test_a_damaged_store_costs_its_message_or_one_line(tmp_path: Path) -> None:
    path = write_store(tmp_path / "a" / "store.db")
    with sqlite3.connect(path) as conn:
        first = conn.execute(
            'SELECT id FROM blobs WHERE CAST(data AS TEXT) LIKE \'{"role":"user"%\' ORDER BY rowid LIMIT 1'
        ).fetchone()[0]
        conn.execute("UPDATE blobs SET data = ? WHERE id = ?", (b"[1, 2]", first))
    conn.close()
    problems = Problems()
    session = read_one(path, problems)
    assert [p.line for p in problems.items] == [2] and "not a JSON object" in problems.items[0].message
    assert len(by_kind(session, Kind.UNKNOWN)) == 1 and len(by_kind(session, Kind.TOOL_RESULT)) == 3
    broken = tmp_path / "b" / "store.db"
    broken.parent.mkdir()
    broken.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    problems = Problems()
    assert list(READER.read(broken, problems)) == [] and len(problems.items) == 1


def test_discovery_finds_the_default_folders(tmp_path: Path) -> None:
    home = tmp_path / "home"
    chat = home / ".cursor" / "chats" / HASH / AGENT_ID
    chat.mkdir(parents=True)
    transcripts = home / ".cursor" / "projects" / "home-dev-widget" / "agent-transcripts"
    transcripts.mkdir(parents=True)
    (home / ".cursor" / "projects" / "home-dev-widget" / "terminals").mkdir()
    for system in ("linux", "darwin", "windows"):
        found = [loc for loc in find(home=home, system=system) if loc.agent == "cursor-agent"]
        assert [loc.folder for loc in found] == [home / ".cursor" / "chats", home / ".cursor" / "projects"]
        assert found[1].roots == (transcripts,)


def test_a_built_site_shows_the_sessions(root: Path, tmp_path: Path) -> None:
    report = build_site(root, tmp_path / "site")
    assert report.sessions == 3 and [str(p) for p in report.problems] == []
    pages = tmp_path / "site" / "sessions"
    page = BeautifulSoup((pages / f"cursor_agent-{AGENT_ID}.html").read_text(), "html.parser")
    text = page.get_text(" ", strip=True)
    for expected in ("Rename old_name to new_name and run the tests", "pytest -q", "1 failed, 3 passed", "Git status"):
        assert expected in text
    assert page.find(id="e-call_shell") is not None
    page = BeautifulSoup(
        (tmp_path / "site" / "sessions" / f"cursor_agent-{TRANSCRIPT_ID}.html").read_text(), "html.parser"
    )
    assert "Find every caller of new_name" in page.get_text(" ", strip=True)


def test_the_real_logs_are_read_faithfully() -> None:
    stores = sorted(REAL.glob("*/store.db")) if REAL.is_dir() else []
    if not stores:
        pytest.skip("../shared/formats/real-agents/cursor is not here")
    problems = Problems()
    session = read_one(stores[0], problems)
    assert not problems.items and not by_kind(session, Kind.UNKNOWN)
    calls = {e.call_id for e in by_kind(session, Kind.TOOL_CALL)}
    assert len(calls) == 18 and calls == {e.call_id for e in by_kind(session, Kind.TOOL_RESULT)}
    assert session.cwd == "/app/workspace/repo" and session.git.branches == ("main",)
