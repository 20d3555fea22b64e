"""The archive's files are untrusted: a file that breaks a detect, symlinks out of the archive,
file names that are not UTF-8. Each is one problem line; the build always finishes."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from helpers import FIXTURES, build_site

from sessite.model import Problems
from sessite.readers import Reader, Sniff, discover, registry

SAGE_PROJECT = FIXTURES / "sage" / "projects" / "-home-bob-scratch-"
CLAUDE_CODE = FIXTURES / "claude_code" / "basic.jsonl"


def test_a_conversation_whose_first_line_nests_10000_deep_does_not_stop_the_build(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    project = archive / "projects" / "-home-x-"
    project.mkdir(parents=True)
    (project / "conversation.jsonl").write_text("[" * 10_000 + "]" * 10_000 + "\n")
    shutil.copy(CLAUDE_CODE, archive / "basic.jsonl")
    report = build_site(archive, tmp_path / "site")
    assert (tmp_path / "site" / "index.html").is_file()
    assert report.sessions == 1  # the Claude Code session; the odd file is one problem
    assert all("\n" not in str(p) for p in report.problems)


class _Exploding(Reader):
    name = "exploding"
    claims_directories = True

    def detect(self, sniffed: Sniff) -> bool:
        raise RecursionError("maximum recursion depth exceeded")


def test_a_folder_reader_whose_detect_raises_costs_one_problem(tmp_path: Path) -> None:
    shutil.copy(CLAUDE_CODE, tmp_path / "basic.jsonl")
    problems = Problems(tmp_path)
    found = discover(tmp_path, problems, readers=(_Exploding(), *registry()))
    assert [c.path.name for c in found.claims] == ["basic.jsonl"]
    assert [str(p) for p in problems.items] == [
        ".: exploding detect failed (RecursionError: maximum recursion depth exceeded)"
    ]


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    (outside / "folder").mkdir(parents=True)
    shutil.copy(CLAUDE_CODE, outside / "secret.jsonl")
    shutil.copy(FIXTURES / "claude_code" / "compaction.jsonl", outside / "folder" / "also-secret.jsonl")
    shutil.copy(SAGE_PROJECT / "conversation.jsonl", outside / "conversation.jsonl")
    return outside


def test_symlinks_pointing_outside_the_archive_are_not_read(tmp_path: Path) -> None:
    outside = _outside(tmp_path)
    archive = tmp_path / "archive"
    archive.mkdir()
    (archive / "link-out.jsonl").symlink_to(outside / "secret.jsonl")
    (archive / "folder-out").symlink_to(outside / "folder")
    project = archive / "projects" / "-home-p-"
    project.mkdir(parents=True)
    (project / "conversation.jsonl").symlink_to(outside / "conversation.jsonl")
    report = build_site(archive, tmp_path / "site")
    said = sorted(str(p) for p in report.problems)
    assert said == [
        "folder-out: symlink to a folder outside the archive; not read",
        "link-out.jsonl: symlink to a file outside the archive; not read",
        "projects/-home-p-/conversation.jsonl: symlink to a file outside the archive; not read",
    ]
    site = "".join(p.read_text("utf-8") for p in (tmp_path / "site" / "sessions").glob("*.html"))
    assert "11111111-2222-4333-8444-555555555555" not in site  # basic.jsonl's session id


def test_symlinks_inside_the_archive_and_a_symlinked_archive_are_read(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    (archive / "real").mkdir(parents=True)
    shutil.copy(CLAUDE_CODE, archive / "real" / "basic.jsonl")
    (archive / "link.jsonl").symlink_to(archive / "real" / "basic.jsonl")
    (archive / "real-folder").symlink_to(archive / "real")  # walked as "real" already
    linked_root = tmp_path / "archive-link"
    linked_root.symlink_to(archive)
    report = build_site(linked_root, tmp_path / "site")
    assert report.sessions == 1
    assert not [p for p in report.problems if "outside the archive" in p.message]


@pytest.mark.skipif(os.name != "posix", reason="file names of raw bytes are a POSIX thing")
def test_a_file_name_that_is_not_utf8_keeps_its_session(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    name = os.fsdecode(b"caf\xe9-\x1b[31m.jsonl")
    shutil.copy(CLAUDE_CODE, archive / name)
    report = build_site(archive, tmp_path / "site")
    assert report.sessions == 1
    pages = list((tmp_path / "site" / "sessions").glob("*.html"))
    assert pages and all(p.read_text("utf-8") for p in pages)
    for problem in report.problems:
        text = str(problem)
        assert text.encode("utf-8") and "\x1b" not in text and "\n" not in text


@pytest.mark.skipif(os.name != "posix", reason="file names of raw bytes are a POSIX thing")
def test_strings_made_from_such_names_are_repaired_before_rendering(tmp_path: Path) -> None:
    """A sub-agent's id comes from its file name: the session that holds it still encodes."""
    project = tmp_path / "projects" / os.fsdecode(b"-home-\xff-app")
    project.mkdir(parents=True)
    shutil.copy(CLAUDE_CODE, project / "main.jsonl")
    reader = next(r for r in registry() if r.name == "claude_code")
    problems = Problems(tmp_path)
    sessions = list(reader.read(project / "main.jsonl", problems))
    assert sessions
    for session in sessions:
        assert session.source.path.encode("utf-8")
        assert (session.cwd or "").encode("utf-8")


@pytest.mark.parametrize("bad", ["1e400", '{"a": {"a": {"a": 1}}}', "-1", "null"])
def test_a_damaged_first_record_does_not_hide_the_transcript(tmp_path: Path, bad: str) -> None:
    """The header line that says what a file is, damaged: the file is still read from its later
    records, with one line saying so (codex rollouts and Gemini chats name their format only there)."""
    archive = tmp_path / "archive"
    archive.mkdir()
    codex = archive / "damaged-codex.jsonl"
    envelope = '{"timestamp":"2026-01-01T00:00:0%dZ","type":"%s","payload":%s}'
    message = '{"type":"message","role":"user","content":[{"type":"input_text","text":"Fix the parser %d"}]}'
    codex.write_text(
        f'{{"timestamp":"2026-01-01T00:00:00Z","type":{bad},"payload":{{"id":"0199","cwd":"/w"}}}}\n'
        + "\n".join(envelope % (i, "response_item", message % i) for i in (1, 2, 3))
        + "\n"
    )
    gemini = archive / "damaged-gemini.jsonl"
    gemini.write_text(
        f'{{"sessionId":{bad},"projectHash":"abc","startTime":"2026-05-01T09:00:00Z"}}\n'
        '{"id":"u1","timestamp":"2026-05-01T09:00:01Z","type":"user","content":"Explain the build"}\n'
        '{"id":"g1","timestamp":"2026-05-01T09:00:02Z","type":"gemini","content":"It runs in stages."}\n'
    )
    problems = Problems(archive)
    claims = {c.path.name: c.reader.name for c in discover(archive, problems).claims}
    assert claims == {"damaged-codex.jsonl": "codex", "damaged-gemini.jsonl": "gemini"}
    said = [p.message for p in problems.items if "do not say what this file is" in p.message]
    assert len(said) == 2 and all("\n" not in m for m in said)
    site = tmp_path / "site"
    report = build_site(archive, site)
    assert report.published and report.sessions == 2
    pages = " ".join(p.read_text() for p in (site / "sessions").glob("*.html"))
    assert "Fix the parser 3" in pages and "It runs in stages." in pages


def test_a_renamed_cline_task_and_a_sage_conversation_with_a_bad_first_role_are_still_read(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    shutil.copytree(FIXTURES / "cline" / "tasks" / "1704103200000", archive / os.fsdecode(b"task-\xff\xfe"))
    project = archive / "sage-project"
    project.mkdir()
    (project / "conversation.jsonl").write_text(
        '{"role": 1e400, "content": "lost role"}\n'
        '{"role": "user", "content": "Rename the module"}\n'
        '{"role": "assistant", "content": "Renamed it."}\n'
    )
    problems = Problems(archive)
    readers = sorted(c.reader.name for c in discover(archive, problems).claims)
    assert readers == ["cline", "sage"]
    site = tmp_path / "site"
    report = build_site(archive, site)
    assert report.published and report.sessions == 2
    pages = " ".join(p.read_text(errors="replace") for p in (site / "sessions").glob("*.html"))
    assert "Which Python is on PATH?" in pages and "Renamed it." in pages


def test_a_damaged_field_that_names_a_json_document_costs_that_field_only(tmp_path: Path) -> None:
    """HAIL's ``version``, an OpenCode export's ``info``, one of a sage session's messages: each
    replaced by a bad value, the document is still recognised and the rest of it read."""
    archive = tmp_path / "archive"
    archive.mkdir()
    hail = json.loads((FIXTURES / "hail" / "session.hail.json").read_text())
    hail["version"] = 5
    (archive / "session.hail.json").write_text(json.dumps(hail))
    export = json.loads((FIXTURES / "opencode" / "export.json").read_text())
    export["info"] = [1e300]
    (archive / "export.json").write_text(json.dumps(export, indent=2))
    sage = json.loads((FIXTURES / "sage" / "sessions" / "refactor_notes.json").read_text())
    sage["messages"][1] = {}
    (archive / "refactor_notes.json").write_text(json.dumps(sage, indent=2))
    problems = Problems(archive)
    readers = {c.path.name: c.reader.name for c in discover(archive, problems).claims}
    assert readers == {"session.hail.json": "hail", "export.json": "opencode", "refactor_notes.json": "sage"}
    report = build_site(archive, tmp_path / "site")
    assert report.published and report.sessions == 3
