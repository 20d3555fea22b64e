"""The Factory Droid reader: the session store (``<id>.jsonl`` with ``<id>.settings.json``) and
``droid exec`` stream-json output; pairing, exit codes, the environment report, notices, settings,
damaged lines, discovery.

The hand-made fixtures (tests/fixtures/factory_droid/) hold one session of each shape; the real
logs in ../shared/formats/real-agents/factory-droid are read when they are there.
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
from sessite.readers.formats.factory_droid import READER
from sessite.readers.ledger import Fate, keeping_ledger
from sessite.readers.locations import find

sys.path.insert(0, str(REPO / "benchmarks"))
from fidelity.formats import enumerator  # noqa: E402

SID = "5d1f0e2a-0000-4000-8000-00000000d401"
STORE = FIXTURES / "factory_droid" / "-home-dev-widget" / f"{SID}.jsonl"
SETTINGS = STORE.with_name(f"{SID}.settings.json")
EXEC = FIXTURES / "factory_droid" / "exec" / "list-files.jsonl"
REAL = REPO.parent / "shared" / "formats" / "real-agents" / "factory-droid"


def read_one(path: Path, problems: Problems | None = None) -> Session:
    [session] = READER.read(path, problems if problems is not None else Problems())
    return session


def by_kind(session: Session, kind: Kind) -> list[Event]:
    return [e for e in walk(session.events) if e.kind == kind]


def test_registered_and_the_only_reader_of_its_files() -> None:
    assert READER in registry() and READER.agent == "factory-droid"
    for path in (STORE, EXEC):
        assert detected_by(path) == ["factory_droid"]
    [claim] = discover(STORE, Problems()).claims
    assert claim.companions == (SETTINGS,) and claim.key == SID


def test_it_claims_no_other_format() -> None:
    names = ("claude_code", "codex", "copilot_cli", "gemini", "hail", "amp", "qwen_code", "kimi_cli", "pi")
    others = [p for name in names for p in (FIXTURES / name).rglob("*")]
    samples = REPO.parent / "shared" / "formats" / "samples"
    if samples.is_dir():
        others += list(samples.rglob("*"))
    assert others and not [p for p in others if p.is_file() and READER.detect_path(p)]


def test_the_session_store() -> None:
    problems = Problems()
    session = read_one(STORE, problems)
    assert not problems.items and not by_kind(session, Kind.UNKNOWN)
    assert session.id == f"factory_droid-{SID}" and session.agent == "factory-droid"
    [user] = by_kind(session, Kind.USER)
    assert user.text == "Rename old_name to new_name and run the tests"
    assert [b.title for b in user.blocks] == ["added by Droid", "added by Droid"]  # the environment report, a reminder
    assert session.cwd == "/home/dev/widget" and session.git.branches == ("rename-helper",)
    assert session.git.commits == ("1a2b3c4",)
    assert session.meta["model (as Droid names it)"] == "Claude Sonnet 4.5" and session.meta["owner"] == "dev"
    calls = {e.call_id: e for e in by_kind(session, Kind.TOOL_CALL)}
    results = {e.call_id: e for e in by_kind(session, Kind.TOOL_RESULT)}
    assert set(calls) == set(results) == {"toolu_edit", "toolu_exec"}
    edit = calls["toolu_edit"]
    assert edit.category == ToolCategory.EDIT and edit.diff is not None and "+def new_name():" in edit.diff
    assert calls["toolu_exec"].command == "pytest -q"
    assert results["toolu_exec"].exit_code == 1 and results["toolu_exec"].is_error
    [notice] = by_kind(session, Kind.SYSTEM)
    assert notice.title == "Notice (shown to the user only)" and notice.text.startswith("Token limit reached")
    assert [e.text for e in by_kind(session, Kind.THINKING)] == ["Only helper.py defines it."]


def test_the_settings_give_model_settings_and_totals() -> None:
    with keeping_ledger() as ledger:
        session = read_one(STORE)
    assert session.models == ("claude-sonnet-4-5-20250929",)
    assert session.meta["reasoningEffort"] == "medium" and session.meta["autonomyLevel"] == "auto-low"
    assert session.usage is not None and (session.usage.input_tokens, session.usage.cache_read_tokens) == (2400, 9000)
    assert ledger.fates[(str(SETTINGS), 1)][0] == Fate.MERGED
    lines = {line for (path, line) in ledger.fates if path == str(STORE)}
    assert lines == set(range(1, len(STORE.read_text().splitlines()) + 1))


def test_droid_exec_output() -> None:
    problems = Problems()
    with keeping_ledger() as ledger:
        session = read_one(EXEC, problems)
    assert not problems.items
    assert session.id == "factory_droid-run-7f3a" and session.models == ("glm-4.6",)
    assert [e.text for e in by_kind(session, Kind.USER)] == ["List the Python files"]
    [result] = by_kind(session, Kind.TOOL_RESULT)
    assert result.exit_code == 0 and result.text == "helper.py\nmain.py\n" and result.call_id == "c1"
    assert [e.text for e in by_kind(session, Kind.ASSISTANT)] == ["Two files: helper.py and main.py."]  # said once
    assert session.usage is not None and session.usage.input_tokens == 900 and session.meta["turns"] == 2
    assert ledger.fates[(str(EXEC), 6)][0] == Fate.MERGED  # the completion repeats the last message


def test_a_damaged_line_or_an_odd_record_costs_only_itself(tmp_path: Path) -> None:
    lines = STORE.read_text().splitlines()
    odd = json.loads(lines[2])
    odd["message"]["content"] = {"type": "text"}  # not a list of blocks
    extra = json.dumps({"type": "todo_state", "id": "t1", "text": "1 open todo", "timestamp": "2026-05-04T10:01:00Z"})
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("\n".join([*lines[:2], '{"type": "message", ', json.dumps(odd), *lines[3:], extra]) + "\n")
    problems = Problems()
    session = read_one(damaged, problems)
    assert [p.line for p in problems.items] == [3, 4, len(lines) + 2]
    assert "content is dict" in problems.items[1].message
    assert session.events[-1].title == "todo_state" and session.events[-1].text == "1 open todo"
    assert not by_kind(session, Kind.UNKNOWN) and len(by_kind(session, Kind.TOOL_CALL)) == 1


def test_discovery_finds_the_default_folders(tmp_path: Path) -> None:
    sessions = tmp_path / ".factory" / "sessions"
    shutil.copytree(FIXTURES / "factory_droid", sessions)
    for system in ("linux", "darwin", "windows"):
        assert [loc.folder for loc in find(home=tmp_path, system=system) if loc.agent == "factory-droid"] == [sessions]
    problems = Problems()
    claims = discover(sessions, problems).claims
    assert sorted(c.path.name for c in claims) == sorted([STORE.name, EXEC.name]) and not problems.items


def test_the_enumerator_reads_the_files_independently() -> None:
    records_of = enumerator("factory_droid")
    assert records_of is not None
    store = list(records_of(STORE))
    assert [r.line for r in store] == list(range(1, len(STORE.read_text().splitlines()) + 1))
    assert [t for r in store for t in r.user_texts] == ["Rename old_name to new_name and run the tests"]
    assert {c for r in store for c in r.calls} == {c for r in store for c in r.results} == {"toolu_edit", "toolu_exec"}
    assert [r.line for r in records_of(SETTINGS)] == [1]
    streamed = list(records_of(EXEC))
    assert [t for r in streamed for t in r.user_texts] == ["List the Python files"]


def test_the_site_shows_the_sessions(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    shutil.copytree(FIXTURES / "factory_droid", archive)
    report = build_site(archive, tmp_path / "site")
    assert report.sessions == 2 and [str(p) for p in report.problems] == []
    page = parse_html(tmp_path / "site" / "sessions" / f"factory_droid-{SID}.html")
    assert "Rename old_name to new_name" in page.select_one("h1").get_text()
    text = page.get_text(" ")
    for words in (
        "pytest -q",
        "1 failed, 11 passed",
        "Token limit reached",
        "tests/test_helper.py still calls old_name",
    ):
        assert words in text, words
    assert page.select(".event.k-tool_call.cat-shell")


def test_the_real_logs_are_read_faithfully() -> None:
    real = sorted(REAL.rglob("*.jsonl")) if REAL.is_dir() else []
    if not real:
        pytest.skip("../shared/formats/real-agents/factory-droid is not here")
    records_of = enumerator("factory_droid")
    assert records_of is not None
    for path in real:
        problems = Problems()
        with keeping_ledger() as ledger:
            session = read_one(path, problems)
        assert not problems.items, path.name
        assert {line for (p, line) in ledger.fates if p == str(path)} == {r.line for r in records_of(path)}
        calls = {e.call_id for e in by_kind(session, Kind.TOOL_CALL)}
        assert {e.call_id for e in by_kind(session, Kind.TOOL_RESULT)} <= calls
