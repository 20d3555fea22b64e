"""The sage reader: project folders (conversation + history), REPL session files."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from sessite.model import Kind, Problems, ToolCategory, make_session_id
from sessite.readers import discover
from sessite.readers.formats.sage import READER

REPO = Path(__file__).resolve().parents[3]
WIDGET = "-home-alice-src-widget-"


def read(path: Path, problems: Problems):
    return list(READER.read(path, problems))


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def project(fixtures: Path, name: str = WIDGET) -> Path:
    return fixtures / "sage" / "projects" / name


# ---------------------------------------------------------------------------
# detection and discovery


def test_reader_flags() -> None:
    assert READER.name == "sage" and READER.claims_directories is True and READER.claims_files is True


def test_detects_project_dirs_and_session_files(fixtures: Path) -> None:
    assert READER.detect_path(project(fixtures))
    assert READER.detect_path(project(fixtures, "-home-bob-scratch-"))  # no metadata: sage-shaped lines
    assert READER.detect_path(fixtures / "sage" / "sessions" / "refactor_notes.json")
    assert not READER.detect_path(fixtures / "sage")
    assert not READER.detect_path(fixtures / "sage" / "projects")
    assert not READER.detect_path(project(fixtures) / "metadata.json")


def test_companions(fixtures: Path) -> None:
    folder = project(fixtures)
    assert READER.companions(folder) == [
        folder / "conversation.jsonl",
        folder / "metadata.json",
        folder / "history" / "20260110-120000.jsonl",
    ]
    assert READER.companions(fixtures / "sage" / "sessions" / "refactor_notes.json") == []


def test_discovery_claims_each_fixture_once(fixtures: Path) -> None:
    problems = Problems(fixtures)
    result = discover(fixtures / "sage", problems)
    assert not result.ignored and not problems.items
    claimed = sorted(str(c.path.relative_to(fixtures / "sage")) for c in result.claims)
    assert claimed == [
        "projects/-home-alice-src-widget-",
        "projects/-home-bob-scratch-",
        "sessions/refactor_notes.json",
    ]
    assert all(c.reader is READER for c in result.claims)


def test_does_not_claim_claude_code_folders(tmp_path: Path) -> None:
    cc = tmp_path / "-home-user-project"
    cc.mkdir()
    line = {
        "type": "user",
        "uuid": "u1",
        "sessionId": "s",
        "message": {"role": "user", "content": "hi"},
        "timestamp": "2026-01-11T22:00:00.000Z",
    }
    (cc / "96d90d15-4805-4899-889c-7a16bfc522ff.jsonl").write_text(json.dumps(line) + "\n")
    assert not READER.detect_path(cc)
    # even under the name sage uses, Claude Code lines are not sage lines
    (cc / "conversation.jsonl").write_text(json.dumps(line) + "\n")
    assert not READER.detect_path(cc)
    assert not READER.detect_path(cc / "conversation.jsonl")
    # an empty folder, or metadata without project_dir, is not a project
    other = tmp_path / "other"
    other.mkdir()
    assert not READER.detect_path(other)
    (other / "metadata.json").write_text('{"name": "x"}')
    (other / "conversation.jsonl").write_text("")
    assert not READER.detect_path(other)


# ---------------------------------------------------------------------------
# project folders


def test_project_conversation(fixtures: Path) -> None:
    problems = Problems()
    current, archive = read(project(fixtures), problems)

    assert current.id == make_session_id("sage", f"{WIDGET}/conversation")
    assert current.agent == "sage" and current.source.format == "sage"
    assert current.source.path.endswith("conversation.jsonl")
    assert current.cwd == "/home/alice/src/widget.el"  # from metadata, not the lossy folder name
    assert current.project == "widget.el"
    assert current.title == "Why does widget-refresh flicker when the buffer is narrowed?"
    assert current.meta["session_id"] == "s-widget-1"
    assert current.meta["project message count"] == 7

    by_line: dict[int, list] = {}
    for event in current.events:
        by_line.setdefault(event.line, []).append(event)
    # offsets without a colon, with a colon, and Z all give the right UTC instant
    assert by_line[1][0].timestamp.astimezone(UTC) == utc(2026, 1, 12, 3, 0, 0)
    assert by_line[3][0].timestamp.astimezone(UTC) == utc(2026, 1, 12, 3, 1, 0)
    assert by_line[4][0].timestamp.astimezone(UTC) == utc(2026, 1, 12, 3, 2, 0)
    assert current.started.astimezone(UTC) == utc(2026, 1, 12, 3, 0, 0)
    assert current.ended.astimezone(UTC) == utc(2026, 1, 12, 3, 4, 0)

    assert by_line[1][0].kind == Kind.USER and by_line[1][0].id == "20260111-220000-1a2b3c4d"
    assert by_line[4][0].kind == Kind.SYSTEM and by_line[4][0].id == "L4"  # no uuid: the line number

    # line 2: the message, then a call/result pair per tool call
    msg, read_call, read_result, shell_call, shell_result = by_line[2]
    assert msg.kind == Kind.ASSISTANT and msg.text == "Let me read the function first."
    assert msg.meta["estimated tokens"] == 150
    assert [e.kind for e in (read_call, read_result, shell_call, shell_result)] == [
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
    ] * 2
    assert read_call.tool_name == "read_file" and read_call.category == ToolCategory.READ
    assert read_call.tool_input == {"path": "widget.el"} and read_call.path == "widget.el"
    assert read_call.meta["duration_ms"] == 45
    assert read_result.call_id == read_call.call_id and not read_result.is_error
    assert read_result.text == "(defun widget-refresh () (erase-buffer) ...)"
    assert shell_call.category == ToolCategory.SHELL and shell_call.command == "make test"
    assert shell_result.call_id == shell_call.call_id != read_call.call_id
    assert shell_result.is_error and shell_result.text == "1 failed"

    # line 5 is broken JSON: skipped; line 6 has an invalid role: kept as raw
    assert 5 not in by_line
    [unknown] = by_line[6]
    assert unknown.kind == Kind.UNKNOWN and unknown.raw["role"] == "tool" and unknown.raw["content"] == "grep output"
    # line 7 has empty content: reported, kept
    assert by_line[7][0].kind == Kind.USER and by_line[7][0].text == ""

    ids = [e.id for e in current.events]
    assert len(ids) == len(set(ids))
    found = sorted((p.line, p.message.split(" (")[0]) for p in problems.items)
    assert found == [
        (5, "malformed JSON"),
        (6, "sage: line 6: invalid role 'tool'"),
        (7, "sage: line 7: content is empty"),
    ]
    assert all(p.source.endswith("conversation.jsonl") for p in problems.items)


def test_project_history(fixtures: Path) -> None:
    problems = Problems()
    _, archive = read(project(fixtures), problems)
    assert archive.id == make_session_id("sage", f"{WIDGET}/history/20260110-120000")
    assert archive.source.path.endswith("history/20260110-120000.jsonl")
    assert archive.title == "Set up ERT tests for widget.el"
    assert archive.meta["archived"] == "2026-01-10 12:00:00"
    assert archive.cwd == "/home/alice/src/widget.el"
    assert [e.kind for e in archive.events] == [Kind.USER, Kind.ASSISTANT, Kind.USER]
    assert archive.started.astimezone(UTC) == utc(2026, 1, 10, 16, 58, 0)
    assert archive.ended.astimezone(UTC) == utc(2026, 1, 10, 16, 59, 0)


def test_project_without_metadata_decodes_folder_name(fixtures: Path) -> None:
    problems = Problems()
    [s] = read(project(fixtures, "-home-bob-scratch-"), problems)
    assert not problems.items
    assert s.cwd == "/home/bob/scratch" and s.project == "scratch"
    assert "lossy" in s.meta["cwd source"]
    assert [e.id for e in s.events] == ["L1", "L2"]
    assert s.events[0].timestamp.astimezone(UTC) == utc(2026, 2, 1, 8, 0, 0)


def test_cleared_project_keeps_history(tmp_path: Path) -> None:
    folder = tmp_path / "-srv-app-"
    (folder / "history").mkdir(parents=True)
    (folder / "metadata.json").write_text(json.dumps({"project_dir": "/srv/app/", "message_count": 0}))
    (folder / "history" / "20260301-100000.jsonl").write_text(
        json.dumps({"role": "user", "content": "deploy?", "timestamp": "2026-03-01T09:59:00+0000"}) + "\n"
    )
    assert READER.detect_path(folder)
    problems = Problems()
    [s] = read(folder, problems)
    assert not problems.items
    assert s.id == make_session_id("sage", "-srv-app-/history/20260301-100000") and s.cwd == "/srv/app"


def test_loose_history_file_keeps_its_id(fixtures: Path, tmp_path: Path) -> None:
    archive = project(fixtures) / "history" / "20260110-120000.jsonl"
    assert READER.detect_path(archive)
    [s] = read(archive, Problems())
    assert s.id == make_session_id("sage", f"{WIDGET}/history/20260110-120000")
    assert len(s.events) == 3


def test_wrong_types_in_lines(tmp_path: Path) -> None:
    folder = tmp_path / "-x-"
    folder.mkdir()
    (folder / "metadata.json").write_text(json.dumps({"project_dir": 42}))
    lines = [
        {"role": "user", "content": ["not", "a", "string"], "timestamp": "noon"},
        {"role": "assistant", "content": "ok", "tool_calls": "nope"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [7, {"name": "web_fetch", "args": '{"url": "https://example.org"}'}],
        },
        {"content": "no role"},
    ]
    (folder / "conversation.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines) + "[1, 2]\n")
    assert READER.detect_path(folder)
    problems = Problems()
    [s] = read(folder, problems)
    messages = [p.message for p in problems.items]
    assert sum("project_dir is a int" in m for m in messages) == 1
    assert any("content is a list" in m for m in messages)
    assert any("timestamp is not ISO 8601: 'noon'" in m for m in messages)
    assert any("tool_calls is a str" in m for m in messages)
    assert any("tool_calls[0] is a int" in m for m in messages)
    assert any("invalid role None" in m for m in messages)
    assert any("expected a JSON object" in m for m in messages)
    assert s.cwd == "/x"  # fell back to the folder name
    kinds = [e.kind for e in s.events]
    assert kinds == [Kind.USER, Kind.ASSISTANT, Kind.UNKNOWN, Kind.TOOL_CALL, Kind.UNKNOWN]
    fetch = s.events[3]
    assert fetch.tool_input == {"url": "https://example.org"} and fetch.category == ToolCategory.WEB
    assert s.events[1].meta["tool_calls"] == "nope"


# ---------------------------------------------------------------------------
# REPL session files


def test_session_file(fixtures: Path) -> None:
    path = fixtures / "sage" / "sessions" / "refactor_notes.json"
    problems = Problems()
    [s] = read(path, problems)
    assert not problems.items
    assert s.id == make_session_id("sage", "session/refactor_notes")
    assert s.title == "refactor notes"
    assert s.models == ("gemini-2.0-flash-exp",)
    assert s.meta["provider"] == "gemini" and s.meta["estimated tokens"] == 31 and s.meta["message count"] == 3
    assert s.cwd == "/home/alice/src/sage.el" and s.project == "sage.el"
    assert s.started.astimezone(UTC) == utc(2026, 1, 12, 15, 59, 50)
    assert s.ended.astimezone(UTC) == utc(2026, 1, 12, 16, 1, 0)
    assert [e.kind for e in s.events] == [Kind.USER, Kind.ASSISTANT, Kind.USER]
    assert s.events[1].model == "gemini-2.0-flash-exp" and s.events[0].model is None
    assert [e.id for e in s.events] == ["m1", "m2", "m3"]


def test_session_file_detection_is_specific(tmp_path: Path) -> None:
    gemini = tmp_path / "session.json"
    gemini.write_text(
        json.dumps({"sessionId": "s", "projectHash": "h", "messages": [{"type": "user", "content": "hi"}]})
    )
    assert not READER.detect_path(gemini)
    cursor = tmp_path / "composer.json"
    cursor.write_text(json.dumps({"composerId": "c", "name": "x", "fullConversationHeadersOnly": []}))
    assert not READER.detect_path(cursor)
    big = tmp_path / "big.json"
    big.write_text(
        json.dumps(
            {
                "name": "big",
                "model": "m",
                "provider": "ollama",
                "messages": [{"role": "user", "content": "x" * 100_000}],
                "workspace": "/w/",
            }
        )
    )
    assert READER.detect_path(big)


# ---------------------------------------------------------------------------
# the demo archive


def test_example_archive() -> None:
    folder = REPO / "example-archive" / "sage" / "-home-dev-notes-"
    assert READER.detect_path(folder)
    problems = Problems()
    sessions = read(folder, problems)
    assert not problems.items, problems.items
    current, archive = sessions
    assert current.cwd == "/home/dev/notes" and current.project == "notes"
    assert 5 <= sum(1 for e in current.events if e.kind in (Kind.USER, Kind.ASSISTANT, Kind.SYSTEM)) <= 10
    calls = [e for e in current.events if e.kind == Kind.TOOL_CALL]
    results = [e for e in current.events if e.kind == Kind.TOOL_RESULT]
    assert len(calls) == len(results) == 3
    assert {c.call_id for c in calls} == {r.call_id for r in results}
    edit = next(c for c in calls if c.category == ToolCategory.EDIT)
    assert edit.path == "projects.org"
    assert "-SCHEDULED: <2026-08-14 Fri>" in edit.diff and "+SCHEDULED: <2026-10-05 Mon>" in edit.diff
    assert len(archive.events) == 3 and archive.meta["archived"] == "2026-10-01 09:00:00"
    for session in sessions:
        times = [e.timestamp for e in session.events]
        assert None not in times and times == sorted(times)
