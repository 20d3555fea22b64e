"""Issue 30: what the build cache knows. A source is stamped before it is read, so lines appended
while a build reads it are published by the next build (stamped after, they never were)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitegen.build import build, worker
from sitegen.config import SiteConfig

SID = "11111111-2222-4333-8444-555555555555"


def line(n: int, text: str) -> str:
    return json.dumps(
        {
            "parentUuid": f"u-{n - 1}" if n else None,
            "cwd": "/home/dev/shop",
            "sessionId": SID,
            "type": "user",
            "message": {"role": "user", "content": text},
            "uuid": f"u-{n}",
            "timestamp": f"2026-10-01T10:00:0{n}.000Z",
        }
    )


def test_lines_appended_during_a_read_are_published_next_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    source = archive / f"{SID}.jsonl"
    source.write_text(line(0, "the first prompt") + "\n")
    config = SiteConfig(archive=archive, output=tmp_path / "site", cache_dir=tmp_path / "cache", progress=False, jobs=1)
    original = worker.SourceWorker.run

    def run_then_append(self: worker.SourceWorker, task: worker.SourceTask) -> worker.SourceResult:
        result = original(self, task)
        with open(source, "a") as fh:  # the agent writes on while the build renders
            fh.write(line(1, "appendedwhilereading") + "\n")
        return result

    monkeypatch.setattr(worker.SourceWorker, "run", run_then_append)
    build(config)
    monkeypatch.setattr(worker.SourceWorker, "run", original)
    pages = "".join(p.read_text() for p in (tmp_path / "site").rglob("sessions/*.html"))
    assert "appendedwhilereading" not in pages  # not read this time: fine
    second = build(config)
    assert second.reused == 0
    pages = "".join(p.read_text() for p in (tmp_path / "site").rglob("sessions/*.html"))
    assert "appendedwhilereading" in pages
    assert build(config).reused == 1  # and then it is unchanged
