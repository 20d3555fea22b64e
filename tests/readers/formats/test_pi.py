"""The pi coding agent reader: messages, thinking, calls paired with results, the user's own shell
commands, the entries' tree (branches left with /tree), labels, the session's name, compactions,
extension entries, damaged lines, discovery.

The hand-made fixture (tests/fixtures/pi/--home-dev-widget--/…jsonl) holds one entry of each kind;
the real logs in ../shared/formats/real-agents/pi are read when they are there.
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
from sessite.readers.formats.pi import READER
from sessite.readers.ledger import Fate, keeping_ledger
from sessite.readers.locations import find

sys.path.insert(0, str(REPO / "benchmarks"))
from fidelity.formats import enumerator  # noqa: E402

SID = "0196a1b2-0000-7000-8000-000000000a10"
LOG = FIXTURES / "pi" / "--home-dev-widget--" / f"2026-05-04T10-00-00-000Z_{SID}.jsonl"
REAL = REPO.parent / "shared" / "formats" / "real-agents" / "pi"
BRANCH = "on a branch the session left (/tree)"


def read_one(path: Path, problems: Problems | None = None) -> Session:
    [session] = READER.read(path, problems if problems is not None else Problems())
    return session


def by_kind(session: Session, kind: Kind) -> list[Event]:
    return [e for e in walk(session.events) if e.kind == kind]


def test_registered_and_the_only_reader_of_its_files(tmp_path: Path) -> None:
    assert READER in registry() and READER.agent == "pi"
    assert detected_by(LOG) == ["pi"]
    assert discover(LOG, Problems()).claims[0].key == SID
    other = tmp_path / "x.jsonl"
    other.write_text('{"type": "session", "id": "x"}\n')  # no version, no folder, no time
    assert not READER.detect_path(other)


def test_it_claims_no_other_format() -> None:
    names = ("claude_code", "codex", "copilot_cli", "gemini", "hail", "amp", "qwen_code", "kimi_cli")
    others = [p for name in names for p in (FIXTURES / name).rglob("*")]
    samples = REPO.parent / "shared" / "formats" / "samples"
    if samples.is_dir():
        others += list(samples.rglob("*"))
    assert others and not [p for p in others if p.is_file() and READER.detect_path(p)]


def test_messages_calls_and_results() -> None:
    problems = Problems()
    session = read_one(LOG, problems)
    assert not problems.items and not by_kind(session, Kind.UNKNOWN)
    assert session.id == f"pi-{SID}" and session.agent == "pi" and session.title == "Widget rename"
    assert session.cwd == "/home/dev/widget" and session.models == ("claude-sonnet-4-5",)
    assert session.meta["provider"] == "anthropic" and session.meta["format version"] == 3
    assert [e.text for e in by_kind(session, Kind.USER)] == [
        "Rename old_name to new_name and run the tests",
        "Also update the changelog",
        "Fix that test too",
    ]
    assert [e.text for e in by_kind(session, Kind.THINKING)] == ["Only helper.py defines it."]
    calls = {e.call_id: e for e in by_kind(session, Kind.TOOL_CALL)}
    results = {e.call_id: e for e in by_kind(session, Kind.TOOL_RESULT)}
    assert set(calls) == set(results) == {"toolu_edit", "toolu_bash", "bash-a0000009"}
    edit = calls["toolu_edit"]
    assert edit.category == ToolCategory.EDIT and edit.path == "src/helper.py"
    assert edit.diff is not None and "-def old_name():" in edit.diff and "+def new_name():" in edit.diff
    assert edit.usage is not None and (edit.usage.input_tokens, edit.usage.cache_read_tokens) == (1200, 4000)
    assert edit.meta["cost"] == 0.012
    assert results["toolu_bash"].exit_code == 1 and results["toolu_bash"].is_error
    mine = calls["bash-a0000009"]  # the user's own `!git status --short`
    assert mine.command == "git status --short" and mine.meta["run by"] == "the user"
    assert results["bash-a0000009"].exit_code == 0 and not results["bash-a0000009"].is_error


def test_the_tree_labels_notes_and_what_is_left_out() -> None:
    session = read_one(LOG)
    left = [(e.kind, e.text) for e in session.events if e.meta.get("branch") == BRANCH]
    assert left == [
        (Kind.TOOL_CALL, ""),
        (Kind.TOOL_RESULT, " M src/helper.py\n"),
        (Kind.SYSTEM, "Open todos: fix tests/test_helper.py"),
        (Kind.USER, "Also update the changelog"),
        (Kind.SYSTEM, "Overloaded"),
    ]
    assert by_kind(session, Kind.USER)[0].meta["label"] == "start"
    notes = {e.title: e for e in by_kind(session, Kind.SYSTEM)}
    assert notes["Model"].text == "anthropic/claude-sonnet-4-5" and notes["Thinking level"].text == "medium"
    assert notes["Model error"].is_error and notes["Summary of the branch left"].text.startswith("Tried to")
    [compaction] = by_kind(session, Kind.COMPACTION)
    assert compaction.meta["tokens before"] == 9000 and compaction.meta["files changed"] == ["src/helper.py"]
    assert session.skipped == {
        "extension state (kept for the extension, not part of the conversation)": 1,
        "session name (used for the title)": 1,
    }


def test_every_line_has_a_fate() -> None:
    with keeping_ledger() as ledger:
        read_one(LOG)
    fates = {line: fate for (path, line), (fate, _) in ledger.fates.items() if path == str(LOG)}
    assert sorted(fates) == list(range(1, len(LOG.read_text().splitlines()) + 1))
    assert fates[1] == Fate.MERGED and fates[13] == Fate.MERGED  # the header; the label


def test_a_damaged_line_or_an_odd_entry_costs_only_itself(tmp_path: Path) -> None:
    lines = LOG.read_text().splitlines()
    odd = json.loads(lines[4])
    odd["message"]["content"] = 42  # an assistant message whose content is not a list
    damaged = tmp_path / "damaged.jsonl"
    new_kind = json.dumps({"type": "brand_new", "id": "z1", "parentId": None, "timestamp": "2026-05-04T10:01:00Z"})
    damaged.write_text(
        "\n".join([*lines[:2], "not json", lines[2], *lines[3:4], json.dumps(odd), *lines[5:], new_kind]) + "\n"
    )
    problems = Problems()
    session = read_one(damaged, problems)
    assert [p.line for p in problems.items] == [3, len(lines) + 2]
    assert "malformed JSON" in problems.items[0].message and "brand_new" in problems.items[1].message
    assert session.events[-1].title == "brand_new" and not by_kind(session, Kind.UNKNOWN)
    assert len(by_kind(session, Kind.TOOL_CALL)) == 2  # the edit call went with its message's content


def test_copies_of_one_session_are_read_as_one(tmp_path: Path) -> None:
    lines = LOG.read_text().splitlines(True)
    for name, upto in (("a", 8), ("b", len(lines))):
        (tmp_path / name).mkdir()
        (tmp_path / name / "full.jsonl").write_text("".join(lines[:upto]))
    problems = Problems()
    [claim] = discover(tmp_path, problems).claims
    [session] = claim.read(problems)
    assert not problems.items and [e.id for e in session.events] == [e.id for e in read_one(LOG).events]


def test_discovery_finds_the_default_folders(tmp_path: Path) -> None:
    sessions = tmp_path / ".pi" / "agent" / "sessions"
    shutil.copytree(FIXTURES / "pi", sessions)
    for system in ("linux", "darwin", "windows"):
        assert [loc.folder for loc in find(home=tmp_path, system=system) if loc.agent == "pi"] == [sessions], system
    moved = tmp_path / "elsewhere"
    shutil.copytree(FIXTURES / "pi", moved / "sessions")
    found = find(home=tmp_path, env={"PI_CODING_AGENT_DIR": str(moved)})
    assert [loc.folder for loc in found if loc.agent == "pi"] == [moved / "sessions", sessions]
    problems = Problems()
    assert [c.reader.name for c in discover(sessions, problems).claims] == ["pi"] and not problems.items


def test_the_enumerator_reads_the_file_independently() -> None:
    records_of = enumerator("pi")
    assert records_of is not None
    records = list(records_of(LOG))
    assert [r.line for r in records] == list(range(1, len(LOG.read_text().splitlines()) + 1))
    assert [t for r in records for t in r.user_texts] == [
        "Rename old_name to new_name and run the tests",
        "git status --short",
        "Also update the changelog",
        "Fix that test too",
    ]
    assert (
        {c for r in records for c in r.calls} == {c for r in records for c in r.results} == {"toolu_edit", "toolu_bash"}
    )


def test_the_site_shows_the_session(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    shutil.copytree(FIXTURES / "pi", archive)
    report = build_site(archive, tmp_path / "site")
    assert report.sessions == 1 and [str(p) for p in report.problems] == []
    page = parse_html(tmp_path / "site" / "sessions" / f"pi-{SID}.html")
    assert "Widget rename" in page.select_one("h1").get_text()
    text = page.get_text(" ")
    for words in ("Rename old_name to new_name", "pytest -q", "1 failed, 11 passed", "Fixed tests/test_helper.py"):
        assert words in text, words
    assert page.select(".event.k-tool_call.cat-shell") and page.select(".event.k-compaction")


def test_the_real_logs_are_read_faithfully() -> None:
    real = sorted(REAL.glob("*.jsonl")) if REAL.is_dir() else []
    if not real:
        pytest.skip("../shared/formats/real-agents/pi is not here")
    records_of = enumerator("pi")
    assert records_of is not None
    for path in real:
        with keeping_ledger() as ledger:
            session = read_one(path, Problems())
        assert {line for (p, line) in ledger.fates if p == str(path)} == {r.line for r in records_of(path)}
        calls = {e.call_id for e in by_kind(session, Kind.TOOL_CALL)}
        assert calls and {e.call_id for e in by_kind(session, Kind.TOOL_RESULT)} <= calls
        assert session.models and session.cwd
