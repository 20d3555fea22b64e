"""The Goose reader: sessions.db (messages, calls, visibility, threads), the older .jsonl files, damage, discovery.

The hand-made fixtures: tests/fixtures/goose/sessions/sessions.db, written by ``make_fixture``
below (a test checks the committed file still holds exactly those rows), an older
``20260108_1.jsonl`` session and Goose's ``projects.json``. The real files in
../shared/formats/real-agents/goose are read when they are there (the real database holds
one session and no message).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO, build_site, detected_by, parse_html

from sessite.model import Event, Kind, Problems, Session, ToolCategory, walk
from sessite.readers import discover, registry
from sessite.readers.formats.goose import READER
from sessite.readers.ledger import Fate, keeping_ledger
from sessite.readers.locations import find

sys.path.insert(0, str(REPO / "benchmarks"))
from fidelity.formats import enumerator  # noqa: E402

FOLDER = REPO / "tests" / "fixtures" / "goose"
DB = FOLDER / "sessions" / "sessions.db"
LEGACY = FOLDER / "sessions" / "20260108_1.jsonl"
REAL = REPO.parent / "shared" / "formats" / "real-agents" / "goose"
T = 1767960000  # 2026-01-09T12:00:00Z

SCHEMA = """
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
    user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
    accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
    schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT, provider_name TEXT, model_config_json TEXT,
    goose_mode TEXT NOT NULL DEFAULT 'auto', thread_id TEXT, archived_at TIMESTAMP, project_id TEXT,
    accumulated_cost REAL);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT, message_id TEXT);
CREATE TABLE threads (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT 'New Chat', user_set_name BOOLEAN DEFAULT FALSE,
    working_dir TEXT, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    archived_at TIMESTAMP, metadata_json TEXT DEFAULT '{}');
CREATE TABLE thread_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, thread_id TEXT NOT NULL REFERENCES threads(id),
    session_id TEXT, message_id TEXT, role TEXT NOT NULL, content_json TEXT NOT NULL,
    created_timestamp INTEGER NOT NULL, metadata_json TEXT DEFAULT '{}');
"""
MAIN = "20260109_1"
SUB = "20260109_2"
SEEN = {"userVisible": True, "agentVisible": True}
MODEL = {**SEEN, "inference": {"provider": "anthropic", "requestedModel": "claude-sonnet-4-5"}}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def request(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "toolRequest",
        "id": call_id,
        "toolCall": {"status": "success", "value": {"name": name, "arguments": arguments}},
        "_meta": {"goose_extension": "developer"},
    }


def response(call_id: str, value: Any, status: str = "success") -> dict[str, Any]:
    result = {"status": status, "value": value} if status == "success" else {"status": status, "error": value}
    return {"type": "toolResponse", "id": call_id, "toolResult": result}


FOR_MODEL = {"audience": ["assistant"]}
FOR_USER = {"audience": ["user"], "priority": 0.0}
# (message id, session, role, content, created, metadata)
MESSAGES: list[tuple[str, str, str, list[dict[str, Any]], int, dict[str, Any]]] = [
    ("m1", MAIN, "user", [text("Run the tests and fix the flaky one")], T, SEEN),
    (
        "m2",
        MAIN,
        "assistant",
        [
            {"type": "thinking", "thinking": "One test is flaky.", "signature": "s"},
            text("Running the suite first."),
            request("call_shell", "developer__shell", {"command": "pytest -q"}),
        ],
        T + 1,
        MODEL,
    ),
    (
        "m3",
        MAIN,
        "user",
        [
            response(
                "call_shell",
                {
                    "content": [
                        {"type": "text", "text": "1 failed", "annotations": FOR_MODEL},
                        {"type": "text", "text": "```\n1 failed\n```", "annotations": FOR_USER},
                    ],
                    "isError": False,
                    "structuredContent": {"exit_code": 1},
                },
            )
        ],
        T + 2,
        SEEN,
    ),
    (
        "m4",
        MAIN,
        "assistant",
        [
            request(
                "call_edit",
                "developer__text_editor",
                {
                    "command": "str_replace",
                    "path": "/home/dev/widget/tests/test_widget.py",
                    "old_str": "seed = random()",
                    "new_str": "seed = 42",
                },
            )
        ],
        T + 3,
        MODEL,
    ),
    ("m5", MAIN, "user", [response("call_edit", [text("The file was edited.")])], T + 4, SEEN),  # the older shape
    (
        "m6",
        MAIN,
        "assistant",
        [
            {
                "type": "toolRequest",
                "id": "call_bad",
                "toolCall": {"status": "error", "error": "-32602: could not parse the arguments"},
            }
        ],
        T + 5,
        MODEL,
    ),
    ("m7", MAIN, "user", [response("call_bad", "-32602: could not parse the arguments", "error")], T + 6, SEEN),
    (
        "m8",
        MAIN,
        "user",
        [text("Summary so far: the seed was random.")],
        T + 7,
        {"userVisible": False, "agentVisible": True},
    ),
    ("m9", MAIN, "assistant", [text("Fixed the flaky test: it now uses a fixed seed.")], T + 8, MODEL),
    (
        "m10",
        MAIN,
        "assistant",
        [
            {
                "type": "actionRequired",
                "data": {
                    "actionType": "toolConfirmation",
                    "id": "call_rm",
                    "toolName": "developer__shell",
                    "arguments": {"command": "rm -r build"},
                    "prompt": "Allow removing the build folder?",
                },
            }
        ],
        T + 9,
        SEEN,
    ),
    (
        "m11",
        MAIN,
        "assistant",
        [{"type": "systemNotification", "notificationType": "inlineMessage", "msg": "Context compacted"}],
        T + 10,
        {"userVisible": True, "agentVisible": False},
    ),
    ("m12", MAIN, "assistant", [{"type": "redactedThinking", "data": "opaque"}], T + 11, MODEL),
    ("s1", SUB, "user", [text("List the test files")], T + 20, SEEN),
    ("s2", SUB, "assistant", [text("There are two test files.")], T + 21, SEEN),
]
THREAD_MESSAGES = [
    ("m1", MAIN, "user", [text("Run the tests and fix the flaky one")], T),  # the thread's copy
    ("t2", None, "user", [text("What changed since yesterday?")], T + 30),
]


def make_fixture(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA page_size = 1024")
    conn.executescript(SCHEMA)
    conn.executemany("INSERT INTO schema_version VALUES (?, '2026-01-09 11:00:00')", [(v,) for v in range(1, 14)])
    columns = (
        "id, name, user_set_name, session_type, working_dir, created_at, updated_at, extension_data, "
        "input_tokens, output_tokens, accumulated_input_tokens, accumulated_output_tokens, "
        "accumulated_total_tokens, provider_name, model_config_json, thread_id, accumulated_cost"
    )
    conn.executemany(
        f"INSERT INTO sessions ({columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                MAIN,
                "Fix the flaky test",
                0,
                "user",
                "/home/dev/widget",
                "2026-01-09 12:00:00",
                "2026-01-09 12:00:11",
                json.dumps({"todo.v0": {"content": "- [x] fix the flaky test"}}),
                900,
                80,
                1800,
                160,
                1960,
                "anthropic",
                json.dumps({"model_name": "claude-sonnet-4-5", "context_limit": 200000}),
                "th1",
                0.042,
            ),
            (
                SUB,
                "CLI Session",
                0,
                "sub_agent",
                "/home/dev/widget",
                "2026-01-09 12:00:20",
                "2026-01-09 12:00:21",
                "{}",
                None,
                None,
                None,
                None,
                None,
                None,
                None,
                None,
                None,
            ),
        ],
    )
    conn.executemany(
        "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, timestamp, "
        "metadata_json) VALUES (?, ?, ?, ?, ?, '2026-01-09 12:00:00', ?)",
        [(mid, sid, role, json.dumps(content), at, json.dumps(meta)) for mid, sid, role, content, at, meta in MESSAGES],
    )
    conn.execute(
        "INSERT INTO threads (id, name, working_dir, created_at, updated_at) VALUES "
        "('th1', 'Widget chat', '/home/dev/widget', '2026-01-09 12:00:00', '2026-01-09 12:00:30')"
    )
    conn.executemany(
        "INSERT INTO thread_messages (thread_id, message_id, session_id, role, content_json, created_timestamp) "
        "VALUES ('th1', ?, ?, ?, ?, ?)",
        [(mid, sid, role, json.dumps(content), at) for mid, sid, role, content, at in THREAD_MESSAGES],
    )
    conn.commit()
    conn.execute("VACUUM")
    conn.close()
    return path


def read_all(path: Path, problems: Problems | None = None) -> list[Session]:
    return list(READER.read(path, problems if problems is not None else Problems()))


def by_kind(session: Session, kind: Kind) -> list[Event]:
    return [e for e in walk(session.events) if e.kind == kind]


def sessions_of(path: Path) -> dict[str, Session]:
    problems = Problems()
    found = {s.id: s for s in read_all(path, problems)}
    assert not problems.items, [str(p) for p in problems.items]
    return found


def test_the_committed_fixture_is_what_make_fixture_writes(tmp_path: Path) -> None:
    fresh = make_fixture(tmp_path / "sessions.db")
    dump = [list(sqlite3.connect(f"{p.as_uri()}?mode=ro&immutable=1", uri=True).iterdump()) for p in (DB, fresh)]
    assert dump[0] == dump[1]


def test_registered_and_the_only_reader_of_its_files(tmp_path: Path) -> None:
    assert READER.name == "goose" and READER.agent == "goose" and READER in registry()
    for path in (DB, LEGACY, FOLDER / "projects.json"):
        assert detected_by(path) == ["goose"], path
    crush_like = tmp_path / "crush.db"
    sqlite3.connect(crush_like).executescript(
        "CREATE TABLE sessions (id TEXT); CREATE TABLE messages (id TEXT, parts TEXT); CREATE TABLE files (id TEXT);"
        "CREATE TABLE goose_db_version (id INTEGER);"
    )
    assert "goose" not in detected_by(crush_like)
    other = tmp_path / "notes.jsonl"
    other.write_text('{"type": "session", "working_dir": "/x", "description": "d"}\n')
    assert "goose" not in detected_by(other)


def test_messages_thinking_visibility_and_title() -> None:
    found = sessions_of(DB)
    assert set(found) == {f"goose-{MAIN}", f"goose-{SUB}", "goose-thread-th1"}
    session = found[f"goose-{MAIN}"]
    assert session.agent == "goose" and session.title == "Fix the flaky test"
    assert [e.text for e in by_kind(session, Kind.USER)] == ["Run the tests and fix the flaky one"]
    assert [e.text for e in by_kind(session, Kind.THINKING)] == ["One test is flaky."]
    assert [e.text for e in by_kind(session, Kind.ASSISTANT)] == [
        "Running the suite first.",
        "Fixed the flaky test: it now uses a fixed seed.",
    ]
    notes = {e.title: e for e in by_kind(session, Kind.SYSTEM)}
    assert notes["Sent to the model only"].text == "Summary so far: the seed was random."
    assert notes["Permission asked: developer__shell"].text == "Allow removing the build folder?"
    assert notes["Notice (inlineMessage)"].meta == {"not sent to the model any more": True}
    assert session.skipped == {"message with nothing to show (empty, or only redacted thinking)": 1}
    assert not by_kind(session, Kind.UNKNOWN)
    assert all(e.line for e in walk(session.events))


def test_calls_are_paired_with_results_with_command_diff_exit_and_errors() -> None:
    session = sessions_of(DB)[f"goose-{MAIN}"]
    calls = {e.call_id: e for e in by_kind(session, Kind.TOOL_CALL)}
    results = {e.call_id: e for e in by_kind(session, Kind.TOOL_RESULT)}
    assert set(calls) == set(results) == {"call_shell", "call_edit", "call_bad"}
    shell, edit = calls["call_shell"], calls["call_edit"]
    assert shell.category == ToolCategory.SHELL and shell.command == "pytest -q"
    assert shell.model == "claude-sonnet-4-5" and shell.meta == {"extension": "developer"}
    ran = results["call_shell"]
    assert ran.text == "1 failed" and ran.exit_code == 1 and ran.is_error
    assert [b.title for b in ran.blocks] == ["shown to the user"]
    assert edit.category == ToolCategory.EDIT and edit.path == "/home/dev/widget/tests/test_widget.py"
    assert "-seed = random()" in str(edit.diff) and "+seed = 42" in str(edit.diff)
    assert results["call_edit"].text == "The file was edited." and not results["call_edit"].is_error
    assert calls["call_bad"].meta["error"].startswith("-32602") and results["call_bad"].is_error


def test_session_facts_sub_agents_and_threads() -> None:
    found = sessions_of(DB)
    session = found[f"goose-{MAIN}"]
    assert session.cwd == "/home/dev/widget" and session.project == "widget"
    assert session.models == ("claude-sonnet-4-5",)
    assert session.usage is not None and (session.usage.input_tokens, session.usage.output_tokens) == (1800, 160)
    assert session.meta["cost"] == 0.042 and session.meta["todo"] == "- [x] fix the flaky test"
    assert session.meta["provider name"] == "anthropic" and session.meta["thread id"] == "th1"
    assert session.started is not None and session.started.isoformat() == "2026-01-09T12:00:00+00:00"
    sub = found[f"goose-{SUB}"]
    assert sub.title is None and sub.meta["session type"] == "sub_agent"  # "CLI Session" is Goose's placeholder
    thread = found["goose-thread-th1"]
    assert thread.title == "Widget chat" and [e.text for e in thread.events] == ["What changed since yesterday?"]


def test_every_record_has_a_fate_and_the_enumerator_numbers_them_the_same() -> None:
    with keeping_ledger() as ledger:
        read_all(DB)
    fates = {line: fate for (path, line), (fate, _) in ledger.fates.items() if path == str(DB)}
    records_of = enumerator("goose")
    assert records_of is not None
    records = list(records_of(DB))
    count = len(MESSAGES) + len(THREAD_MESSAGES)
    assert [r.line for r in records] == sorted(fates) == list(range(1, count + 1))
    assert fates[12] == Fate.NOT_SHOWN and fates[len(MESSAGES) + 1] == Fate.MERGED
    users = [t for r in records for t in r.user_texts]
    assert users == ["Run the tests and fix the flaky one", "List the test files", "What changed since yesterday?"]
    assert {c for r in records for c in r.calls} == {c for r in records for c in r.results}


def test_an_older_jsonl_session() -> None:
    problems = Problems()
    with keeping_ledger() as ledger:
        [session] = read_all(LEGACY, problems)
    assert not problems.items
    assert session.id == "goose-20260108_1" and session.title == "Rename the helper"
    assert session.cwd == "/home/dev/widget" and session.usage is not None and session.usage.output_tokens == 40
    [call] = by_kind(session, Kind.TOOL_CALL)
    [result] = by_kind(session, Kind.TOOL_RESULT)
    assert call.command == "grep -rn old_name src" and result.call_id == call.call_id
    fates = {line: fate for (path, line), (fate, _) in ledger.fates.items() if path == str(LEGACY)}
    assert fates == {1: Fate.MERGED, 2: Fate.SHOWN, 3: Fate.SHOWN, 4: Fate.SHOWN, 5: Fate.SHOWN}
    records_of = enumerator("goose")
    assert records_of is not None and [r.line for r in records_of(LEGACY)] == [1, 2, 3, 4, 5]


def test_a_damaged_line_or_row_costs_that_record_only(tmp_path: Path) -> None:
    lines = LEGACY.read_text().splitlines()
    damaged = tmp_path / "20260108_1.jsonl"
    damaged.write_text("\n".join([*lines[:2], '{"role": "assistant", "content": [', *lines[2:]]) + "\n")
    problems = Problems()
    [session] = read_all(damaged, problems)
    assert [(p.line, "malformed JSON" in p.message) for p in problems.items] == [(3, True)]
    assert len(by_kind(session, Kind.TOOL_CALL)) == 1

    db = make_fixture(tmp_path / "sessions.db")
    conn = sqlite3.connect(db)
    conn.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?, 'user', ?, ?)",
        (MAIN, '{"not": "a list"}', T + 40),
    )
    conn.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?, 'user', ?, ?)",
        (MAIN, json.dumps([{"type": "hologram", "x": 1}, {"no": "type"}]), T + 41),
    )
    conn.commit()
    conn.close()
    problems = Problems()
    found = {s.id: s for s in read_all(db, problems)}
    messages = [str(p) for p in problems.items]
    assert len(messages) == 3
    assert "content_json is a dict" in messages[0] and "unknown content type 'hologram'" in messages[1]
    assert "has no type" in messages[2]
    assert len(found) == 3 and len(by_kind(found[f"goose-{MAIN}"], Kind.UNKNOWN)) == 2


def test_a_file_that_is_not_a_database_is_one_problem(tmp_path: Path) -> None:
    bad = tmp_path / "sessions.db"
    bad.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    problems = Problems()
    assert read_all(bad, problems) == []
    assert len(problems.items) == 1 and "goose" in problems.items[0].message


def test_discovery_finds_the_sessions_folder_on_every_system(tmp_path: Path) -> None:
    for folder in (
        tmp_path / ".local" / "share" / "goose" / "sessions",
        tmp_path / "AppData" / "Roaming" / "Block" / "goose" / "data" / "sessions",
    ):
        folder.mkdir(parents=True)
        shutil.copyfile(DB, folder / "sessions.db")
    for system, expected in (
        ("linux", tmp_path / ".local" / "share" / "goose" / "sessions"),
        ("darwin", tmp_path / ".local" / "share" / "goose" / "sessions"),
        ("windows", tmp_path / "AppData" / "Roaming" / "Block" / "goose" / "data" / "sessions"),
    ):
        folders = [loc.folder for loc in find(home=tmp_path, system=system) if loc.agent == "goose"]
        assert expected in folders, system
    [location] = [loc for loc in find(home=tmp_path, system="linux") if loc.agent == "goose"]
    problems = Problems()
    found = discover(list(location.roots), problems)
    assert [c.reader.name for c in found.claims] == ["goose"] and not problems.items


def test_the_site_shows_the_sessions(tmp_path: Path) -> None:
    report = build_site(FOLDER, tmp_path / "site")
    assert report.sessions == 4 and [str(p) for p in report.problems] == []
    page = parse_html(tmp_path / "site" / "sessions" / f"goose-{MAIN}.html")
    words = page.get_text(" ")
    for expected in (
        "Run the tests and fix the flaky one",
        "pytest -q",
        "Allow removing the build folder?",
        "Fixed the flaky test: it now uses a fixed seed.",
    ):
        assert expected in words, expected
    assert page.select(".event.k-tool_call.cat-shell.error") and page.select(".event.k-thinking")


def test_the_real_files_are_read() -> None:
    if not REAL.is_dir():
        pytest.skip("../shared/formats/real-agents/goose is not here")
    problems = Problems(REAL)
    found = discover(REAL, problems)
    claimed = {c.path.name for c in found.claims if c.reader is READER}
    assert any(name.endswith("sessions.db") for name in claimed)
    assert any(name.endswith("projects.json") for name in claimed)
    sessions = [s for c in found.claims if c.reader is READER for s in c.read(problems)]
    assert not problems.items, [str(p) for p in problems.items]
    assert [s.id for s in sessions] == ["goose-20250724_1"]  # the real database holds no message
