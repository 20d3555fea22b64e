"""The aider reader: runs, prompts and replies, edits paired with aider's word, times from the histories.

The hand-made fixture (tests/fixtures/aider/bakery.aider.*) is two runs: SEARCH/REPLACE edits
(one failing to match), a commit, a suggested shell command, /ask, /run, reasoning, a quotation
in a reply, and a whole file written; with the input and model histories beside it. (Aider's
own names start with a dot, which discovery passes over when it walks a folder; the fixture
keeps a prefix before them, as the real logs in ../shared/formats/real-agents do.)
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from helpers import REPO, build_site, detected_by, parse_html

from sessite.model import Event, Kind, Problems, Session, ToolCategory, walk
from sessite.readers import discover, registry
from sessite.readers.formats.aider import READER
from sessite.readers.ledger import Fate, keeping_ledger
from sessite.readers.locations import find
from sessite.readers.platform import Platform

sys.path.insert(0, str(REPO / "benchmarks"))
from fidelity.formats import enumerator  # noqa: E402

REAL = REPO.parent / "shared" / "formats" / "real-agents" / "aider"


@pytest.fixture
def chat(fixtures: Path) -> Path:
    return fixtures / "aider" / "bakery.aider.chat.history.md"


def read_all(path: Path, problems: Problems | None = None) -> list[Session]:
    return list(READER.read(path, problems if problems is not None else Problems()))


def by_kind(session: Session, kind: Kind) -> list[Event]:
    return [e for e in walk(session.events) if e.kind == kind]


def test_registered_and_the_only_reader_of_its_files(chat: Path, tmp_path: Path) -> None:
    assert READER in registry() and detected_by(chat) == ["aider"]
    assert [p.name for p in READER.companions(chat)] == ["bakery.aider.input.history", "bakery.aider.llm.history"]
    named = tmp_path / "notes.md"  # --chat-history-file with another name: known by its first line
    named.write_text("\n# aider chat started at 2025-06-02 09:00:00\n\n#### hi  \n")
    assert detected_by(named) == ["aider"]
    readme = tmp_path / "README.md"
    readme.write_text("# My project\n\n#### Usage  \n")
    assert detected_by(readme) == []


def test_each_run_is_a_session_with_its_prompts(chat: Path) -> None:
    problems = Problems()
    first, second = read_all(chat, problems)
    assert not problems.items
    assert first.id == "aider-bakery-20250602-090000" and first.agent == "aider" and first.project == "bakery"
    assert first.title == "Rename the helper `price` to `total_price` in shop.py"
    assert [e.text for e in by_kind(first, Kind.USER)] == [
        "Rename the helper `price` to `total_price` in shop.py",
        "/ask why did the test for discounts fail?",  # its echo is merged into it
        "Fix the test\nand keep the old name as an alias",
        "/run git status --short",
    ]
    assert first.models == ("anthropic/claude-sonnet-4",) and second.models == ("ollama/qwen3:8b",)
    assert first.meta["aider version"] == "0.84.0" and first.meta["edit format"] == "diff"
    assert first.meta["cost"] == "$0.03" and first.git.commits == ("1a2b3c4",)
    assert second.title == "Add a README" and second.started is not None and second.started.day == 3


def test_replies_reasoning_and_times(chat: Path) -> None:
    first, second = read_all(chat)
    [thinking] = by_kind(first, Kind.THINKING)
    assert thinking.text == "The helper is only called from checkout()."
    prose = [e.text for e in by_kind(first, Kind.ASSISTANT)]
    assert prose[0] == "I will rename the function and its one caller."  # its file name is on the call
    assert prose[1].startswith("> Note: no other module imports it.")  # a quotation stays in the reply
    assert "pytest -q" in prose[1]
    user = by_kind(first, Kind.USER)[0]
    assert user.timestamp is not None and user.timestamp.isoformat() == "2025-06-02T09:00:20.100000+00:00"
    assert by_kind(first, Kind.ASSISTANT)[0].timestamp is not None  # from the model history
    usage = by_kind(first, Kind.ASSISTANT)[1].usage
    assert usage is not None and (usage.input_tokens, usage.output_tokens) == (2400, 180)


def test_edits_are_calls_answered_by_aider(chat: Path) -> None:
    first, second = read_all(chat)
    calls = by_kind(first, Kind.TOOL_CALL)
    results = {e.call_id: e for e in by_kind(first, Kind.TOOL_RESULT)}
    edits = [c for c in calls if c.category == ToolCategory.EDIT]
    assert [c.path for c in edits] == ["shop.py", "shop.py", "test_shop.py", "shop.py"]
    assert "-def price(items):" in str(edits[0].diff) and "+def total_price(items):" in str(edits[0].diff)
    assert results[edits[0].call_id].text == "Applied edit to shop.py"
    failed = results[edits[3].call_id]
    assert failed.is_error and "SearchReplaceNoExactMatch" in failed.text
    assert not results[edits[2].call_id].is_error  # "the other blocks were applied successfully"
    shells = [c for c in calls if c.category == ToolCategory.SHELL]
    assert [(c.command, c.meta["run by"]) for c in shells] == [
        ("pytest -q", "aider"),
        ("git status --short", "the user"),
    ]
    assert results[shells[0].call_id].text.startswith("Added 3 lines of output to the chat.")
    [whole] = by_kind(second, Kind.TOOL_CALL)
    assert whole.path == "README.md" and whole.meta["format"] == "whole file" and "# Shop" in whole.text
    assert (
        results.get(whole.call_id) is None and by_kind(second, Kind.TOOL_RESULT)[0].text == "Applied edit to README.md"
    )


def test_every_record_of_the_three_files_has_a_fate(chat: Path) -> None:
    with keeping_ledger() as ledger:
        first, second = read_all(chat)
    records_of = enumerator("aider")
    assert records_of is not None
    for path in (chat, *READER.companions(chat)):
        expected = {r.line for r in records_of(path)}
        assert expected and expected == {line for p, line in ledger.fates if p == str(path)}, path.name
    fates = {(Path(p).name, line): fate for (p, line), fate in ledger.fates.items()}
    assert fates[("bakery.aider.chat.history.md", 55)] == (
        Fate.MERGED,
        "prompt aider repeats when a command hands it to the model (shown as the command)",
    )
    assert (
        first.skipped["model reply the chat transcript does not hold (a commit message or a summary aider asked for)"]
        == 1
    )
    assert (
        first.skipped["typed input the chat transcript does not hold (another run's, or an answer to a question)"] == 1
    )


def test_the_enumerator_reads_the_transcript_independently(chat: Path) -> None:
    records_of = enumerator("aider")
    assert records_of is not None
    records = list(records_of(chat))
    assert [r.type for r in records][:4] == ["run", "aider", "aider", "aider"]
    users = [t for r in records for t in r.user_texts]
    assert users[0] == "Rename the helper `price` to `total_price` in shop.py"
    prose = [t for r in records for t in r.assistant_texts]
    assert "I will rename the function and its one caller." in prose


def test_a_damaged_transcript_keeps_what_it_can(tmp_path: Path) -> None:
    path = tmp_path / "x.aider.chat.history.md"
    path.write_bytes(
        b"\n# aider chat started at 2025-06-02 09:00:00\n\n#### caf\xe9 order  \n\n"
        b"<<<<<<< SEARCH\nunclosed block with no file\n\n> Tokens: 1 sent, 2 received.  \n"
    )
    problems = Problems()
    [session] = read_all(path, problems)
    assert [str(p).split(": ", 1)[1] for p in problems.items] == ["invalid UTF-8; undecodable bytes replaced"]
    assert by_kind(session, Kind.USER)[0].text == "caf\ufffd order"
    [call] = by_kind(session, Kind.TOOL_CALL)
    assert call.path is None and call.meta["file"] == "not named in the reply"


def test_no_default_folder_but_a_file_given_directly_is_read(chat: Path, tmp_path: Path) -> None:
    assert READER.agent == "aider" and READER.default_folders(Platform(tmp_path)) == []
    assert not [loc for loc in find(home=tmp_path) if loc.agent == "aider"]
    project = tmp_path / "shop"
    project.mkdir()
    real_name = project / ".aider.chat.history.md"
    shutil.copy(chat, real_name)
    shutil.copy(chat.with_name("bakery.aider.input.history"), project / ".aider.input.history")
    found = discover(real_name, Problems(project))
    assert [(c.reader.name, [p.name for p in c.companions]) for c in found.claims] == [
        ("aider", [".aider.input.history"])
    ]
    [first, _] = list(found.claims[0].read(Problems()))
    assert first.project == "shop"
    [location] = find(home=tmp_path, overrides={"aider": [project]})  # sessite discover --agent-dir aider=shop
    assert location.roots == (real_name,)


def test_the_transcript_builds_a_page(chat: Path, tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    shutil.copytree(chat.parent, archive)
    report = build_site(archive, tmp_path / "site")
    assert report.published and report.sessions == 2 and not [str(p) for p in report.problems]
    page = parse_html(tmp_path / "site" / "sessions" / "aider-bakery-20250602-090000.html")
    text = page.get_text(" ")
    assert "I will rename the function and its one caller." in text and "SearchReplaceNoExactMatch" in text
    assert page.select(".k-tool_call.cat-edit") and page.select(".k-tool_call.cat-shell")


def test_the_real_transcript_is_read_faithfully() -> None:
    real = sorted(REAL.glob("*.aider.chat.history.md")) if REAL.is_dir() else []
    if not real:
        pytest.skip("../shared/formats/real-agents/aider is not here")
    for path in real:
        problems = Problems()
        sessions = read_all(path, problems)
        assert sessions and not problems.items
        for session in sessions:
            assert not by_kind(session, Kind.UNKNOWN)
            assert all(e.timestamp for e in by_kind(session, Kind.USER))
