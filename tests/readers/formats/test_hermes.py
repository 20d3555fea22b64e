"""Hermes Agent: the JSON-lines transcript with its snapshot, an older snapshot alone, bad input,
and the real sessions gathered from public backups of ``~/.hermes``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import FIXTURES, build_site, parse_html

from sessite.model import Kind, Problems, Session, ToolCategory
from sessite.readers import discover
from sessite.readers.formats.hermes import READER

SESSIONS = FIXTURES / "hermes" / ".hermes" / "sessions"
TRANSCRIPT = SESSIONS / "20260601_101500_a1b2c3d4.jsonl"
OLDER = SESSIONS / "session_20260415_090000_0f0f0f.json"
FRESH = Path(__file__).resolve().parents[3].parent / "fresh" / "agents31b" / "hermes"


def _read(path: Path) -> tuple[list[Session], list[str]]:
    problems = Problems(path.parent)
    sessions = list(READER.read(path, problems))
    return sessions, [str(p) for p in problems.items]


def test_a_transcript_with_its_snapshot() -> None:
    [session], problems = _read(TRANSCRIPT)
    assert problems == []
    assert session.id == "hermes-20260601_101500_a1b2c3d4"
    assert session.models == ("anthropic/claude-opus-4.6",)
    assert session.meta == {"platform": "cli", "endpoint": "https://openrouter.ai/api/v1"}
    assert session.started is not None and session.started.isoformat() == "2026-06-01T10:15:00.120000+00:00"
    kinds = [e.kind for e in session.events]
    assert kinds == [Kind.USER, Kind.THINKING, Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.ASSISTANT, Kind.USER]
    call, result = session.events[2], session.events[3]
    assert call.category == ToolCategory.SHELL and call.command == "tail -n 3 /var/log/backup.log"
    assert result.call_id == call.call_id == "call_01" and "connection refused" in result.text
    # The snapshot's last message is not in the transcript: shown after the last shared one, untimed.
    assert session.events[-1].text == "Restart it and check again." and session.events[-1].timestamp is None
    assert session.skipped == {"the tool schemas Hermes offered the model (session_meta)": 1}


def test_an_older_snapshot_alone() -> None:
    [session], problems = _read(OLDER)
    assert problems == []
    assert session.id == "hermes-20260415_090000_0f0f0f"
    assert session.meta["platform"] == "telegram"
    assert [(e.kind, e.line) for e in session.events] == [(Kind.USER, 1), (Kind.ASSISTANT, 2)]


def test_discovered_in_a_home_and_built(tmp_path: Path) -> None:
    archive = tmp_path / "home"
    shutil.copytree(FIXTURES / "hermes", archive)
    index = {"agent:main:telegram:dm:42": {"session_key": "agent:main:telegram:dm:42", "session_id": OLDER.stem[8:]}}
    (archive / ".hermes" / "sessions" / "sessions.json").write_text(json.dumps(index), "utf-8")
    dump = {"timestamp": "2026-06-01T10:16:00", "session_id": "x", "reason": "non_retryable_client_error"}
    dump |= {"request": {"method": "POST", "body": {"model": "m"}}, "error": {"status": 400}}
    (archive / ".hermes" / "sessions" / "request_dump_x_20260601_101600_000001.json").write_text(json.dumps(dump))
    problems = Problems(archive)
    found = discover(archive, problems)
    assert sorted(c.path.name for c in found.claims) == sorted([TRANSCRIPT.name, OLDER.name])
    assert all(c.reader.name == "hermes" for c in found.claims)
    said = [str(p) for p in problems.items]
    assert sorted(said) == [
        ".hermes/sessions/request_dump_x_20260601_101600_000001.json: Hermes's dump of an API request that failed"
        " (request_dump): no conversation of its own",
        ".hermes/sessions/sessions.json: Hermes's index of chats (sessions.json): the sessions are the files beside it",
    ]
    site = tmp_path / "site"
    build_site(archive, site)
    text = " ".join(parse_html(site / "sessions" / "hermes-20260601_101500_a1b2c3d4.html").get_text(" ").split())
    assert "Why does the nightly backup job fail?" in text and "its ssh daemon is down" in text
    assert "Restart it and check again." in text


def test_a_truncated_transcript_keeps_what_came_before(tmp_path: Path) -> None:
    path = tmp_path / "20260601_101500_a1b2c3d4.jsonl"
    lines = TRANSCRIPT.read_text("utf-8").splitlines()
    path.write_text("\n".join(lines[:3]) + "\n" + lines[3][:40], "utf-8")
    [session], problems = _read(path)
    assert len(problems) == 1 and problems[0].startswith(f"{path.name}:4: ")
    assert [e.kind for e in session.events] == [Kind.USER, Kind.THINKING, Kind.TOOL_CALL]


def test_wrong_types_cost_only_that_value(tmp_path: Path) -> None:
    path = tmp_path / "session_20260415_090000_0f0f0f.json"
    data = json.loads(OLDER.read_text("utf-8"))
    data["messages"] = [7, {"role": "user", "content": ["not", "parts"]}, *data["messages"], {"role": "wizard"}]
    path.write_text(json.dumps(data), "utf-8")
    [session], problems = _read(path)
    assert problems == [
        f"{path.name}:1: hermes: message #1 is a int, not an object; skipped",
        f"{path.name}:5: hermes: message role 'wizard' not known; shown as raw JSON",
    ]
    assert [e.kind for e in session.events] == [Kind.USER, Kind.ASSISTANT, Kind.UNKNOWN]
    broken = tmp_path / "session_20260416_090000_0f0f0f.json"
    broken.write_text('{"session_id": "x", "messages": [', "utf-8")
    sessions, problems = _read(broken)
    assert sessions == [] and len(problems) == 1 and problems[0].startswith(f"{broken.name}:1: malformed JSON")


@pytest.mark.skipif(not FRESH.is_dir(), reason="the gathered Hermes sessions (../fresh/agents31b) are not here")
def test_real_sessions_from_public_backups(tmp_path: Path) -> None:
    problems = Problems(FRESH)
    found = discover(FRESH, problems)
    assert len(found.claims) >= 150 and all(c.reader.name == "hermes" for c in found.claims)
    assert not [p for p in problems.items if "not a recognised" in str(p)]
    first = next(c.path for c in found.claims if c.path.suffix == ".jsonl")
    [session], read_problems = _read(first)
    assert read_problems == [] and any(e.kind == Kind.USER and e.text.strip() for e in session.events)
