"""The Qwen Code reader: chats (``.jsonl``) and the older ``session-*.json``, pairing, sub-agents
from telemetry, slash commands, rewinds, titles, session facts, damaged lines, discovery.

The hand-made fixtures (tests/fixtures/qwen_code/) hold one record of each kind the CLI
writes; the real logs in ../shared/formats/real-agents/qwen-code are read when they are there.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from helpers import FIXTURES, REPO, build_site, detected_by, parse_html

from sessite.model import Event, Kind, Problems, Session, ToolCategory, walk
from sessite.readers import discover, registry
from sessite.readers.formats.qwen_code import READER
from sessite.readers.ledger import Fate, keeping_ledger
from sessite.readers.locations import find

sys.path.insert(0, str(REPO / "benchmarks"))
from fidelity.formats import enumerator  # noqa: E402

SID = "5e0c2a1e-0000-4000-8000-00000000a0a0"
CHAT = FIXTURES / "qwen_code" / f"{SID}.jsonl"
LEGACY = FIXTURES / "qwen_code" / "tmp" / "9f2e6c1d" / "chats" / "session-2025-11-06T08-36-7c1e9a20.json"
REAL = REPO.parent / "shared" / "formats" / "real-agents" / "qwen-code"


def read_one(path: Path, problems: Problems | None = None) -> Session:
    [session] = READER.read(path, problems if problems is not None else Problems())
    return session


def by_kind(session: Session, kind: Kind) -> list[Event]:
    return [e for e in walk(session.events) if e.kind == kind]


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write_lines(path: Path, records: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def test_registered_before_the_look_alike_readers(tmp_path: Path) -> None:
    names = [r.name for r in registry()]
    assert READER.agent == "qwen-code" and names.index("qwen_code") < names.index("gemini") < names.index("claude_code")
    for path in (CHAT, LEGACY):
        assert READER.detect_path(path)
        [claim] = discover(path, Problems()).claims
        assert claim.reader.name == "qwen_code"
    assert discover(CHAT, Problems()).claims[0].key == SID


def test_it_claims_no_other_format() -> None:
    """Claude Code, Codex, Copilot CLI and Gemini files (fixtures, and the samples when here) are not Qwen Code's."""
    others = [
        p
        for name in ("claude_code", "codex", "copilot_cli", "gemini", "hail", "amp")
        for p in (FIXTURES / name).rglob("*")
    ]
    samples = REPO.parent / "shared" / "formats" / "samples"
    if samples.is_dir():
        others += [p for p in samples.rglob("*") if p.is_file()]
    assert others and not [p for p in others if p.is_file() and READER.detect_path(p)]


def test_no_other_reader_detects_its_files() -> None:
    assert detected_by(CHAT) == ["qwen_code"] and detected_by(LEGACY) == ["qwen_code"]


def test_messages_thinking_and_title() -> None:
    problems = Problems()
    session = read_one(CHAT, problems)
    assert not problems.items
    users = by_kind(session, Kind.USER)
    assert [e.text for e in users] == [
        "/about",
        "Rename the widget helper and run the tests",
        "Also update the changelog",
        "Fix that test too",
    ]
    prompt = users[1]
    assert [(b.title, b.text) for b in prompt.blocks] == [("added by a hook", "Branch policy: small commits.")]
    assert users[0].meta["slash command"] and [b.title for b in users[0].blocks] == ["about"]
    assert users[0].blocks[0].data["cliVersion"] == "0.14.1"  # the command's output, merged into it
    assert session.title == "Rename the widget helper"  # the /rename title record
    assert [e.text for e in by_kind(session, Kind.THINKING)] == ["The helper is only used in two places."]
    prose = [e.text for e in by_kind(session, Kind.ASSISTANT)]
    assert prose[0] == "I'll rename `old_name` to `new_name` and run the tests."
    assert "Which changelog section should it go under?" in prose
    assert not by_kind(session, Kind.UNKNOWN)
    assert all(e.line for e in walk(session.events))


def test_calls_are_paired_with_their_results() -> None:
    session = read_one(CHAT)
    calls = {e.call_id: e for e in by_kind(session, Kind.TOOL_CALL) if e.call_id}
    results = {e.call_id: e for e in by_kind(session, Kind.TOOL_RESULT)}
    assert set(calls) == set(results) == {"call_edit", "call_shell", "call_agent"}
    edit, shell = calls["call_edit"], calls["call_shell"]
    assert edit.category == ToolCategory.EDIT and edit.path == "/home/dev/widget/src/helper.py"
    assert edit.diff is not None and edit.diff.startswith("--- /home/dev/widget/src/helper.py\n+++ ")
    assert "-def old_name():" in edit.diff and "+def new_name():" in edit.diff and "Index:" not in edit.diff
    assert edit.meta == {"duration ms": 41, "decision": "accept"}  # from its telemetry line
    assert shell.category == ToolCategory.SHELL and shell.command == "pytest -q"
    assert results["call_shell"].exit_code == 1 and results["call_shell"].is_error
    assert results["call_edit"].meta["diffStat"] == {"model_added_lines": 1, "model_removed_lines": 1}
    # the response's tokens (prompt 12000 of which 10000 cached) on its last event, with its time
    assert shell.usage is not None and (shell.usage.input_tokens, shell.usage.cache_read_tokens) == (2000, 10000)
    assert shell.usage.output_tokens == 180 and shell.usage.reasoning_tokens == 20
    assert shell.meta["response ms"] == 3900


def test_a_sub_agent_is_nested_under_its_call_from_its_telemetry() -> None:
    session = read_one(CHAT)
    [agent] = by_kind(session, Kind.SUBAGENT)
    assert agent in session.events and agent.call_id == "call_agent" and agent.title == "explorer"
    assert [(e.kind, e.tool_name or e.title) for e in agent.children] == [
        (Kind.TOOL_CALL, "grep_search"),
        (Kind.SYSTEM, "API error"),
    ]
    grep = agent.children[0]
    assert grep.category == ToolCategory.SEARCH and grep.path == "/home/dev/widget"
    assert grep.usage is not None and grep.usage.input_tokens == 3000  # its response's tokens
    assert agent.usage is not None and agent.usage.output_tokens == 60  # the final response, which made no call
    assert agent.meta["status"] == "completed" and agent.meta["tool calls"] == 1 and agent.meta["ended by"] == "GOAL"


def test_session_facts() -> None:
    session = read_one(CHAT)
    assert session.id == f"qwen_code-{SID}" and session.agent == "qwen-code"
    assert session.cwd == "/home/dev/widget" and session.project == "widget"
    assert session.git.branches == ("rename-helper",) and session.models == ("coder-model",)
    assert session.meta["Qwen Code version"] == "0.14.1" and session.meta["context window"] == 1000000
    assert session.started is not None and session.started.isoformat() == "2026-05-04T10:00:01+00:00"
    assert session.ended is not None and session.ended.isoformat() == "2026-05-04T10:01:31+00:00"


def test_rewind_notes_and_what_is_left_out() -> None:
    session = read_one(CHAT)
    rewound = [e.text for e in walk(session.events) if e.meta.get("branch")]
    assert rewound == ["Also update the changelog", "Which changelog section should it go under?"]
    notes = {e.title: e for e in by_kind(session, Kind.SYSTEM)}
    assert "2 record(s)" in notes["Conversation rewound"].text
    assert notes["Notification"].text.startswith("Background shell finished")
    errors = [e for e in walk(session.events) if e.title == "API error"]
    assert [e.meta.get("request") for e in errors] == [None, "prompt_suggestion"] and all(e.is_error for e in errors)
    [compaction] = by_kind(session, Kind.COMPACTION)
    assert "one test still uses the old name" in compaction.text and compaction.meta["tokens after"] == 900
    assert session.skipped == {
        "session title record (used for the session title)": 1,
        "resume bookkeeping (state the CLI restores, not conversation)": 1,
    }


def test_every_line_has_a_fate() -> None:
    with keeping_ledger() as ledger:
        read_one(CHAT)
    count = len(CHAT.read_text().splitlines())
    fates = {line: fate for (path, line), (fate, _) in ledger.fates.items() if path == str(CHAT)}
    assert sorted(fates) == list(range(1, count + 1))
    assert fates[2] == Fate.MERGED  # the /about output, shown with the command
    assert fates[4] == Fate.MERGED  # a response's telemetry, in its message's details
    assert fates[20] == Fate.NOT_SHOWN  # the title record


def test_a_damaged_line_or_an_odd_value_costs_only_that_record(tmp_path: Path) -> None:
    raw = CHAT.read_text().splitlines()
    records = lines_of(CHAT)
    records[10]["message"]["parts"] = "not a list"  # the agent call's assistant record
    records[23]["message"] = 7  # "Fix that test too"
    damaged = write_lines(tmp_path / "damaged.jsonl", [*raw[:4], '{"uuid": "x", "type": "assistant", ', *records[4:]])
    problems = Problems()
    session = read_one(damaged, problems)
    assert [(p.line, p.message.split(" (")[0].split(",")[0]) for p in problems.items] == [
        (5, "malformed JSON"),
        (12, "qwen_code: message.parts is str"),
        (25, "qwen_code: message is int"),
    ]
    assert "Fix that test too" not in [e.text for e in by_kind(session, Kind.USER)]
    assert session.skipped["empty user message"] == 1 and session.skipped["assistant record without content"] == 1
    # the agent call's record lost its parts: the call is still there, from its telemetry line
    [agent_call] = [e for e in by_kind(session, Kind.TOOL_CALL) if e.tool_name == "agent"]
    assert agent_call.call_id is None and agent_call.meta["recorded"] == "by telemetry only"
    assert not by_kind(session, Kind.UNKNOWN)


def test_unknown_records_are_notes_with_one_problem_never_raw_json(tmp_path: Path) -> None:
    base = {"uuid": "u1", "parentUuid": None, "sessionId": "s1", "timestamp": "2026-05-04T10:00:00Z", "cwd": "/w"}
    odd = write_lines(
        tmp_path / "odd.jsonl",
        [
            {**base, "type": "user", "message": {"role": "user", "parts": [{"text": "hello"}]}},
            {**base, "type": "system", "subtype": "brand_new", "systemPayload": {"message": "Something new", "n": 3}},
            {**base, "type": "system", "subtype": "brand_new", "systemPayload": {"message": "Again"}},
            {
                **base,
                "type": "system",
                "subtype": "session_model",
                "systemPayload": {"modelId": "qwen3-coder-plus", "authType": "openai"},
            },
            {**base, "type": "telepathy", "message": {"parts": [{"text": "odd"}]}},
        ],
    )
    problems = Problems()
    session = read_one(odd, problems)
    assert [e.title for e in session.events[1:]] == ["brand_new", "brand_new", "Model chosen", "telepathy"]
    assert session.events[1].text == "Something new" and session.events[1].meta == {"n": 3}
    assert len(problems.items) == 2  # one per unknown kind
    assert session.models == ("qwen3-coder-plus",) and not by_kind(session, Kind.UNKNOWN)


def test_the_older_json_chat() -> None:
    problems = Problems()
    with keeping_ledger() as ledger:
        session = read_one(LEGACY, problems)
    assert not problems.items
    assert session.id == "qwen_code-7c1e9a20-0000-4000-8000-000000000b0b" and session.title == "List the config files"
    [user] = by_kind(session, Kind.USER)
    assert user.text == "List the config files" and user.blocks[0].title == "added by Qwen Code"
    assert [e.text for e in by_kind(session, Kind.THINKING)] == [
        "**Finding configs**\n\nConfig files sit at the project root."
    ]
    calls = {e.call_id: e for e in by_kind(session, Kind.TOOL_CALL)}
    results = {e.call_id: e for e in by_kind(session, Kind.TOOL_RESULT)}
    assert set(calls) == set(results) == {"glob-1", "write-1"}
    write = calls["write-1"]
    assert write.path == "/srv/app/vite.config.js" and write.diff is not None and "+// Vite" in write.diff
    assert results["glob-1"].text == "vite.config.js\ntailwind.config.js"
    assert results["glob-1"].meta["summary"] == "Found 2 matching file(s)"
    assert [e.title for e in by_kind(session, Kind.SYSTEM)] == ["Info"]
    usage = [e.usage for e in walk(session.events) if e.usage]
    assert [(u.input_tokens, u.cache_read_tokens, u.output_tokens) for u in usage] == [
        (172, 35000, 67),
        (228, 35172, 20),
    ]
    assert session.meta["project hash"].startswith("9f2e6c1d")
    assert {line for (path, line) in ledger.fates if path == str(LEGACY)} == {1, 2, 3, 4}


def test_a_broken_older_chat_costs_one_problem(tmp_path: Path) -> None:
    doc = json.loads(LEGACY.read_text())
    doc["messages"].insert(1, "not a message")
    odd = tmp_path / ".qwen" / "tmp" / "h" / "chats" / "session-x.json"
    odd.parent.mkdir(parents=True)
    odd.write_text(json.dumps(doc))
    problems = Problems()
    session = read_one(odd, problems)
    assert len(problems.items) == 1 and "messages[1]" in problems.items[0].message
    assert len(by_kind(session, Kind.TOOL_RESULT)) == 2
    (tmp_path / "cut.json").write_text(LEGACY.read_text()[:500])
    problems = Problems()
    assert list(READER.read(tmp_path / "cut.json", problems)) == [] and len(problems.items) == 1


def test_copies_of_one_chat_are_read_as_one(tmp_path: Path) -> None:
    lines = CHAT.read_text().splitlines(True)
    for name, upto in (("a", 12), ("b", len(lines))):  # an early copy and the whole chat
        folder = tmp_path / name
        folder.mkdir()
        (folder / "full.jsonl").write_text("".join(lines[:upto]))
    problems = Problems()
    claims = discover(tmp_path, problems).claims
    assert len(claims) == 1 and claims[0].key == SID
    [session] = claims[0].read(problems)
    assert not problems.items
    assert [e.id for e in session.events] == [e.id for e in read_one(CHAT).events]


def test_discovery_finds_the_default_folders(tmp_path: Path) -> None:
    chats = tmp_path / ".qwen" / "projects" / "-home-dev-widget" / "chats"
    older = tmp_path / ".qwen" / "tmp" / "9f2e6c1d" / "chats"
    for folder in (chats, older):
        folder.mkdir(parents=True)
    shutil.copyfile(CHAT, chats / CHAT.name)
    shutil.copyfile(LEGACY, older / LEGACY.name)
    (tmp_path / ".qwen" / "tmp" / "9f2e6c1d" / "logs.json").write_text("[]")  # beside the chats: not walked
    for system in ("linux", "darwin", "windows"):
        found = [loc for loc in find(home=tmp_path, system=system) if loc.agent == "qwen-code"]
        assert [loc.roots for loc in found] == [(chats,), (older,)], system
    problems = Problems()
    result = discover([chats, older], problems)
    assert [c.reader.name for c in result.claims] == ["qwen_code", "qwen_code"] and not problems.items
    moved = tmp_path / "elsewhere"
    shutil.copytree(tmp_path / ".qwen" / "projects", moved / "projects")
    env = {"QWEN_RUNTIME_DIR": str(moved)}
    assert [loc.folder for loc in find(home=tmp_path, env=env) if loc.agent == "qwen-code"][0] == moved / "projects"


def test_the_enumerator_reads_the_files_independently() -> None:
    records_of = enumerator("qwen_code")
    assert records_of is not None
    records = list(records_of(CHAT))
    assert [r.line for r in records] == list(range(1, len(CHAT.read_text().splitlines()) + 1))
    assert [t for r in records for t in r.user_texts] == [
        "/about",
        "Rename the widget helper and run the tests",
        "Also update the changelog",
        "Fix that test too",
    ]
    calls = {c for r in records for c in r.calls}
    assert calls == {c for r in records for c in r.results} == {"call_edit", "call_shell", "call_agent"}
    legacy = list(records_of(LEGACY))
    assert [r.line for r in legacy] == [1, 2, 3, 4]
    assert [t for r in legacy for t in r.user_texts] == ["List the config files"]


def test_the_site_shows_the_sessions(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    shutil.copytree(FIXTURES / "qwen_code", archive)
    report = build_site(archive, tmp_path / "site")
    assert report.sessions == 2 and [str(p) for p in report.problems] == []
    page = parse_html(tmp_path / "site" / "sessions" / f"qwen_code-{SID}.html")
    assert "Rename the widget helper" in page.select_one("h1").get_text()
    text = page.get_text(" ")
    for words in (
        "Rename the widget helper and run the tests",
        "pytest -q",
        "1 failed, 11 passed",
        "429 Too many requests",
    ):
        assert words in text, words
    assert page.select(".event.k-subagent") and page.select(".event.k-tool_call.cat-shell")
    older = parse_html(tmp_path / "site" / "sessions" / "qwen_code-7c1e9a20-0000-4000-8000-000000000b0b.html")
    assert "There are two config files" in older.get_text(" ")


def test_the_real_logs_are_read_faithfully() -> None:
    real = sorted(p for p in REAL.rglob("*") if p.suffix in (".jsonl", ".json")) if REAL.is_dir() else []
    chats = [p for p in real if READER.detect_path(p)]
    if not chats:
        pytest.skip("../shared/formats/real-agents/qwen-code is not here")
    records_of = enumerator("qwen_code")
    assert records_of is not None
    for path in chats:
        problems = Problems()
        with keeping_ledger() as ledger:
            sessions = list(READER.read(path, problems))
        fates = {line for (p, line) in ledger.fates if p == str(path)}
        assert fates == {r.line for r in records_of(path)}, path.name
        assert not [e for s in sessions for e in by_kind(s, Kind.UNKNOWN)]
        for session in sessions:
            calls = {e.call_id for e in by_kind(session, Kind.TOOL_CALL) if e.call_id}
            assert {e.call_id for e in by_kind(session, Kind.TOOL_RESULT)} <= calls, path.name


def test_sidechain_records_nest_under_their_agent_and_at_commands_are_notes(tmp_path: Path) -> None:
    base = {
        "parentUuid": None,
        "sessionId": "s2",
        "timestamp": "2026-05-04T10:00:00Z",
        "cwd": "/w",
        "version": "0.30.0",
    }
    chat = write_lines(
        tmp_path / "s2.jsonl",
        [
            {
                **base,
                "uuid": "u1",
                "type": "user",
                "message": {"role": "user", "parts": [{"text": "@notes.md summarize"}]},
            },
            {
                **base,
                "uuid": "u2",
                "type": "system",
                "subtype": "at_command",
                "systemPayload": {"filesRead": ["notes.md"], "status": "success", "userText": "@notes.md summarize"},
            },
            {
                **base,
                "uuid": "u3",
                "type": "assistant",
                "agentId": "explore-7f3c",
                "agentName": "Explore",
                "isSidechain": True,
                "message": {"role": "model", "parts": [{"text": "Reading notes.md."}]},
            },
            {
                **base,
                "uuid": "u4",
                "type": "assistant",
                "message": {"role": "model", "parts": [{"text": "Summary: two items."}]},
            },
        ],
    )
    problems = Problems()
    session = read_one(chat, problems)
    assert not problems.items
    [agent] = by_kind(session, Kind.SUBAGENT)
    assert agent.title == "Explore" and [e.text for e in agent.children] == ["Reading notes.md."]
    [note] = by_kind(session, Kind.SYSTEM)
    assert note.title == "Files read for @" and "`notes.md`" in note.text
    assert [e.text for e in session.events if e.kind == Kind.ASSISTANT] == ["Summary: two items."]
