"""The Claude Code JSONL reader: hand-written fixtures, the bundled example, and the real samples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sessite.model import Event, Kind, Problems, ToolCategory, Usage
from sessite.readers import discover
from sessite.readers.formats.claude_code import READER

REPO = Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "example-archive" / "claude-code"
EXAMPLE_MAIN = EXAMPLE / "-home-dev-webapp" / "7b3e9a52-4c1d-4f8e-9a2b-1d6c5e8f0a34.jsonl"


def read_one(path: Path, problems: Problems):
    sessions = list(READER.read(path, problems))
    assert len(sessions) == 1, sessions
    return sessions[0]


def walk(events, depth=0):
    for event in events:
        yield event, depth
        yield from walk(event.children, depth + 1)


def flat(session) -> list[Event]:
    return [e for e, _ in walk(session.events)]


def by_id(session, event_id: str) -> Event:
    return next(e for e in flat(session) if e.id == event_id)


def total_usage(events) -> Usage:
    total = Usage()
    for event in events:
        if event.usage:
            total = total + event.usage
    return total


def expected_usage(path: Path, progress: bool = False) -> Usage:
    """Independent recomputation: the last record's usage for every message id
    (with ``progress``, also for the sub-agent messages agent_progress records embed)."""
    last: dict[str, dict] = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if not isinstance(rec, dict):
                continue
            prefix = ""
            if (
                progress
                and rec.get("type") == "progress"
                and isinstance(rec.get("data"), dict)
                and rec["data"].get("type") == "agent_progress"
            ):
                rec, prefix = rec["data"].get("message") or {}, "progress:"
            msg = rec.get("message")
            if rec.get("type") == "assistant" and isinstance(msg, dict) and isinstance(msg.get("usage"), dict):
                last[prefix + (msg.get("id") or rec.get("uuid"))] = msg["usage"]
    total = Usage()
    for u in last.values():
        total = total + Usage(
            u.get("input_tokens", 0),
            u.get("output_tokens", 0),
            u.get("cache_read_input_tokens", 0),
            u.get("cache_creation_input_tokens", 0),
        )
    return total


def assert_sane(session) -> None:
    events = flat(session)
    ids = [e.id for e in events]
    assert len(ids) == len(set(ids)), "event ids must be unique within a session"
    for event in events:
        if event.timestamp is not None:
            assert event.timestamp.tzinfo is not None
        if event.kind != Kind.SUBAGENT:
            assert event.line is not None and event.line >= 1


# --------------------------------------------------------------------------- detect


def test_detect_claims_fixtures(fixtures: Path) -> None:
    folder = fixtures / "claude_code"
    for name in ("basic.jsonl", "compaction.jsonl", "broken.jsonl", "progress_agent.jsonl"):
        assert READER.detect_path(folder / name), name
    main = folder / "projects" / "-home-dev-app" / "44444444-5555-4666-8777-888888888888.jsonl"
    assert READER.detect_path(main)
    # A sub-agent file is its parent's companion, not a session of its own ...
    assert not READER.detect_path(main.with_suffix("") / "subagents" / "agent-abc1234.jsonl")
    # ... unless the parent file is missing.
    assert READER.detect_path(
        folder / "orphan" / "55555555-6666-4777-8888-999999999999" / "subagents" / "agent-def5678.jsonl"
    )


def test_detect_looks_past_bookkeeping_lines(tmp_path: Path) -> None:
    user = {
        "parentUuid": None,
        "type": "user",
        "sessionId": "s1",
        "uuid": "u1",
        "timestamp": "2026-10-01T00:00:00Z",
        "message": {"role": "user", "content": "hi"},
    }
    snapshots = "".join(
        json.dumps({"type": "file-history-snapshot", "messageId": f"m{i}", "snapshot": {}, "isSnapshotUpdate": False})
        + "\n"
        for i in range(60)
    )
    late = tmp_path / "late.jsonl"
    late.write_text(snapshots + json.dumps(user) + "\n", encoding="utf-8")
    assert READER.detect_path(late)
    summaries = tmp_path / "summaries.jsonl"
    summaries.write_text(
        "".join(
            json.dumps({"type": "summary", "summary": f"Topic {i}", "leafUuid": f"l{i}"}) + "\n" for i in range(40)
        ),
        encoding="utf-8",
    )
    assert READER.detect_path(summaries)


def test_detect_first_record_longer_than_sniff_window(tmp_path: Path) -> None:
    big = {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/w",
        "sessionId": "s1",
        "version": "2.1.39",
        "type": "user",
        "message": {"role": "user", "content": "log line\n" * 20000},
        "uuid": "u1",
        "timestamp": "2026-10-01T00:00:00Z",
    }
    path = tmp_path / "big-prompt.jsonl"
    snapshot = {"type": "file-history-snapshot", "messageId": "u1", "snapshot": {}, "isSnapshotUpdate": False}
    path.write_text(json.dumps(snapshot) + "\n" + json.dumps(big, separators=(",", ":")) + "\n", encoding="utf-8")
    assert path.stat().st_size > 100_000
    assert READER.detect_path(path)
    session = read_one(path, Problems())
    assert session.title.startswith("log line log line")


@pytest.mark.parametrize(
    "first_line",
    [
        {"type": "header", "version": "hail-1.0.0", "session_id": "x"},
        {"timestamp": "2025-12-28T12:18:30Z", "type": "session_meta", "payload": {"id": "x"}},
        {"uuid": "2026-10-01T09:00:00", "role": "user", "content": "sage line"},
        {"sessionId": "x", "projectHash": "abc", "startTime": "2026-04-23T12:52:52Z", "kind": "main"},
    ],
)
def test_detect_rejects_other_formats(tmp_path: Path, first_line: dict) -> None:
    path = tmp_path / "other.jsonl"
    second = {"type": "user", "content": "hello", "id": "1"}
    path.write_text(json.dumps(first_line) + "\n" + json.dumps(second) + "\n", encoding="utf-8")
    assert not READER.detect_path(path)


def test_detect_needs_jsonl_and_content(tmp_path: Path, fixtures: Path) -> None:
    copy = tmp_path / "basic.json"
    copy.write_bytes((fixtures / "claude_code" / "basic.jsonl").read_bytes())
    assert not READER.detect_path(copy)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    assert not READER.detect_path(empty)


# --------------------------------------------------------------------------- basic fixture


def test_split_message_usage_counted_once(fixtures: Path, problems: Problems) -> None:
    session = read_one(fixtures / "claude_code" / "basic.jsonl", problems)
    assert not problems.items
    # msg_A came as four records (whitespace text, thinking, text, tool_use); the
    # whitespace-only block is dropped and the last record's usage is attached once.
    msg_a = [by_id(session, i) for i in ("a-0002", "a-0003", "a-0004")]
    assert [e.kind for e in msg_a] == [Kind.THINKING, Kind.ASSISTANT, Kind.TOOL_CALL]
    assert [e.usage for e in msg_a[:2]] == [None, None]
    assert msg_a[2].usage == Usage(input_tokens=10, output_tokens=120, cache_read_tokens=2000, cache_write_tokens=300)
    assert all(e.model == "claude-opus-4-6" for e in msg_a)
    assert not any(e.id == "a-0001" for e in flat(session))
    # msg_C: usage goes to the last event even when that event is an UNKNOWN block.
    assert by_id(session, "a-0006").usage is None
    assert by_id(session, "a-0007").usage == Usage(3, 33, 2500, 20)
    assert total_usage(flat(session)) == expected_usage(fixtures / "claude_code" / "basic.jsonl")
    assert sum(1 for e in flat(session) if e.usage) == 3


def test_tool_calls_results_and_diff(fixtures: Path, problems: Problems) -> None:
    session = read_one(fixtures / "claude_code" / "basic.jsonl", problems)
    bash = by_id(session, "a-0004")
    assert (bash.tool_name, bash.category, bash.command, bash.call_id) == (
        "Bash",
        ToolCategory.SHELL,
        "pytest -q",
        "toolu_bash1",
    )
    failed = by_id(session, "r-0001")
    assert failed.kind == Kind.TOOL_RESULT and failed.call_id == "toolu_bash1"
    assert failed.is_error and failed.exit_code == 2
    assert failed.text.startswith("Exit code 2\nERROR: file or directory not found")

    edit = by_id(session, "a-0005")
    assert edit.category == ToolCategory.EDIT and edit.path == "/home/dev/shop/cart.py"
    assert "-    return round(total, 0)" in edit.diff and "+    return round(total, 2)" in edit.diff
    result = by_id(session, "r-0002")
    assert not result.is_error and result.exit_code is None and result.path == "/home/dev/shop/cart.py"
    # The structured patch (real line numbers) is on the result.
    assert result.diff.splitlines()[2] == "@@ -1,3 +1,3 @@"
    assert "     total = sum(i.price for i in items)" in result.diff.splitlines()
    order = [e.id for e in session.events]
    assert order.index("a-0004") < order.index("r-0001") < order.index("a-0005") < order.index("r-0002")


def test_session_fields_and_skipped(fixtures: Path, problems: Problems) -> None:
    session = read_one(fixtures / "claude_code" / "basic.jsonl", problems)
    assert session.id == "claude_code-11111111-2222-4333-8444-555555555555"
    assert session.agent == "claude-code" and session.source.format == "claude_code"
    assert session.title == "Cart rounding fix"  # the custom-title record wins over the first prompt
    assert session.cwd == "/home/dev/shop" and session.project == "shop"
    assert session.models == ("claude-opus-4-6",)
    assert session.git.branches == ("main",)
    assert session.meta["version"] == "2.1.39"
    assert session.started.isoformat() == "2026-10-01T09:59:59+00:00"
    assert session.ended.isoformat() == "2026-10-01T10:00:19.500000+00:00"
    assert session.skipped == {
        "file-history-snapshot (editor backup bookkeeping)": 1,
        "queue-operation (prompt queue bookkeeping)": 1,
        "progress record (hook run notices)": 1,
        "custom-title record (used for the session title and details)": 1,
        "attachment todo_reminder (todo list reminder; the list is shown by the todo calls)": 1,
        "empty text block": 1,  # line 4's "\n\n" text block: counted, not vanished
    }


def test_unknown_records_and_blocks_are_kept(fixtures: Path, problems: Problems) -> None:
    session = read_one(fixtures / "claude_code" / "basic.jsonl", problems)
    unknown = [e for e in flat(session) if e.kind == Kind.UNKNOWN]
    assert [e.id for e in unknown] == ["a-0007"]
    assert unknown[0].raw == {"type": "fancy_widget", "payload": {"x": 1}}
    # An attachment record is understood (issue 15): line 14's todo reminder is counted, not raw JSON.
    assert "x-0001" not in {e.id for e in flat(session)}


def test_user_side_messages(fixtures: Path, problems: Problems) -> None:
    session = read_one(fixtures / "claude_code" / "basic.jsonl", problems)
    prompt = by_id(session, "u-0001")
    assert prompt.kind == Kind.USER and prompt.text == "Fix the cart total rounding bug" and prompt.line == 3
    sidechain = by_id(session, "u-0002")
    assert sidechain.kind == Kind.USER and sidechain.meta["sidechain"] is True
    caveat = by_id(session, "u-0003")
    assert caveat.kind == Kind.SYSTEM and caveat.meta["meta"] is True
    command = by_id(session, "u-0004")
    assert command.kind == Kind.SYSTEM and command.text == "/cost" and command.meta["command"] == "/cost"
    stdout = by_id(session, "u-0005")
    assert stdout.kind == Kind.SYSTEM and stdout.text == "Total cost: $0.12"  # tags and ANSI codes stripped
    duration = by_id(session, "s-0001")
    assert duration.kind == Kind.SYSTEM and duration.meta["durationMs"] == 14000 and "14.0 s" in duration.text
    thinking = by_id(session, "a-0002")
    assert thinking.text == "Rounding probably happens too early."


# --------------------------------------------------------------------------- compaction, title, synthetic


def test_compaction_boundary_and_summary(fixtures: Path, problems: Problems) -> None:
    session = read_one(fixtures / "claude_code" / "compaction.jsonl", problems)
    assert not problems.items
    boundary = by_id(session, "c-0003")
    assert boundary.kind == Kind.COMPACTION and boundary.title == "Conversation compacted"
    assert boundary.meta["trigger"] == "manual" and boundary.meta["preTokens"] == 151234
    summary = by_id(session, "c-0004")
    assert summary.kind == Kind.COMPACTION and summary.text.startswith("This session is being continued")
    assert "retry loop lacks jitter" in summary.text
    # No real prompt: the title comes from the slash command and its arguments, cut to ~100 characters.
    assert session.title.startswith("/review the payment module, especially the retry logic")
    assert len(session.title) <= 100 and session.title.endswith("…")
    # <synthetic> is not a model; HEAD is not a branch.
    assert session.models == ("claude-opus-4-6", "claude-sonnet-4-5-20250929")
    assert by_id(session, "c-0005").model is None and by_id(session, "c-0005").meta["synthetic"] is True
    assert session.git.branches == ()
    assert session.meta["slug"] == "quiet-humming-otter"


def _write(tmp_path: Path, records: list[dict]) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def _rec(kind: str, uuid: str, content, **extra) -> dict:
    rec = {
        "parentUuid": None,
        "isSidechain": False,
        "cwd": "/home/dev/x",
        "sessionId": "s-1",
        "type": kind,
        "uuid": uuid,
        "timestamp": "2026-10-07T10:00:00Z",
        "message": {"role": kind, "content": content},
    }
    rec.update(extra)
    return rec


def test_title_sources_in_order(tmp_path: Path) -> None:
    prompt = _rec("user", "u1", "<command-name>/clear</command-name>")
    real = _rec("user", "u2", "  Explain   the\n build  ")
    summary = {"type": "summary", "summary": "Build pipeline explained", "leafUuid": "u2"}
    ai = {"type": "ai-title", "aiTitle": "AI: build pipeline", "sessionId": "s-1"}
    assert read_one(_write(tmp_path, [prompt, real]), Problems()).title == "Explain the build"
    assert read_one(_write(tmp_path, [summary, prompt, real]), Problems()).title == "Build pipeline explained"
    assert read_one(_write(tmp_path, [summary, prompt, real, ai]), Problems()).title == "AI: build pipeline"
    only_meta = [
        _rec("user", "u3", "Caveat", isMeta=True, slug="brave-little-toaster"),
        _rec("user", "u4", "<local-command-stdout>ok</local-command-stdout>", slug="brave-little-toaster"),
    ]
    assert read_one(_write(tmp_path, only_meta), Problems()).title == "brave-little-toaster"


def test_images_and_mixed_tool_result_content(tmp_path: Path) -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
    records = [
        _rec("user", "u1", [{"type": "text", "text": "What is wrong here?"}, image]),
        _rec(
            "assistant",
            "a1",
            [{"type": "tool_use", "id": "t1", "name": "mcp__shots__take", "input": {}}],
            message={
                "role": "assistant",
                "id": "m1",
                "model": "claude-opus-4-6",
                "content": [{"type": "tool_use", "id": "t1", "name": "mcp__shots__take", "input": {}}],
            },
        ),
        _rec(
            "user",
            "r1",
            [{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "captured"}, image]}],
        ),
    ]
    session = read_one(_write(tmp_path, records), Problems())
    prompt, call, result = session.events
    assert prompt.kind == Kind.USER and prompt.text == "What is wrong here?"
    assert prompt.blocks[0].type == "image" and prompt.blocks[0].uri == "data:image/png;base64,iVBORw0KGgo="
    assert call.category == ToolCategory.OTHER and call.tool_name == "mcp__shots__take"
    assert result.text == "captured" and result.blocks[0].type == "image" and result.call_id == "t1"


# --------------------------------------------------------------------------- bad input


def test_malformed_and_truncated_lines(fixtures: Path, problems: Problems) -> None:
    session = read_one(fixtures / "claude_code" / "broken.jsonl", problems)
    lines = sorted(p.line for p in problems.items)
    assert lines == [2, 3, 4, 5, 7]
    messages = {p.line: p.message for p in problems.items}
    assert messages[2].startswith("malformed JSON")
    assert messages[7].startswith("truncated JSON")
    assert "content is int" in messages[3]
    assert "no message object" in messages[4]
    assert all(p.source.endswith("broken.jsonl") for p in problems.items)
    # What could be read is kept.
    assert [(e.kind, e.line) for e in session.events] == [(Kind.USER, 1), (Kind.UNKNOWN, 4), (Kind.ASSISTANT, 6)]
    assert session.events[-1].text == "README tidied." and session.events[-1].usage == Usage(1, 4)
    assert session.title == "Please tidy the README"


@pytest.mark.parametrize(
    "record",
    [
        {"type": "user", "uuid": "w1", "sessionId": "s", "message": {"content": 7}},
        {
            "type": "user",
            "uuid": "w2",
            "sessionId": "s",
            "message": {"content": [{"type": "tool_result", "content": {"odd": True}}, 5, None]},
        },
        {
            "type": "assistant",
            "uuid": "w3",
            "sessionId": "s",
            "message": {
                "id": 9,
                "model": ["x"],
                "content": [None, "str", {"type": "tool_use", "input": "not a dict"}],
                "usage": "lots",
            },
        },
        {"type": "assistant", "uuid": "w4", "sessionId": "s", "message": "hello"},
        {
            "type": "system",
            "uuid": "w5",
            "sessionId": "s",
            "subtype": "stop_hook_summary",
            "hookInfos": "x",
            "hookErrors": [1],
            "content": None,
        },
        {"type": "system", "uuid": "w6", "sessionId": "s", "subtype": "turn_duration", "durationMs": "soon"},
        {"type": "progress", "uuid": "w7", "sessionId": "s", "data": "x"},
        {
            "type": "progress",
            "uuid": "w8",
            "sessionId": "s",
            "data": {"type": "agent_progress", "agentId": 5, "message": []},
        },
        {"type": 12, "uuid": "w9"},
        {
            "type": "user",
            "uuid": "w10",
            "sessionId": "s",
            "timestamp": {"no": 1},
            "cwd": 5,
            "gitBranch": [],
            "message": {"content": "ok"},
        },
    ],
)
def test_wrong_types_never_raise(tmp_path: Path, record: dict) -> None:
    path = tmp_path / "odd.jsonl"
    good = {
        "type": "user",
        "uuid": "g1",
        "sessionId": "s",
        "timestamp": "2026-10-01T00:00:00Z",
        "message": {"role": "user", "content": "first"},
    }
    path.write_text(json.dumps(good) + "\n" + json.dumps(record) + "\n", encoding="utf-8")
    problems = Problems()
    session = read_one(path, problems)
    assert session.events[0].text == "first"
    assert_sane(session)


def test_file_without_conversation_yields_nothing(tmp_path: Path) -> None:
    path = tmp_path / "meta-only.jsonl"
    path.write_text(
        json.dumps({"type": "file-history-snapshot", "messageId": "m", "snapshot": {}}) + "\n", encoding="utf-8"
    )
    problems = Problems()
    assert list(READER.read(path, problems)) == []
    assert len(problems.items) == 1


# --------------------------------------------------------------------------- sub-agents


def test_subagent_attached_under_task_call(fixtures: Path, problems: Problems) -> None:
    main = fixtures / "claude_code" / "projects" / "-home-dev-app" / "44444444-5555-4666-8777-888888888888.jsonl"
    session = read_one(main, problems)
    assert not problems.items
    order = [e.id for e in session.events]
    sub = by_id(session, "agent-abc1234")
    assert sub.kind == Kind.SUBAGENT and sub.call_id == "toolu_task1"
    assert sub.title == "Audit dependencies"
    assert sub.meta["agent_type"] == "general-purpose" and sub.meta["spawnDepth"] == 1
    assert order.index("agent-abc1234") == order.index("m-0004") + 1  # right after the Task result
    children = list(sub.children)
    assert [c.id for c in children] == ["abc1234-s-0001", "abc1234-s-0002", "abc1234-s-0003", "abc1234-s-0004"]
    assert [c.kind for c in children] == [Kind.USER, Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.ASSISTANT]
    assert children[1].command == "pip list --outdated" and children[2].call_id == "toolu_sub1"
    assert children[1].usage == Usage(2, 20, 0, 800) and children[3].usage == Usage(2, 11, 800, 100)
    assert sub.model == "claude-haiku-4-5-20251001"
    # The compaction agent sits right before the boundary it produced.
    compact = by_id(session, "agent-acompact-1a2b3c")
    assert compact.title == "Compaction agent" and compact.call_id is None
    assert order.index("agent-acompact-1a2b3c") == order.index("m-0006") - 1
    assert session.models == ("claude-opus-4-6", "claude-haiku-4-5-20251001")
    # agent_progress duplicates the sub-agent file: counted, not shown twice.
    assert session.skipped == {"progress record (sub-agent messages; shown from the sub-agent transcript)": 1}
    assert session.meta["subagents"] == 2
    assert session.git.branches == ("deps/audit",)
    assert_sane(session)


def test_companions_and_discovery(fixtures: Path) -> None:
    root = fixtures / "claude_code" / "projects"
    main = root / "-home-dev-app" / "44444444-5555-4666-8777-888888888888.jsonl"
    names = sorted(p.name for p in READER.companions(main))
    assert names == ["agent-abc1234.jsonl", "agent-abc1234.meta.json", "agent-acompact-1a2b3c.jsonl"]
    problems = Problems()
    result = discover(root, problems)
    assert [(c.reader.name, c.path) for c in result.claims] == [("claude_code", main)]
    assert not result.ignored and not problems.items


def test_standalone_subagent_file(fixtures: Path, problems: Problems) -> None:
    path = (
        fixtures
        / "claude_code"
        / "orphan"
        / "55555555-6666-4777-8888-999999999999"
        / "subagents"
        / "agent-def5678.jsonl"
    )
    session = read_one(path, problems)
    assert session.id == "claude_code-55555555-6666-4777-8888-999999999999-agent-def5678"
    assert session.title == "Sub-agent: Check every link in docs/ for 404s"
    assert session.meta["parent_session_id"] == "55555555-6666-4777-8888-999999999999"
    assert session.meta["agent_id"] == "def5678" and session.meta["subagent"] is True
    assert [e.kind for e in session.events] == [Kind.USER, Kind.ASSISTANT]
    assert "sidechain" not in session.events[0].meta  # everything in a sub-agent file is a sidechain
    assert session.project == "site"


def test_subagent_rebuilt_from_progress_records(fixtures: Path, problems: Problems) -> None:
    session = read_one(fixtures / "claude_code" / "progress_agent.jsonl", problems)
    assert not problems.items
    order = [e.id for e in session.events]
    sub = by_id(session, "agent-f00d123")
    assert sub.call_id == "toolu_task9" and sub.title == "Collect TODOs"
    assert order.index("agent-f00d123") == order.index("g-0006") + 1
    assert [c.kind for c in sub.children] == [Kind.USER, Kind.TOOL_CALL, Kind.TOOL_RESULT]
    assert [c.line for c in sub.children] == [3, 4, 5]
    assert sub.children[1].tool_name == "Grep" and sub.children[1].category == ToolCategory.SEARCH
    assert sub.meta["rebuilt_from"] == "agent_progress records"
    assert session.skipped == {}


# --------------------------------------------------------------------------- the bundled example


def test_example_archive_session() -> None:
    problems = Problems()
    result = discover(EXAMPLE, problems)
    assert [(c.reader.name, c.path) for c in result.claims] == [("claude_code", EXAMPLE_MAIN)]
    session = read_one(EXAMPLE_MAIN, problems)
    assert not problems.items
    assert_sane(session)
    events = flat(session)
    kinds = {e.kind for e in events}
    assert {
        Kind.USER,
        Kind.ASSISTANT,
        Kind.THINKING,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.SUBAGENT,
        Kind.COMPACTION,
        Kind.SYSTEM,
    } <= kinds
    assert "🙏" in session.title and "ログイン" in session.title
    assert session.project == "webapp" and session.git.branches == ("feature/login",)
    assert session.started.year == 2026 and session.started.month == 10
    failing = [e for e in events if e.kind == Kind.TOOL_RESULT and e.is_error]
    assert len(failing) == 1 and failing[0].exit_code == 1
    outputs = "\n".join(e.text for e in events if e.kind == Kind.TOOL_RESULT)
    assert "[feature/login 3f2a9c1] Add login form" in outputs
    assert "https://github.com/acme/webapp/pull/" in outputs
    reads = [e for e in events if e.kind == Kind.TOOL_RESULT and e.tool_name == "Read" and e.text.count("\n") > 200]
    assert reads
    assert any(
        e.kind == Kind.TOOL_RESULT and e.tool_name == "Edit" and e.diff and "@@ -115,7 +115,17 @@" in e.diff
        for e in events
    )
    assert any("```python" in e.text for e in events if e.kind == Kind.ASSISTANT)
    text = "\n".join(e.text for e in events)
    assert "#42" in text and "3f2a9c1e7b4d8f6a0c5e2d9b1a7f3c8e6d4b2a90" in text
    assert session.git.repos == ("acme/webapp",) and session.meta["pull_requests"] == [
        "https://github.com/acme/webapp/pull/57"
    ]
    assert any(e.kind == Kind.SYSTEM and e.title == "Pull request linked" for e in events)
    sub = next(e for e in events if e.kind == Kind.SUBAGENT)
    assert sub.call_id and any(
        e.kind == Kind.TOOL_CALL and e.call_id == sub.call_id and e.tool_name == "Task" for e in events
    )
    assert len(sub.children) >= 4
    # Split assistant records repeat usage; it is counted once per message.
    assert total_usage(events) == expected_usage(EXAMPLE_MAIN) + expected_usage(
        EXAMPLE_MAIN.with_suffix("") / "subagents" / "agent-a3f9c21.jsonl"
    )


# --------------------------------------------------------------------------- real samples


def _sample_sessions(samples: Path):
    folder = samples / "claude_code"
    problems = Problems()
    result = discover(folder, problems)
    sessions = {}
    for claim in result.claims:
        assert claim.reader is READER, claim
        for session in READER.read(claim.path, problems):
            sessions[claim.path.relative_to(folder).as_posix()] = session
    return folder, result, sessions, problems


def test_samples_read_sanely(samples: Path) -> None:
    folder, _, sessions, _ = _sample_sessions(samples)
    for name, session in sessions.items():
        events = flat(session)
        assert events, name
        assert_sane(session)
        assert session.agent == "claude-code" and session.started and session.ended and session.started <= session.ended
        assert session.models and "<synthetic>" not in session.models
        calls = {e.call_id: i for i, e in enumerate(events) if e.kind == Kind.TOOL_CALL}
        results = {e.call_id: i for i, e in enumerate(events) if e.kind == Kind.TOOL_RESULT}
        for call_id in calls.keys() & results.keys():
            assert calls[call_id] < results[call_id], (name, call_id)
        if "excerpt" not in name:
            assert calls.keys() == results.keys(), name
        else:  # a cut from the middle of a file: only the edges are unpaired
            assert len(results.keys() - calls.keys()) == 1 and len(calls.keys() - results.keys()) == 2
        # Usage: exactly the last record's usage per message id, summed over the file (and its sub-agents).
        rebuilt = any(e.kind == Kind.SUBAGENT and e.meta.get("rebuilt_from") for e in events)
        assert total_usage(events) == expected_usage(folder / name, progress=rebuilt), name


def test_samples_details(samples: Path) -> None:
    _, _, sessions, _ = _sample_sessions(samples)
    assert set(sessions) == {
        "spotter-short.jsonl",
        "spotter-tool_heavy.jsonl",
        "spotter-subagent-parent.jsonl",
        "spotter-8463c716-lines680-760-compact-excerpt.jsonl",
        "vct-e9f146fa-v1.0.95.jsonl",
        "258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-a881341.jsonl",
        "258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-acompact-fffbd0.jsonl",
    }
    short = sessions["spotter-short.jsonl"]
    assert short.title == "mix phx.server doesnt seem to start" and short.project == "spotter"
    rejected = [e for e in short.events if e.kind == Kind.TOOL_RESULT]
    assert len(rejected) == 2 and all(e.is_error for e in rejected)

    # The parent of a Task sub-agent whose file was not kept: the agent_progress
    # records carry its messages, so it is rebuilt under the Task call.
    parent = sessions["spotter-subagent-parent.jsonl"]
    subs = [e for e in flat(parent) if e.kind == Kind.SUBAGENT]
    assert len(subs) == 1
    sub = subs[0]
    assert sub.call_id == "toolu_01Cz2Pnv7qNcnK1ZiocxWhQX" and sub.title == "Draft beads for linting setup"
    task_result = next(e for e in parent.events if e.kind == Kind.TOOL_RESULT and e.call_id == sub.call_id)
    assert parent.events.index(sub) == parent.events.index(task_result) + 1
    assert task_result.meta["totalToolUseCount"] == sum(1 for c in sub.children if c.kind == Kind.TOOL_CALL) == 9
    assert sub.model == "claude-haiku-4-5-20251001"
    assert parent.title.startswith("/handgemacht:create-beads")

    excerpt = sessions["spotter-8463c716-lines680-760-compact-excerpt.jsonl"]
    boundary = next(e for e in excerpt.events if e.kind == Kind.COMPACTION and e.title == "Conversation compacted")
    assert boundary.meta["trigger"] == "auto" and boundary.meta["preTokens"] == 167731
    summary = excerpt.events[excerpt.events.index(boundary) + 1]
    assert summary.kind == Kind.COMPACTION and summary.text.startswith("This session is being continued")
    assert excerpt.project == "spotter-fum"  # not the 'assets' folder the shell wandered into
    assert excerpt.skipped["progress record (hook run notices)"] == 42
    assert any(e.diff and e.diff.count("@@") >= 2 for e in excerpt.events if e.kind == Kind.TOOL_RESULT)

    vct = sessions["vct-e9f146fa-v1.0.95.jsonl"]
    assert vct.models == ("claude-sonnet-4-20250514",) and vct.title.startswith("幫我檢查一下 go.mod")
    mcp = [e for e in vct.events if e.kind == Kind.TOOL_CALL and e.tool_name.startswith("mcp__")]
    assert mcp and all(e.category == ToolCategory.OTHER for e in mcp)
    assert vct.skipped == {}

    compaction_agent = sessions["258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-acompact-fffbd0.jsonl"]
    assert compaction_agent.title == "Compaction agent" and compaction_agent.meta["subagent"] is True
    agent = sessions["258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-a881341.jsonl"]
    assert agent.meta["parent_session_id"] == "258c7280-ae70-4798-800f-63464d01a85d"
    assert agent.models == ("claude-sonnet-4-5-20250929",)
