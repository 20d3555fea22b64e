"""``sessite build --repo REPO`` with no archive: the sessions Entire and opensession keep inside
the repository are read from git objects, and their commits link to them."""

from __future__ import annotations

import base64
import json
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from commit_repos import APP, SID, T0, _tree_commit, commit, git
from helpers import REPO, parse_html
from timeline_archive import Transcript

from sessite.cli.app import main

HAIL = REPO / "tests" / "fixtures" / "hail" / "subagent.hail.jsonl"


@pytest.fixture
def stored_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    repo = tmp_path / "shop"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, {"README.md": ["# Shop"]}, "Start", T0)
    t = Transcript(SID["own"], T0 + timedelta(minutes=10), cwd="/home/dev/shop")
    t.user("Add a server")
    t.call("w1", "toolu_w1", "Write", {"file_path": f"{t.cwd}/src/app.py", "content": "\n".join(APP) + "\n"})
    t.result("toolu_w1", "File created")
    sha = commit(repo, {"src/app.py": APP}, "Add the server\n\nEntire-Checkpoint: 0a1b2c3d4e5f", t.clock)
    t.call("c1", "toolu_c1", "Bash", {"command": "git commit"})
    t.result("toolu_c1", f"[main {sha[:7]}] Add the server\n")
    early = "".join(json.dumps(r) + "\n" for r in t.records[:2])  # an earlier checkpoint: a prefix
    full = "".join(json.dumps(r) + "\n" for r in t.records)
    meta = json.dumps({"session_id": SID["own"], "agent": "Claude Code"})
    _tree_commit(
        repo,
        {
            "0a/1b2c3d4e5f/0/full.jsonl": full,
            "0a/1b2c3d4e5f/0/metadata.json": meta,
            "99/8877665544/0/full.jsonl": early,
            "99/8877665544/0/metadata.json": meta,
        },
        "refs/heads/entire/checkpoints/v1",
    )
    branch = base64.urlsafe_b64encode(b"main").decode().rstrip("=")
    _tree_commit(repo, {"v1/su/subagent-0001.hail.jsonl": HAIL.read_text()}, f"refs/opensession/branches/{branch}")
    return repo, sha


def test_build_from_the_repository_alone(stored_repo: tuple[Path, str], tmp_path: Path) -> None:
    repo, sha = stored_repo
    before = git(repo, "status", "--porcelain")
    out = tmp_path / "site"
    result = CliRunner().invoke(main, ["build", "--repo", str(repo), "-o", str(out), "-q"])
    assert result.exit_code == 0, result.output
    sessions = sorted(p.name for p in (out / "sessions").glob("*.html"))
    assert sessions == [f"claude_code-{SID['own']}.html", "hail-subagent-0001.html"]
    page = parse_html(out / "commits" / f"{sha}.html")
    (li,) = page.select("li.commit-session")
    assert set(li["data-kinds"].split()) >= {"entire-checkpoint", "git-commit-output"}
    assert git(repo, "status", "--porcelain") == before  # nothing written to the repository
    assert not list(repo.rglob("*.hail.jsonl"))


def test_entire_v2_raw_transcripts_take_their_metadata_from_main(tmp_path: Path) -> None:
    from sessite.gitlinks.history import read_refs
    from sessite.gitlinks.stored_sessions import export_stored

    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, {"a.txt": ["a line of text"]}, "Start", T0)
    t = Transcript(SID["amended"], T0)
    t.user("Hello there")
    meta = json.dumps({"session_id": SID["amended"], "agent": "Claude Code"})
    _tree_commit(
        repo,
        {"ab/cdef012345/0/metadata.json": meta, "ab/cdef012345/0/transcript.jsonl": "{}\n"},
        "refs/entire/checkpoints/v2/main",
    )
    raw = "".join(json.dumps(r) + "\n" for r in t.records)
    _tree_commit(repo, {"ab/cdef012345/0/raw_transcript": raw}, "refs/entire/checkpoints/v2/full/current")
    count, problems = export_stored(repo, read_refs(repo), tmp_path / "out")
    assert (count, problems) == (1, [])
    assert (tmp_path / "out" / "entire" / f"{SID['amended']}.jsonl").read_text() == raw


def test_stored_sessions_are_copied_again_only_when_their_refs_move(
    stored_repo: tuple[Path, str], tmp_path: Path
) -> None:
    from sessite.gitlinks.stored_sessions import export_repo

    repo, _ = stored_repo
    dest = tmp_path / "stored"
    assert export_repo(repo, dest) == (2, [])
    files = sorted(p for p in dest.rglob("*") if p.is_file())
    stamps = [p.stat().st_mtime_ns for p in files]
    files[0].unlink()  # not looked at while the refs stand still
    assert export_repo(repo, dest) == (1, [])
    git(repo, "update-ref", "-d", "refs/heads/entire/checkpoints/v1")
    assert export_repo(repo, dest) == (1, [])
    assert [p.name for p in dest.rglob("*") if p.is_file()] == ["subagent-0001.hail.jsonl"]
    assert files[1].stat().st_mtime_ns == stamps[1]
