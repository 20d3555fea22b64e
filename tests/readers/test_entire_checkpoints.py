"""An Entire checkpoint folder copied into an archive: the transcript read with what its metadata says,
the checkpoint's own files known, not reported as unrecognised."""

from __future__ import annotations

import shutil
from pathlib import Path

from sessite.model import Problems, Session
from sessite.readers import Claim, discover

CHECKPOINT = Path(__file__).parent / "entire_checkpoint"  # (not under tests/fixtures: no reader of its own)


def _found(root: Path) -> tuple[list[Claim], list[Session], list[str]]:
    problems = Problems(root)
    found = discover(root, problems)
    sessions = [s for claim in found.claims for s in claim.read(problems)]
    return found.claims, sessions, [str(p) for p in problems.items]


def test_a_checkpoint_folder_reads_as_its_session_with_its_metadata(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    shutil.copytree(CHECKPOINT, archive)
    normalized = '{"v":1,"agent":"claude-code","type":"user","ts":"2026-02-03T06:30:00Z","content":[{"text":"hi"}]}\n'
    (archive / "3f" / "0a1b2c3d4e" / "0" / "transcript.jsonl").write_text(normalized, "utf-8")  # newer Entire
    claims, sessions, problems = _found(archive)
    assert problems == []
    [claim] = claims
    assert claim.reader.name == "claude_code" and claim.path.name == "full.jsonl"
    assert {p.name for p in claim.companions} == {
        "metadata.json",
        "context.md",
        "prompt.txt",
        "content_hash.txt",
        "transcript.jsonl",
    }
    [session] = sessions
    meta = session.meta["entire checkpoint"]
    assert meta["checkpoint_id"] == "3f0a1b2c3d4e" and meta["files_touched"] == ["cmd/explain.go"]
    assert [e.text for e in session.events][:1] == ["Why does the checkpoint list stay empty on main?"]


def test_a_damaged_metadata_file_costs_one_line(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    shutil.copytree(CHECKPOINT, archive)
    (archive / "3f" / "0a1b2c3d4e" / "0" / "metadata.json").write_text('{"checkpoint_id": ', "utf-8")
    claims, sessions, problems = _found(archive)
    assert len(sessions) == 1 and "entire checkpoint" not in sessions[0].meta
    assert problems == ["3f/0a1b2c3d4e/0/metadata.json: not a recognised session format; skipped"]
