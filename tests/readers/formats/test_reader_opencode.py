"""The OpenCode reader: the JSON storage tree, the SQLite database, exports, and the shared samples."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from helpers import EXAMPLE

from sessite.model import Kind, Problems, ToolCategory, make_session_id, walk
from sessite.readers import discover, registry
from sessite.readers.formats.opencode import READER
from sessite.site.view import build_view


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def read(path: Path, problems: Problems | None = None):
    return {s.id: s for s in READER.read(path, problems if problems is not None else Problems())}


def make_db(folder: Path, fixtures: Path, name: str = "opencode.db") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / name
    conn = sqlite3.connect(db)
    conn.executescript((fixtures / "opencode" / "opencode.sql").read_text())
    conn.commit()
    conn.close()
    return db


# --------------------------------------------------------------------------- detection


def test_reader_flags_and_registry() -> None:
    assert READER.name == "opencode" and READER.claims_directories and READER.claims_files
    assert READER in registry()


def test_detects_the_tree_the_db_and_exports(fixtures: Path, tmp_path: Path) -> None:
    storage = fixtures / "opencode" / "storage"
    assert READER.detect_path(storage)
    assert not READER.detect_path(storage / "session")
    assert not READER.detect_path(storage / "part" / "msg_p1")
    assert not READER.detect_path(storage / "session" / "proj_abc" / "ses_parent01.json")
    assert READER.detect_path(fixtures / "opencode" / "export.json")
    assert READER.detect_path(make_db(tmp_path, fixtures))
    # a SQLite file without OpenCode's tables, and a plain folder with the same names
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE session (id TEXT)").connection.close()
    assert not READER.detect_path(other)
    fake = tmp_path / "fake"
    (fake / "session").mkdir(parents=True)
    (fake / "message").mkdir()
    (fake / "session" / "notes.json").write_text('{"id": 1, "colour": "blue"}')
    assert not READER.detect_path(fake)


def test_discovery_claims_the_tree_once_with_every_file(fixtures: Path) -> None:
    root = fixtures / "opencode"
    problems = Problems(root)
    result = discover(root, problems)
    claims = {c.path.name: c for c in result.claims}
    assert set(claims) == {"storage", "export.json"} and all(c.reader is READER for c in result.claims)
    files = sorted(p for p in (root / "storage").rglob("*") if p.is_file())
    assert list(claims["storage"].companions) == files  # nothing under it is offered again
    assert [p.name for p in result.ignored] == ["opencode.sql"]
    assert not problems.items


# --------------------------------------------------------------------------- storage tree


def test_tree_session_events(fixtures: Path) -> None:
    problems = Problems(fixtures / "opencode")
    sessions = read(fixtures / "opencode" / "storage", problems)
    assert set(sessions) == {make_session_id("opencode", "ses_parent01"), make_session_id("opencode", "ses_orphan01")}
    s = sessions["opencode-ses_parent01"]
    assert s.agent == "opencode" and s.source.format == "opencode"
    assert s.source.path.endswith("session/proj_abc/ses_parent01.json")
    assert s.title == "Fix the cart total rounding" and s.cwd == "/home/dev/shop" and s.project == "shop"
    assert s.started == utc(2026, 1, 5, 10, 0) and s.ended == utc(2026, 1, 5, 10, 2)
    assert s.models == ("claude-sonnet-4-5", "claude-haiku-4-5")
    assert s.meta["slug"] == "fix-cart-total" and s.meta["changes"] == {"additions": 3, "deletions": 1, "files": 1}
    assert s.skipped == {"step-start part (model call boundary)": 1}

    events = list(s.events)
    kinds = [e.kind for e in events]
    assert kinds == [
        Kind.USER,
        Kind.THINKING,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.SUBAGENT,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.ASSISTANT,
        Kind.SYSTEM,
        Kind.USER,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.TOOL_CALL,
        Kind.UNKNOWN,
        Kind.COMPACTION,
        Kind.SYSTEM,
    ]
    user = events[0]
    assert user.id == "prt_p1a" and user.timestamp == utc(2026, 1, 5, 10, 0, 1)
    assert [(b.type, b.uri, b.title) for b in user.blocks] == [("file", "/home/dev/shop/src/cart.ts", "cart.ts")]
    assert events[1].text.startswith("Floating point") and events[1].model == "claude-sonnet-4-5"

    task, task_result, sub = events[2:5]
    assert task.tool_name == "task" and task.category == ToolCategory.TASK and task.call_id == "toolu_task1"
    assert task_result.call_id == "toolu_task1" and task_result.text.startswith("Two call sites")
    assert (
        sub.kind == Kind.SUBAGENT and sub.call_id == "toolu_task1" and sub.title.startswith("Find rounding call sites")
    )
    assert [c.kind for c in sub.children] == [Kind.USER, Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.ASSISTANT]
    grep = sub.children[1]
    assert grep.category == ToolCategory.SEARCH and grep.path == "/home/dev/shop/src"
    assert sub.children[3].usage.input_tokens == 50 and sub.children[3].model == "claude-haiku-4-5"

    edit = events[5]
    assert edit.category == ToolCategory.EDIT and edit.path == "/home/dev/shop/src/cart.ts"
    assert "-return items.reduce((s, i) => s + i.price, 0);" in edit.diff and "+return cents / 100;" in edit.diff
    # usage: the step-finish tokens (not the message's), once, on the message's last event
    answer = events[7]
    assert answer.text.startswith("Fixed:")
    assert (
        answer.usage.input_tokens,
        answer.usage.output_tokens,
        answer.usage.cache_read_tokens,
        answer.usage.cache_write_tokens,
        answer.usage.reasoning_tokens,
    ) == (1500, 220, 4000, 800, 30)
    assert sum(1 for e in walk(s.events) if e.usage) == 3
    patch = events[8]
    assert patch.title == "Files changed" and "src/cart.ts" in patch.text and patch.meta["hash"] == "9f1c2e"
    assert patch.timestamp >= answer.timestamp  # a part with no time follows the one before it

    bash, bash_result, read_call = events[10:13]
    assert bash.category == ToolCategory.SHELL and bash.command == "npm test"
    assert bash_result.is_error and bash_result.text == "Command timed out after 120000 ms"
    assert read_call.category == ToolCategory.READ and "running" in read_call.meta["status"]
    assert not [e for e in events if e.call_id == "toolu_read1" and e.kind == Kind.TOOL_RESULT]
    unknown = events[13]
    assert unknown.raw == {
        "id": "prt_p4c",
        "sessionID": "ses_parent01",
        "messageID": "msg_p4",
        "type": "hologram",
        "payload": {"x": 1},
    }
    assert events[14].title == "Context compacted (automatic)"
    assert events[15].title == "MessageAbortedError" and events[15].text == "The operation was aborted."

    ids = [e.id for e in walk(s.events)]
    assert len(ids) == len(set(ids))
    assert sorted((Path(p.source).name, p.message.split(" (")[0]) for p in problems.items) == [
        ("prt_p4c.json", "opencode: part prt_p4c has unknown type 'hologram'; shown as raw JSON"),
        ("prt_p4d.json", "malformed JSON"),
    ]


def test_tree_sub_agent_shown_inside_its_task_call(fixtures: Path) -> None:
    s = read(fixtures / "opencode" / "storage")["opencode-ses_parent01"]
    view = build_view(s)
    task = next(e for e in s.events if e.tool_name == "task")
    assert [sub.title for sub in view.subagents_for(task)] == ["Find rounding call sites (@explore subagent)"]


def test_tree_orphan_sub_agent_is_its_own_session(fixtures: Path) -> None:
    orphan = read(fixtures / "opencode" / "storage")["opencode-ses_orphan01"]
    assert orphan.meta["parent session"] == "ses_gone (not in this archive)"
    assert [e.text for e in orphan.events] == ["Summarise the diff"]


def test_tree_messages_without_a_session_file(tmp_path: Path) -> None:
    storage = tmp_path / "opencode" / "storage"
    (storage / "session").mkdir(parents=True)
    (storage / "message" / "ses_lost").mkdir(parents=True)
    (storage / "message" / "ses_lost" / "msg_1.json").write_text(
        json.dumps({"id": "msg_1", "role": "user", "time": {"created": 1767607200000}})
    )
    (storage / "part" / "msg_1").mkdir(parents=True)
    (storage / "part" / "msg_1" / "prt_1.json").write_text(json.dumps({"id": "prt_1", "type": "text", "text": "hello"}))
    assert READER.detect_path(storage)  # by name: opencode/storage
    problems = Problems()
    [s] = READER.read(storage, problems)
    assert s.id == "opencode-ses_lost" and s.events[0].text == "hello"
    assert "no session file" in problems.items[0].message


def test_tree_defers_to_a_database_that_holds_the_same_session(fixtures: Path, tmp_path: Path) -> None:
    data = tmp_path / "opencode"
    make_db(data, fixtures)
    storage = data / "storage"
    (storage / "session" / "prj_1").mkdir(parents=True)
    (storage / "message").mkdir()
    for sid in ("ses_db01", "ses_only_here"):
        (storage / "session" / "prj_1" / f"{sid}.json").write_text(
            json.dumps({"id": sid, "title": sid, "time": {"created": 1767607200000}})
        )
    assert list(read(storage)) == ["opencode-ses_only_here"]


def test_wrong_types_never_crash(tmp_path: Path) -> None:
    storage = tmp_path / "opencode" / "storage"
    (storage / "session" / "p").mkdir(parents=True)
    (storage / "session" / "p" / "ses_x.json").write_text(
        json.dumps({"id": "ses_x", "time": "yesterday", "summary": [1], "parentID": 7})
    )
    (storage / "session" / "p" / "ses_list.json").write_text("[1, 2]")
    (storage / "message" / "ses_x").mkdir(parents=True)
    messages = [
        {
            "id": "msg_a",
            "role": "assistant",
            "time": {"created": "noon"},
            "tokens": "many",
            "cost": "free",
            "path": 3,
            "error": "boom",
        },
        {"id": "msg_b", "role": "tool"},
        {"id": "msg_c", "role": "user", "model": "gpt"},
    ]
    for m in messages:
        (storage / "message" / "ses_x" / f"{m['id']}.json").write_text(json.dumps(m))
    (storage / "part" / "msg_a").mkdir(parents=True)
    parts = [
        {"id": "prt_1", "type": "tool", "tool": None, "state": "done"},
        {
            "id": "prt_2",
            "type": "tool",
            "tool": "bash",
            "state": {"status": "completed", "input": "ls", "output": {"lines": 2}, "metadata": {"exit": "1"}},
        },
        {"id": "prt_3", "type": "step-finish", "tokens": {"input": "x", "cache": 5}},
        {"id": "prt_4", "type": "file", "url": None},
        {"id": "prt_5", "type": "patch", "files": "a.txt"},
        {"id": "prt_6", "type": "text", "text": {"nested": True}},
        {"id": "prt_7", "type": "retry", "attempt": 2, "error": {"data": {"message": "rate limited"}}},
        {"id": "prt_8"},
    ]
    for p in parts:
        (storage / "part" / "msg_a" / f"{p['id']}.json").write_text(json.dumps(p))
    problems = Problems()
    [s] = READER.read(storage, problems)
    assert s.id == "opencode-ses_x" and s.started is None
    kinds = [e.kind for e in s.events]
    assert Kind.UNKNOWN in kinds and kinds.count(Kind.TOOL_CALL) == 2
    shell_result = next(e for e in s.events if e.kind == Kind.TOOL_RESULT)
    assert shell_result.exit_code == 1 and shell_result.is_error and '"lines": 2' in shell_result.text
    messages_reported = " ".join(p.message for p in problems.items)
    assert (
        "ses_list" in " ".join(p.source for p in problems.items)
        and "role 'tool'" in messages_reported
        and "time.created" in messages_reported
    )


# --------------------------------------------------------------------------- database


def test_database_sessions(fixtures: Path, tmp_path: Path) -> None:
    db = make_db(tmp_path / "we?ird #path%", fixtures)
    problems = Problems(tmp_path)
    [s] = READER.read(db, problems)
    assert s.id == "opencode-ses_db01" and s.source.path == str(db)
    assert s.title == "Why is the health check flaky?" and s.cwd == "/srv/api"
    assert s.started == utc(2026, 1, 12, 10, 0) and s.ended == utc(2026, 1, 12, 10, 1, 30)
    assert s.meta["share url"] == "https://opncd.ai/s/abc123" and s.meta["version"] == "1.2.4"
    assert s.models == ("gpt-5", "gpt-5-mini")
    kinds = [e.kind for e in s.events]
    assert kinds == [
        Kind.USER,
        Kind.THINKING,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.SUBAGENT,
        Kind.ASSISTANT,
        Kind.UNKNOWN,
    ]
    assert s.events[0].timestamp == utc(2026, 1, 12, 10, 0, 1)  # from the row's time_created
    curl = s.events[3]
    assert curl.exit_code == 22 and curl.is_error and curl.text.startswith("curl: (22)")
    sub = s.events[6]
    assert sub.call_id == "call_db_task" and [c.text for c in sub.children] == [
        "What timeout does the k8s probe use?",
        "timeoutSeconds: 1",
    ]
    assert s.events[7].usage.cache_read_tokens == 6000 and s.events[7].usage.reasoning_tokens == 120
    assert s.events[8].raw == "{broken json" and s.events[8].title == "OpenCode part (undecodable data)"
    assert [p.message.split(" (")[0] for p in problems.items] == ["opencode: part prt_db07: data is not JSON"]


def test_database_is_opened_read_only_and_left_untouched(fixtures: Path, tmp_path: Path) -> None:
    db = make_db(tmp_path, fixtures)
    before = (db.read_bytes(), db.stat().st_mtime_ns)
    # an open write transaction elsewhere (a running OpenCode) does not block the read
    writer = sqlite3.connect(db)
    writer.execute("BEGIN IMMEDIATE")
    try:
        assert len(list(READER.read(db, Problems()))) == 1
    finally:
        writer.rollback()
        writer.close()
    assert (db.read_bytes(), db.stat().st_mtime_ns) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["opencode.db"]


def test_a_damaged_database_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    db.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    problems = Problems()
    assert list(READER.read(db, problems)) == []
    assert problems.items and "opencode" in problems.items[0].message


# --------------------------------------------------------------------------- export


def test_export_file(fixtures: Path) -> None:
    problems = Problems()
    [s] = READER.read(fixtures / "opencode" / "export.json", problems)
    assert s.id == "opencode-ses_export01" and s.title == "Rename the notes folder"
    kinds = [e.kind for e in s.events]
    assert kinds == [Kind.USER, Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.ASSISTANT]
    write = s.events[3]
    assert write.diff.startswith("--- /dev/null\n+++ /home/dev/notes/README.md") and "+# Notes" in write.diff
    assert s.events[2].exit_code == 0 and not s.events[2].is_error
    assert s.events[5].usage.cache_write_tokens == 2000
    assert [p.message for p in problems.items] == ["opencode: messages[2]: is a str, not an object; skipped"]


# --------------------------------------------------------------------------- samples and the example


def test_sample_session_details(samples: Path) -> None:
    folder = samples / "opencode"
    problems = Problems(folder)
    result = discover(folder, problems)
    sessions = {s.id: s for c in result.claims for s in c.reader.read(c.path, problems)}
    large = sessions["opencode-s_stage0_large"]
    assert large.title == "OpenCode Large" and large.cwd == "/tmp/large"
    failing = next(e for e in large.events if e.kind == Kind.TOOL_RESULT)
    assert failing.exit_code == 1 and failing.is_error
    assert {e.kind for e in large.events} >= {
        Kind.USER,
        Kind.THINKING,
        Kind.TOOL_CALL,
        Kind.COMPACTION,
        Kind.SYSTEM,
        Kind.ASSISTANT,
    }
    small = sessions["opencode-s_stage0_small"]
    assert [e.kind for e in small.events] == [Kind.USER, Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.ASSISTANT]


def test_example_session_reads_cleanly() -> None:
    problems = Problems()
    [s] = READER.read(EXAMPLE / "opencode" / "storage", problems)
    assert not problems.items
    assert any(e.kind == Kind.SUBAGENT for e in s.events) and s.started is not None
