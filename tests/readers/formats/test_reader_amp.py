"""The Amp thread reader: integer and string message ids, tool runs, usage, damaged threads."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from helpers import EXAMPLE

from sessite.model import Kind, Problems, ToolCategory
from sessite.readers import discover, registry
from sessite.readers.formats.amp import READER
from sessite.site.view import build_view

OLD = "T-7f3e2a10-1111-4222-8333-444455556666.json"
NEW = "T-0b9c8d7e-aaaa-4bbb-8ccc-dddd00001111.json"


def read_one(path: Path, problems: Problems | None = None):
    [session] = READER.read(path, problems if problems is not None else Problems())
    return session


def test_reader_flags_detection_and_discovery(fixtures: Path, tmp_path: Path) -> None:
    assert READER.name == "amp" and not READER.claims_directories and READER in registry()
    assert READER.detect_path(fixtures / "amp" / OLD) and READER.detect_path(fixtures / "amp" / NEW)
    renamed = tmp_path / "thread.json"
    renamed.write_text((fixtures / "amp" / OLD).read_text())
    assert READER.detect_path(renamed)  # by content: an id "T-…" and messages
    other = tmp_path / "T-notes.json"
    other.write_text('["a list"]')
    assert not READER.detect_path(other)
    problems = Problems(fixtures)
    result = discover(fixtures / "amp", problems)
    assert sorted(c.path.name for c in result.claims) == sorted([OLD, NEW]) and all(
        c.reader is READER for c in result.claims
    )
    assert not result.ignored and not problems.items


def test_thread_with_integer_message_ids(fixtures: Path) -> None:
    problems = Problems()
    s = read_one(fixtures / "amp" / OLD, problems)
    assert not problems.items
    assert s.id == "amp-T-7f3e2a10-1111-4222-8333-444455556666" and s.agent == "amp"
    assert s.title == "Speed up the image resize job" and s.cwd == "/home/dev/img" and s.project == "img"
    assert s.started == datetime(2026, 1, 8, 11, 0, tzinfo=UTC) and s.ended == datetime(
        2026, 1, 8, 11, 0, 45, tzinfo=UTC
    )
    assert s.models == ("claude-sonnet-4-5",) and s.meta["credits"] == 1.5 and s.meta["version"] == 57
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
        Kind.ASSISTANT,
    ]
    assert s.events[0].timestamp == datetime(2026, 1, 8, 11, 0, 1, tzinfo=UTC)  # meta.sentAt
    profile = s.events[3]
    assert profile.category == ToolCategory.SHELL and profile.command == "python -m cProfile -s tottime resize.py"
    assert (profile.usage.input_tokens, profile.usage.output_tokens, profile.usage.cache_write_tokens) == (
        12,
        140,
        3200,
    )
    assert s.events[1].usage is None and s.events[2].usage is None  # once per message, on its last event
    view = build_view(s)
    [profile_result] = view.results_for(profile)
    assert profile_result.exit_code == 0 and "resample" in profile_result.text
    edit = s.events[5]
    assert (
        edit.category == ToolCategory.EDIT
        and edit.path == "/home/dev/img/resize.py"
        and "+out = img.reduce(2)" in edit.diff
    )
    [edit_result] = view.results_for(edit)
    assert (
        edit_result.diff.startswith("--- resize.py")
        and edit_result.text == ""
        and edit_result.meta["lineRange"] == [12, 12]
    )
    [tests] = view.results_for(s.events[7])
    assert tests.exit_code == 1 and tests.is_error
    assert sum(e.usage.input_tokens for e in s.events if e.usage) == 12 + 15 + 8 + 20


def test_thread_with_string_ids_errors_and_damage(fixtures: Path) -> None:
    problems = Problems(fixtures)
    s = read_one(fixtures / "amp" / NEW, problems)
    assert s.title is None and s.cwd is None and s.meta["agentMode"] == "smart"
    assert s.events[0].id == "M-u1-0"
    view = build_view(s)
    calls = {e.tool_name: e for e in s.events if e.kind == Kind.TOOL_CALL}
    [rejected] = view.results_for(calls["Bash"])
    assert rejected.is_error and rejected.meta["status"] == "rejected-by-user"
    [oracle] = view.results_for(calls["oracle"])
    assert oracle.text == "Yes: key the cache on the lock file hash." and not oracle.is_error
    [missing] = view.results_for(calls["Read"])
    assert missing.is_error and missing.text == "file not found: /srv/ci/config.yml"
    assert calls["Read"].category == ToolCategory.READ and calls["Read"].path == "/srv/ci/config.yml"
    unknown = [e for e in s.events if e.kind == Kind.UNKNOWN]
    assert [u.raw if isinstance(u.raw, str) else u.raw.get("type") or u.raw.get("role") for u in unknown] == [
        "server_tool_use",
        "garbage",
        "system",
    ]
    assert len(problems.items) == 3 and all(p.source == f"amp/{NEW}" for p in problems.items)
    assert s.events[-1].usage.input_tokens == 700


def test_not_a_thread_or_broken(tmp_path: Path) -> None:
    broken = tmp_path / "T-broken.json"
    broken.write_text('{"v": 1, "id": "T-broken", "messages": [')
    assert READER.detect_path(broken)
    problems = Problems()
    assert list(READER.read(broken, problems)) == []
    assert "malformed JSON" in problems.items[0].message
    odd = tmp_path / "T-odd.json"
    odd.write_text(json.dumps({"v": "x", "id": "T-odd", "created": "whenever", "messages": {"0": 1}, "env": [1]}))
    problems = Problems()
    s = read_one(odd, problems)
    assert s.events == () and s.started is None and "no messages array" in problems.items[0].message


def test_example_thread_reads_cleanly() -> None:
    [path] = sorted((EXAMPLE / "amp").glob("T-*.json"))
    problems = Problems()
    s = read_one(path, problems)
    assert not problems.items and s.title and s.started
    view = build_view(s)
    assert all(view.results_for(e) for e in s.events if e.kind == Kind.TOOL_CALL)
