"""OpenClaw run traces: a trace whose transcript is gone read as the session, a trace beside its
transcript said to hold no conversation (the pi reader reads the transcript), bad input, and
the traces of a public OpenClaw backup."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import FIXTURES, build_site, parse_html

from sessite.model import Kind, Problems, Session
from sessite.readers import discover
from sessite.readers.formats.openclaw_trajectory import READER

SESSIONS = FIXTURES / "openclaw_trajectory" / ".openclaw" / "agents" / "main" / "sessions"
TRACE = SESSIONS / "5b2e9c1a-7d40-4f3e-9a8b-2c6d1e0f4a77.trajectory.jsonl"
PI = FIXTURES / "pi"
FRESH = Path(__file__).resolve().parents[3].parent / "fresh" / "agents31b" / "openclaw"


def _read(path: Path) -> tuple[list[Session], list[str]]:
    problems = Problems(path.parent)
    sessions = list(READER.read(path, problems))
    return sessions, [str(p) for p in problems.items]


def test_a_trace_whose_transcript_is_gone() -> None:
    [session], problems = _read(TRACE)
    assert problems == []
    assert session.id == "openclaw_trajectory-5b2e9c1a-7d40-4f3e-9a8b-2c6d1e0f4a77" and session.agent == "openclaw"
    assert [(e.kind, e.title) for e in session.events] == [
        (Kind.USER, None),
        (Kind.SYSTEM, "model fallback"),
        (Kind.ASSISTANT, None),
        (Kind.SYSTEM, "tools used in this run"),
    ]
    reply = session.events[2]
    assert reply.usage is not None and reply.usage.cache_read_tokens == 4096
    assert session.models == ("claude-sonnet-4-6",)
    assert "ha-cli state cover.garage" in session.events[3].text
    assert set(session.skipped) == {
        "run start (trigger, channel, tool count: in the session's details)",
        "harness, config, plugin and skill snapshot",
        "the context compiled for the model (system prompt, history, tool schemas)",
    }


def test_beside_its_transcript_it_is_read_with_it(tmp_path: Path) -> None:
    """The pi reader reads the transcript and takes the trace with it (collected with it too),
    its records counted as left out; OpenClaw's index of sessions holds no conversation."""
    home = tmp_path / "home"
    shutil.copytree(FIXTURES / "openclaw_trajectory", home)
    sessions = home / ".openclaw" / "agents" / "main" / "sessions"
    transcript = sessions / "5b2e9c1a-7d40-4f3e-9a8b-2c6d1e0f4a77.jsonl"
    shutil.copyfile(next(PI.rglob("*.jsonl")), transcript)
    index = {"agent:main:main": {"sessionId": "5b2e9c1a", "sessionFile": str(transcript), "updatedAt": 1}}
    (sessions / "sessions.json").write_text(json.dumps(index), "utf-8")
    problems = Problems(home)
    found = discover(home, problems)
    assert [(c.path.name, c.reader.name, [p.name for p in c.companions]) for c in found.claims] == [
        (transcript.name, "pi", [TRACE.name])
    ]
    said = [str(p) for p in problems.items]
    assert said == [
        ".openclaw/agents/main/sessions/sessions.json: OpenClaw's index of sessions (sessions.json): "
        "the sessions are the files beside it"
    ]
    [session] = list(found.claims[0].reader.read(transcript, Problems(home)))
    assert session.skipped["OpenClaw run trace record (its prompts and replies are the transcript's)"] == 8


def test_found_in_a_home_and_built(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(FIXTURES / "openclaw_trajectory", home)
    site = tmp_path / "site"
    build_site(home, site)
    page = site / "sessions" / "openclaw_trajectory-5b2e9c1a-7d40-4f3e-9a8b-2c6d1e0f4a77.html"
    text = " ".join(parse_html(page).get_text(" ").split())
    assert "Is the garage door closed?" in text and "reports closed since 21:14" in text


def test_bad_input_costs_only_that_line(tmp_path: Path) -> None:
    path = tmp_path / "x.trajectory.jsonl"
    lines = TRACE.read_text("utf-8").splitlines()
    odd = json.loads(lines[5])
    odd["data"]["assistantTexts"] = "not a list"
    weird = {**odd, "type": "tool.teleported", "data": {}}
    path.write_text("\n".join([*lines[:5], json.dumps(odd), json.dumps(weird), lines[6][:50]]), "utf-8")
    [session], problems = _read(path)
    assert problems[0] == f"{path.name}:7: openclaw trace: record type 'tool.teleported' not known; shown as raw JSON"
    assert len(problems) == 2 and problems[1].startswith(f"{path.name}:8: ")
    assert [e.kind for e in session.events] == [Kind.USER, Kind.SYSTEM, Kind.UNKNOWN]
    assert session.skipped["model run without a reply"] == 1


@pytest.mark.skipif(not FRESH.is_dir(), reason="the gathered OpenClaw backup (../fresh/agents31b) is not here")
def test_a_public_openclaw_backup() -> None:
    problems = Problems(FRESH)
    found = discover(FRESH, problems)
    by_reader: dict[str, int] = {}
    for claim in found.claims:
        by_reader[claim.reader.name] = by_reader.get(claim.reader.name, 0) + 1
    assert by_reader["openclaw_trajectory"] >= 10 and by_reader["pi"] >= 150
    orphan = next(c.path for c in found.claims if c.reader.name == "openclaw_trajectory")
    [session], read_problems = _read(orphan)
    assert read_problems == [] and any(e.kind == Kind.ASSISTANT for e in session.events)
