"""Titles and ids are cut before redaction runs: a key the cut splits must not be published.

A reader shortens a session's title from its first prompt and a long id to a slug
before the redactor sees the session; a key straddling the cut no longer matches its
rule. Every planted key is cut at every offset, through the real Claude Code reader
and the redactor, and one build checks the whole site.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import ALL_EXPORTS, build_site, scan_site
from secret_fakes import alnum, b64, hexs

from sessite.analyze.redact import Redactor
from sessite.model import Event, Kind, Problems, Session, SourceRef, make_session_id, one_line, session_title
from sessite.readers import registry

# (kind, the key, how much of it is its public prefix)
KEYS = [
    ("github", "ghp_" + alnum(36), 4),
    ("github-pat", "github_pat_" + alnum(22) + "_" + alnum(59), 11),
    ("openai", "sk-proj-" + alnum(48), 8),
    ("anthropic", "sk-ant-api03-" + alnum(93) + "AA", 13),
    ("aws", "AKIA" + alnum(16).upper(), 4),
    ("slack", "xoxb-" + hexs(11) + "-" + hexs(12) + "-" + alnum(24), 5),
    ("stripe", "sk_live_" + alnum(24), 8),
    ("google", "AIza" + alnum(35), 4),
    ("gitlab", "glpat-" + alnum(20), 6),
    # a body holding `-` after a short part: a cut there left `SG.<id>.Ab` in the slug
    ("sendgrid", "SG." + alnum(22) + ".Ab-" + alnum(40), 3),
    (
        "jwt",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + b64(32).rstrip("=").replace("+", "-").replace("/", "_"),
        0,
    ),
]
_CLAUDE = next(r for r in registry() if r.name == "claude_code")


def _secret_part(key: str, prefix: int) -> str:
    """The shortest piece of the key that tells more than its public prefix (its prefix and one more character)."""
    return key[: prefix + 1] if prefix else key[:40]  # (a JWT's first parts are public claims: its body is the secret)


def _session_file(folder: Path, prompt: str, session_id: str = "7d1c4f5e-0000-4000-8000-000000000001") -> Path:
    line = {
        "type": "user",
        "sessionId": session_id,
        "uuid": "u1",
        "timestamp": "2026-03-01T10:00:00Z",
        "cwd": "/srv/app",
        "message": {"role": "user", "content": prompt},
    }
    path = folder / f"{session_id}.jsonl"
    path.write_text(json.dumps(line) + "\n")
    return path


def _read_redacted(path: Path):
    sessions = list(_CLAUDE.read(path, Problems()))
    assert len(sessions) == 1
    return Redactor().value(sessions[0])


@pytest.mark.parametrize(("kind", "key", "prefix"), KEYS, ids=[k[0] for k in KEYS])
def test_a_key_cut_by_the_title_at_any_offset_is_not_published(tmp_path, kind, key, prefix):
    words = "please deploy the service with this credential and check the logs afterwards for errors "
    secret = _secret_part(key, prefix)
    for offset in range(60, 101):  # the key starts before the cut at 100 and runs across it
        head = (words * 2)[:offset].rstrip() + " "
        prompt = head + key + " and then restart the workers"
        session = _read_redacted(_session_file(tmp_path, prompt))
        for shown in (session.title or "", session_title(session), session_title(session, 60)):
            assert secret not in shown, (offset, shown)


@pytest.mark.parametrize(("kind", "key", "prefix"), KEYS, ids=[k[0] for k in KEYS])
def test_a_key_cut_by_an_id_at_any_offset_is_not_published(kind, key, prefix):
    secret = _secret_part(key, prefix)
    for lead in range(1, 62):  # (from 1: a key with a 22-character part before its `-` is cut early)
        raw = "x" * lead + "-" + key + "/rest"  # (odd characters: the id is slugged and cut at 60)
        session = Session(
            id=make_session_id("claude-code", raw),
            source=SourceRef(Path("a.jsonl"), "claude-code"),
            agent="claude-code",
            events=(Event("e1", Kind.USER, text="hi"),),
        )
        redacted = Redactor().value(session)
        body = redacted.id.rsplit("-", 1)[0]  # (the digest after it may begin like the key's body)
        assert secret not in body, (lead, redacted.id)


def test_a_cut_never_keeps_part_of_a_word():
    text = "alpha beta " + "g" * 40 + " delta"
    assert one_line(text, 30) == "alpha beta…"
    assert one_line("token=ghp_" + "a" * 40, 20) == "…"
    assert one_line("short title", 100) == "short title"
    assert one_line("a (" + "b" * 50, 20) == "a (…"
    # A long text read in part: the word cut by the part read is not kept either.
    assert "ghp_" not in one_line(" " * 795 + "ghp_" + "c" * 36, 100)


def test_a_value_a_rule_found_is_redacted_wherever_else_it_stands(tmp_path):
    password = "Tr0ub4dor&3-" + alnum(8)
    prompt = f"Write DB_PASSWORD={password} into .env and tell me when it is done"
    later = {
        "type": "assistant",
        "sessionId": "7d1c4f5e-0000-4000-8000-000000000001",
        "uuid": "a1",
        "parentUuid": "u1",
        "timestamp": "2026-03-01T10:00:05Z",
        "message": {
            "id": "m1",
            "role": "assistant",
            "model": "claude-opus-4-6",
            "content": [{"type": "text", "text": f"Done: the database password is now {password}."}],
        },
    }
    path = _session_file(tmp_path, prompt)
    with path.open("a") as out:
        out.write(json.dumps(later) + "\n")
    session = _read_redacted(path)
    texts = [e.text for e in session.events]
    assert all(password not in t for t in texts), texts
    assert any("the database password is now [REDACTED:secret-assignment]" in t for t in texts)


def test_a_built_site_holds_no_part_of_a_key_cut_by_a_title(tmp_path):
    archive = tmp_path / "archive" / "proj"
    archive.mkdir(parents=True)
    needles = {}
    for n, (kind, key, prefix) in enumerate(KEYS):
        head = "please deploy the service with this credential and check the logs afterwards for errors"
        cut = 100 - len(key) // 2  # the key straddles the title's cut
        prompt = head[:cut].rstrip() + " " + key + " and restart"
        _session_file(archive, prompt, f"7d1c4f5e-0000-4000-8000-0000000000{n:02d}")
        needles[kind] = [_secret_part(key, prefix).lower()]
    site = tmp_path / "site"
    build_site(tmp_path / "archive", site, exports=ALL_EXPORTS)
    assert scan_site(site, needles) == {}


def test_problem_lines_never_print_a_secret(tmp_path):
    """A problem names a file or quotes a value; the console (``--quiet`` is the Pages workflow's
    mode, whose log is public), ``check --json`` and the preview show it: redacted like the pages."""
    from click.testing import CliRunner

    from sessite.cli import main

    key = KEYS[0][1]
    archive = tmp_path / "archive"
    archive.mkdir()
    _session_file(archive, "hello there")
    (archive / f"notes-{key}.jsonl").write_text("not a session\n")
    outputs = [
        CliRunner().invoke(main, ["build", str(archive), "-o", str(tmp_path / "site"), "--quiet", "-j", "1"]).output,
        CliRunner().invoke(main, ["check", str(archive), "--json", "-j", "1"]).output,
    ]
    for output in outputs:
        assert "not a recognised session format" in output
        assert key[:8] not in output, output
        assert "notes-[REDACTED:github-token].jsonl" in output
