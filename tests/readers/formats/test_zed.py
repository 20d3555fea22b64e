"""The Zed reader: threads.db with zstd (0.3.0) and plain JSON threads, sub-agents, damage, discovery.

Zed is proven on fixtures only (no real thread store was at hand): the hand-made
tests/fixtures/zed/threads.db written by ``make_fixture`` below (zstd through the ``zstd``
command; a test checks the committed rows still hold exactly these threads), and the other
projects' SQL dumps in ../shared/formats/real-agents/zed, loaded into a database here.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO, build_site, detected_by, parse_html

from sessite.model import Event, Kind, Problems, Session, ToolCategory, walk
from sessite.readers import discover, registry
from sessite.readers import zstd as compressed
from sessite.readers.formats.zed import READER
from sessite.readers.ledger import Fate, keeping_ledger
from sessite.readers.locations import find

sys.path.insert(0, str(REPO / "benchmarks"))
from fidelity.formats import enumerator  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "zed" / "threads.db"
DUMPS = REPO.parent / "shared" / "formats" / "real-agents" / "zed"
MAIN, CHILD, OLD = "thread-main", "thread-child", "thread-legacy"

MAIN_THREAD: dict[str, Any] = {
    "version": "0.3.0",
    "title": "Fix the flaky test",
    "updated_at": "2026-01-09T12:05:00Z",
    "messages": [
        {
            "User": {
                "id": "u1",
                "content": [
                    {"Text": "Run the tests and fix the flaky one in "},
                    {
                        "Mention": {
                            "uri": {"File": {"abs_path": "/home/dev/widget/tests/test_widget.py"}},
                            "content": "seed = random()\n",
                        }
                    },
                ],
            }
        },
        {
            "Agent": {
                "content": [
                    {"Thinking": {"text": "The seed is random.", "signature": None}},
                    {"Text": "Running the suite first."},
                    {
                        "ToolUse": {
                            "id": "toolu_term",
                            "name": "terminal",
                            "raw_input": "{}",
                            "is_input_complete": True,
                            "input": {"command": "pytest -q", "cd": "widget"},
                        }
                    },
                    {
                        "ToolUse": {
                            "id": "toolu_edit",
                            "name": "edit_file",
                            "raw_input": "{}",
                            "is_input_complete": True,
                            "input": {
                                "path": "widget/tests/test_widget.py",
                                "mode": "edit",
                                "display_description": "Use a fixed seed",
                            },
                        }
                    },
                    {
                        "ToolUse": {
                            "id": "toolu_agent",
                            "name": "spawn_agent",
                            "raw_input": "{}",
                            "is_input_complete": True,
                            "input": {"label": "Look for other flaky tests"},
                        }
                    },
                ],
                "tool_results": {
                    "toolu_term": {
                        "tool_use_id": "toolu_term",
                        "tool_name": "terminal",
                        "is_error": False,
                        "content": [{"Text": 'Command "pytest -q" failed with exit code 1.\n\n1 failed'}],
                    },
                    "toolu_edit": {
                        "tool_use_id": "toolu_edit",
                        "tool_name": "edit_file",
                        "is_error": False,
                        "content": [{"Text": "Edited widget/tests/test_widget.py"}],
                        "output": {
                            "input_path": "widget/tests/test_widget.py",
                            "old_text": "seed = random()\n",
                            "new_text": "seed = 42\n",
                        },
                    },
                    "toolu_agent": {
                        "tool_use_id": "toolu_agent",
                        "tool_name": "spawn_agent",
                        "is_error": False,
                        "content": [{"Text": "No other flaky tests."}],
                    },
                },
                "reasoning_details": None,
            }
        },
        "Resume",
        {
            "Agent": {
                "content": [
                    {"Text": "Fixed the flaky test: it now uses a fixed seed."},
                    {"RedactedThinking": "opaque"},
                ],
                "tool_results": {},
            }
        },
    ],
    "cumulative_token_usage": {
        "input_tokens": 1200,
        "output_tokens": 300,
        "cache_creation_input_tokens": 50,
        "cache_read_input_tokens": 800,
    },
    "model": {"provider": "anthropic", "model": "claude-sonnet-4"},
    "profile": "write",
    "detailed_summary": "The flaky test used a random seed; it now uses 42.",
}
CHILD_THREAD: dict[str, Any] = {
    "version": "0.3.0",
    "title": "Look for other flaky tests",
    "updated_at": "2026-01-09T12:03:00Z",
    "messages": [
        {"User": {"id": "c1", "content": [{"Text": "Look for other flaky tests"}]}},
        {"Agent": {"content": [{"Text": "No other flaky tests."}], "tool_results": {}}},
    ],
    "subagent_context": {"parent_thread_id": MAIN, "tool_use_id": "toolu_agent"},
    "model": {"provider": "anthropic", "model": "claude-haiku-4"},
}
OLD_THREAD: dict[str, Any] = {
    "version": "0.2.0",
    "summary": "List the files",
    "updated_at": "2026-01-08T09:00:02Z",
    "messages": [
        {
            "id": 1,
            "role": "user",
            "segments": [{"type": "text", "text": "What files are here?"}],
            "tool_uses": [],
            "tool_results": [],
            "context": "",
        },
        {
            "id": 2,
            "role": "assistant",
            "segments": [{"type": "thinking", "text": "List them."}, {"type": "text", "text": "Let me look."}],
            "tool_uses": [{"id": "tool_ls", "name": "list_directory", "input": {"path": "widget"}}],
            "tool_results": [{"tool_use_id": "tool_ls", "is_error": False, "content": "README.md\nsrc"}],
        },
        {"id": 3, "role": "assistant", "segments": [{"type": "text", "text": "Two entries: README.md and src."}]},
    ],
    "cumulative_token_usage": {"input_tokens": 100, "output_tokens": 20},
}
ROWS = [
    (MAIN, MAIN_THREAD, "zstd", None, "2026-01-09T12:00:00+00:00"),
    (CHILD, CHILD_THREAD, "zstd", MAIN, "2026-01-09T12:01:00+00:00"),
    (OLD, OLD_THREAD, "json", None, "2026-01-08T09:00:00+00:00"),
]


def zstd(data: bytes) -> bytes:
    binary = shutil.which("zstd")
    if binary is None:
        pytest.skip("no zstd command to write the fixture with")
    return subprocess.run([binary, "-q", "-3", "-c"], input=data, capture_output=True, check=True).stdout


def make_fixture(path: Path, rows: list[tuple[str, dict[str, Any], str, str | None, str]] = ROWS) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA page_size = 1024")
    conn.execute(
        "CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL, "
        "data_type TEXT NOT NULL, data BLOB NOT NULL, parent_id TEXT, folder_paths TEXT, folder_paths_order TEXT, "
        "created_at TEXT)"
    )
    for tid, thread, kind, parent, created in rows:
        text = json.dumps(thread).encode()
        data = zstd(text) if kind == "zstd" else text
        conn.execute(
            "INSERT INTO threads VALUES (?, ?, ?, ?, ?, ?, '/home/dev/widget', '0', ?)",
            (tid, thread.get("title") or thread.get("summary"), thread["updated_at"], kind, data, parent, created),
        )
    conn.commit()
    conn.execute("VACUUM")
    conn.close()
    return path


def read_all(path: Path, problems: Problems | None = None) -> dict[str, Session]:
    return {s.id: s for s in READER.read(path, problems if problems is not None else Problems())}


def by_kind(session: Session, kind: Kind) -> list[Event]:
    return [e for e in walk(session.events) if e.kind == kind]


def test_the_committed_fixture_holds_these_threads() -> None:
    conn = sqlite3.connect(f"{FIXTURE.as_uri()}?mode=ro&immutable=1", uri=True)
    stored = conn.execute("SELECT id, data_type, data, parent_id FROM threads ORDER BY rowid").fetchall()
    assert [(r[0], r[1], r[3]) for r in stored] == [(t, k, p) for t, _, k, p, _ in ROWS]
    for (_, kind, data, _), (_, thread, _, _, _) in zip(stored, ROWS, strict=True):
        unpacked = compressed.unzstd(data) if kind == "zstd" else data
        assert unpacked is not None and json.loads(unpacked) == thread


def test_registered_and_the_only_reader_of_its_files(tmp_path: Path) -> None:
    assert READER.name == "zed" and READER.agent == "zed" and READER in registry()
    assert detected_by(FIXTURE) == ["zed"]
    goose_threads = tmp_path / "sessions.db"  # Goose has a threads table too, of another shape
    sqlite3.connect(goose_threads).executescript(
        "CREATE TABLE threads (id TEXT, name TEXT, working_dir TEXT);"
        "CREATE TABLE sessions (id TEXT); CREATE TABLE messages (id TEXT, content_json TEXT);"
    )
    assert "zed" not in detected_by(goose_threads)


def test_a_zstd_thread_its_messages_calls_and_facts() -> None:
    problems = Problems()
    found = read_all(FIXTURE, problems)
    assert not problems.items, [str(p) for p in problems.items]
    assert set(found) == {f"zed-{MAIN}", f"zed-{OLD}"}  # the child thread is nested
    session = found[f"zed-{MAIN}"]
    assert session.agent == "zed" and session.title == "Fix the flaky test"
    assert session.cwd == "/home/dev/widget" and session.project == "widget"
    [user] = [e for e in session.events if e.kind == Kind.USER]
    assert user.text == "Run the tests and fix the flaky one in "
    assert [(b.type, b.title, b.text) for b in user.blocks] == [
        ("file", "/home/dev/widget/tests/test_widget.py", "seed = random()\n")
    ]
    assert [e.text for e in session.events if e.kind == Kind.THINKING] == ["The seed is random."]
    assert [e.text for e in session.events if e.kind == Kind.ASSISTANT] == [
        "Running the suite first.",
        "Fixed the flaky test: it now uses a fixed seed.",
    ]
    calls = {e.call_id: e for e in by_kind(session, Kind.TOOL_CALL)}
    results = {e.call_id: e for e in by_kind(session, Kind.TOOL_RESULT)}
    assert set(calls) == set(results) == {"toolu_term", "toolu_edit", "toolu_agent"}
    assert calls["toolu_term"].category == ToolCategory.SHELL and calls["toolu_term"].command == "pytest -q"
    assert results["toolu_term"].exit_code == 1 and results["toolu_term"].is_error
    edit = calls["toolu_edit"]
    assert edit.category == ToolCategory.EDIT and "+seed = 42" in str(edit.diff)
    assert session.models == ("claude-sonnet-4", "claude-haiku-4")
    assert session.usage is not None and session.usage.cache_read_tokens == 800
    assert session.meta["detailed summary"].startswith("The flaky test") and session.meta["provider"] == "anthropic"
    assert [e.title for e in session.events if e.kind == Kind.SYSTEM] == ["Resumed"]
    assert session.started is not None and session.started.isoformat() == "2026-01-09T12:00:00+00:00"


def test_a_sub_agent_thread_is_nested_after_its_call() -> None:
    session = read_all(FIXTURE)[f"zed-{MAIN}"]
    [agent] = by_kind(session, Kind.SUBAGENT)
    assert agent.call_id == "toolu_agent" and agent.title == "Look for other flaky tests"
    index = session.events.index(agent)
    assert session.events[index - 1].call_id == "toolu_agent"
    assert [e.kind for e in agent.children] == [Kind.USER, Kind.ASSISTANT]


def test_a_first_agent_panel_thread() -> None:
    old = read_all(FIXTURE)[f"zed-{OLD}"]
    assert old.title == "List the files"
    assert [e.kind for e in old.events] == [
        Kind.USER,
        Kind.THINKING,
        Kind.ASSISTANT,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.ASSISTANT,
    ]
    assert old.events[4].text == "README.md\nsrc" and old.events[3].category == ToolCategory.SEARCH


def test_every_record_has_a_fate_and_the_enumerator_numbers_them_the_same() -> None:
    with keeping_ledger() as ledger:
        read_all(FIXTURE)
    fates = {line: fate for (path, line), (fate, _) in ledger.fates.items() if path == str(FIXTURE)}
    records_of = enumerator("zed")
    assert records_of is not None
    records = list(records_of(FIXTURE))
    assert [r.line for r in records] == sorted(fates) == list(range(1, 4 + 2 + 3 + 1))
    assert set(fates.values()) == {Fate.SHOWN}
    assert {c for r in records for c in r.calls} == {c for r in records for c in r.results}


def test_without_a_zstd_decoder_a_thread_is_one_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compressed, "_DECODE", None)
    problems = Problems()
    with keeping_ledger() as ledger:
        found = read_all(FIXTURE, problems)
    assert [(p.line, "cannot be decompressed" in p.message) for p in problems.items] == [(1, True), (2, True)]
    assert set(found) == {f"zed-{OLD}"}
    assert ledger.fates[(str(FIXTURE), 1)][0] == Fate.NOT_SHOWN


def test_damaged_threads_and_messages_cost_themselves_only(tmp_path: Path) -> None:
    odd = {**OLD_THREAD, "messages": [OLD_THREAD["messages"][0], {"Robot": {}}, *OLD_THREAD["messages"][1:]]}
    path = make_fixture(tmp_path / "threads.db", [*ROWS, ("thread-odd", odd, "json", None, "2026-01-10T00:00:00Z")])
    conn = sqlite3.connect(path)
    conn.execute("UPDATE threads SET data = x'28b52ffd00' WHERE id = ?", (CHILD,))  # a frame cut short
    conn.commit()
    conn.close()
    problems = Problems()
    found = read_all(path, problems)
    messages = [str(p) for p in problems.items]
    assert len(messages) == 2
    assert "cannot be decompressed" in messages[0] and "unknown shape" in messages[1]
    assert f"zed-{MAIN}" in found and not by_kind(found[f"zed-{MAIN}"], Kind.SUBAGENT)
    assert len(by_kind(found["zed-thread-odd"], Kind.UNKNOWN)) == 1


def test_the_other_projects_dumps_are_read(tmp_path: Path) -> None:
    dumps = sorted(DUMPS.glob("*.sql")) if DUMPS.is_dir() else []
    if not dumps:
        pytest.skip("../shared/formats/real-agents/zed is not here")
    texts = []
    for index, dump in enumerate(dumps):
        db = tmp_path / str(index) / "threads.db"
        db.parent.mkdir()
        conn = sqlite3.connect(db)
        conn.executescript(dump.read_text("utf-8"))
        conn.commit()
        conn.close()
        problems = Problems()
        texts += [e.text for s in read_all(db, problems).values() for e in walk(s.events)]
        assert not problems.items
    assert "where does zed keep its agent threads?" in texts and "agent-1 threads still parse" in texts


def test_discovery_finds_the_thread_store_on_every_system(tmp_path: Path) -> None:
    places = {
        "linux": tmp_path / ".local" / "share" / "zed" / "threads",
        "darwin": tmp_path / "Library" / "Application Support" / "Zed" / "threads",
        "windows": tmp_path / "AppData" / "Local" / "Zed" / "threads",
    }
    for folder in places.values():
        folder.mkdir(parents=True)
        shutil.copyfile(FIXTURE, folder / "threads.db")
    for system, folder in places.items():
        found = {loc.folder: loc.roots for loc in find(home=tmp_path, system=system) if loc.agent == "zed"}
        assert found[folder] == (folder / "threads.db",), system
    problems = Problems()
    assert [c.reader.name for c in discover([places["linux"] / "threads.db"], problems).claims] == ["zed"]


def test_the_site_shows_the_threads(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    shutil.copyfile(FIXTURE, archive / "threads.db")
    report = build_site(archive, tmp_path / "site")
    assert report.sessions == 2 and [str(p) for p in report.problems] == []
    page = parse_html(tmp_path / "site" / "sessions" / f"zed-{MAIN}.html")
    words = page.get_text(" ")
    for expected in ("Run the tests and fix the flaky one", "pytest -q", "No other flaky tests."):
        assert expected in words, expected
    assert page.select(".event.k-subagent") and page.select(".event.k-tool_call.cat-shell.error")
