"""The Kimi CLI reader: Kimi CLI session folders (``wire.jsonl`` with ``context.jsonl``), a lone
``context.jsonl``, and Kimi Code sessions (``agents/<agent>/wire.jsonl``); pairing, sub-agents,
approvals, tokens, the context reconciled with the wire log, damaged lines, discovery.

The hand-made fixtures (tests/fixtures/kimi_cli/) hold one session of each generation; the real
logs in ../shared/formats/real-agents/kimi-cli are read when they are there.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import pytest
from helpers import FIXTURES, REPO, build_site, detected_by, parse_html

from sessite.model import Event, Kind, Problems, Session, ToolCategory, walk
from sessite.readers import discover, registry
from sessite.readers.formats.kimi_cli import READER
from sessite.readers.ledger import Fate, keeping_ledger
from sessite.readers.locations import find

sys.path.insert(0, str(REPO / "benchmarks"))
from fidelity.formats import enumerator  # noqa: E402

CWD = "/home/dev/widget"
HASH = hashlib.md5(CWD.encode()).hexdigest()
SID = "3f1c2b7a-0000-4000-8000-00000000c0de"
CODE_SID = "8d2e4f10-0000-4000-8000-00000000c0de"
LEGACY = FIXTURES / "kimi_cli" / "sessions" / HASH / SID
CODE = FIXTURES / "kimi_cli" / "code" / "wd_widget_0123456789ab" / f"session_{CODE_SID}"
REAL = REPO.parent / "shared" / "formats" / "real-agents" / "kimi-cli"


def read_one(path: Path, problems: Problems | None = None) -> Session:
    [session] = READER.read(path, problems if problems is not None else Problems())
    return session


def by_kind(session: Session, kind: Kind) -> list[Event]:
    return [e for e in walk(session.events) if e.kind == kind]


def test_registered_and_the_only_reader_of_its_folders() -> None:
    assert READER in registry() and READER.agent == "kimi-cli"
    for folder in (LEGACY, CODE):
        assert detected_by(folder) == ["kimi_cli"]
        [claim] = discover(folder, Problems()).claims
        assert claim.reader.name == "kimi_cli" and claim.path == folder
    [legacy] = discover(LEGACY, Problems()).claims
    assert sorted(p.name for p in legacy.companions) == ["context.jsonl", "context_1.jsonl", "state.json", "wire.jsonl"]
    assert not READER.detect_path(CODE / "agents" / "main")  # read with its session's folder
    assert not READER.detect_path(CODE / "agents" / "agent-0" / "wire.jsonl")  # read with the main log


def test_it_claims_no_other_format() -> None:
    names = ("claude_code", "codex", "copilot_cli", "gemini", "hail", "amp", "qwen_code")
    others = [p for name in names for p in (FIXTURES / name).rglob("*")]
    samples = REPO.parent / "shared" / "formats" / "samples"
    if samples.is_dir():
        others += list(samples.rglob("*"))
    assert others and not [p for p in others if READER.detect_path(p)]


def test_the_wire_log_messages_calls_and_sub_agent() -> None:
    problems = Problems()
    session = read_one(LEGACY, problems)
    assert not problems.items
    assert session.id == f"kimi_cli-{SID}" and session.title == "Rename old_name to new_name and run the tests"
    users = [e.text for e in session.events if e.kind == Kind.USER]
    assert users == [
        "Rename old_name to new_name and run the tests",
        "Fix that test too",
        "Summary of the conversation so far: old_name was renamed; one test still uses it.",  # only in the context
    ]
    assert [e.text for e in by_kind(session, Kind.THINKING)] == ["Only helper.py defines it."]
    calls = {e.call_id: e for e in by_kind(session, Kind.TOOL_CALL)}
    results = {e.call_id: e for e in by_kind(session, Kind.TOOL_RESULT)}
    assert set(calls) == set(results) == {"tool_edit1", "tool_shell1", "tool_task1", "tool_grep1"}
    edit, shell = calls["tool_edit1"], calls["tool_shell1"]
    assert edit.category == ToolCategory.EDIT and edit.path == f"{CWD}/helper.py"
    assert edit.diff is not None and "-def old_name():" in edit.diff and "+def new_name():" in edit.diff
    assert edit.meta == {"approval asked": f"Edit {CWD}/helper.py", "approval": "approve"}
    assert results["tool_edit1"].text == "File successfully edited."
    assert shell.command == "pytest -q" and results["tool_shell1"].exit_code == 1 and results["tool_shell1"].is_error
    assert edit.usage is not None and (edit.usage.input_tokens, edit.usage.cache_read_tokens) == (1200, 4000)
    [agent] = by_kind(session, Kind.SUBAGENT)
    assert agent.call_id == "tool_task1" and agent.title == "coder"
    assert [e.kind for e in agent.children] == [Kind.USER, Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.ASSISTANT]
    assert agent.children[-1].usage is not None and agent.children[-1].usage.input_tokens == 900
    assert [e.title for e in by_kind(session, Kind.SYSTEM)] == ["Step interrupted"]
    assert len(by_kind(session, Kind.COMPACTION)) == 1
    assert session.meta == {"wire protocol": "1.3", "auto-approve everything": False}


def test_the_context_is_merged_with_the_wire_log_and_every_line_has_a_fate() -> None:
    with keeping_ledger() as ledger:
        read_one(LEGACY)
    for name in ("wire.jsonl", "context.jsonl", "context_1.jsonl"):
        path = LEGACY / name
        fates = {line: fate for (p, line), (fate, _) in ledger.fates.items() if p == str(path)}
        assert sorted(fates) == list(range(1, len(path.read_text().splitlines()) + 1)), name
    context = {line: fate for (p, line), (fate, _) in ledger.fates.items() if p == str(LEGACY / "context.jsonl")}
    assert context[3] == Fate.MERGED and context[1] == Fate.NOT_SHOWN and context[15] == Fate.SHOWN
    assert ledger.fates[(str(LEGACY / "state.json"), 1)][0] == Fate.MERGED


def test_the_working_folder_comes_from_kimi_json(tmp_path: Path) -> None:
    home = tmp_path / ".kimi"
    shutil.copytree(FIXTURES / "kimi_cli" / "sessions", home / "sessions")
    (home / "kimi.json").write_text(json.dumps({"work_dirs": [{"path": CWD, "kaos": "local", "last_session_id": SID}]}))
    session = read_one(home / "sessions" / HASH / SID)
    assert session.cwd == CWD and session.project == "widget"


def test_a_lone_context_is_a_session(tmp_path: Path) -> None:
    folder = tmp_path / "sessions" / HASH / "older"
    folder.mkdir(parents=True)
    shutil.copyfile(LEGACY / "context.jsonl", folder / "context.jsonl")
    [claim] = discover(tmp_path, Problems()).claims
    assert claim.path == folder
    session = read_one(folder)
    assert [e.kind for e in session.events][:4] == [Kind.USER, Kind.THINKING, Kind.ASSISTANT, Kind.TOOL_CALL]
    calls = {e.call_id for e in by_kind(session, Kind.TOOL_CALL)}
    assert (
        calls == {e.call_id for e in by_kind(session, Kind.TOOL_RESULT)} == {"tool_edit1", "tool_shell1", "tool_task1"}
    )
    assert session.title == "Rename old_name to new_name and run the tests"


def test_kimi_code_session_with_its_sub_agent_log() -> None:
    problems = Problems()
    with keeping_ledger() as ledger:
        session = read_one(CODE, problems)
    assert not problems.items
    assert session.id == f"kimi_cli-{CODE_SID}" and session.title == "Python file count"  # the user's own title
    assert session.cwd == CWD and session.models == ("moonshot-ai/kimi-k2.7-code",)
    assert [e.text for e in by_kind(session, Kind.USER)] == [
        "Count the Python files with a sub-agent",
        "Count the .py files.",  # the sub-agent's prompt, in its transcript
        "stop",
    ]
    [agent] = by_kind(session, Kind.SUBAGENT)
    assert agent.call_id == "Agent_0" and agent.title == "explore" and agent.meta["agent"] == "agent-0"
    position = session.events.index(agent)
    assert session.events[position - 1].kind == Kind.TOOL_RESULT  # right after its call's result
    assert [e.kind for e in agent.children] == [Kind.USER, Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.ASSISTANT]
    calls = {e.call_id: e for e in by_kind(session, Kind.TOOL_CALL)}
    assert calls["Bash_1"].meta["approval"] == "rejected, once"
    assert {e.call_id for e in by_kind(session, Kind.TOOL_RESULT)} == set(calls)
    notes = [e.title for e in by_kind(session, Kind.SYSTEM)]
    assert notes == ["Added to the context (todo_list_reminder)", "Plan mode on", "Turn cancelled"]
    [compaction] = by_kind(session, Kind.COMPACTION)
    assert compaction.text.startswith("The user asked") and compaction.meta["tokens after"] == 300
    usage = [e.usage for e in walk(session.events) if e.usage]
    assert sum(u.input_tokens for u in usage) == 2000 + 300 + 800 + 100  # each step once (usage.record merged)
    for log in (CODE / "agents" / "main" / "wire.jsonl", CODE / "agents" / "agent-0" / "wire.jsonl"):
        lines = {line for (p, line) in ledger.fates if p == str(log)}
        assert lines == set(range(1, len(log.read_text().splitlines()) + 1)), log


def test_a_damaged_line_or_an_odd_record_costs_only_itself(tmp_path: Path) -> None:
    folder = tmp_path / SID
    shutil.copytree(LEGACY, folder)
    lines = (folder / "wire.jsonl").read_text().splitlines()
    lines[4] = '{"timestamp": 1767960003.0, "message": {"type": "ContentPart", '  # cut short
    lines.insert(
        7, json.dumps({"timestamp": 1.0, "message": {"type": "BrandNewEvent", "payload": {"message": "hello"}}})
    )
    lines.insert(8, json.dumps({"timestamp": 1.0, "message": "not an object"}))
    (folder / "wire.jsonl").write_text("\n".join(lines) + "\n")
    problems = Problems()
    session = read_one(folder, problems)
    messages = [(p.line, p.message.split(";")[0]) for p in problems.items]
    assert messages[0][0] == 5 and "malformed JSON" in messages[0][1]
    assert [line for line, _ in messages[1:]] == [8, 9]
    assert [e.title for e in session.events if e.title == "BrandNewEvent"] == ["BrandNewEvent"]
    assert [e.title for e in by_kind(session, Kind.UNKNOWN)] == ["Kimi wire record without a type"]
    assert len(by_kind(session, Kind.TOOL_CALL)) == len(by_kind(read_one(LEGACY), Kind.TOOL_CALL))


def test_discovery_finds_the_default_folders(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "kimi_cli" / "sessions", tmp_path / ".kimi" / "sessions")
    shutil.copytree(FIXTURES / "kimi_cli" / "code", tmp_path / ".kimi-code" / "sessions")
    for system in ("linux", "darwin", "windows"):
        found = [loc.folder for loc in find(home=tmp_path, system=system) if loc.agent == "kimi-cli"]
        assert found == [tmp_path / ".kimi" / "sessions", tmp_path / ".kimi-code" / "sessions"], system
    problems = Problems()
    claims = discover([tmp_path / ".kimi" / "sessions", tmp_path / ".kimi-code" / "sessions"], problems).claims
    assert [c.reader.name for c in claims] == ["kimi_cli", "kimi_cli"] and not problems.items
    share = tmp_path / "share"
    shutil.copytree(FIXTURES / "kimi_cli" / "sessions", share / "sessions")
    env = {"KIMI_SHARE_DIR": str(share)}
    assert [loc.folder for loc in find(home=tmp_path, env=env) if loc.agent == "kimi-cli"][0] == share / "sessions"


def test_the_enumerator_reads_the_files_independently() -> None:
    records_of = enumerator("kimi_cli")
    assert records_of is not None
    wire = list(records_of(LEGACY / "wire.jsonl"))
    assert [r.line for r in wire] == list(range(1, len((LEGACY / "wire.jsonl").read_text().splitlines()) + 1))
    assert [t for r in wire for t in r.user_texts] == [
        "Rename old_name to new_name and run the tests",
        "Fix that test too",
    ]
    calls = {c for r in wire for c in r.calls}
    assert calls == {c for r in wire for c in r.results} == {"tool_edit1", "tool_shell1", "tool_task1", "tool_grep1"}
    main = list(records_of(CODE / "agents" / "main" / "wire.jsonl"))
    assert [t for r in main for t in r.user_texts] == ["Count the Python files with a sub-agent", "stop"]
    assert not [t for r in records_of(LEGACY / "context_1.jsonl") for t in r.user_texts]


def test_the_site_shows_the_sessions(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    shutil.copytree(FIXTURES / "kimi_cli", archive)
    report = build_site(archive, tmp_path / "site")
    assert report.sessions == 2 and [str(p) for p in report.problems] == []
    page = parse_html(tmp_path / "site" / "sessions" / f"kimi_cli-{SID}.html")
    text = page.get_text(" ")
    for words in ("Rename old_name to new_name and run the tests", "pytest -q", "1 failed, 11 passed", "One caller"):
        assert words in text, words
    assert page.select(".event.k-subagent") and page.select(".event.k-tool_call.cat-shell")
    code = parse_html(tmp_path / "site" / "sessions" / f"kimi_cli-{CODE_SID}.html")
    assert "Python file count" in code.select_one("h1").get_text() and "12 Python files." in code.get_text(" ")


def test_the_real_logs_are_read_faithfully() -> None:
    if not REAL.is_dir():
        pytest.skip("../shared/formats/real-agents/kimi-cli is not here")
    problems = Problems(REAL)
    records_of = enumerator("kimi_cli")
    assert records_of is not None
    claims = discover(REAL, problems).claims
    assert claims and {c.reader.name for c in claims} == {"kimi_cli"}
    for claim in claims:
        with keeping_ledger() as ledger:
            sessions = list(claim.read(problems))
        for path in [p for p in (claim.path, *claim.companions) if p.is_file()]:
            expected = {r.line for r in records_of(path)}
            assert {line for (p, line) in ledger.fates if p == str(path)} == expected, path.name
        for session in sessions:
            assert not by_kind(session, Kind.UNKNOWN)
            calls = {e.call_id for e in by_kind(session, Kind.TOOL_CALL)}
            assert {e.call_id for e in by_kind(session, Kind.TOOL_RESULT)} <= calls
    assert not [p for p in problems.items if "kimi" in p.message]
