"""Issue 30: quiet at scale. Many problems of one kind print a hundred lines and one that counts
the rest (200,000 unrecognised files printed 200,001 lines)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessite.cli import main
from sessite.model import Problem
from sessite.pipeline.report import problem_lines


def test_repeated_problems_are_summarised() -> None:
    problems = [Problem(f"f{n}.json", None, "discover", "not a recognised session format; skipped") for n in range(250)]
    problems.insert(3, Problem("odd.jsonl", 2, "read", "malformed JSON"))
    lines = list(problem_lines(problems, shown=100))
    assert len(lines) == 102
    assert lines[3] == "odd.jsonl:2: malformed JSON"
    assert lines[-1] == "… and 150 more like that: not a recognised session format; skipped"


def test_a_build_of_many_unrecognised_files_prints_a_few_lines(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    for n in range(230):
        (archive / f"thing-{n:03d}.json").write_text(json.dumps({"unknown": n}))
    (archive / "s.jsonl").write_text(
        json.dumps({"type": "user", "sessionId": "s", "uuid": "u", "message": {"role": "user", "content": "hi"}}) + "\n"
    )
    result = CliRunner().invoke(main, ["build", str(archive), "-o", str(tmp_path / "site"), "-q"])
    lines = [ln for ln in result.output.splitlines() if "not a recognised session format" in ln]
    assert len(lines) == 101
    assert lines[-1].startswith("… and 130 more like that:")
