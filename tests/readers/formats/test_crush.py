"""The Crush reader: messages and parts, calls paired with results, sub-agents, the WAL, damage, discovery.

The hand-made fixture tests/fixtures/crush/crush.db is written by ``make_fixture`` below
(a test checks the committed file still holds exactly those rows); the real databases in
../shared/formats/real-agents/crush are read when they are there.
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
from sessite.readers.formats.crush import READER
from sessite.readers.ledger import Fate, keeping_ledger
from sessite.readers.locations import find

sys.path.insert(0, str(REPO / "benchmarks"))
from fidelity.formats import enumerator  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "crush" / "crush.db"
REAL = REPO.parent / "shared" / "formats" / "real-agents" / "crush"
T = 1767960000  # 2026-01-09T12:00:00Z, in seconds as Crush writes them

SCHEMA = """
CREATE TABLE goose_db_version (id INTEGER PRIMARY KEY AUTOINCREMENT, version_id INTEGER NOT NULL,
    is_applied INTEGER NOT NULL, tstamp TIMESTAMP DEFAULT (datetime('now')));
CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0, prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0, cost REAL NOT NULL DEFAULT 0.0,
    updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL, summary_message_id TEXT, todos TEXT);
CREATE TABLE files (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL,
    parts TEXT NOT NULL default '[]', model TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    finished_at INTEGER, provider TEXT, is_summary_message INTEGER DEFAULT 0 NOT NULL);
"""
MAIN = "0b5e0c1a-0000-4000-8000-00000000c0de"
SUB = "m-call$$call_agent"  # a sub-agent session: <message id>$$<call id>


def part(kind: str, **data: Any) -> dict[str, Any]:
    return {"type": kind, "data": data}


def stop(reason: str, at: int = 0, **more: Any) -> dict[str, Any]:
    return part("finish", reason=reason, time=at, **more)


BASH_OUT = "FAILED tests/test_widget.py::test_flaky\nExit code 1"
MESSAGES: list[tuple[str, str, str, list[dict[str, Any]], int, int]] = [
    # (id, session, role, parts, created_at, is_summary_message)
    (
        "m-user",
        MAIN,
        "user",
        [
            part("text", text="Run the tests and fix the flaky one"),
            part("binary", Path="/home/dev/widget/notes.txt", MIMEType="text/plain", Data="c2VlZCBpcyByYW5kb20="),
            stop("stop"),
        ],
        T,
        0,
    ),
    (
        "m-bash",
        MAIN,
        "assistant",
        [
            part("reasoning", thinking="The suite has one flaky test.", signature="sig"),
            part("text", text="Running the suite first."),
            part(
                "tool_call",
                id="call_bash",
                name="bash",
                input='{"command":"pytest -q"}',
                type="function",
                finished=True,
            ),
            stop("tool_use", T + 2),
        ],
        T + 1,
        0,
    ),
    (
        "m-bash-result",
        MAIN,
        "tool",
        [
            part(
                "tool_result",
                tool_call_id="call_bash",
                name="",
                is_error=False,
                content=BASH_OUT + "\n\n<cwd>/home/dev/widget</cwd>",
                metadata=json.dumps(
                    {
                        "start_time": (T + 2) * 1000,
                        "end_time": (T + 3) * 1000,
                        "output": BASH_OUT,
                        "working_directory": "/home/dev/widget",
                    }
                ),
            ),
            stop("stop"),
        ],
        T + 3,
        0,
    ),
    (
        "m-call",
        MAIN,
        "assistant",
        [
            part(
                "tool_call",
                id="call_edit",
                name="edit",
                type="function",
                finished=True,
                input=json.dumps(
                    {
                        "file_path": "/home/dev/widget/tests/test_widget.py",
                        "old_string": "seed = random()",
                        "new_string": "seed = 42",
                    }
                ),
            ),
            part(
                "tool_call",
                id="call_agent",
                name="agent",
                type="function",
                finished=True,
                input='{"prompt":"Find other flaky tests"}',
            ),
            stop("tool_use", T + 5),
        ],
        T + 4,
        0,
    ),
    (
        "m-call-results",
        MAIN,
        "tool",
        [
            part(
                "tool_result",
                tool_call_id="call_edit",
                name="",
                is_error=False,
                content="<result>\nContent replaced in file: /home/dev/widget/tests/test_widget.py\n</result>",
                metadata=json.dumps(
                    {
                        "additions": 1,
                        "removals": 1,
                        "old_content": "import random\nseed = random()\n",
                        "new_content": "import random\nseed = 42\n",
                    }
                ),
            ),
            part(
                "tool_result",
                tool_call_id="call_agent",
                name="",
                is_error=False,
                content="No other flaky tests.",
                metadata="",
            ),
            stop("stop"),
        ],
        T + 9,
        0,
    ),
    (
        "m-done",
        MAIN,
        "assistant",
        [part("text", text="Fixed the flaky test: it now uses a fixed seed."), stop("end_turn", T + 10)],
        T + 10,
        0,
    ),
    (
        "m-shell",
        MAIN,
        "user",
        [part("shell_command", command="git status --short", output=" M tests/test_widget.py", exit_code=0)],
        T + 11,
        0,
    ),
    (
        "m-error",
        MAIN,
        "assistant",
        [stop("error", T + 13, message="API Error", details="rate limit: 8 retries")],
        T + 12,
        0,
    ),
    (
        "m-summary",
        MAIN,
        "assistant",
        [part("text", text="The flaky test now uses a fixed seed."), stop("end_turn", T + 15)],
        T + 14,
        1,
    ),
    # the sub-agent's own session
    ("s-user", SUB, "user", [part("text", text="Find other flaky tests"), stop("stop")], T + 5, 0),
    (
        "s-grep",
        SUB,
        "assistant",
        [
            part(
                "tool_call",
                id="call_grep",
                name="grep",
                type="function",
                finished=True,
                input='{"pattern":"random\\\\(","path":"/home/dev/widget/tests"}',
            ),
            stop("tool_use", T + 6),
        ],
        T + 6,
        0,
    ),
    (
        "s-grep-result",
        SUB,
        "tool",
        [
            part(
                "tool_result",
                tool_call_id="call_grep",
                name="",
                is_error=False,
                content="No files found",
                metadata='{"number_of_matches":0}',
            ),
            stop("stop"),
        ],
        T + 7,
        0,
    ),
    ("s-done", SUB, "assistant", [part("text", text="No other flaky tests."), stop("end_turn", T + 8)], T + 8, 0),
    # the request that named the main session
    ("t-user", f"title-{MAIN}", "user", [part("text", text="Generate a concise title"), stop("stop")], T + 1, 0),
    (
        "t-answer",
        f"title-{MAIN}",
        "assistant",
        [part("text", text="Fix the flaky test"), stop("end_turn", T + 2)],
        T + 2,
        0,
    ),
]


def make_fixture(path: Path) -> Path:
    """The fixture database: one session with a sub-agent, a title request and file snapshots."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA page_size = 1024")
    conn.executescript(SCHEMA)
    conn.executemany(
        "INSERT INTO goose_db_version (version_id, is_applied, tstamp) VALUES (?, 1, '2026-01-09 11:00:00')",
        [(1,), (2,)],
    )
    todos = json.dumps([{"content": "Fix the flaky test", "status": "completed", "active_form": "Fixing"}])
    conn.executemany(
        "INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (MAIN, None, "Fix the flaky test", 9, 1200, 340, 0.0123, T + 15, T, "m-summary", todos),
            (SUB, MAIN, "Find other flaky tests", 4, 300, 40, 0.001, T + 8, T + 5, None, None),
            (f"title-{MAIN}", MAIN, "Generate a title", 2, 10, 5, 0.0, T + 2, T + 1, None, None),
        ],
    )
    conn.executemany(
        "INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                mid,
                sid,
                role,
                json.dumps(parts),
                "" if role != "assistant" else "claude-sonnet-4",
                at,
                at,
                at if role == "assistant" else None,
                "anthropic" if role != "user" else None,
                summary,
            )
            for mid, sid, role, parts, at, summary in MESSAGES
        ],
    )
    conn.executemany(
        "INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            ("f0", MAIN, "/home/dev/widget/tests/test_widget.py", "import random\nseed = random()\n", 0, T + 9, T + 9),
            ("f1", MAIN, "/home/dev/widget/tests/test_widget.py", "import random\nseed = 42\n", 1, T + 9, T + 9),
        ],
    )
    conn.commit()
    conn.execute("VACUUM")
    conn.close()
    return path


def read_all(path: Path, problems: Problems | None = None) -> list[Session]:
    return list(READER.read(path, problems if problems is not None else Problems()))


def by_kind(session: Session, kind: Kind) -> list[Event]:
    return [e for e in walk(session.events) if e.kind == kind]


def test_the_committed_fixture_is_what_make_fixture_writes(tmp_path: Path) -> None:
    fresh = make_fixture(tmp_path / "crush.db")
    dump = [list(sqlite3.connect(f"{p.as_uri()}?mode=ro&immutable=1", uri=True).iterdump()) for p in (FIXTURE, fresh)]
    assert dump[0] == dump[1]


def test_registered_and_the_only_reader_of_its_files(tmp_path: Path) -> None:
    assert READER.name == "crush" and READER.agent == "crush" and READER in registry()
    assert detected_by(FIXTURE) == ["crush"]
    renamed = tmp_path / "backup.sqlite"  # another name: recognised by Crush's tables
    shutil.copyfile(FIXTURE, renamed)
    assert detected_by(renamed) == ["crush"]
    other = tmp_path / "other.db"
    sqlite3.connect(other).executescript("CREATE TABLE sessions (id TEXT); CREATE TABLE messages (id TEXT);")
    assert "crush" not in detected_by(other)
    (tmp_path / "crush.txt").write_text("SQLite format 3")
    assert "crush" not in detected_by(tmp_path / "crush.txt")


def test_messages_thinking_attachments_and_title() -> None:
    problems = Problems()
    [session] = read_all(FIXTURE, problems)
    assert not problems.items
    assert session.id == f"crush-{MAIN}" and session.agent == "crush" and session.source.format == "crush"
    assert session.title == "Fix the flaky test"
    users = by_kind(session, Kind.USER)
    assert [e.text for e in users] == ["Run the tests and fix the flaky one", "Find other flaky tests"]
    [note] = users[0].blocks
    assert (note.type, note.title, note.text) == ("file", "notes.txt", "seed is random")
    assert [e.text for e in by_kind(session, Kind.THINKING)] == ["The suite has one flaky test."]
    assert [e.text for e in by_kind(session, Kind.ASSISTANT)] == [
        "Running the suite first.",
        "No other flaky tests.",
        "Fixed the flaky test: it now uses a fixed seed.",
    ]
    [summary] = by_kind(session, Kind.COMPACTION)
    assert summary.text == "The flaky test now uses a fixed seed."
    [error] = [e for e in by_kind(session, Kind.SYSTEM) if e.is_error]
    assert error.title == "Error" and error.text == "API Error\n\nrate limit: 8 retries"
    assert not by_kind(session, Kind.UNKNOWN)
    assert all(e.line for e in walk(session.events) if e.kind != Kind.SUBAGENT)


def test_calls_are_paired_with_their_results_and_show_command_diff_and_exit() -> None:
    [session] = read_all(FIXTURE)
    calls = {e.call_id: e for e in by_kind(session, Kind.TOOL_CALL)}
    results = {e.call_id: e for e in by_kind(session, Kind.TOOL_RESULT)}
    assert set(calls) == set(results) == {"call_bash", "call_edit", "call_agent", "call_grep", "m-shell-shell"}
    bash, edit = calls["call_bash"], calls["call_edit"]
    assert bash.category == ToolCategory.SHELL and bash.command == "pytest -q"
    assert results["call_bash"].exit_code == 1 and results["call_bash"].is_error
    assert results["call_bash"].meta == {"working_directory": "/home/dev/widget", "duration": "1.000 s"}
    assert edit.category == ToolCategory.EDIT and edit.path == "/home/dev/widget/tests/test_widget.py"
    assert "-seed = random()" in str(edit.diff) and "+seed = 42" in str(edit.diff)
    assert calls["call_grep"].category == ToolCategory.SEARCH
    shell = calls["m-shell-shell"]  # a ``!`` command the user ran
    assert shell.command == "git status --short" and results["m-shell-shell"].exit_code == 0
    assert session.cwd == "/home/dev/widget" and session.project == "widget"


def test_a_sub_agent_is_nested_after_its_call_and_the_title_request_is_counted() -> None:
    [session] = read_all(FIXTURE)
    [agent] = by_kind(session, Kind.SUBAGENT)
    assert agent in session.events and agent.call_id == "call_agent" and agent.title == "Find other flaky tests"
    index = session.events.index(agent)
    assert session.events[index - 1].kind == Kind.TOOL_RESULT and session.events[index - 1].call_id == "call_agent"
    assert [e.kind for e in agent.children] == [Kind.USER, Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.ASSISTANT]
    assert agent.meta["tokens"] == {"prompt": 300, "completion": 40}
    assert session.skipped == {
        "title generation request (its answer is the session's title)": 2,
        "file version snapshot (Crush keeps it to undo edits; the edit calls show the changes)": 2,
    }


def test_session_facts() -> None:
    [session] = read_all(FIXTURE)
    assert session.models == ("claude-sonnet-4",)
    assert session.usage is not None and (session.usage.input_tokens, session.usage.output_tokens) == (1200, 340)
    assert session.meta["cost"] == 0.0123 and session.meta["providers"] == "anthropic"
    assert session.meta["todos"] == ["completed: Fix the flaky test"]
    assert session.started is not None and session.started.isoformat() == "2026-01-09T12:00:00+00:00"
    assert session.ended is not None and session.ended.isoformat() == "2026-01-09T12:00:15+00:00"


def test_every_record_has_a_fate_and_the_enumerator_numbers_them_the_same() -> None:
    with keeping_ledger() as ledger:
        read_all(FIXTURE)
    fates = {line: fate for (path, line), (fate, _) in ledger.fates.items() if path == str(FIXTURE)}
    records_of = enumerator("crush")
    assert records_of is not None
    records = list(records_of(FIXTURE))
    assert [r.line for r in records] == sorted(fates) == list(range(1, len(MESSAGES) + 3))
    assert [fates[n] for n in (14, 15, 16, 17)] == [Fate.NOT_SHOWN] * 4  # the title request, the file snapshots
    assert [t for r in records for t in r.user_texts] == [
        "Run the tests and fix the flaky one",
        "Find other flaky tests",
    ]
    calls = {c for r in records for c in r.calls}
    assert calls == {c for r in records for c in r.results} == {"call_bash", "call_edit", "call_agent", "call_grep"}


def test_rows_still_in_the_write_ahead_log_are_read_without_writing(tmp_path: Path) -> None:
    live = make_fixture(tmp_path / "live" / "crush.db")
    conn = sqlite3.connect(live)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    extra = json.dumps([part("text", text="One more thing: update the changelog"), stop("stop")])
    conn.execute(
        "INSERT INTO messages VALUES ('m-late', ?, 'user', ?, '', ?, ?, NULL, NULL, 0)", (MAIN, extra, T + 20, T + 20)
    )
    conn.commit()
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("crush.db", "crush.db-wal"):  # copied while Crush still runs: the row is only in the log
        shutil.copyfile(live.with_name(name), copy / name)
    conn.close()
    before = sorted(p.name for p in copy.iterdir())
    problems = Problems()
    with keeping_ledger() as ledger:
        [session] = read_all(copy / "crush.db", problems)
    assert not problems.items
    assert by_kind(session, Kind.USER)[-1].text == "One more thing: update the changelog"
    assert sorted(p.name for p in copy.iterdir()) == before  # no -shm, no checkpoint
    records_of = enumerator("crush")
    assert records_of is not None
    assert len(list(records_of(copy / "crush.db"))) == len([k for k in ledger.fates if k[0] == str(copy / "crush.db")])


def damaged(tmp_path: Path, parts: Any, role: str = "assistant") -> Path:
    path = make_fixture(tmp_path / "crush.db")
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO messages VALUES ('m-odd', ?, ?, ?, 'x', ?, ?, NULL, NULL, 0)", (MAIN, role, parts, T + 30, T + 30)
    )
    conn.commit()
    conn.close()
    return path


def test_a_message_that_is_not_json_costs_that_message_only(tmp_path: Path) -> None:
    path = damaged(tmp_path, '[{"type": "text", "data": {')
    problems = Problems()
    with keeping_ledger() as ledger:
        [session] = read_all(path, problems)
    line = len(MESSAGES) + 1
    assert [(p.line, "parts are not JSON" in p.message) for p in problems.items] == [(line, True)]
    assert ledger.fates[(str(path), line)][0] == Fate.NOT_SHOWN
    [whole] = read_all(FIXTURE)
    assert [e.id for e in walk(session.events)] == [e.id for e in walk(whole.events)]


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        ('{"type": "text"}', "not an array"),
        ('[{"type": "hologram", "data": {"x": 1}}]', "unknown part type 'hologram'"),
        ('[{"type": "text", "data": "plain"}]', "no type or no data object"),
        ('[{"type": "tool_call", "data": {"id": 5, "name": ["x"], "input": "{"}}]', None),
    ],
)
def test_odd_parts_cost_one_problem_each_never_the_file(tmp_path: Path, parts: str, expected: str | None) -> None:
    path = damaged(tmp_path, parts)
    problems = Problems()
    sessions = read_all(path, problems)
    assert len(sessions) == 1 and len(by_kind(sessions[0], Kind.USER)) == 2
    messages = [str(p) for p in problems.items]
    if expected is None:
        assert messages == []
    else:
        assert len(messages) == 1 and expected in messages[0] and f"crush.db:{len(MESSAGES) + 1}:" in messages[0]


def test_a_file_that_is_not_a_database_is_one_problem(tmp_path: Path) -> None:
    bad = tmp_path / "crush.db"
    bad.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    problems = Problems()
    assert read_all(bad, problems) == []
    assert len(problems.items) == 1 and "crush" in problems.items[0].message


def test_discovery_finds_the_projects_crush_knows(tmp_path: Path) -> None:
    project = tmp_path / "code" / "widget"
    make_fixture(project / ".crush" / "crush.db")
    (project / ".crush" / "init").write_text("")
    listing = {
        "projects": [
            {"path": str(project), "data_dir": str(project / ".crush"), "last_accessed": "2026-01-09T12:00:00Z"}
        ]
    }
    for data in (tmp_path / ".local" / "share" / "crush", tmp_path / "AppData" / "Local" / "crush"):
        data.mkdir(parents=True)
        (data / "projects.json").write_text(json.dumps(listing))
    for system in ("linux", "darwin", "windows"):
        [location] = [loc for loc in find(home=tmp_path, system=system) if loc.agent == "crush"]
        assert location.roots == (project / ".crush" / "crush.db",), system
    problems = Problems()
    found = discover(list(location.roots), problems)
    assert [c.reader.name for c in found.claims] == ["crush"] and not problems.items
    assert found.claims[0].companions == (project / ".crush" / "init",)
    xdg = find(home=tmp_path, env={"XDG_DATA_HOME": str(tmp_path / "AppData" / "Local")})
    assert [loc.folder for loc in xdg if loc.agent == "crush"] == [tmp_path / "AppData" / "Local" / "crush"]


def test_the_site_shows_the_session(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    shutil.copyfile(FIXTURE, archive / "crush.db")
    report = build_site(archive, tmp_path / "site")
    assert report.sessions == 1 and [str(p) for p in report.problems] == []
    page = parse_html(tmp_path / "site" / "sessions" / f"crush-{MAIN}.html")
    assert page.select_one("h1") is not None and "Fix the flaky test" in page.select_one("h1").get_text()
    text = page.get_text(" ")
    for words in (
        "Run the tests and fix the flaky one",
        "Fixed the flaky test: it now uses a fixed seed.",
        "pytest -q",
        "rate limit: 8 retries",
        "No other flaky tests.",
    ):
        assert words in text, words
    assert page.select(".event.k-subagent") and page.select(".event.k-tool_call.cat-shell.error")


def test_the_real_databases_are_read_faithfully() -> None:
    real = sorted(REAL.glob("*/crush.db")) if REAL.is_dir() else []
    if not real:
        pytest.skip("../shared/formats/real-agents/crush is not here")
    records_of = enumerator("crush")
    assert records_of is not None
    for path in real:
        problems = Problems()
        with keeping_ledger() as ledger:
            sessions = read_all(path, problems)
        assert sessions and not problems.items
        assert len([k for k in ledger.fates if k[0] == str(path)]) == len(list(records_of(path)))
        for session in sessions:
            assert not by_kind(session, Kind.UNKNOWN)
            calls = {e.call_id for e in by_kind(session, Kind.TOOL_CALL)}
            assert calls <= {e.call_id for e in by_kind(session, Kind.TOOL_RESULT)}
