"""Earlier copies ``sessite collect`` kept (``.sessite-kept/<time>/<path>``) are read with the current file."""

from __future__ import annotations

import json
from pathlib import Path

from sessite.model import Problems
from sessite.readers import discover
from sessite.readers.kept import DROPPED


def _record(n: int, text: str) -> str:
    return json.dumps(
        {
            "type": "user" if n % 2 else "assistant",
            "sessionId": "0e0e0e0e-2222-4000-8000-000000000031",
            "uuid": f"0e0e0e0e-2222-4000-8000-{n:012d}",
            "parentUuid": f"0e0e0e0e-2222-4000-8000-{n - 1:012d}" if n > 1 else None,
            "timestamp": f"2026-03-01T10:00:{n:02d}.000Z",
            "message": {"role": "user" if n % 2 else "assistant", "content": text},
        }
    )


def _write(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), "utf-8")


REL = Path(".claude/projects/-home-u-p/s.jsonl")


def _sessions(archive: Path) -> list:
    problems = Problems(archive)
    found = discover(archive, problems)
    sessions = [s for claim in found.claims for s in claim.read(problems)]
    assert not problems.items, problems.items
    return sessions


def test_what_only_the_kept_copy_holds_is_marked_dropped(tmp_path: Path) -> None:
    earlier = [_record(n, f"message number {n}") for n in range(1, 7)]
    _write(tmp_path / ".sessite-kept" / "20260301T100000Z" / REL, earlier)
    _write(tmp_path / REL, [earlier[0], earlier[1], earlier[4], earlier[5], _record(7, "added after compaction")])
    [session] = _sessions(tmp_path)
    texts = [(e.text, DROPPED in e.meta) for e in session.events if e.kind in ("user", "assistant")]
    assert texts == [
        ("message number 1", False),
        ("message number 2", False),
        ("message number 3", True),
        ("message number 4", True),
        ("message number 5", False),
        ("message number 6", False),
        ("added after compaction", False),
    ]
    markers = [e.title for e in session.events if e.kind == "compaction"]
    assert len(markers) == 2 and markers[0].startswith("Dropped by the agent")


def test_a_kept_copy_without_its_current_file_stands_alone(tmp_path: Path) -> None:
    _write(tmp_path / ".sessite-kept" / "20260301T100000Z" / REL, [_record(1, "only copy left")])
    [session] = _sessions(tmp_path)
    assert [e.text for e in session.events] == ["only copy left"]
    assert not any(DROPPED in e.meta for e in session.events)
