"""The GitHub Copilot CLI reader: events, pairing, sub-agents, title, session facts, damaged lines, snapshots.

The hand-made fixture (tests/fixtures/copilot_cli/<session>/events.jsonl) holds one record of
each type the CLI writes; the real log in ../shared/formats/real/copilot_cli is read when it is there.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from helpers import REPO, detected_by

from sessite.model import Event, Kind, Problems, Session, ToolCategory, walk
from sessite.readers import discover, registry
from sessite.readers.formats.copilot_cli import READER
from sessite.readers.ledger import Fate, keeping_ledger

sys.path.insert(0, str(REPO / "benchmarks"))
from fidelity.formats import enumerator  # noqa: E402

SID = "5f0c2a1e-0000-4000-8000-00000000c0de"
REAL = REPO.parent / "shared" / "formats" / "real" / "copilot_cli"


@pytest.fixture
def log(fixtures: Path) -> Path:
    return fixtures / "copilot_cli" / SID / "events.jsonl"


def read_one(path: Path, problems: Problems | None = None) -> Session:
    [session] = READER.read(path, problems if problems is not None else Problems())
    return session


def by_kind(session: Session, kind: Kind) -> list[Event]:
    return [e for e in walk(session.events) if e.kind == kind]


def test_registered_and_the_only_reader_of_its_files(log: Path, tmp_path: Path) -> None:
    assert READER.name == "copilot_cli" and READER in registry()
    assert detected_by(log) == ["copilot_cli"]
    flat = tmp_path / f"{SID}.jsonl"  # the older flat layout
    flat.write_bytes(log.read_bytes())
    assert detected_by(flat) == ["copilot_cli"]
    other = tmp_path / "events.jsonl"
    other.write_text('{"type": "session.start", "data": {"sessionId": "x"}}\n')  # no Copilot marks at all
    assert not READER.detect_path(other)


def test_messages_thinking_and_title(log: Path) -> None:
    problems = Problems()
    session = read_one(log, problems)
    assert not problems.items
    users = [e.text for e in by_kind(session, Kind.USER)]
    assert users == [
        "Rename the widget helper and run the tests",
        "Review the rename of old_name.",  # the sub-agent's prompt, in its transcript
        "Also update the changelog",
    ]
    first = by_kind(session, Kind.USER)[0]
    assert [b.type for b in first.blocks] == ["file"] and first.blocks[0].title == "helper.py"
    assert session.title == "Rename the widget helper and run the tests"  # not the reminder, not the date
    assert [e.text for e in by_kind(session, Kind.THINKING)] == ["The helper is only used in two places."]
    prose = [e.text for e in by_kind(session, Kind.ASSISTANT)]
    assert "Renamed `old_name` to `new_name`; the tests pass." in prose
    assert "The rename is complete and consistent." in prose
    assert not by_kind(session, Kind.UNKNOWN)
    assert all(e.line for e in walk(session.events))


def test_calls_are_paired_with_their_results(log: Path) -> None:
    session = read_one(log)
    calls = {e.call_id: e for e in by_kind(session, Kind.TOOL_CALL)}
    results = {e.call_id: e for e in by_kind(session, Kind.TOOL_RESULT)}
    assert set(calls) == set(results) == {"call_edit", "call_bash", "call_glob", "call_task", "call_view"}
    edit, bash, glob = calls["call_edit"], calls["call_bash"], calls["call_glob"]
    assert edit.category == ToolCategory.EDIT and str(edit.path).endswith("src/helper.py")
    assert "-def old_name():" in str(edit.diff) and "+def new_name():" in str(edit.diff)
    assert edit.meta["permission"] == {
        "kind": "write",
        "intention": "Edit file",
        "fileName": "/home/dev/widget/src/helper.py",
        "answer": "approved",
    }
    assert bash.category == ToolCategory.SHELL and bash.command == "pytest -q"
    assert results["call_bash"].exit_code == 0 and not results["call_bash"].is_error
    assert glob.category == ToolCategory.SEARCH
    assert results["call_glob"].is_error and "Path does not exist" in results["call_glob"].text


def test_a_sub_agent_is_nested_under_its_task_call(log: Path) -> None:
    session = read_one(log)
    [agent] = by_kind(session, Kind.SUBAGENT)
    assert agent in session.events and agent.call_id == "call_task" and agent.title == "Explore agent"
    assert [e.kind for e in agent.children] == [Kind.USER, Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.ASSISTANT]
    assert agent.meta["tool calls"] == 1 and agent.meta["tokens"] == 900
    assert agent.model == "gpt-5-mini"


def test_session_facts(log: Path) -> None:
    session = read_one(log)
    assert session.id == f"copilot_cli-{SID}" and session.agent == "copilot-cli"
    assert session.cwd == "/home/dev/widget" and session.project == "widget"
    assert session.git.branches == ("main", "rename-helper")
    assert session.git.commits[0] == "1" * 40 and len(session.git.commits) == 3
    assert session.git.repos == ("github.com/octo/widget",)
    assert session.models == ("gpt-5.1", "gpt-5-mini")
    assert session.started is not None and session.started.isoformat().startswith("2026-05-04T10:00:30")
    # the shutdown's totals (fresh input = input - cache read - cache write)
    assert session.usage is not None
    assert (session.usage.input_tokens, session.usage.output_tokens) == (1500, 86)
    assert (session.usage.cache_read_tokens, session.usage.cache_write_tokens) == (3000, 500)
    assert session.meta["copilotVersion"] == "1.0.70" and session.meta["premium requests"] == 1


def test_notes_hooks_and_what_is_left_out(log: Path) -> None:
    session = read_one(log)
    notes = {e.title: e for e in by_kind(session, Kind.SYSTEM)}
    assert notes["Warning (mcp)"].text.startswith("Failed to connect")
    assert notes["Model changed"].text == "auto → gpt-5.1 (reasoning effort medium)"
    assert notes["Hook failed: userPromptSubmitted"].is_error
    assert notes["Error"].text == "Failed model request: connection reset"  # an errorOccurred hook's input
    assert notes["System reminder"].text == "Deferred tools: docs_search"
    assert notes["Discovered instructions"].text == "Custom instructions from AGENTS.md: use tabs."
    for title in ("Plan changed", "Session ended", "Session resumed", "Working context changed", "Aborted"):
        assert title in notes
    assert [e.text for e in by_kind(session, Kind.COMPACTION)] == ["The helper was renamed and tests pass."]
    assert session.skipped == {
        "Copilot's system prompt (its own long instructions, repeated each run)": 1,
        "turn start marker (a turn is shown by its messages and calls)": 1,
        "turn end marker (a turn is shown by its messages and calls)": 1,
        "hook that ran without output or error": 2,
        "assistant message with only encrypted reasoning": 1,
        "usage checkpoint (running premium-request totals; the last is in the details)": 1,
    }


def test_every_line_has_a_fate(log: Path) -> None:
    with keeping_ledger() as ledger:
        read_one(log)
    lines = len(log.read_text().splitlines())
    fates = {line: fate for (path, line), (fate, _) in ledger.fates.items() if path == str(log)}
    assert sorted(fates) == list(range(1, lines + 1))
    assert fates[1] == Fate.MERGED  # session.start: the session's facts
    assert fates[11] == Fate.MERGED  # a tool start: shown as its call


def test_a_damaged_line_costs_that_line_only(log: Path, tmp_path: Path) -> None:
    lines = log.read_text().splitlines()
    damaged = tmp_path / SID / "events.jsonl"
    damaged.parent.mkdir()
    damaged.write_text("\n".join([*lines[:9], '{"type": "assistant.message", "data": {', *lines[9:]]) + "\n")
    problems = Problems()
    session = read_one(damaged, problems)
    assert [(p.line, "malformed JSON" in p.message) for p in problems.items] == [(10, True)]
    whole = read_one(log)
    assert [e.id for e in walk(session.events)] == [e.id for e in walk(whole.events)]


def test_rarer_and_unknown_record_types_are_notes_or_counted_never_raw_json(log: Path, tmp_path: Path) -> None:
    odd = tmp_path / "odd.jsonl"
    extra = [
        {"type": "session.title_changed", "data": {"title": "Rename the helper"}, "id": "x1"},
        {"type": "assistant.intent", "data": {"intent": "Renaming"}, "id": "x2"},
        {"type": "session.skills_loaded", "data": {"skills": []}, "id": "x3"},
        {"type": "session.new_thing", "data": {"message": "Something new happened", "count": 3}, "id": "x4"},
    ]
    odd.write_text(log.read_text() + "".join(json.dumps(e) + "\n" for e in extra))
    problems = Problems()
    session = read_one(odd, problems)
    assert [e.title for e in session.events[-2:]] == ["Title changed", "session.new_thing"]
    note = session.events[-1]
    assert note.kind == Kind.SYSTEM and note.text == "Something new happened" and note.meta == {"count": 3}
    assert len(problems.items) == 1 and "session.new_thing" in problems.items[0].message
    assert session.meta["copilot title"] == "Rename the helper"
    assert session.title == "Rename the widget helper and run the tests"  # still the user's words
    assert session.skipped["intent update (the messages and calls show the work)"] == 1
    assert not by_kind(session, Kind.UNKNOWN)


def test_without_a_shutdown_each_response_carries_its_output_tokens(log: Path, tmp_path: Path) -> None:
    running = tmp_path / "running.jsonl"
    running.write_text("".join(line for line in log.read_text().splitlines(True) if "session.shutdown" not in line))
    session = read_one(running)
    assert session.usage is None
    assert sum(e.usage.output_tokens for e in walk(session.events) if e.usage) == 40 + 12 + 25 + 9


def test_snapshots_of_one_session_are_read_as_one(log: Path, tmp_path: Path) -> None:
    lines = log.read_text().splitlines(True)
    for name, upto in (("a", 20), ("b", len(lines))):  # an early snapshot and the whole log
        folder = tmp_path / name
        folder.mkdir()
        (folder / "full.jsonl").write_text("".join(lines[:upto]))
    problems = Problems()
    claims = discover(tmp_path, problems).claims
    assert len(claims) == 1 and claims[0].key == SID
    [session] = claims[0].read(problems)
    assert not problems.items
    assert [e.id for e in session.events] == [e.id for e in read_one(log).events]


def test_the_enumerator_reads_the_file_independently(log: Path) -> None:
    records_of = enumerator("copilot_cli")
    assert records_of is not None
    records = list(records_of(log))
    assert [r.line for r in records] == list(range(1, len(log.read_text().splitlines()) + 1))
    assert [t for r in records for t in r.user_texts] == [
        "Rename the widget helper and run the tests",
        "Also update the changelog",
    ]
    calls = {c for r in records for c in r.calls}
    answered = {c for r in records for c in r.results}
    assert calls == answered == {"call_edit", "call_bash", "call_glob", "call_task", "call_view"}


def test_the_real_log_is_read_faithfully() -> None:
    real = sorted(REAL.glob("*.jsonl")) if REAL.is_dir() else []
    if not real:
        pytest.skip("../shared/formats/real/copilot_cli is not here")
    for path in real:
        problems = Problems()
        with keeping_ledger() as ledger:
            session = read_one(path, problems)
        lines = sum(1 for line in path.read_text("utf-8").splitlines() if line.strip())
        assert len([k for k in ledger.fates if k[0] == str(path)]) == lines
        assert not by_kind(session, Kind.UNKNOWN) and not problems.items
        calls = {e.call_id for e in by_kind(session, Kind.TOOL_CALL)}
        assert calls and calls == {e.call_id for e in by_kind(session, Kind.TOOL_RESULT)}
        first = by_kind(session, Kind.USER)[0].text
        assert session.title and session.title.startswith(first.split("\n")[0])
