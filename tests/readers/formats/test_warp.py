"""The Warp reader: agent tasks (protobuf), requests, older AI blocks, sub-agent tasks, the WAL, damage, discovery.

The hand-made fixture tests/fixtures/warp/warp.sqlite is written by ``make_fixture`` below
(a test checks the committed file still holds exactly those rows): the protobuf tasks are
encoded here, field by field, after Warp's published ``task.proto``. The real database in
../shared/formats/real-agents/warp is read when it is there.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import struct
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO, build_site, detected_by, parse_html

from sessite.model import Event, Kind, Problems, Session, ToolCategory, walk
from sessite.readers import discover, registry
from sessite.readers.formats.warp import READER
from sessite.readers.ledger import Fate, keeping_ledger
from sessite.readers.locations import find

sys.path.insert(0, str(REPO / "benchmarks"))
from fidelity.formats import enumerator  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "warp" / "warp.sqlite"
REAL = REPO.parent / "shared" / "formats" / "real-agents" / "warp"
T = 1767960000  # 2026-01-09T12:00:00Z
CONV = "c0de0000-0000-4000-8000-000000000001"
OLD = "c0de0000-0000-4000-8000-000000000002"


# --------------------------------------------------------------------------- protobuf, by hand


def varint(value: int) -> bytes:
    out = bytearray()
    value &= (1 << 64) - 1
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def f(number: int, value: Any) -> bytes:
    """One field: an int (varint), str/bytes (length-delimited), a float (fixed64) or a list of fields (a message)."""
    if isinstance(value, (bool, int)):
        return varint(number << 3) + varint(int(value))
    if isinstance(value, float):
        return varint(number << 3 | 1) + struct.pack("<d", value)
    data = value.encode() if isinstance(value, str) else b"".join(value) if isinstance(value, list) else value
    return varint(number << 3 | 2) + varint(len(data)) + data


def when(seconds: int) -> bytes:
    return f(14, [f(1, seconds), f(2, 5000)])


def message(mid: str, at: int, *body: bytes) -> bytes:
    return f(5, [f(1, mid), *body, f(11, "task-root"), f(13, "req-1"), when(at)])


def struct_arg(key: str, value: str) -> bytes:
    return f(1, [f(1, key), f(2, [f(3, value)])])  # Struct.fields map entry: key, Value.string_value


ROOT = b"".join(
    [
        f(1, "task-root"),
        f(2, "Fix the flaky test"),
        message("m0", T, f(4, [f(1, "srv-1"), f(4, [f(1, "IgA=")])])),  # a server-side tool: opaque
        message(
            "m1",
            T + 1,
            f(
                2,
                [
                    f(1, "Run the tests and fix the flaky one"),
                    f(2, [f(1, [f(1, "/home/dev/widget"), f(2, "/home/dev")])]),
                ],
            ),
        ),
        message(
            "m2",
            T + 2,
            f(15, [f(1, "**Planning**\n\nRun the suite, then look at the seed."), f(2, [f(1, 3), f(2, 0)])]),
        ),
        message("m3", T + 3, f(3, [f(1, "Running the suite first.")])),
        message("m4", T + 4, f(4, [f(1, "call_shell"), f(2, [f(1, "pytest -q")])])),
        message("m5", T + 5, f(5, [f(1, "call_shell"), f(2, [f(3, "pytest -q"), f(5, [f(1, "1 failed"), f(2, 1)])])])),
        message(
            "m6",
            T + 6,
            f(
                4,
                [
                    f(1, "call_edit"),
                    f(
                        6,
                        [
                            f(1, "Use a fixed seed"),
                            f(
                                2,
                                [
                                    f(1, "/home/dev/widget/tests/test_widget.py"),
                                    f(2, "seed = random()\n"),
                                    f(3, "seed = 42\n"),
                                ],
                            ),
                        ],
                    ),
                ],
            ),
        ),
        message(
            "m7",
            T + 7,
            f(
                5,
                [
                    f(1, "call_edit"),
                    f(6, [f(1, [f(2, [f(1, [f(1, "/home/dev/widget/tests/test_widget.py"), f(2, "seed = 42\n")])])])]),
                ],
            ),
        ),
        message("m8", T + 8, f(4, [f(1, "call_read"), f(5, [f(1, [f(1, "/home/dev/widget/README.md")])])])),
        message(
            "m9",
            T + 9,
            f(
                5,
                [
                    f(1, "call_read"),
                    f(
                        5,
                        [
                            f(
                                1,
                                [
                                    f(
                                        1,
                                        [
                                            f(1, "/home/dev/widget/README.md"),
                                            f(2, "# Widget\n"),
                                            f(3, [f(1, 1), f(2, 1)]),
                                        ],
                                    )
                                ],
                            )
                        ],
                    ),
                ],
            ),
        ),
        message("m10", T + 10, f(4, [f(1, "call_agent"), f(19, [f(1, "task-sub"), f(2, "look for flaky tests")])])),
        message("m11", T + 20, f(5, [f(1, "call_agent"), f(23, [f(1, "No other flaky tests.")])])),
        message(
            "m12", T + 21, f(4, [f(1, "call_mcp"), f(12, [f(1, "search_docs"), f(2, [struct_arg("query", "seed")])])])
        ),
        message(
            "m13", T + 22, f(5, [f(1, "call_mcp"), f(16, [f(1, [f(1, [f(1, [f(1, "Seeds: use a constant.")])])])])])
        ),
        message("m14", T + 23, f(25, [f(1, "gpt-5"), f(2, "gpt-5 (high reasoning)")])),
        message("m15", T + 24, f(3, [f(1, "Fixed the flaky test: it now uses a fixed seed.")])),
        message("m16", T + 25, f(6, [f(1, "opaque")])),
    ]
)
SUB = b"".join(
    [
        f(1, "task-sub"),
        f(2, "Look for other flaky tests"),
        f(3, [f(1, "task-root")]),
        message("s1", T + 11, f(4, [f(1, "call_grep"), f(9, [f(1, "random("), f(2, "tests")])])),
        message(
            "s2",
            T + 12,
            f(5, [f(1, "call_grep"), f(9, [f(1, [f(1, [f(1, "tests/test_widget.py"), f(2, [f(1, 3)])])])])]),
        ),
        message("s3", T + 13, f(3, [f(1, "No other flaky tests.")])),
    ]
)


def query(text: str | None) -> str:
    if text is None:
        return "[]"
    context = [{"Directory": {"pwd": "/home/dev/widget", "home_dir": "/home/dev"}}]
    return json.dumps([{"Query": {"text": text, "context": context, "referenced_attachments": {}}}])


USAGE = {
    "server_conversation_token": "token-1",
    "conversation_usage_metadata": {
        "was_summarized": False,
        "context_window_usage": 0.1,
        "credits_spent": 3.5,
        "token_usage": [{"model_id": "gpt-5 (high reasoning)", "total_tokens": 4200, "byok_tokens": 0}],
    },
}


def make_fixture(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA page_size = 1024")
    conn.executescript(
        """
        CREATE TABLE __diesel_schema_migrations (version VARCHAR(50) PRIMARY KEY NOT NULL, run_on TIMESTAMP);
        CREATE TABLE ai_queries (id INTEGER PRIMARY KEY NOT NULL, exchange_id TEXT NOT NULL,
            conversation_id TEXT NOT NULL, start_ts DATETIME NOT NULL, input TEXT NOT NULL, working_directory TEXT,
            output_status TEXT NOT NULL, model_id TEXT NOT NULL DEFAULT '', planning_model_id TEXT NOT NULL DEFAULT '',
            coding_model_id TEXT NOT NULL DEFAULT '');
        CREATE TABLE ai_blocks (id INTEGER PRIMARY KEY NOT NULL, exchange_id TEXT NOT NULL,
            pane_leaf_uuid BLOB NOT NULL, output TEXT NOT NULL);
        CREATE TABLE agent_conversations (id INTEGER PRIMARY KEY NOT NULL, conversation_id TEXT NOT NULL,
            conversation_data TEXT NOT NULL, last_modified_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP);
        CREATE TABLE agent_tasks (id INTEGER PRIMARY KEY NOT NULL, conversation_id TEXT NOT NULL, task_id TEXT NOT NULL,
            task BLOB NOT NULL, last_modified_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP);
        CREATE TABLE commands (id INTEGER PRIMARY KEY, command TEXT);
        INSERT INTO __diesel_schema_migrations VALUES ('20250101000000', '2026-01-09 11:00:00');
        INSERT INTO commands VALUES (1, 'ls -la');
        """
    )
    conn.execute("INSERT INTO agent_conversations VALUES (1, ?, ?, '2026-01-09 12:00:30')", (CONV, json.dumps(USAGE)))
    conn.executemany(
        "INSERT INTO agent_tasks VALUES (?, ?, ?, ?, '2026-01-09 12:00:30')",
        [(1, CONV, "task-root", ROOT), (2, CONV, "task-sub", SUB)],
    )
    rows = [
        (1, "ex-1", CONV, "2026-01-09 12:00:01.000000000", query("Run the tests and fix the flaky one"), '"Completed"'),
        (2, "ex-2", CONV, "2026-01-09 12:00:05.000000000", query(None), '"Completed"'),
        (3, "ex-3", CONV, "2026-01-09 12:00:40.000000000", query("Also update the changelog"), '"Pending"'),
        (4, "ex-4", OLD, "2026-01-08 09:00:00.000000000", query("What does ls -la show?"), '"Completed"'),
    ]
    conn.executemany(
        "INSERT INTO ai_queries (id, exchange_id, conversation_id, start_ts, input, working_directory, output_status,"
        " model_id) VALUES (?, ?, ?, ?, ?, '/home/dev/widget', ?, 'gpt-5 (high reasoning)')",
        rows,
    )
    answer = {"Received": {"output": [{"Text": "It lists every file, hidden ones too, with details."}]}}
    conn.execute("INSERT INTO ai_blocks VALUES (1, 'ex-4', x'00', ?)", (json.dumps(answer),))
    conn.commit()
    conn.execute("VACUUM")
    conn.close()
    return path


def read_all(path: Path, problems: Problems | None = None) -> dict[str, Session]:
    return {s.id: s for s in READER.read(path, problems if problems is not None else Problems())}


def by_kind(session: Session, kind: Kind) -> list[Event]:
    return [e for e in walk(session.events) if e.kind == kind]


# --------------------------------------------------------------------------- tests


def test_the_committed_fixture_is_what_make_fixture_writes(tmp_path: Path) -> None:
    fresh = make_fixture(tmp_path / "warp.sqlite")
    dump = [list(sqlite3.connect(f"{p.as_uri()}?mode=ro&immutable=1", uri=True).iterdump()) for p in (FIXTURE, fresh)]
    assert dump[0] == dump[1]


def test_registered_and_the_only_reader_of_its_files(tmp_path: Path) -> None:
    assert READER.name == "warp" and READER.agent == "warp" and READER in registry()
    assert detected_by(FIXTURE) == ["warp"]
    renamed = tmp_path / "backup.sqlite"
    shutil.copyfile(FIXTURE, renamed)
    assert detected_by(renamed) == ["warp"]
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).executescript("CREATE TABLE ai_queries (id INTEGER);")
    assert "warp" not in detected_by(other)


def test_a_conversation_from_its_tasks() -> None:
    problems = Problems()
    found = read_all(FIXTURE, problems)
    assert not problems.items, [str(p) for p in problems.items]
    session = found[f"warp-{CONV}"]
    assert session.agent == "warp" and session.title == "Fix the flaky test"
    assert session.cwd == "/home/dev/widget" and session.project == "widget"
    users = by_kind(session, Kind.USER)
    assert [e.text for e in users] == ["Run the tests and fix the flaky one", "Also update the changelog"]
    assert users[-1].meta == {"status": "Pending"}  # a request the task does not hold yet
    assert [e.text for e in by_kind(session, Kind.THINKING)] == [
        "**Planning**\n\nRun the suite, then look at the seed."
    ]
    assert [e.text for e in by_kind(session, Kind.ASSISTANT)] == [
        "Running the suite first.",
        "No other flaky tests.",
        "Fixed the flaky test: it now uses a fixed seed.",
    ]
    assert session.models == ("gpt-5 (high reasoning)",)
    assert session.meta == {"credits spent": 3.5, "tokens": {"gpt-5 (high reasoning)": 4200}}
    assert not by_kind(session, Kind.UNKNOWN)


def test_calls_are_paired_with_results_and_show_command_diff_files_and_exit() -> None:
    session = read_all(FIXTURE)[f"warp-{CONV}"]
    calls = {e.call_id: e for e in by_kind(session, Kind.TOOL_CALL)}
    results = {e.call_id: e for e in by_kind(session, Kind.TOOL_RESULT)}
    assert set(calls) == set(results) == {"call_shell", "call_edit", "call_read", "call_agent", "call_mcp", "call_grep"}
    assert calls["call_shell"].category == ToolCategory.SHELL and calls["call_shell"].command == "pytest -q"
    assert results["call_shell"].exit_code == 1 and results["call_shell"].is_error
    assert results["call_shell"].text == "1 failed"
    edit = calls["call_edit"]
    assert edit.category == ToolCategory.EDIT and edit.path == "/home/dev/widget/tests/test_widget.py"
    assert "-seed = random()" in str(edit.diff) and "+seed = 42" in str(edit.diff)
    assert results["call_edit"].text == "updated /home/dev/widget/tests/test_widget.py"
    [readme] = results["call_read"].blocks
    assert (readme.type, readme.text, readme.title) == ("file", "# Widget\n", "/home/dev/widget/README.md (lines 1–1)")
    mcp = calls["call_mcp"]
    assert mcp.tool_name == "search_docs" and mcp.tool_input["arguments"] == {"query": "seed"}
    assert results["call_mcp"].text == "Seeds: use a constant."
    assert results["call_grep"].text == "tests/test_widget.py: 3"


def test_a_sub_agent_task_is_nested_after_its_call() -> None:
    session = read_all(FIXTURE)[f"warp-{CONV}"]
    [agent] = by_kind(session, Kind.SUBAGENT)
    assert agent.title == "Look for other flaky tests" and agent.call_id == "call_agent"
    index = session.events.index(agent)
    assert session.events[index - 1].kind == Kind.TOOL_RESULT and session.events[index - 1].call_id == "call_agent"
    assert [e.kind for e in agent.children] == [Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.ASSISTANT]


def test_an_older_conversation_from_requests_and_ai_blocks() -> None:
    old = read_all(FIXTURE)[f"warp-{OLD}"]
    assert [(e.kind, e.text) for e in old.events] == [
        (Kind.USER, "What does ls -la show?"),
        (Kind.ASSISTANT, "It lists every file, hidden ones too, with details."),
    ]
    assert old.title is None and old.models == ("gpt-5 (high reasoning)",)


def test_every_record_has_a_fate_and_the_enumerator_numbers_them_the_same() -> None:
    with keeping_ledger() as ledger:
        read_all(FIXTURE)
    fates = {line: fate for (path, line), (fate, _) in ledger.fates.items() if path == str(FIXTURE)}
    records_of = enumerator("warp")
    assert records_of is not None
    records = list(records_of(FIXTURE))
    assert [r.line for r in records] == sorted(fates) == list(range(1, 17 + 3 + 4 + 1 + 1))
    assert fates[1] == Fate.NOT_SHOWN and fates[15] == Fate.MERGED and fates[17] == Fate.NOT_SHOWN
    assert fates[21] == Fate.MERGED and fates[22] == Fate.NOT_SHOWN  # the query's copy, an agent step
    calls = {c for r in records for c in r.calls}
    assert calls == {c for r in records for c in r.results}
    assert "srv-1" not in calls


def test_rows_still_in_the_write_ahead_log_are_read(tmp_path: Path) -> None:
    live = make_fixture(tmp_path / "live" / "warp.sqlite")
    conn = sqlite3.connect(live)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute(
        "INSERT INTO ai_queries (id, exchange_id, conversation_id, start_ts, input, output_status) "
        "VALUES (9, 'ex-9', ?, '2026-01-09 12:01:00', ?, '\"Pending\"')",
        (CONV, query("One more thing")),
    )
    conn.commit()
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("warp.sqlite", "warp.sqlite-wal"):
        shutil.copyfile(live.with_name(name), copy / name)
    conn.close()
    before = sorted(p.name for p in copy.iterdir())
    session = read_all(copy / "warp.sqlite")[f"warp-{CONV}"]
    assert by_kind(session, Kind.USER)[-1].text == "One more thing"
    assert sorted(p.name for p in copy.iterdir()) == before


def test_damaged_task_bytes_cost_that_task_only(tmp_path: Path) -> None:
    path = make_fixture(tmp_path / "warp.sqlite")
    conn = sqlite3.connect(path)
    conn.execute("UPDATE agent_tasks SET task = x'0aff' WHERE id = 2")  # a length past the end
    conn.commit()
    conn.close()
    problems = Problems()
    with keeping_ledger() as ledger:
        found = read_all(path, problems)
    assert len(problems.items) == 1 and "not readable" in problems.items[0].message
    session = found[f"warp-{CONV}"]
    assert not by_kind(session, Kind.SUBAGENT) and len(by_kind(session, Kind.TOOL_CALL)) == 5
    records_of = enumerator("warp")
    assert records_of is not None
    lines = [r.line for r in records_of(path)]
    assert lines == sorted(line for (p, line) in ledger.fates if p == str(path))


def test_a_damaged_message_costs_that_message_only(tmp_path: Path) -> None:
    path = make_fixture(tmp_path / "warp.sqlite")
    damaged = message("m99", T + 30, f(3, b"\x0a\x7f"))  # an answer whose text runs past its end
    conn = sqlite3.connect(path)
    conn.execute("UPDATE agent_tasks SET task = ? WHERE id = 1", (ROOT + damaged,))
    conn.commit()
    conn.close()
    problems = Problems()
    with keeping_ledger() as ledger:
        session = read_all(path, problems)[f"warp-{CONV}"]
    assert [(p.line, "could not interpret" in p.message) for p in problems.items] == [(18, True)]
    assert ledger.fates[(str(path), 18)][0] == Fate.SHOWN  # as raw JSON, with the problem
    [raw] = by_kind(session, Kind.UNKNOWN)
    assert raw.line == 18
    assert len(by_kind(session, Kind.TOOL_CALL)) == 6 and by_kind(session, Kind.SUBAGENT)


def test_a_file_that_is_not_a_database_is_one_problem(tmp_path: Path) -> None:
    bad = tmp_path / "warp.sqlite"
    bad.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    problems = Problems()
    assert read_all(bad, problems) == {}
    assert len(problems.items) == 1 and "warp" in problems.items[0].message


def test_discovery_finds_the_database_on_every_system(tmp_path: Path) -> None:
    places = {
        "linux": tmp_path / ".local" / "state" / "warp-terminal",
        "darwin": tmp_path.joinpath(
            "Library",
            "Group Containers",
            "2BBY89MBSN.dev.warp",
            "Library",
            "Application Support",
            "dev.warp.Warp-Stable",
        ),
        "windows": tmp_path / "AppData" / "Local" / "warp" / "Warp" / "data",
    }
    for folder in places.values():
        folder.mkdir(parents=True)
        shutil.copyfile(FIXTURE, folder / "warp.sqlite")
        (folder / "warp.log").write_text("not a session")
    for system, folder in places.items():
        found = {loc.folder: loc.roots for loc in find(home=tmp_path, system=system) if loc.agent == "warp"}
        assert found[folder] == (folder / "warp.sqlite",), system
    problems = Problems()
    claims = discover([places["linux"] / "warp.sqlite"], problems).claims
    assert [c.reader.name for c in claims] == ["warp"] and not problems.items


def test_the_site_shows_the_conversations(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    shutil.copyfile(FIXTURE, archive / "warp.sqlite")
    report = build_site(archive, tmp_path / "site")
    assert report.sessions == 2 and [str(p) for p in report.problems] == []
    page = parse_html(tmp_path / "site" / "sessions" / f"warp-{CONV}.html")
    words = page.get_text(" ")
    for expected in (
        "Run the tests and fix the flaky one",
        "pytest -q",
        "Also update the changelog",
        "Fixed the flaky test: it now uses a fixed seed.",
    ):
        assert expected in words, expected
    assert page.select(".event.k-subagent") and page.select(".event.k-tool_call.cat-shell.error")


def test_the_real_database_is_read_faithfully() -> None:
    real = sorted(REAL.glob("*/warp.sqlite")) if REAL.is_dir() else []
    if not real:
        pytest.skip("../shared/formats/real-agents/warp is not here")
    records_of = enumerator("warp")
    assert records_of is not None
    for path in real:
        problems = Problems()
        with keeping_ledger() as ledger:
            found = read_all(path, problems)
        assert found and not problems.items
        assert len([k for k in ledger.fates if k[0] == str(path)]) == len(list(records_of(path)))
        texts = [e.text for s in found.values() for e in by_kind(s, Kind.USER)]
        assert any("only cp folers" in t for t in texts)  # a request only the -wal holds
