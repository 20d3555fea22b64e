"""The Cursor reader: state.vscdb stores (opened read-only), workspace folders, old chat tabs, JSON dumps."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from helpers import EXAMPLE, FIXTURES

from sessite.model import Kind, Problems, ToolCategory
from sessite.readers import discover, registry
from sessite.readers.formats.cursor import READER
from sessite.site.view import build_view

CURSOR = FIXTURES / "cursor"
GLOBAL = CURSOR / "User" / "globalStorage" / "state.vscdb"
WORKSPACE = CURSOR / "User" / "workspaceStorage" / "ws1" / "state.vscdb"
ITEMTABLE = CURSOR / "itemtable" / "state.vscdb"
CID = "c0ffee00-1111-4222-8333-444455556666"


def make_fixture():
    spec = importlib.util.spec_from_file_location("cursor_make_fixture", CURSOR / "make_fixture.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read(path: Path, problems: Problems | None = None):
    return {s.id: s for s in READER.read(path, problems if problems is not None else Problems())}


def dump(path: Path) -> list[str]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


# --------------------------------------------------------------------------- the fixture files


def test_committed_databases_match_their_script(tmp_path: Path) -> None:
    module = make_fixture()
    written = module.write_all(tmp_path / "fixtures", tmp_path / "example")
    for path in written:
        if path.suffix == ".vscdb":
            committed = (
                (EXAMPLE / "cursor" / path.name)
                if path.parent.name == "example"
                else CURSOR / path.relative_to(tmp_path / "fixtures")
            )
            assert dump(committed) == dump(path), (
                f"{committed} is stale: run python tests/fixtures/cursor/make_fixture.py"
            )
    for path in [GLOBAL, WORKSPACE, ITEMTABLE, EXAMPLE / "cursor" / "state.vscdb"]:
        assert path.read_bytes()[:16] == b"SQLite format 3\x00" and path.stat().st_size <= 16 * 1024


# --------------------------------------------------------------------------- detection


def test_reader_flags_and_detection(tmp_path: Path) -> None:
    assert READER.name == "cursor" and not READER.claims_directories and READER in registry()
    for path in (GLOBAL, WORKSPACE, ITEMTABLE):
        assert READER.detect_path(path)
    assert not READER.detect_path(CURSOR / "User" / "workspaceStorage" / "ws1" / "workspace.json")
    fake = tmp_path / "state.vscdb"
    fake.write_text("not sqlite")
    assert not READER.detect_path(fake)
    renamed = tmp_path / "copy.db"
    shutil.copy(GLOBAL, renamed)
    assert READER.detect_path(renamed)  # SQLite header plus a cursorDiskKV table
    plain = tmp_path / "plain.db"
    sqlite3.connect(plain).execute("CREATE TABLE ItemTable (key TEXT, value BLOB)").connection.close()
    assert not READER.detect_path(plain)  # VS Code's generic table under a name that is not Cursor's


def test_discovery_claims_each_store_once(tmp_path: Path) -> None:
    problems = Problems(CURSOR)
    result = discover(CURSOR, problems)
    claims = sorted(str(c.path.relative_to(CURSOR)) for c in result.claims)
    assert claims == [
        "User/globalStorage/state.vscdb",
        "User/workspaceStorage/ws1/state.vscdb",
        "itemtable/state.vscdb",
    ]
    assert [p.name for p in result.ignored] == ["make_fixture.py"] and not problems.items
    ws = next(c for c in result.claims if "ws1" in str(c.path))
    assert [p.name for p in ws.companions] == ["workspace.json"]


def test_backup_and_wal_files_are_companions(tmp_path: Path) -> None:
    folder = tmp_path / "globalStorage"
    folder.mkdir()
    shutil.copy(GLOBAL, folder / "state.vscdb")
    shutil.copy(GLOBAL, folder / "state.vscdb.backup")
    (folder / "state.vscdb-shm").write_bytes(b"")
    problems = Problems()
    result = discover(folder, problems)
    assert [c.path.name for c in result.claims] == ["state.vscdb"]
    assert sorted(p.name for p in result.claims[0].companions) == ["state.vscdb-shm", "state.vscdb.backup"]
    assert not result.ignored


# --------------------------------------------------------------------------- reading


def test_composer_with_bubble_keys() -> None:
    problems = Problems(CURSOR)
    sessions = read(GLOBAL, problems)
    assert set(sessions) == {
        f"cursor-{CID}",
        "cursor-0ld00000-aaaa-4bbb-8ccc-dddddddddddd",
    }  # the empty composer is no session
    s = sessions[f"cursor-{CID}"]
    assert s.agent == "cursor" and s.source.path == str(GLOBAL)
    assert s.title == "CI build fails: case-sensitive import"
    assert s.started == datetime(2026, 1, 9, 12, 0, tzinfo=UTC) and s.ended == datetime(
        2026, 1, 9, 12, 0, 20, tzinfo=UTC
    )
    assert s.cwd == "/home/dev/web app" and s.project == "web app"  # from the workspace that lists the composer
    assert s.models == ("claude-4.5-sonnet",) and s.meta["mode"] == "agent"
    assert s.skipped == {
        "bubble listed but not stored": 1,
        "stored bubble the conversation does not list (an earlier branch)": 1,  # b-unlisted: counted, not lost
    }
    kinds = [e.kind for e in s.events]
    assert kinds == [
        Kind.USER,
        Kind.THINKING,
        Kind.ASSISTANT,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.UNKNOWN,
        Kind.ASSISTANT,
        Kind.UNKNOWN,
    ]
    user = s.events[0]
    assert user.text.startswith("Why does") and user.blocks[0].uri == "/home/dev/web app/package.json"
    assert s.events[1].meta["duration ms"] == 1800 and s.events[2].usage.input_tokens == 2400
    view = build_view(s)
    shell = s.events[3]
    assert (
        shell.category == ToolCategory.SHELL
        and shell.command == "npm ci && npm run build"
        and shell.call_id == "toolu_c1"
    )
    [shell_result] = view.results_for(shell)
    assert shell_result.exit_code == 2 and shell_result.is_error and "TS2307" in shell_result.text
    edit = s.events[5]
    assert (
        edit.category == ToolCategory.EDIT
        and edit.path == "src/app.ts"
        and "+import { cfg } from './config'" in edit.diff
    )
    [edit_result] = view.results_for(edit)
    assert edit_result.diff.startswith("-import { cfg } from './Config'") and not edit_result.is_error
    failed_read = s.events[7]
    assert failed_read.category == ToolCategory.READ and failed_read.meta["status"] == "error"
    assert s.events[8].is_error and s.events[8].text == "File not found: CI.md"
    assert s.events[9].raw["type"] == 7
    # timingInfo's epoch start is used; its performance.now() offsets are not
    assert s.events[10].timestamp == datetime(2026, 1, 9, 12, 0, 14, tzinfo=UTC)
    assert s.events[11].raw == "{not json" and s.events[11].title == "Cursor bubble (not JSON)"
    reported = sorted(p.message.split(" (")[0] for p in problems.items)
    assert reported == [
        f"cursor: bubbleId:{CID}:b-bad: value is not JSON",
        f"cursor: bubbleId:{CID}:b-x1 has unknown type 7; shown as raw JSON",
        f"cursor: composer {CID}: header 8 has no bubbleId; skipped",
        "cursor: composerData:bad00000-0000-4000-8000-000000000000: value is not JSON",
    ]


def test_composer_with_inline_conversation() -> None:
    s = read(GLOBAL)["cursor-0ld00000-aaaa-4bbb-8ccc-dddddddddddd"]
    assert [(e.kind, e.text) for e in s.events] == [
        (Kind.USER, "What does retry() in net.ts do?"),
        (Kind.ASSISTANT, "It retries a promise up to 3 times with exponential backoff."),
    ]
    assert s.models == ("gpt-4o",) and s.started == datetime(2025, 1, 1, 10, 0, tzinfo=UTC)


def test_workspace_database_old_chat_tabs() -> None:
    problems = Problems()
    sessions = read(WORKSPACE, problems)
    assert not problems.items
    [s] = sessions.values()  # the composer index alone makes no session; the non-empty chat tab does
    assert s.id == "cursor-chat-tab-1" and s.title == "Regex for semver" and s.cwd == "/home/dev/web app"
    assert [e.kind for e in s.events] == [Kind.USER, Kind.ASSISTANT] and s.models == ("gpt-4",)


def test_item_table_only_store() -> None:
    problems = Problems()
    [s] = read(ITEMTABLE, problems).values()
    assert not problems.items
    assert s.title == "Rename fetchUser" and [e.text for e in s.events] == [
        "Rename `fetchUser` to `loadUser` everywhere.",
        "Renamed in 3 files.",
    ]


def test_database_opened_read_only_while_cursor_holds_it(tmp_path: Path) -> None:
    folder = tmp_path / "Application Support" / "Cursor #1" / "globalStorage"
    folder.mkdir(parents=True)
    db = folder / "state.vscdb"
    shutil.copy(GLOBAL, db)
    before = (db.read_bytes(), db.stat().st_mtime_ns)
    editor = sqlite3.connect(db)
    editor.execute("BEGIN EXCLUSIVE")
    editor.execute("INSERT INTO ItemTable VALUES ('pending', 'write')")
    try:
        assert len(read(db)) == 2
    finally:
        editor.rollback()
        editor.close()
    assert (db.read_bytes(), db.stat().st_mtime_ns) == before
    assert sorted(p.name for p in folder.iterdir()) == ["state.vscdb"]


def test_unflushed_write_ahead_log_is_reported(tmp_path: Path) -> None:
    db = tmp_path / "state.vscdb"
    shutil.copy(GLOBAL, db)
    editor = sqlite3.connect(db)
    editor.execute("PRAGMA journal_mode = WAL")
    editor.execute("PRAGMA wal_autocheckpoint = 0")
    editor.execute("INSERT INTO ItemTable VALUES ('recent', 'change')")
    editor.commit()
    try:
        problems = Problems()
        assert len(read(db, problems)) == 2
        assert any("state.vscdb-wal is not empty" in p.message for p in problems.items)
    finally:
        editor.close()


def test_damaged_database(tmp_path: Path) -> None:
    db = tmp_path / "state.vscdb"
    db.write_bytes(GLOBAL.read_bytes()[:1024])  # truncated
    problems = Problems()
    assert READER.detect_path(db)
    list(READER.read(db, problems))
    assert problems.items and all("cursor" in p.message for p in problems.items)


# --------------------------------------------------------------------------- JSON dumps and the shared samples


def test_json_dump_and_composer_files(tmp_path: Path) -> None:
    rows = make_fixture().global_rows()
    (tmp_path / "b-dump.json").write_text(json.dumps({k: v for k, v in rows.items() if k.startswith("bubbleId:")}))
    (tmp_path / "composer.json").write_text(json.dumps(rows[f"composerData:{CID}"]))
    problems = Problems()
    result = discover(tmp_path, problems)
    assert [(c.path.name, [p.name for p in c.companions]) for c in result.claims] == [
        ("b-dump.json", ["composer.json"])
    ]
    sessions = read(result.claims[0].path, problems)
    assert list(sessions) == [f"cursor-{CID}"] and len(sessions[f"cursor-{CID}"].events) == 12


def test_sample_session_details(samples: Path) -> None:
    folder = samples / "cursor"
    problems = Problems(folder)
    result = discover(folder, problems)
    [s] = [s for c in result.claims for s in c.reader.read(c.path, problems)]
    assert s.id == "cursor-comp-fixture" and s.title == "Cursor Fixture Session" and s.models == ("claude-3.5-sonnet",)
    assert [e.kind for e in s.events] == [Kind.USER, Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.ASSISTANT]
    assert s.events[1].command == "echo hi" and s.events[2].text == "hi"


def test_example_store_reads_cleanly() -> None:
    problems = Problems()
    [s] = read(EXAMPLE / "cursor" / "state.vscdb", problems).values()
    assert not problems.items and s.started and s.title == "Add a slugify helper"
    view = build_view(s)
    assert all(view.results_for(e) for e in s.events if e.kind == Kind.TOOL_CALL)
