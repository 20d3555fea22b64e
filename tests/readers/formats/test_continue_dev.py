"""The Continue reader: agent-mode sessions with tool calls, times from the index and the dev data, discovery.

The hand-made fixture (tests/fixtures/continue_dev) has Continue's layout: ``sessions/`` with an
agent-mode session (context, an image, reasoning shown and encrypted, five calls: a read, an
edit, a failing test run, a file created with no tool message, a canceled search; usage, a
summary, a damaged item), a chat-mode session, and the index (one entry without its file);
``dev_data/0.2.0/`` with the chat log and a token log.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from helpers import REPO, build_site, detected_by, parse_html

from sessite.model import Event, Kind, Problems, Session, ToolCategory, walk
from sessite.readers import discover, registry
from sessite.readers.formats.continue_dev import READER
from sessite.readers.ledger import Fate, keeping_ledger
from sessite.readers.locations import find

sys.path.insert(0, str(REPO / "benchmarks"))
from fidelity.formats import enumerator  # noqa: E402

REAL = REPO.parent / "shared" / "formats" / "real-agents" / "continue"
AGENT_MODE = "6c0a1f00-0000-4000-8000-00000000000a"
CHAT_MODE = "6c0a1f00-0000-4000-8000-00000000000b"


@pytest.fixture
def home(fixtures: Path) -> Path:
    return fixtures / "continue_dev"


def read_one(path: Path, problems: Problems | None = None) -> Session:
    [session] = READER.read(path, problems if problems is not None else Problems())
    return session


def by_kind(session: Session, kind: Kind) -> list[Event]:
    return [e for e in walk(session.events) if e.kind == kind]


def test_registered_and_the_only_reader_of_its_files(home: Path, tmp_path: Path) -> None:
    assert READER in registry()
    for path in sorted(p for p in home.rglob("*") if p.is_file()):
        assert detected_by(path) == ["continue_dev"], path
    gemini = tmp_path / "session-1.json"
    gemini.write_text(json.dumps({"sessionId": "s", "projectHash": "p", "messages": []}))
    assert not READER.detect_path(gemini)
    empty = tmp_path / "sessions" / "sessions.json"  # Continue writes "[]" before the first session
    empty.parent.mkdir()
    empty.write_text("[]")
    assert READER.detect_path(empty) and not READER.detect_path(tmp_path / "x" / "sessions.json")


def test_an_agent_mode_session(home: Path) -> None:
    problems = Problems()
    session = read_one(home / "sessions" / f"{AGENT_MODE}.json", problems)
    assert [str(p).split(": ", 1)[1] for p in problems.items] == [
        "Continue: history item is a str, not an object; shown as raw JSON"
    ]
    assert session.id == f"continue_dev-{AGENT_MODE}" and session.agent == "continue"
    assert session.title == "Fix cart rounding" and session.cwd == "/home/dev/shop" and session.project == "shop"
    assert session.started is not None and session.started.isoformat() == "2025-06-02T09:59:00+00:00"  # the index
    assert session.models == ("Claude Sonnet 4",) and session.meta["mode"] == "agent"
    assert session.meta["cost"] == "$0.0123" and session.usage is None  # per-reply usage is shown instead
    [user] = by_kind(session, Kind.USER)
    assert user.text.startswith("The cart total shows 10.000000001")
    assert [(b.type, b.title) for b in user.blocks] == [("image", "image"), ("file", "cart.py")]
    assert user.meta["rules applied"] == ["python-style"]
    assert [e.text for e in by_kind(session, Kind.THINKING)] == [
        "Floating point sums need rounding to cents.",
        "The failing test compares floats exactly.",  # kept on the item by older Continue, with its time
    ]
    assert by_kind(session, Kind.COMPACTION)[0].text.startswith("The user asked to fix cart rounding")
    assert session.skipped == {"reasoning the provider keeps encrypted (not readable)": 1, "empty message": 1}


def test_calls_are_paired_with_their_results(home: Path) -> None:
    session = read_one(home / "sessions" / f"{AGENT_MODE}.json")
    calls = {e.call_id: e for e in by_kind(session, Kind.TOOL_CALL)}
    results = {e.call_id: e for e in by_kind(session, Kind.TOOL_RESULT)}
    assert set(calls) == {"call_read", "call_fix", "call_test", "call_new", "call_web"}
    assert set(results) == {"call_read", "call_fix", "call_test", "call_new"}  # the search was canceled
    assert calls["call_web"].meta["status"] == "canceled"
    fix = calls["call_fix"]
    assert fix.category == ToolCategory.EDIT and fix.path == "src/cart.py"
    assert "+    return round(sum(prices), 2)" not in str(fix.diff) and "+return round(sum(prices), 2)" in str(fix.diff)
    test = calls["call_test"]
    assert test.category == ToolCategory.SHELL and test.command == "pytest -q tests/test_cart.py"
    assert results["call_test"].exit_code == 1 and results["call_test"].is_error
    assert "+## 0.2" in str(calls["call_new"].diff) and results["call_new"].text == "Created CHANGELOG.md"
    usage = next(e.usage for e in by_kind(session, Kind.TOOL_CALL) if e.usage)
    assert (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens) == (120, 3000, 400)  # Anthropic


def test_reply_times_come_from_the_dev_data(home: Path) -> None:
    session = read_one(home / "sessions" / f"{CHAT_MODE}.json")
    stamps = [e.timestamp.isoformat() if e.timestamp else None for e in by_kind(session, Kind.ASSISTANT)]
    assert stamps == ["2025-06-01T10:00:05+00:00", "2025-06-01T10:01:10+00:00"]
    assert session.cwd == "c:/Users/dev/shop" and session.models == ("DeepSeek Chat",)
    assert [e.timestamp for e in by_kind(session, Kind.USER)] == [None, None]  # never invented


def test_every_record_of_every_file_has_a_fate(home: Path) -> None:
    problems = Problems(home)
    found = discover(home, problems)
    assert not found.ignored and len(found.claims) == 5
    with keeping_ledger() as ledger:
        sessions = [s for claim in found.claims for s in claim.read(problems)]
    assert len(sessions) == 2
    records_of = enumerator("continue_dev")
    assert records_of is not None
    for path in sorted(p for p in home.rglob("*") if p.is_file()):
        expected = {r.line for r in records_of(path)}
        assert expected and expected == {line for p, line in ledger.fates if p == str(path)}, path.name
    index = str(home / "sessions" / "sessions.json")
    assert ledger.fates[(index, 1)][0] == Fate.MERGED and ledger.fates[(index, 3)][0] == Fate.NOT_SHOWN
    tokens = str(home / "dev_data" / "0.2.0" / "tokensGenerated.jsonl")
    assert ledger.fates[(tokens, 1)] == (Fate.NOT_SHOWN, "Continue's dev-data usage record")


def test_the_enumerator_reads_the_session_independently(home: Path) -> None:
    records_of = enumerator("continue_dev")
    assert records_of is not None
    records = list(records_of(home / "sessions" / f"{AGENT_MODE}.json"))
    assert len(records) == 10
    assert {c for r in records for c in r.calls} == {"call_read", "call_fix", "call_test", "call_new", "call_web"}
    assert {c for r in records for c in r.results} == {"call_read", "call_fix", "call_test", "call_new"}


def test_damaged_files_cost_only_what_is_damaged(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    bad = folder / "0000.json"
    bad.write_text('{"sessionId": "0000", "title": "t", "history": "not a list", "workspaceDirectory": "/w"}')
    problems = Problems()
    session = read_one(bad, problems)
    assert session.events == () and "'history' is str, not an array" in str(problems.items[0])
    odd = folder / "1111.json"
    item = {"message": {"role": "assistant", "content": "ok", "toolCalls": "oops"}, "promptLogs": 7, "appliedRules": 1}
    odd.write_text(json.dumps({"sessionId": "1111", "title": "t", "workspaceDirectory": "/w", "history": [item]}))
    problems = Problems()
    session = read_one(odd, problems)
    assert [e.text for e in by_kind(session, Kind.ASSISTANT)] == ["ok"] and not problems.items


def test_default_folders_on_every_system(tmp_path: Path) -> None:
    sessions = tmp_path / ".continue" / "sessions"
    sessions.mkdir(parents=True)
    for system in ("linux", "darwin", "windows"):
        found = [loc for loc in find(home=tmp_path, system=system) if loc.agent == "continue"]
        assert [loc.folder for loc in found] == [sessions], system
    moved = tmp_path / "elsewhere"
    (moved / "sessions").mkdir(parents=True)
    found = [loc for loc in find(home=tmp_path, env={"CONTINUE_GLOBAL_DIR": str(moved)}) if loc.agent == "continue"]
    assert [loc.folder for loc in found] == [moved / "sessions"]


def test_the_sessions_build_pages(home: Path, tmp_path: Path) -> None:
    archive = tmp_path / "continue"
    shutil.copytree(home, archive)
    report = build_site(archive, tmp_path / "site")
    assert report.published and report.sessions == 2
    page = parse_html(tmp_path / "site" / "sessions" / f"continue_dev-{AGENT_MODE}.html")
    text = page.get_text(" ")
    assert "pytest -q tests/test_cart.py" in text and "1 failed in 0.02s" in text
    assert page.select(".k-tool_call.cat-edit") and page.select(".k-tool_call.cat-shell")


def test_the_real_sessions_are_read_faithfully() -> None:
    real = sorted(REAL.glob("*.json")) if REAL.is_dir() else []
    if not real:
        pytest.skip("../shared/formats/real-agents/continue is not here")
    for path in real:
        problems = Problems()
        sessions = list(READER.read(path, problems))
        assert not problems.items
        for session in sessions:
            assert not by_kind(session, Kind.UNKNOWN)
            answered = {e.call_id for e in by_kind(session, Kind.TOOL_RESULT)}
            assert answered <= {e.call_id for e in by_kind(session, Kind.TOOL_CALL)}
