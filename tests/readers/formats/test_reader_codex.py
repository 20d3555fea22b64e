"""The Codex CLI rollout reader: hand-written fixtures per CLI generation, the real samples, the demo session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sessite.model import Block, Kind, Problems, ToolCategory, Usage
from sessite.readers import discover, registry
from sessite.readers.formats.codex import READER, command_line, parse_output, patch_to_diff

REPO = Path(__file__).resolve().parents[3]
CODEX = Path(__file__).resolve().parents[2] / "fixtures" / "codex"
EXAMPLE = REPO / "example-archive" / "codex"
LEGACY = CODEX / "rollout-2025-08-18T01-16-13-c3c4b301-27c8-4c70-b6e4-46b99fdf0236.jsonl"


def read_one(path: Path, problems: Problems | None = None):
    sessions = list(READER.read(path, problems if problems is not None else Problems()))
    assert len(sessions) == 1, sessions
    return sessions[0]


def walk(events):
    for event in events:
        yield event
        yield from walk(event.children)


def by_line(session, line: int):
    return [e for e in session.events if e.line == line]


def total_usage(session) -> Usage:
    return sum((e.usage for e in walk(session.events) if e.usage), Usage())


def final_total(path: Path) -> Usage:
    """Independent recomputation: the last cumulative total_token_usage in the file."""
    last = None
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        payload = rec.get("payload") if isinstance(rec, dict) else None
        if isinstance(payload, dict) and payload.get("type") == "token_count" and isinstance(payload.get("info"), dict):
            last = payload["info"]["total_token_usage"]
    if last is None:
        return Usage()
    return Usage(
        last["input_tokens"] - last["cached_input_tokens"],
        last["output_tokens"],
        last["cached_input_tokens"],
        0,
        last["reasoning_output_tokens"],
    )


def assert_sane(session) -> None:
    events = list(walk(session.events))
    ids = [e.id for e in events]
    assert len(ids) == len(set(ids)), "event ids must be unique within a session"
    for event in events:
        assert event.line is not None and event.line >= 1
        if event.timestamp is not None:
            assert event.timestamp.tzinfo is not None
    calls = {e.call_id for e in events if e.kind == Kind.TOOL_CALL and e.call_id}
    results = [e.call_id for e in events if e.kind == Kind.TOOL_RESULT and e.call_id in calls]
    assert len(results) == len(set(results)), "a call has at most one result"


# -- reader contract and detection -----------------------------------------------------


def test_reader_contract():
    assert READER.name == "codex"
    assert READER.claims_directories is False
    assert "codex" in [r.name for r in registry()]


@pytest.mark.parametrize("name", sorted(p.name for p in CODEX.glob("*.jsonl")))
def test_detects_fixtures(name):
    assert READER.detect_path(CODEX / name)


def test_detects_by_content_not_name(tmp_path):
    line = '{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x","cwd":"/"}}\n'
    anywhere = tmp_path / "whatever.jsonl"
    anywhere.write_text(line, encoding="utf-8")
    assert READER.detect_path(anywhere)
    # a session_meta line too long for the sniff is judged by its opening
    long = tmp_path / "long.jsonl"
    long.write_text(
        '{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x","base_instructions":{"text":"'
        + "x" * 100_000
        + '"}}}\n'
        '{"timestamp":"2026-01-01T00:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"hi"}}\n',
        encoding="utf-8",
    )
    assert READER.detect_path(long)
    session = read_one(long)
    assert session.id == "codex-x" and "x" * 100 in session.meta["base_instructions"]


@pytest.mark.parametrize(
    "name, text",
    [
        ("claude.jsonl", '{"type":"user","sessionId":"s","uuid":"u","message":{"role":"user","content":"hi"}}\n'),
        ("h.hail.jsonl", '{"type":"header","version":"hail-1.0.0","session_id":"x"}\n'),
        ("session-1.json", '{"sessionId":"g","projectHash":"h","messages":[]}'),
        ("gemini.jsonl", '{"sessionId":"g","projectHash":"h","startTime":"2026-01-01T00:00:00Z","kind":"main"}\n'),
        (
            "meta-not-first.jsonl",
            '{"type":"event_msg","payload":{}}\n{"timestamp":"t","type":"session_meta","payload":{}}\n',
        ),
        (
            "bare-id.jsonl",
            '{"id":"x","timestamp":"2026-01-01T00:00:00Z"}\n{"id":"y","timestamp":"2026-01-01T00:00:01Z"}\n',
        ),
        ("empty.jsonl", ""),
        ("notes.txt", '{"timestamp":"t","type":"session_meta","payload":{}}\n'),
    ],
)
def test_does_not_claim_other_formats(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert READER.detect_path(path) is False


def test_legacy_header_needs_codex_lines_or_name(tmp_path):
    header = '{"id":"c3c4b301","timestamp":"2025-08-18T01:16:13.522Z","instructions":null}\n'
    state = tmp_path / "any.jsonl"
    state.write_text(header + '{"record_type":"state"}\n', encoding="utf-8")
    assert READER.detect_path(state)
    named = tmp_path / "rollout-2025-08-18T01-16-13-c3c4b301.jsonl"
    named.write_text(header, encoding="utf-8")
    assert READER.detect_path(named)


# -- 0.39: shell with argv, JSON-string output, agent_message before the item ------------------


@pytest.fixture(scope="module")
def v039():
    problems = Problems()
    return read_one(CODEX / "v0.39-shell.jsonl", problems), problems


def test_v039_session_fields(v039):
    session, problems = v039
    assert problems.items == []
    assert_sane(session)
    assert session.id == "codex-01996135-0000-7000-8000-000000000039"
    assert session.agent == "codex" and session.source.format == "codex"
    assert session.cwd == "/home/dev/gotool" and session.project == "gotool"
    assert session.models == ("gpt-5",)
    assert session.git.branches == ("main",)
    assert session.git.commits == ("87d292ac346e58c85dc4eef0a8dd13bd02ec0c7f",)
    assert session.git.repos == ("https://github.com/example/gotool",)
    assert session.meta["originator"] == "codex_vscode" and session.meta["cli_version"] == "0.39.0"
    assert session.meta["turn_context"]["sandbox_policy"] == {"mode": "danger-full-access"}
    # The IDE preamble is not the title; the request is.
    assert session.title == "Bump the go directive to 1.24 and run the tests"
    assert session.started.isoformat() == "2025-09-19T09:00:00+00:00"


def test_v039_duplicate_text_is_shown_once(v039):
    session, _ = v039
    kinds = [e.kind for e in session.events]
    assert kinds.count(Kind.USER) == 1
    assert [e.text for e in session.events if e.kind == Kind.ASSISTANT] == [
        "I'll look at go.mod first.",
        "The go directive is now 1.24; `TestParse` fails and needs a look.",
    ]
    # the first copy is kept (agent_message precedes the response item in 0.39)
    assert [e.line for e in session.events if e.kind == Kind.ASSISTANT] == [6, 24]
    assert session.skipped["assistant message shown twice (event_msg.agent_message and response_item.message)"] == 2
    assert session.skipped["user message shown twice (event_msg.user_message and response_item.message)"] == 1
    assert session.skipped["reasoning item without readable text (encrypted or empty summary)"] == 2
    assert (
        session.skipped["turn_context (model and policies, restated every turn; the model is shown on each response)"]
        == 4
    )
    env = session.events[0]
    assert env.kind == Kind.SYSTEM and env.title == "Environment context" and "<cwd>/home/dev/gotool</cwd>" in env.text


def test_v039_shell_calls(v039):
    session, _ = v039
    calls = {e.call_id: e for e in session.events if e.kind == Kind.TOOL_CALL}
    results = {e.call_id: e for e in session.events if e.kind == Kind.TOOL_RESULT}
    cat = calls["call_cat"]
    assert (cat.tool_name, cat.category, cat.command) == ("shell", ToolCategory.SHELL, "cat go.mod")
    assert cat.tool_input == {"command": ["bash", "-lc", "cat go.mod"]}
    assert results["call_cat"].text == "module example.com/gotool\n\ngo 1.22\n"
    assert results["call_cat"].exit_code == 0 and results["call_cat"].is_error is False
    assert results["call_cat"].meta["duration_seconds"] == 0.1
    test = calls["call_test"]
    assert test.command == "go test ./..."  # not wrapped in a shell: argv joined
    assert test.meta["workdir"] == "/home/dev/gotool"
    assert results["call_test"].exit_code == 1 and results["call_test"].is_error is True
    # apply_patch through a shell heredoc is an edit with a diff
    patch = calls["call_patch"]
    assert (patch.category, patch.path, patch.command) == (ToolCategory.EDIT, "go.mod", None)
    assert patch.diff == "--- a/go.mod\n+++ b/go.mod\n@@\n module example.com/gotool\n \n-go 1.22\n+go 1.24"
    plan = calls["call_plan"]
    assert plan.text == "Tests fail after the bump.\n\n- [x] Bump go directive\n- [ ] Fix TestParse *(in progress)*"


def test_v039_tokens_are_counted_once(v039):
    session, _ = v039
    path = CODEX / "v0.39-shell.jsonl"
    assert session.skipped["token_count repeated (cumulative total unchanged; counted once)"] == 1
    assert total_usage(session) == final_total(path) == Usage(1600, 400, 3500, 0, 160)
    assert session.usage is None
    assert session.meta["token_total"]["total_tokens"] == 5500
    # each turn's usage sits on that turn's last model event
    first = next(e for e in session.events if e.kind == Kind.ASSISTANT)
    assert first.usage == Usage(800, 100, 200, 0, 60)
    assert all(e.model == "gpt-5" for e in session.events if e.kind in (Kind.ASSISTANT, Kind.TOOL_CALL))


# -- 0.60: shell_command, apply_patch custom tool, ghost snapshots, aborted turns -----------------


@pytest.fixture(scope="module")
def v060():
    problems = Problems()
    return read_one(CODEX / "v0.60-shell-command.jsonl", problems), problems


def test_v060_context_messages_are_system(v060):
    session, problems = v060
    assert problems.items == []
    assert_sane(session)
    agents, env = session.events[0], session.events[1]
    assert (agents.kind, agents.title) == (Kind.SYSTEM, "AGENTS.md instructions")
    assert agents.text == "Use tabs in HTML." and agents.meta["instructions_for"] == "/home/dev/site"
    assert (env.kind, env.title) == (Kind.SYSTEM, "Environment context")
    assert session.title == "Make a landing page and move the stylesheet"
    assert [e.text for e in session.events if e.kind == Kind.USER] == [
        "Make a landing page and move the stylesheet",
        "Leave the validator, just summarise",
    ]
    assert session.git.repos == ("git@github.com:example/site.git",) and session.git.branches == ("feat/landing",)
    assert session.meta["instructions"] == "Use tabs in HTML."
    assert session.meta["source"] == "cli" and session.meta["model_provider"] == "openai"


def test_v060_shell_command_exit_codes(v060):
    session, _ = v060
    results = {e.call_id: e for e in session.events if e.kind == Kind.TOOL_RESULT}
    calls = {e.call_id: e for e in session.events if e.kind == Kind.TOOL_CALL}
    assert calls["call_ls"].command == "ls -a" and calls["call_ls"].category == ToolCategory.SHELL
    ok = results["call_ls"]
    assert (ok.exit_code, ok.is_error, ok.text) == (0, False, ".\n..\nold.html\nstyle.css\n")
    assert ok.meta["wall_time_seconds"] == 0.1
    lint = results["call_lint"]
    assert (lint.exit_code, lint.is_error) == (2, True)
    assert lint.text == "index.html:2:1 error <html> is missing\n1 error\n"
    assert lint.meta["total_output_lines"] == 2


def test_v060_apply_patch_becomes_a_diff(v060):
    session, _ = v060
    call = next(e for e in session.events if e.tool_name == "apply_patch")
    assert call.kind == Kind.TOOL_CALL and call.category == ToolCategory.EDIT
    assert call.path == "index.html, style.css, css/style.css, old.html"
    assert call.diff.split("\n") == [
        "--- /dev/null",
        "+++ b/index.html",
        "@@ -0,0 +1,2 @@",
        "+<!doctype html>",
        "+<title>Hello</title>",
        "--- a/style.css",
        "+++ b/css/style.css",
        "@@ body {",
        "-  color: black;",
        "+  color: #222;",
        " ",
        " }",
        "--- a/old.html",
        "+++ /dev/null",
    ]
    result = next(e for e in session.events if e.kind == Kind.TOOL_RESULT and e.call_id == call.call_id)
    assert result.exit_code == 0 and result.text.startswith("Success. Updated the following files:")


def test_v060_other_records(v060):
    session, _ = v060
    assert session.skipped["ghost_snapshot (undo checkpoint commit)"] == 1
    assert session.skipped["token_count with rate limits only (no token info)"] == 1
    assert session.skipped["reasoning summary shown twice (event_msg.agent_reasoning and response_item.reasoning)"] == 1
    thinking = [e for e in session.events if e.kind == Kind.THINKING]
    assert [t.text for t in thinking] == ["**Inspecting the site folder**"] and thinking[0].line == 8
    web = next(e for e in session.events if e.category == ToolCategory.WEB)
    assert web.tool_name == "web_search" and web.text == "html-validate missing html element"
    aborted = next(e for e in session.events if e.title == "Turn aborted")
    assert aborted.kind == Kind.SYSTEM and aborted.meta["reason"] == "interrupted"
    assert total_usage(session) == final_total(CODEX / "v0.60-shell-command.jsonl")
    # the assistant text came as a response item first this time; its agent_message echo is dropped
    assert [e.line for e in session.events if e.kind == Kind.ASSISTANT] == [27]


# -- 0.104-style: exec_command, completion notices, turn markers -----------------------------------


@pytest.fixture(scope="module")
def v0104():
    problems = Problems()
    return read_one(CODEX / "v0.104-exec-command.jsonl", problems), problems


def test_v0104_session(v0104):
    session, problems = v0104
    assert problems.items == []
    assert_sane(session)
    assert session.meta["originator"] == "Codex Desktop" and session.meta["source"] == "vscode"
    assert session.meta["base_instructions"] == "You are Codex, a coding agent."
    assert session.meta["turn_context"]["personality"] == "pragmatic"
    assert session.models == ("gpt-5.3-codex",)
    developer = session.events[0]
    assert developer.kind == Kind.SYSTEM and developer.title == "Developer instructions"
    start = next(e for e in session.events if e.kind == Kind.TASK_START)
    assert start.meta["turn_id"] == "turn-1" and start.meta["model_context_window"] == 258400
    end = next(e for e in session.events if e.kind == Kind.TASK_END)
    assert end.text == ""  # last_agent_message repeats the final answer already shown
    user = next(e for e in session.events if e.kind == Kind.USER)
    assert user.blocks == (Block("image", uri="data:image/png;base64,iVBORw0KGgo=", mime="image/png"),)
    phases = [e.meta.get("phase") for e in session.events if e.kind == Kind.ASSISTANT]
    assert phases == ["commentary", "final_answer"]


def test_v0104_exec_command_is_one_call_and_one_result(v0104):
    session, _ = v0104
    call = next(e for e in session.events if e.call_id == "call_pytest" and e.kind == Kind.TOOL_CALL)
    assert (call.tool_name, call.category, call.command) == (
        "exec_command",
        ToolCategory.SHELL,
        "pytest -q tests/test_timefmt.py",
    )
    results = [e for e in session.events if e.call_id == "call_pytest" and e.kind == Kind.TOOL_RESULT]
    assert len(results) == 1
    result = results[0]
    assert (result.exit_code, result.is_error) == (1, True)
    assert result.text == "..F.\n1 failed, 3 passed in 0.41s\n"  # the clean output, not the model-facing header
    assert result.meta["duration_seconds"] == 1.702 and result.meta["chunk_id"] == "4be1c0"
    assert session.skipped["function_call_output (merged with the completion notice shown as the result)"] == 2
    running = next(e for e in session.events if e.call_id == "call_long" and e.kind == Kind.TOOL_RESULT)
    assert running.exit_code is None and running.meta["running_session_id"] == 46332
    poll = next(e for e in session.events if e.call_id == "call_poll" and e.kind == Kind.TOOL_RESULT)
    assert poll.exit_code == 0 and poll.text.endswith("4 passed in 0.38s\n")


def test_v0104_patch_and_mcp_notices_merge(v0104):
    session, _ = v0104
    patch = next(e for e in session.events if e.call_id == "call_fix" and e.kind == Kind.TOOL_CALL)
    assert patch.diff.startswith("--- a/tidepool/timefmt.py\n+++ b/tidepool/timefmt.py\n@@ def parse_duration")
    patch_results = [e for e in session.events if e.call_id == "call_fix" and e.kind == Kind.TOOL_RESULT]
    assert len(patch_results) == 1 and patch_results[0].meta["success"] is True and patch_results[0].diff is None
    assert session.skipped["custom_tool_call_output (merged with the completion notice shown as the result)"] == 1
    mcp = [e for e in session.events if e.call_id == "call_mcp"]
    assert [e.kind for e in mcp] == [Kind.TOOL_CALL, Kind.TOOL_RESULT]
    assert mcp[1].text == "datetime.timedelta: a duration" and mcp[1].meta["duration_seconds"] == 0.25


def test_v0104_user_shell_command_and_markers(v0104):
    session, _ = v0104
    shell = [e for e in session.events if e.call_id == "user-shell-1"]
    assert [e.kind for e in shell] == [Kind.TOOL_CALL, Kind.TOOL_RESULT]
    assert shell[0].command == "git status --short" and shell[0].tool_name == "user shell command"
    assert shell[1].exit_code == 0 and shell[1].meta["source"] == "user_shell"
    compactions = [e for e in session.events if e.kind == Kind.COMPACTION]
    assert [c.title for c in compactions] == ["Context compacted", "Conversation compacted"]
    assert compactions[1].text == "Fixed parse_duration; tests pass."
    plan = next(e for e in session.events if e.title == "Plan")
    assert plan.kind == Kind.SYSTEM and plan.text.startswith("1. reproduce")
    assert session.skipped["item_completed (a copy of an item recorded as a response item)"] == 1
    assert session.skipped["exec_command_begin (the call and its end notice carry the command)"] == 1
    # unknown types are kept as raw JSON, never dropped
    unknown = [e for e in session.events if e.kind == Kind.UNKNOWN]
    assert [u.raw.get("type") for u in unknown] == ["hologram_projected"]
    image = [e for e in session.events if e.call_id == "ig_1"]  # an image generation is a call and its result
    assert [e.kind for e in image] == [Kind.TOOL_CALL, Kind.TOOL_RESULT]


def test_v0104_tokens(v0104):
    session, _ = v0104
    assert total_usage(session) == final_total(CODEX / "v0.104-exec-command.jsonl") == Usage(9000, 1100, 33000, 0, 400)
    assert session.skipped["token_count repeated (cumulative total unchanged; counted once)"] == 1


# -- legacy record-style rollouts ------------------------------------------------------------------


def test_legacy_record_style():
    problems = Problems()
    session = read_one(LEGACY, problems)
    assert problems.items == []
    assert_sane(session)
    assert session.id == "codex-c3c4b301-27c8-4c70-b6e4-46b99fdf0236"
    assert session.meta["format"] == "legacy record-style rollout"
    assert session.cwd == "/Users/x/dev/legacy-thing"  # recovered from <environment_context>
    assert session.git.branches == ("main",)
    assert session.started.isoformat() == "2025-08-18T01:16:13.522000+00:00"
    assert [e.kind for e in session.events] == [
        Kind.SYSTEM,
        Kind.USER,
        Kind.THINKING,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.ASSISTANT,
    ]
    assert session.events[3].command == "echo hi" and session.events[4].exit_code == 0
    assert session.skipped == {"state record (legacy rollout bookkeeping)": 3}
    assert session.title == "hello codex"


# -- damaged input ---------------------------------------------------------------------------------


def test_damaged_lines_are_reported_and_the_rest_kept():
    problems = Problems()
    session = read_one(CODEX / "damaged.jsonl", problems)
    lines = {p.line: p.message for p in problems.items}
    assert "malformed JSON" in lines[3]
    assert "expected a JSON object" in lines[4]
    assert "no payload object" in lines[5]
    assert "truncated JSON" in lines[10]
    assert session.project == "proj"  # a Windows cwd
    assert session.events[0].text == "first prompt"
    assert session.events[-1].text == "last complete line"
    unknown = next(e for e in session.events if e.kind == Kind.UNKNOWN)
    assert unknown.line == 5 and unknown.raw["payload"] == "not an object"
    bad_call = next(e for e in session.events if e.call_id == "call_bad" and e.kind == Kind.TOOL_CALL)
    assert bad_call.tool_input == "{not json" and bad_call.meta["arguments"] == "not valid JSON; shown as given"
    failed = next(e for e in session.events if e.call_id == "call_bad" and e.kind == Kind.TOOL_RESULT)
    assert failed.is_error and failed.text == "tool crashed"
    orphan = next(e for e in session.events if e.call_id == "call_nowhere")
    assert orphan.kind == Kind.TOOL_RESULT and orphan.meta["unmatched_call"] is True


@pytest.mark.parametrize(
    "text",
    [
        "\x00\x01\x02 binary",
        '{"timestamp":"x","type":"session_meta","payload":[]}\n',
        '{"timestamp":"x","type":"session_meta","payload":{"id":7,"git":"main","cwd":["a"]}}\n'
        '{"type":"turn_context","payload":{"model":5}}\n',
        '{"timestamp":"x","type":"session_meta","payload":{"id":"a"}}\n'
        '{"timestamp":"y","type":"response_item","payload":{"type":"message","role":"user","content":"plain string"}}\n'
        '{"timestamp":"y","type":"response_item","payload":{"type":"function_call_output","call_id":5,'
        '"output":[1,{"type":"input_image"}]}}\n'
        '{"timestamp":"y","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":"lots",'
        '"last_token_usage":[]}}}\n'
        '{"timestamp":"y","type":"event_msg","payload":{"type":"exec_command_end","call_id":null,"command":"ls",'
        '"exit_code":"0","duration":"1.5s"}}\n'
        '{"timestamp":"y","type":"event_msg","payload":{"type":"patch_apply_end","changes":{"a.txt":{"type":"add",'
        '"content":"x"},"b.txt":"weird"}}}\n'
        '{"timestamp":"y","type":"event_msg","payload":{"type":"mcp_tool_call_end","result":{"Err":"boom"}}}\n'
        '{"timestamp":"y","type":"response_item","payload":{"type":"reasoning","summary":"text","content":{"x":1}}}\n'
        '{"timestamp":"y","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch",'
        '"input":"*** Begin Patch\\nnonsense"}}\n',
        '{"id":"legacy","timestamp":"2025-08-01T00:00:00Z"}\n{"type":"message","role":"assistant","content":null}\n'
        '{"record_type":"state"}\n',
    ],
)
def test_never_raises_on_bad_input(tmp_path, text):
    path = tmp_path / "rollout-bad.jsonl"
    path.write_text(text, encoding="utf-8")
    problems = Problems()
    for session in READER.read(path, problems):
        assert_sane(session)


def test_session_meta_missing_uses_the_file_name(tmp_path):
    path = tmp_path / "rollout-2026-01-01T00-00-00-11111111-2222-4333-8444-555555555555.jsonl"
    path.write_text(
        '{"timestamp":"2026-01-01T00:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"hi"}}\n',
        encoding="utf-8",
    )
    problems = Problems()
    session = read_one(path, problems)
    assert session.id == "codex-11111111-2222-4333-8444-555555555555"
    assert any("no session_meta" in p.message for p in problems.items)


def test_forked_session_keeps_its_own_meta(tmp_path):
    path = tmp_path / "fork.jsonl"
    path.write_text(
        '{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"child","cwd":"/w"}}\n'
        '{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"parent","cwd":"/w"}}\n'
        '{"timestamp":"2026-01-01T00:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"hi"}}\n',
        encoding="utf-8",
    )
    session = read_one(path)
    assert session.id == "codex-child" and session.meta["forked_from"] == ["parent"]
    assert session.skipped["session_meta of another session (history copied from it)"] == 1


# -- helpers ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["bash", "-lc", "ls -la | head"], "ls -la | head"),
        (["/bin/zsh", "-lc", "git status"], "git status"),
        (["powershell.exe", "-NoProfile", "-Command", "Get-ChildItem"], "Get-ChildItem"),
        (["go", "test", "./..."], "go test ./..."),
        (["echo", "two words"], "echo 'two words'"),
        ("already a string", "already a string"),
        ([], None),
    ],
)
def test_command_line(argv, expected):
    assert command_line(argv) == expected


def test_patch_to_diff_handles_blank_context_and_end_of_file():
    diff, paths = patch_to_diff(
        "*** Begin Patch\n*** Update File: a.py\n def f():\n\n-    pass\n+    return 1\n*** End of File\n*** End Patch"
    )
    assert paths == ["a.py"]
    assert diff == "--- a/a.py\n+++ b/a.py\n@@\n def f():\n \n-    pass\n+    return 1"
    assert patch_to_diff("no patch here") == (None, [])


def test_parse_output_generations():
    assert parse_output('{"output":"ok\\n","metadata":{"exit_code":3,"duration_seconds":1.5}}')["exit_code"] == 3
    out = parse_output("Exit code: 0\nWall time: 0 seconds\nOutput:")
    assert (out["exit_code"], out["text"]) == (0, "")
    out = parse_output("Process exited with code 127\nOutput:\nsh: nope: not found\n")
    assert (out["exit_code"], out["is_error"], out["text"]) == (127, True, "sh: nope: not found\n")
    plain = parse_output("Output:\nnot a header")
    assert (plain["exit_code"], plain["text"]) == (None, "Output:\nnot a header")
    assert parse_output({"content": "x", "success": False})["is_error"] is True


# -- the real samples ------------------------------------------------------------------------------


def test_samples_are_detected_and_read(samples):
    files = sorted(p for p in (samples / "codex").iterdir() if p.is_file())
    assert files
    for path in files:
        assert READER.detect_path(path), path.name
        problems = Problems()
        session = read_one(path, problems)
        assert problems.items == [], path.name
        assert_sane(session)
        assert session.agent == "codex" and session.cwd and session.project == Path(session.cwd).name
        assert session.started and session.ended and session.started <= session.ended
        assert session.models and session.title
        assert sum(1 for e in session.events if e.kind == Kind.USER) >= 1
        assert not any(e.kind == Kind.UNKNOWN for e in session.events)
        assert total_usage(session) == final_total(path), path.name


def test_v039_sample_details(samples):
    path = samples / "codex" / "vct-rollout-01996135-v0.39.0.jsonl"
    if not path.exists():
        pytest.skip("sample missing")
    session = read_one(path)
    kinds = [e.kind for e in session.events]
    assert kinds.count(Kind.TOOL_CALL) == kinds.count(Kind.TOOL_RESULT) == 18
    assert kinds.count(Kind.ASSISTANT) == 9 and kinds.count(Kind.USER) == 1
    assert session.title.startswith("幫我檢查一下 go.mod")
    assert session.git.repos == ("https://github.com/Mai0313/claude-code",)
    calls = [e for e in session.events if e.kind == Kind.TOOL_CALL]
    assert {e.category for e in calls} == {ToolCategory.SHELL, ToolCategory.EDIT, ToolCategory.OTHER}
    assert all(e.diff and e.path for e in calls if e.category == ToolCategory.EDIT)
    results = {e.call_id: e for e in session.events if e.kind == Kind.TOOL_RESULT}
    assert all(
        results[c.call_id].exit_code == 0
        for c in calls
        if c.category == ToolCategory.SHELL
        and c.call_id in results
        and results[c.call_id].text != "patch rejected: empty patch"
    )


# -- the demo archive session ----------------------------------------------------------------------


def test_example_archive_session_reads_cleanly():
    files = sorted(EXAMPLE.rglob("rollout-*.jsonl"))
    assert len(files) == 1
    path = files[0]
    assert path.relative_to(EXAMPLE).parts[:3] == ("2026", "10", "12")
    problems = Problems()
    claims = discover(EXAMPLE, problems).claims
    assert [(c.reader.name, c.path) for c in claims] == [("codex", path)]
    session = read_one(path, problems)
    assert problems.items == []
    assert_sane(session)
    assert session.project == "ledger" and session.git.branches == ("fix/csv-amounts",)
    kinds = {e.kind for e in session.events}
    assert {
        Kind.USER,
        Kind.ASSISTANT,
        Kind.THINKING,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.SYSTEM,
        Kind.TASK_START,
        Kind.TASK_END,
    } <= kinds
    assert Kind.UNKNOWN not in kinds
    results = [e for e in session.events if e.kind == Kind.TOOL_RESULT]
    assert [r.exit_code for r in results] == [1, 0, None, 0]
    edit = next(e for e in session.events if e.category == ToolCategory.EDIT)
    assert edit.path == "ledger/money.py, tests/test_money.py" and "+    return Decimal(cleaned)" in edit.diff
    assert total_usage(session) == final_total(path)


def test_raw_reasoning_content_is_thinking_once(tmp_path):
    path = tmp_path / "raw.jsonl"
    path.write_text(
        '{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"raw","cwd":"/w"}}\n'
        '{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"reasoning",'
        '"summary":[{"type":"summary_text","text":"**Plan**"}],'
        '"content":[{"type":"reasoning_text","text":"step one, then two"}]}}\n'
        '{"timestamp":"2026-01-01T00:00:01Z","type":"event_msg","payload":{"type":"agent_reasoning","text":"**Plan**"}}\n'
        '{"timestamp":"2026-01-01T00:00:01Z","type":"event_msg","payload":{"type":"agent_reasoning_raw_content",'
        '"text":"step one, then two"}}\n',
        encoding="utf-8",
    )
    session = read_one(path)
    thinking = [e for e in session.events if e.kind == Kind.THINKING]
    assert [(t.text, dict(t.meta)) for t in thinking] == [
        ("**Plan**", {}),
        ("step one, then two", {"raw_reasoning": True}),
    ]
    assert sum(session.skipped.values()) == 2


def test_a_rollout_without_conversation_is_skipped_with_a_problem(tmp_path):
    path = tmp_path / "rollout-empty.jsonl"
    path.write_text(
        '{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"e","cwd":"/w"}}\n'
        '{"timestamp":"2026-01-01T00:00:00Z","type":"turn_context","payload":{"model":"m"}}\n',
        encoding="utf-8",
    )
    problems = Problems()
    assert list(READER.read(path, problems)) == []
    assert [p.message for p in problems.items] == ["no Codex conversation events found; skipped"]
