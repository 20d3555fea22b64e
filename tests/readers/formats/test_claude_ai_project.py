"""claude.ai projects from the data export: ``projects/<uuid>.json`` and the older ``projects.json``,
bad input, and other projects' export fixtures."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import FIXTURES, build_site, parse_html

from sessite.model import Kind, Problems, Session
from sessite.readers import discover
from sessite.readers.formats.claude_ai_project import READER

EXPORT = FIXTURES / "claude_ai_project" / "export"
ONE = EXPORT / "projects" / "0e7c5a2b-3f1d-4c8e-9a6b-5d2f1e0c9b8a.json"
LIST = EXPORT / "projects.json"
FRESH = Path(__file__).resolve().parents[3].parent / "fresh" / "agents31b" / "claude-ai-projects"


def _read(path: Path) -> tuple[list[Session], list[str]]:
    problems = Problems(path.parent)
    sessions = list(READER.read(path, problems))
    return sessions, [str(p) for p in problems.items]


def test_a_project_file() -> None:
    [session], problems = _read(ONE)
    assert problems == []
    assert session.id == "claude_ai_project-0e7c5a2b-3f1d-4c8e-9a6b-5d2f1e0c9b8a"
    assert session.title == "Bakery website" and session.agent == "claude_ai"
    assert session.started is not None and session.started.isoformat() == "2026-03-02T09:00:00+00:00"
    assert [(e.kind, e.title) for e in session.events] == [
        (Kind.SYSTEM, "project description"),
        (Kind.SYSTEM, "project instructions"),
        (Kind.SYSTEM, "knowledge: menu.md"),
        (Kind.SYSTEM, "knowledge: opening-hours.txt"),  # the export also spells it file_name
    ]
    assert "Sourdough loaf: £4.50" in session.events[2].text
    assert "A. Baker" not in json.dumps(dict(session.meta))  # the creator's name is not published


def test_the_older_list_and_an_empty_project() -> None:
    sessions, problems = _read(LIST)
    assert problems == []
    starter, empty = sessions
    assert starter.meta["starter project"] == "yes" and [e.line for e in starter.events] == [1]
    assert empty.events == () and empty.skipped == {"project with no description, instructions or documents": 1}


def test_found_in_an_export_and_built(tmp_path: Path) -> None:
    archive = tmp_path / "export"
    shutil.copytree(EXPORT, archive)
    problems = Problems(archive)
    found = discover(archive, problems)
    assert sorted(c.path.name for c in found.claims) == sorted([ONE.name, LIST.name])
    site = tmp_path / "site"
    build_site(archive, site)
    page = site / "sessions" / "claude_ai_project-0e7c5a2b-3f1d-4c8e-9a6b-5d2f1e0c9b8a.html"
    text = " ".join(parse_html(page).get_text(" ").split())
    assert "Bakery website" in text and "Answer in British English" in text and "Cinnamon bun" in text


def test_bad_input_costs_only_that_value(tmp_path: Path) -> None:
    cut = tmp_path / "projects" / "cut.json"
    cut.parent.mkdir()
    cut.write_text(ONE.read_text("utf-8")[:200], "utf-8")
    sessions, problems = _read(cut)
    assert sessions == [] and len(problems) == 1 and "malformed JSON" in problems[0]
    odd = tmp_path / "projects.json"
    data = json.loads(LIST.read_text("utf-8"))
    data[0].update(prompt_template=["not", "text"], docs=[{"filename": "x.md", "content": 3}, {"content": "kept"}])
    odd.write_text(json.dumps([7, *data]), "utf-8")
    sessions, problems = _read(odd)
    assert problems == [
        "projects.json:1: claude.ai project #1 is a int; skipped",
        "projects.json:2: claude.ai project: project #2: prompt_template is a list, not text; left out",
        "projects.json:2: claude.ai project: project #2: document #1 has no text content; left out",
    ]
    assert [e.title for e in sessions[0].events] == ["project description", "knowledge: document 2"]
    assert len(sessions) == 2


@pytest.mark.skipif(not FRESH.is_dir(), reason="the gathered project fixtures (../fresh/agents31b) are not here")
def test_project_files_other_tools_wrote() -> None:
    problems = Problems(FRESH)
    found = discover(FRESH, problems)
    assert len(found.claims) == 4 and {c.reader.name for c in found.claims} == {"claude_ai_project"}
    sessions = [s for c in found.claims for s in _read(c.path)[0]]
    assert len(sessions) == 5
    titles = {e.title for s in sessions for e in s.events}
    assert {"knowledge: method.md", "knowledge: notes.md", "knowledge: guia.md"} <= titles
