"""The Google Antigravity reader: a brain folder as one session (transcript steps, calls paired with
their output, artifacts with their revisions as diffs, system messages, task logs), the encrypted
conversation files counted as not read, damaged lines, discovery.

The hand-made fixture (tests/fixtures/antigravity/) is a piece of ``~/.gemini/antigravity``; the
real folders in ../shared/formats/real-agents/antigravity are read when they are there.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from helpers import FIXTURES, REPO, build_site, detected_by, parse_html

import sessite.readers as readers
from sessite.model import Event, Kind, Problems, Session, ToolCategory, walk
from sessite.readers import discover
from sessite.readers.formats.antigravity import READER
from sessite.readers.ledger import Fate, keeping_ledger
from sessite.readers.locations import find

sys.path.insert(0, str(REPO / "benchmarks"))
import fidelity.formats as formats  # noqa: E402

HOME = FIXTURES / "antigravity"
BID = "0e5a7c1d-0000-4000-8000-00000000a9a9"
BRAIN = HOME / "brain" / BID
LOGS = BRAIN / ".system_generated" / "logs"
REAL = REPO.parent / "shared" / "formats" / "real-agents" / "antigravity"


def read_all(root: Path, problems: Problems | None = None) -> list[Session]:
    problems = problems if problems is not None else Problems(root)
    return [s for claim in discover(root, problems).claims for s in claim.read(problems)]


def the_brain(problems: Problems | None = None) -> Session:
    [session] = read_all(HOME, problems)
    return session


def by_kind(session: Session, kind: Kind) -> list[Event]:
    return [e for e in walk(session.events) if e.kind == kind]


def steps_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_registered_and_the_only_reader_of_its_files(tmp_path: Path) -> None:
    assert READER.agent == "antigravity" and READER in readers.registry()
    assert detected_by(BRAIN) == ["antigravity"]
    assert detected_by(HOME / "conversations" / f"{BID}.pb") == ["antigravity"]
    alone = tmp_path / "steps.jsonl"  # a transcript on its own (Antigravity CLI, a copy)
    shutil.copyfile(LOGS / "transcript_full.jsonl", alone)
    assert detected_by(alone) == ["antigravity"]
    others = [p for name in ("gemini", "claude_code", "copilot_cli", "qwen_code") for p in (FIXTURES / name).rglob("*")]
    assert others and not [p for p in others if READER.detect_path(p)]
    assert not READER.detect_path(HOME) and not READER.detect_path(HOME / "brain")


def test_the_user_the_model_and_the_context_around_the_users_words() -> None:
    problems = Problems(HOME)
    session = the_brain(problems)
    assert [str(p) for p in problems.items] == [
        f"conversations/{BID}.pb: antigravity: conversation file encrypted by Antigravity (AES): not read"
    ]
    assert session.id == f"antigravity-{BID}" and session.agent == "antigravity"
    users = by_kind(session, Kind.USER)
    assert [e.text for e in users] == ["Add a --version flag to the CLI.", "Thanks, leave the failing test for now."]
    assert "Model Selection" in users[0].meta["user_settings_change"]
    assert users[0].meta["additional_metadata"].startswith("The current local time is")
    assert session.models == ("Gemini 3 Pro (High)",)
    answers = by_kind(session, Kind.ASSISTANT)
    assert [e.title for e in answers[:2]] == ["task.md", "walkthrough.md"]
    assert answers[2].text.startswith("I added a `--version` flag") and answers[2].model == "Gemini 3 Pro (High)"
    assert answers[-1].text == "Understood: test_locale stays as it is for now."  # only in transcript.jsonl
    assert [e.text.split("\n")[0] for e in by_kind(session, Kind.THINKING)] == [
        "**Finding the entry point**",
        "The failing test is about locales, not the flag.",
    ]
    [checkpoint] = by_kind(session, Kind.COMPACTION)
    assert "test_locale fails for another reason" in checkpoint.text
    assert session.meta["annotations"] == {"last_user_view_time": "2026-02-03T09:05:00+00:00"}


def test_calls_are_paired_with_the_steps_that_answer_them() -> None:
    session = the_brain()
    calls = by_kind(session, Kind.TOOL_CALL)
    results = {e.call_id: e for e in by_kind(session, Kind.TOOL_RESULT)}
    steps = [c for c in calls if c.call_id]
    assert [c.tool_name for c in steps] == ["view_file", "replace_file_content", "run_command", "run_command"]
    assert set(results) == {c.call_id for c in steps}
    view, edit, version, tests = steps
    assert view.category == ToolCategory.READ and view.path == "/home/dev/tool/src/cli.py"
    assert "1: import argparse" in results[view.call_id].text  # the full transcript's step, not the cut one
    assert edit.category == ToolCategory.EDIT and '+parser.add_argument("--version"' in (edit.diff or "")
    done = results[edit.call_id]
    assert done.diff is not None and done.diff.startswith(
        "--- /home/dev/tool/src/cli.py\n+++ /home/dev/tool/src/cli.py\n@@"
    )
    assert "[diff_block_start]" not in done.text
    assert version.command == "python src/cli.py --version" and version.tool_input["Cwd"] == "/home/dev/tool"
    assert results[version.call_id].exit_code == 0 and not results[version.call_id].is_error
    assert results[tests.call_id].exit_code == 1 and results[tests.call_id].is_error


def test_artifacts_with_their_revisions_as_diffs() -> None:
    session = the_brain()
    revisions = [e for e in session.events if e.tool_name == "artifact revision"]
    assert [e.tool_input["revision"] for e in revisions] == ["resolved.0", "resolved.1", "resolved.2"]
    assert revisions[0].diff is not None and revisions[0].diff.startswith("--- /dev/null\n+++ task.md")
    assert "-- [ ] Add the flag\n+- [x] Find the entry point" in (revisions[1].diff or "")
    task = next(e for e in session.events if e.title == "task.md")
    assert task.meta["summary"] == "Steps to add a --version flag to the CLI." and task.meta["version"] == "3"
    assert task.timestamp is not None and task.timestamp.isoformat() == "2026-02-03T09:00:28.120000+00:00"
    order = [e.id for e in session.events]
    # placed by the artifact's time: after the tests ran (09:00:21), before the answer (09:00:30)
    ran = next(e.id for e in by_kind(session, Kind.TOOL_RESULT) if e.exit_code == 1)
    answer = next(e.id for e in by_kind(session, Kind.ASSISTANT) if e.text.startswith("I added"))
    assert order.index(ran) < order.index(revisions[0].id) < order.index(task.id) < order.index(answer)


def test_messages_task_logs_and_what_is_not_shown() -> None:
    session = the_brain()
    notes = {e.title: e for e in by_kind(session, Kind.SYSTEM)}
    assert notes["Message from system"].text == "[Notice] The background test run has finished."
    assert notes["Message from system"].meta["priority"] == "MESSAGE_PRIORITY_LOW"
    assert notes["Ephemeral message"].text.endswith("Keep the task list up to date.")
    assert notes["Background task log task-9"].blocks[0].text.endswith("1 failed, 8 passed in 0.41s\n")
    assert session.skipped == {
        "conversation-history marker without content": 1,
        "file of the conversation this reader does not show (an image, a recording …)": 1,
        "conversation file encrypted by Antigravity (AES): not read": 1,
    }
    assert not by_kind(session, Kind.UNKNOWN)


def test_every_record_has_a_fate() -> None:
    with keeping_ledger() as ledger:
        the_brain()
    fates = {
        (Path(p).relative_to(HOME).as_posix(), line): (fate, why) for (p, line), (fate, why) in ledger.fates.items()
    }
    logs = f"brain/{BID}/.system_generated/logs"
    assert {line for (p, line) in fates if p == f"{logs}/transcript_full.jsonl"} == set(range(1, 15))
    assert {line for (p, line) in fates if p == f"{logs}/transcript.jsonl"} == set(range(1, 16))
    assert fates[(f"{logs}/transcript.jsonl", 4)] == (Fate.MERGED, "the same step in transcript_full.jsonl")
    assert fates[(f"{logs}/transcript.jsonl", 15)][0] == Fate.SHOWN
    files = {p.relative_to(HOME).as_posix() for p in HOME.rglob("*") if p.is_file() and p.suffix != ".jsonl"}
    assert {p for (p, _) in fates if not p.endswith(".jsonl")} == files
    assert fates[(f"brain/{BID}/task.md.resolved", 1)] == (
        Fate.MERGED,
        "identical to the artifact's revision before it",
    )
    assert fates[(f"conversations/{BID}.pb", 1)][0] == Fate.NOT_SHOWN


def test_an_encrypted_conversation_alone_is_one_problem_line(tmp_path: Path) -> None:
    conversations = tmp_path / "antigravity" / "conversations"
    conversations.mkdir(parents=True)
    shutil.copyfile(HOME / "conversations" / f"{BID}.pb", conversations / "1f2e3d4c.pb")
    problems = Problems(tmp_path)
    with keeping_ledger() as ledger:
        assert read_all(tmp_path, problems) == []
    assert [p.message for p in problems.items] == [
        "antigravity: conversation file encrypted by Antigravity (AES): not read; its brain folder is not here"
    ]
    assert list(ledger.fates.values()) == [
        (Fate.NOT_SHOWN, "conversation file encrypted by Antigravity (AES): not read")
    ]


def test_a_transcript_alone_is_a_session(tmp_path: Path) -> None:
    alone = tmp_path / "cli-steps.jsonl"
    shutil.copyfile(LOGS / "transcript.jsonl", alone)
    problems = Problems(tmp_path)
    [session] = read_all(tmp_path, problems)
    assert session.id == "antigravity-cli-steps" and not problems.items
    assert session.title is None and by_kind(session, Kind.USER)[0].text == "Add a --version flag to the CLI."


def test_a_tool_step_written_before_its_call_is_read_in_step_order(tmp_path: Path) -> None:
    """A real transcript had a planner response's output steps on the lines before it."""
    steps = steps_of(LOGS / "transcript_full.jsonl")
    steps[6], steps[7] = steps[7], steps[6]  # the first command's output before the call
    shuffled = tmp_path / "steps.jsonl"
    shuffled.write_text("".join(json.dumps(s) + "\n" for s in steps))
    [session] = READER.read(shuffled, Problems())
    results = {e.call_id: e for e in by_kind(session, Kind.TOOL_RESULT)}
    commands = [e for e in by_kind(session, Kind.TOOL_CALL) if e.tool_name == "run_command"]
    assert [results[c.call_id].exit_code for c in commands] == [0, 1]


def test_a_damaged_line_or_an_odd_value_costs_only_that_record(tmp_path: Path) -> None:
    steps = steps_of(LOGS / "transcript_full.jsonl")
    steps[2]["tool_calls"] = "view_file"  # not a list
    steps[4]["created_at"] = "soon"
    steps[10]["type"] = None
    lines = [json.dumps(s) for s in steps]
    lines.insert(6, '{"step_index": 99, "source": "MODEL", ')
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("\n".join(lines) + "\n")
    problems = Problems(tmp_path)
    [session] = READER.read(damaged, problems)
    said = sorted((p.line, p.message.split(" (")[0]) for p in problems.items)
    assert said == [
        (3, "antigravity: tool_calls is not a list"),
        (5, "antigravity: created_at is not a time"),
        (7, "malformed JSON"),
        (12, "antigravity: step without a type"),
    ]
    assert len(by_kind(session, Kind.USER)) == 2 and not by_kind(session, Kind.UNKNOWN)


def test_discovery_finds_the_default_folders(tmp_path: Path) -> None:
    home = tmp_path / ".gemini" / "antigravity"
    shutil.copytree(HOME, home)
    (home / "mcp_config.json").write_text("{}")  # beside the conversations: not walked
    for system in ("linux", "darwin", "windows"):
        found = [loc for loc in find(home=tmp_path, system=system) if loc.agent == "antigravity"]
        assert [loc.roots for loc in found] == [(home / "brain", home / "conversations", home / "annotations")], system
    problems = Problems(tmp_path)
    found = discover(list(found[0].roots), problems)
    assert [c.path for c in found.claims] == [home / "brain" / BID, home / "annotations" / f"{BID}.pbtxt"]
    assert not problems.items
    cli = tmp_path / ".gemini" / "antigravity-cli"
    shutil.copytree(HOME / "brain", cli / "brain")
    assert [loc.folder for loc in find(home=tmp_path) if loc.agent == "antigravity"] == [home, cli]


def test_the_enumerator_reads_the_files_independently() -> None:
    records_of = formats.enumerator("antigravity")
    assert records_of is not None
    records = list(records_of(LOGS / "transcript_full.jsonl"))
    assert [r.line for r in records] == list(range(1, 15))
    assert [t for r in records for t in r.user_texts] == [
        "Add a --version flag to the CLI.",
        "Thanks, leave the failing test for now.",
    ]
    assert [t[:9] for r in records for t in r.assistant_texts] == ["I added a"]
    [task] = records_of(BRAIN / "task.md")
    assert task.assistant_texts[0].startswith("# Add a --version flag")
    assert [r.type for r in records_of(HOME / "conversations" / f"{BID}.pb")] == ["pb"]


def test_the_site_shows_the_conversation(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    shutil.copytree(HOME, archive)
    report = build_site(archive, tmp_path / "site")
    assert report.sessions == 1 and [p.message for p in report.problems] == [
        "antigravity: conversation file encrypted by Antigravity (AES): not read"
    ]
    page = parse_html(tmp_path / "site" / "sessions" / f"antigravity-{BID}.html")
    assert page.select_one("h1").get_text(strip=True) == "Add a --version flag to the CLI."
    text = page.get_text(" ")
    for words in ("python src/cli.py --version", "1 failed, 8 passed", "Walkthrough: --version", "Gemini 3 Pro (High)"):
        assert words in text, words
    assert page.select(".event.k-tool_call.cat-shell") and page.select(".event.k-tool_call.cat-edit")


def test_the_real_folders_are_read_faithfully() -> None:
    if not REAL.is_dir():
        pytest.skip("../shared/formats/real-agents/antigravity is not here")
    records_of = formats.enumerator("antigravity")
    assert records_of is not None
    problems = Problems(REAL)
    with keeping_ledger() as ledger:
        claims = [c for c in discover(REAL, problems).claims if c.reader.name == "antigravity"]
        sessions = [s for c in claims for s in c.read(problems)]
    files = [p for c in claims for p in (*c.sources, *c.companions) if p.is_file()]
    records = {(str(r.path), r.line) for p in files for r in records_of(p)}
    assert records and records <= set(ledger.fates)
    assert not [e for s in sessions for e in by_kind(s, Kind.UNKNOWN)]
    encrypted = [p for p in problems.items if "encrypted" in p.message]
    assert len(encrypted) == len({p.source for p in encrypted}) == 2  # one line per file
