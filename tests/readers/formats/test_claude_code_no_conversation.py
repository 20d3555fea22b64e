"""A Claude Code file of ``file-history-snapshot`` records only is recognised, and said to hold no conversation."""

from __future__ import annotations

from pathlib import Path

from helpers import REPO

from sessite.model import Problems
from sessite.readers import discover

REAL = REPO.parent / "shared" / "formats" / "real" / "claude_code" / "entireio_cli__entire-036ec8b29cf4-full.jsonl"
SNAPSHOT = (
    '{"type":"file-history-snapshot","messageId":"2fee4313-facf-4bfa-950d-18284d610399","snapshot":'
    '{"messageId":"2fee4313-facf-4bfa-950d-18284d610399","trackedFileBackups":{},'
    '"timestamp":"2026-01-15T12:56:00.040Z"},"isSnapshotUpdate":false}'
)


def _messages(root: Path) -> list[str]:
    problems = Problems(root)
    found = discover(root, problems)
    assert found.claims == []
    return [str(p) for p in problems.items]


def _snapshots_of_real_file() -> str:
    if REAL.is_file():  # the real records, when the shared logs are here
        lines = [x for x in REAL.read_text("utf-8").splitlines() if '"type":"file-history-snapshot"' in x]
        if lines:
            return "\n".join(lines) + "\n"
    return SNAPSHOT + "\n" + SNAPSHOT + "\n"


def test_snapshots_only_is_said_to_hold_no_conversation(tmp_path: Path) -> None:
    (tmp_path / "5c7d5c23-0691-4467-b98e-0fb865b4a639.jsonl").write_text(_snapshots_of_real_file(), "utf-8")
    [message] = _messages(tmp_path)
    assert message.endswith(
        "5c7d5c23-0691-4467-b98e-0fb865b4a639.jsonl: a Claude Code file of file-history-snapshot records only: "
        "it holds no conversation; skipped"
    )


def test_other_records_are_still_not_recognised(tmp_path: Path) -> None:
    (tmp_path / "x.jsonl").write_text(SNAPSHOT + '\n{"type": "something-else"}\n', "utf-8")
    (tmp_path / "y.jsonl").write_text(SNAPSHOT + "\n{broken\n", "utf-8")
    messages = _messages(tmp_path)
    assert len(messages) == 2
    assert all(m.endswith("not a recognised session format; skipped") for m in messages)
