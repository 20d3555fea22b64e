"""The Gemini CLI chat reader: JSON and JSONL fixtures, the real samples, the demo session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sessite.model import Block, Kind, Problems, ToolCategory, Usage
from sessite.readers import discover, registry
from sessite.readers.formats.gemini import READER, clean_file_diff, top_level_keys, usage_of

REPO = Path(__file__).resolve().parents[3]
GEMINI = Path(__file__).resolve().parents[2] / "fixtures" / "gemini"
JSON_FIXTURE = GEMINI / "session-2026-03-27T10-19-5b1c2d3e.json"
JSONL_FIXTURE = GEMINI / "session-2026-04-23T12-52-0ab84937.jsonl"
EXAMPLE = REPO / "example-archive" / "gemini"


def read_one(path: Path, problems: Problems | None = None):
    sessions = list(READER.read(path, problems if problems is not None else Problems()))
    assert len(sessions) == 1, sessions
    return sessions[0]


def by_id(session):
    return {e.id: e for e in session.events}


def total_usage(session) -> Usage:
    return sum((e.usage for e in session.events if e.usage), Usage())


def expected_usage(messages) -> Usage:
    """Independent recomputation: each kept message's tokens, once."""
    total = Usage()
    for m in messages:
        t = m.get("tokens")
        if isinstance(t, dict):
            total = total + Usage(
                t["input"] - t["cached"] + t.get("tool", 0),
                t["output"] + t.get("thoughts", 0),
                t["cached"],
                0,
                t.get("thoughts", 0),
            )
    return total


def final_messages(path: Path) -> list[dict]:
    """Messages as the CLI loads them: last write per id, first-appearance order, rewinds applied."""
    if path.suffix == ".json":
        return json.loads(path.read_text(encoding="utf-8"))["messages"]
    messages: dict[str, dict] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if "$rewindTo" in rec and rec["$rewindTo"] in messages:
            keys = list(messages)
            for key in keys[keys.index(rec["$rewindTo"]) :]:
                del messages[key]
        elif isinstance(rec.get("id"), str):
            messages[rec["id"]] = rec
    return list(messages.values())


def assert_sane(session) -> None:
    ids = [e.id for e in session.events]
    assert len(ids) == len(set(ids)), "event ids must be unique within a session"
    for event in session.events:
        assert event.line is not None and event.line >= 1
        if event.timestamp is not None:
            assert event.timestamp.tzinfo is not None
    calls = {e.call_id for e in session.events if e.kind == Kind.TOOL_CALL}
    for event in session.events:
        if event.kind == Kind.TOOL_RESULT:
            assert event.call_id in calls


# -- reader contract and detection -------------------------------------------------------


def test_reader_contract():
    assert READER.name == "gemini"
    assert READER.claims_directories is False
    assert "gemini" in [r.name for r in registry()]


@pytest.mark.parametrize("name", sorted(p.name for p in GEMINI.iterdir()))
def test_detects_fixtures(name):
    assert READER.detect_path(GEMINI / name)


@pytest.mark.parametrize(
    "name, text",
    [
        (
            "rollout.jsonl",
            '{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x","cwd":"/"}}\n',
        ),
        ("claude.jsonl", '{"type":"user","sessionId":"s","uuid":"u","message":{"role":"user","content":"hi"}}\n'),
        ("conversations.json", '[{"uuid":"c","name":"chat","chat_messages":[]}]'),
        ("s.aics.json", '{"version":"1.0","creator":{"name":"crush"},"log":{"sessions":[]}}'),
        ("no-hash.json", '{"sessionId":"g","messages":[]}'),
        ("nested.json", '{"wrapper":{"sessionId":"g","projectHash":"h","messages":[]}}'),
        ("message-line.jsonl", '{"id":"m1","sessionId":"g","projectHash":"h","type":"user","content":"hi"}\n'),
        ("session.txt", '{"sessionId":"g","projectHash":"h","messages":[]}'),
        ("empty.json", ""),
    ],
)
def test_does_not_claim_other_formats(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert READER.detect_path(path) is False


def test_detects_pretty_and_long_documents(tmp_path):
    doc = {
        "sessionId": "s",
        "projectHash": "h" * 64,
        "startTime": "2026-01-01T00:00:00Z",
        "lastUpdated": "2026-01-01T00:00:01Z",
        "messages": [{"id": "m", "timestamp": "2026-01-01T00:00:00Z", "type": "user", "content": "x" * 200_000}],
        "kind": "main",
    }
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    assert READER.detect_path(pretty)
    one_line = tmp_path / "one-line.json"
    one_line.write_text(json.dumps(doc), encoding="utf-8")  # longer than the sniff
    assert READER.detect_path(one_line)
    assert read_one(one_line).events[0].text == "x" * 200_000
    assert read_one(pretty).id == "gemini-s"


def test_top_level_keys():
    assert top_level_keys('{"a": 1, "b": {"c": [1, 2]}, "d": "x"}') == ({"a": 1, "b": {"c": [1, 2]}, "d": "x"}, True)
    keys, complete = top_level_keys('{"sessionId": "s", "projectHash": "h", "messages": [{"id": "m", "content": "cut')
    assert complete is False and keys == {"sessionId": "s", "projectHash": "h", "messages": None}


# -- JSON form -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def json_session():
    problems = Problems()
    return read_one(JSON_FIXTURE, problems), problems


def test_json_session_fields(json_session):
    session, problems = json_session
    assert [p.message for p in problems.items] == []
    assert_sane(session)
    assert session.id == "gemini-5b1c2d3e-0000-4000-8000-00000000json"
    assert session.agent == "gemini-cli" and session.source.format == "gemini"
    assert session.title == "Make greet() friendlier and run the tests"  # the CLI's summary
    assert session.project == "9da8b3dfb8655182ac1f0e66601c367e34f8d18447a29759eeba4d7e45dc60ea"
    assert session.cwd is None
    assert session.models == ("gemini-2.5-pro", "gemini-2.5-flash")
    assert session.started.isoformat() == "2026-03-27T10:19:12.584000+00:00"
    assert session.ended.isoformat() == "2026-03-27T10:22:00.022000+00:00"
    assert session.meta["kind"] == "main" and session.meta["projectHash"] == session.project
    assert [e.line for e in session.events if e.kind == Kind.USER] == [1]  # record index in messages[]


def test_json_thoughts_and_messages(json_session):
    session, _ = json_session
    ev = by_id(session)
    thought = ev["g1-thought-0"]
    assert thought.kind == Kind.THINKING and thought.title == "Reading the code"
    assert thought.text == "**Reading the code**\n\nI should look at app.py first."
    assert thought.timestamp.isoformat() == "2026-03-27T10:19:15.969000+00:00"
    assert thought.model == "gemini-2.5-pro"
    assert (
        ev["g2"].kind == Kind.ASSISTANT
        and ev["g2"].text == "Changing the greeting."
        and ev["g2"].model == "gemini-2.5-pro"
    )
    assert ev["g3"].model == "gemini-2.5-flash"
    assert (ev["i1"].kind, ev["i1"].title, dict(ev["i1"].meta)) == (Kind.SYSTEM, "Info", {})
    assert (ev["e1"].kind, ev["e1"].title, ev["e1"].meta["level"]) == (Kind.SYSTEM, "Error", "error")
    assert (ev["w1"].title, ev["w1"].meta["level"]) == ("Warning", "warning")
    assert ev["x1"].kind == Kind.UNKNOWN and ev["x1"].raw["type"] == "hologram"


def test_json_tool_calls(json_session):
    session, _ = json_session
    ev = by_id(session)
    read = ev["read-1"]
    assert (read.kind, read.category, read.path, read.call_id) == (
        Kind.TOOL_CALL,
        ToolCategory.READ,
        "app.py",
        "read-1",
    )
    assert ev["read-1-result"].text == "def greet(name):\n    return 'hi ' + name\n"
    edit = ev["edit-1"]
    assert edit.category == ToolCategory.EDIT and edit.path == "/home/dev/greeter/app.py"
    assert (
        edit.diff == "--- app.py\n+++ app.py\n@@ -1,3 +1,3 @@\n def greet(name):\n"
        "-    return 'hi ' + name\n+    return f'hello {name}'\n "
    )
    assert (
        edit.meta["diffStat"] == {"model_added_lines": 1, "model_removed_lines": 1} and edit.meta["isNewFile"] is False
    )
    shell = ev["shell-1"]
    assert (shell.category, shell.command, shell.meta["directory"]) == (ToolCategory.SHELL, "pytest -q", ".")
    result = ev["shell-1-result"]
    assert (result.exit_code, result.is_error) == (1, True)
    assert "Exit Code: 1" in result.text
    # an error response
    failed = ev["write-1-result"]
    assert failed.is_error and failed.text == "Permission denied: notes.txt" and failed.meta["status"] == "error"
    assert (
        ev["write-1"].diff == "--- /dev/null\n+++ notes.txt\n@@ -0,0 +1,1 @@\n+greet now says hello"
    )  # no fileDiff: built from the args
    # cancelled with no result: still a (failed) result, not silently missing
    cancelled = ev["fetch-1-result"]
    assert cancelled.is_error and cancelled.text == "" and cancelled.meta["status"] == "cancelled"
    assert ev["fetch-1"].category == ToolCategory.WEB


def test_json_usage_once_per_message(json_session):
    session, _ = json_session
    ev = by_id(session)
    assert ev["read-1"].usage == Usage(3994, 412, 7900, 0, 344)  # the message's only model event after its thought
    assert ev["fetch-1"].usage == Usage(
        1110, 120, 11000, 0, 0
    )  # the last call of g2 (tool prompt tokens count as input)
    assert sum(1 for e in session.events if e.usage) == 3
    assert total_usage(session) == expected_usage(final_messages(JSON_FIXTURE))
    assert usage_of({"input": 10, "output": 2, "cached": 4, "thoughts": 3, "tool": 1, "total": 16}).total == 16


# -- JSONL form ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def jsonl_session():
    problems = Problems()
    return read_one(JSONL_FIXTURE, problems), problems


def test_jsonl_header_and_set_lines(jsonl_session):
    session, problems = jsonl_session
    assert problems.items == []
    assert_sane(session)
    assert session.id == "gemini-0ab84937-9fe7-4284-986a-33c832af0b6a"
    assert session.ended.isoformat() == "2026-04-23T12:58:35.591000+00:00"  # from the last $set
    assert session.title == "Generate GEMINI.md for the bot"  # summary set by a $set line
    assert session.skipped["$set metadata update (applied to the session details)"] == 4
    assert session.models == ("gemini-3-flash-preview", "gemini-3.1-pro-preview")


def test_jsonl_rewritten_message_last_write_wins_in_first_place(jsonl_session):
    session, _ = jsonl_session
    order = [e.id for e in session.events]
    assert order == [
        "i1",
        "u1",
        "g1-thought-0",
        "r1",
        "r1-result",
        "t1",
        "t1-result",
        "u2",
        "g2",
        "rewind-13",
        "u4",
        "g4",
    ]
    assert session.skipped["earlier write of a re-written message (the last write is shown)"] == 1
    # the usage is the last write's, counted once
    assert by_id(session)["t1"].usage == Usage(13906, 491, 0, 0, 306)
    assert total_usage(session) == expected_usage(final_messages(JSONL_FIXTURE))
    assert [e.line for e in session.events][:2] == [2, 4]


def test_jsonl_display_content_and_auto_messages(jsonl_session):
    session, _ = jsonl_session
    ev = by_id(session)
    init = ev["u1"]
    assert init.kind == Kind.USER and init.text == "/init" and init.meta["expanded"] is True
    assert (
        init.blocks[0].type == "code"
        and init.blocks[0].title == "Sent to the model"
        and "GEMINI.md" in init.blocks[0].text
    )
    auto = ev["u2"]
    assert auto.kind == Kind.SYSTEM and auto.text == "System: Please continue."
    assert auto.blocks == (
        Block(
            "json",
            title="functionResponse",
            data={"id": "t1", "name": "update_topic", "response": {"output": "Current topic: GEMINI.md"}},
        ),
    )
    assert [e.text for e in session.events if e.kind == Kind.USER] == ["/init", "Add a section on uv run"]


def test_jsonl_rewind_discards_and_says_so(jsonl_session):
    session, _ = jsonl_session
    ev = by_id(session)
    assert "u3" not in ev and "g3" not in ev
    marker = ev["rewind-13"]
    assert marker.kind == Kind.SYSTEM and marker.title == "Conversation rewound" and marker.meta["rewind_to"] == "u3"
    assert session.skipped["message discarded by a rewind ($rewindTo)"] == 2


# -- damaged input ---------------------------------------------------------------------------


def test_damaged_lines_are_reported_and_the_rest_kept():
    problems = Problems()
    session = read_one(GEMINI / "damaged.jsonl", problems)
    lines = {p.line: p.message for p in problems.items}
    assert "malformed JSON" in lines[3]
    assert "unrecognised Gemini chat line" in lines[4]
    assert "$set is not an object" in lines[5]
    assert "toolCalls[0] is not an object" in lines[6]
    assert "unknown message 'nope'; nothing discarded" in lines[7]
    assert "truncated JSON" in lines[9]
    ev = by_id(session)
    assert ev["u1"].text == "first" and ev["u2"].text == "after the bad rewind"
    assert ev["g2"].text == "part one and two"
    assert ev["g2-call-0"].kind == Kind.UNKNOWN and ev["g2-call-0"].raw == "oops"
    glob = ev["g2-glob"]
    assert glob.category == ToolCategory.SEARCH and glob.path == "src" and glob.meta["status"] == "executing"
    assert "g2-glob-result" not in ev  # still running: no result yet
    assert sum(1 for e in session.events if e.kind == Kind.UNKNOWN) == 3
    assert session.skipped == {}


@pytest.mark.parametrize(
    "name, text",
    [
        ("a.json", "\x00\x01 binary"),
        ("b.json", '{"sessionId": 5, "projectHash": "h", "messages": "nope"}'),
        (
            "c.json",
            '{"sessionId": "s", "projectHash": "h", "messages": [1, {"type": "gemini", '
            '"toolCalls": [{"name": 3, "args": "x", "result": {"functionResponse": 4}}], '
            '"thoughts": "t", "tokens": []}]}',
        ),
        (
            "d.json",
            '{"sessionId": "s", "projectHash": "h", "messages": [{"id": "u", "type": "user", '
            '"content": [{"inlineData": {"mimeType": "image/png", "data": "iVBOR"}}, '
            '{"fileData": {"fileUri": "gs://x"}}, {"weird": 1}], "displayContent": 7}]}',
        ),
        (
            "e.jsonl",
            '{"sessionId": "s", "projectHash": "h", "kind": "main"}\n'
            '{"$rewindTo": null}\n'
            '{"id": "m", "type": "gemini", "content": {"text": "hi"}, "toolCalls": [{"id": "c", "name": "replace", '
            '"args": {"file_path": "f"}, "resultDisplay": [[{"text": "ansi"}]], "status": "awaiting_approval"}]}\n',
        ),
        ("f.jsonl", "[1]\n"),
    ],
)
def test_never_raises_on_bad_input(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    problems = Problems()
    for session in READER.read(path, problems):
        ids = [e.id for e in session.events]
        assert len(ids) == len(set(ids))


def test_clean_file_diff():
    raw = (
        "Index: a.py\n===================================================================\n"
        "--- a.py\tOriginal\n+++ a.py\tWritten\n@@ -1 +1 @@\n-x\n+y\n"
    )
    assert clean_file_diff(raw) == "--- a.py\n+++ a.py\n@@ -1 +1 @@\n-x\n+y"


# -- the real samples --------------------------------------------------------------------------


def test_samples_are_detected_and_read(samples):
    files = sorted(p for p in (samples / "gemini").iterdir() if p.is_file())
    assert files
    for path in files:
        assert READER.detect_path(path), path.name
        problems = Problems()
        session = read_one(path, problems)
        assert problems.items == [], path.name
        assert_sane(session)
        assert session.agent == "gemini-cli" and session.project and session.title
        assert session.started and session.ended and session.started <= session.ended
        assert session.models
        assert not any(e.kind == Kind.UNKNOWN for e in session.events), path.name
        messages = final_messages(path)
        calls = sum(len(m.get("toolCalls") or []) for m in messages)
        assert sum(1 for e in session.events if e.kind == Kind.TOOL_CALL) == calls, path.name
        assert total_usage(session) == expected_usage(messages), path.name


def test_jsonl_sample_rewrites(samples):
    path = samples / "gemini" / "vct-session-0ab84937.jsonl"
    if not path.exists():
        pytest.skip("sample missing")
    session = read_one(path)
    assert session.skipped["earlier write of a re-written message (the last write is shown)"] == 5
    assert session.title == "/init"
    edits = [e for e in session.events if e.category == ToolCategory.EDIT]
    assert [e.tool_name for e in edits] == ["write_file", "replace"] and all(
        e.diff and e.path == "GEMINI.md" for e in edits
    )


def test_synthetic_sample_shell_exit_codes(samples):
    path = samples / "gemini" / "SYNTHETIC-agent-sessions-large.json"
    if not path.exists():
        pytest.skip("sample missing")
    session = read_one(path)
    results = [e for e in session.events if e.kind == Kind.TOOL_RESULT]
    assert [(r.exit_code, r.is_error) for r in results] == [(0, False), (1, True)]
    assert [e.text for e in session.events if e.kind == Kind.ASSISTANT] == [
        "Captured multiline output.",
        "Ok",
    ]  # type "model" with parts


# -- the demo archive session ------------------------------------------------------------------


def test_example_archive_session_reads_cleanly():
    files = sorted(EXAMPLE.rglob("session-*.json"))
    assert len(files) == 1
    path = files[0]
    assert path.parent.name == "chats" and path.name == "session-2026-10-13T08-00-ab12cd34.json"
    problems = Problems()
    assert [(c.reader.name, c.path) for c in discover(EXAMPLE, problems).claims] == [("gemini", path)]
    session = read_one(path, problems)
    assert problems.items == []
    assert_sane(session)
    assert session.project == path.parent.parent.name
    kinds = {e.kind for e in session.events}
    assert {Kind.USER, Kind.ASSISTANT, Kind.THINKING, Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.SYSTEM} <= kinds
    assert Kind.UNKNOWN not in kinds
    edits = [e for e in session.events if e.category == ToolCategory.EDIT]
    assert len(edits) == 2 and all(e.diff.startswith("--- report.py\n+++ report.py\n@@") for e in edits)
    shell = next(e for e in session.events if e.kind == Kind.TOOL_RESULT and e.tool_name == "run_shell_command")
    assert shell.exit_code == 0 and not shell.is_error
    assert total_usage(session) == expected_usage(final_messages(path))


def test_a_chat_without_messages_is_skipped_with_a_problem(tmp_path):
    path = tmp_path / "session-empty.jsonl"
    path.write_text(
        '{"sessionId":"s","projectHash":"h","startTime":"2026-01-01T00:00:00Z","lastUpdated":"2026-01-01T00:00:00Z","kind":"main"}\n'
        '{"$set":{"lastUpdated":"2026-01-01T00:00:05Z"}}\n',
        encoding="utf-8",
    )
    problems = Problems()
    assert list(READER.read(path, problems)) == []
    assert [p.message for p in problems.items] == ["no Gemini chat messages; skipped"]


def test_set_carrying_messages_adds_them(tmp_path):
    path = tmp_path / "session-set.jsonl"
    path.write_text(
        '{"sessionId":"s","projectHash":"h","kind":"main"}\n'
        '{"$set":{"messages":[{"id":"u","type":"user","content":"hi"}],"summary":"S"}}\n',
        encoding="utf-8",
    )
    session = read_one(path)
    assert [e.text for e in session.events] == ["hi"] and "messages" not in session.meta and session.title == "S"
