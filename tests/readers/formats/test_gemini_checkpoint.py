"""Gemini CLI's ``/chat save`` checkpoints: the bare Content list and the ``{history, authType}``
object, calls paired with or without ids, bad input, and other projects' checkpoint fixtures."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import FIXTURES, build_site, parse_html

from sessite.model import Kind, Problems, Session, ToolCategory
from sessite.readers import discover
from sessite.readers.formats.gemini_checkpoint import READER

PROJECT = FIXTURES / "gemini_checkpoint" / ".gemini" / "tmp" / "9a3e7f0c2b1d"
LEGACY = PROJECT / "checkpoint-slow%20tests.json"
CURRENT = PROJECT / "checkpoint-rename.json"
FRESH = Path(__file__).resolve().parents[3].parent / "fresh" / "agents31b" / "gemini-checkpoints"


def _read(path: Path) -> tuple[list[Session], list[str]]:
    problems = Problems(path.parent)
    sessions = list(READER.read(path, problems))
    return sessions, [str(p) for p in problems.items]


def test_a_bare_content_list() -> None:
    [session], problems = _read(LEGACY)
    assert problems == []
    assert session.id.startswith("gemini_checkpoint-9a3e7f0c2b1d-slow-tests")
    assert session.title == "/chat save slow tests" and session.project == "9a3e7f0c2b1d"
    assert [e.kind for e in session.events] == [
        Kind.SYSTEM,
        Kind.ASSISTANT,
        Kind.USER,
        Kind.THINKING,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.ASSISTANT,
    ]
    call, result = session.events[4], session.events[5]
    assert call.category == ToolCategory.SHELL and call.command == "pytest --durations=1 -q"
    assert result.call_id == call.call_id and "test_bulk_order" in result.text  # paired by name: no ids


def test_the_history_object() -> None:
    [session], problems = _read(CURRENT)
    assert problems == []
    assert session.meta == {"saved with": "/chat save", "tag": "rename", "sign-in": "oauth-personal"}
    call, result = session.events[1], session.events[2]
    assert call.category == ToolCategory.EDIT and call.path == "/home/u/shop/config.py"
    assert result.call_id == "call-7" and result.is_error and "old_string not found" in result.text


def test_found_beside_the_chats_and_built(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(FIXTURES / "gemini_checkpoint", home)
    problems = Problems(home)
    found = discover(home, problems)
    assert sorted(c.path.name for c in found.claims) == sorted([LEGACY.name, CURRENT.name])
    assert all(c.reader.name == "gemini_checkpoint" for c in found.claims)
    site = tmp_path / "site"
    build_site(home, site)
    pages = {p.name: p for p in (site / "sessions").glob("gemini_checkpoint-*.html")}
    assert len(pages) == 2
    text = " ".join(parse_html(pages["gemini_checkpoint-9a3e7f0c2b1d-rename.html"]).get_text(" ").split())
    assert "Rename the config key" in text and "shall I rename that one?" in text


def test_a_truncated_checkpoint_is_one_problem(tmp_path: Path) -> None:
    path = tmp_path / "checkpoint-cut.json"
    path.write_text(LEGACY.read_text("utf-8")[:300], "utf-8")
    sessions, problems = _read(path)
    assert sessions == [] and len(problems) == 1 and "malformed JSON" in problems[0]


def test_wrong_types_cost_only_that_value(tmp_path: Path) -> None:
    path = tmp_path / "checkpoint-odd.json"
    history = json.loads(LEGACY.read_text("utf-8"))
    history[2:2] = ["a string", {"role": "user", "parts": "not a list"}, {"role": "user", "parts": [{"video": 1}]}]
    path.write_text(json.dumps({"history": history}), "utf-8")
    [session], problems = _read(path)
    assert problems == [
        f"{path.name}:3: gemini checkpoint: content #3 is a str, not an object; skipped",
        f"{path.name}:4: gemini checkpoint: content #4 has no parts list; shown as raw JSON",
        f"{path.name}:5: gemini checkpoint: content #5: a part of keys ['video'] not known; shown as raw JSON",
    ]
    assert [e.kind for e in session.events].count(Kind.UNKNOWN) == 2
    assert "Which test is slowest?" in [e.text for e in session.events]
    neither = tmp_path / "checkpoint-none.json"
    neither.write_text('{"history": "gone"}', "utf-8")
    assert _read(neither)[0] == []


@pytest.mark.skipif(not FRESH.is_dir(), reason="the gathered checkpoint fixtures (../fresh/agents31b) are not here")
def test_checkpoints_other_projects_wrote() -> None:
    problems = Problems(FRESH)
    found = discover(FRESH, problems)
    assert len(found.claims) == 2 and {c.reader.name for c in found.claims} == {"gemini_checkpoint"}
    for claim in found.claims:
        [session], read_problems = _read(claim.path)
        assert read_problems == []
        results = [e for e in session.events if e.kind == Kind.TOOL_RESULT]
        assert [r.call_id for r in results] == ["c2", "c8", "c7"] and results[1].is_error
