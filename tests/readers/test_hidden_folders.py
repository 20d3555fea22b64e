"""Archives as people keep them: a home-folder backup with the agents' hidden folders, symlinked
agent folders (dotfile managers), and the folders a walk must still skip (``readers.hidden``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner
from helpers import FIXTURES

import sessite.cli.serve as serve_cli
from sessite.cli import main
from sessite.model import Problems
from sessite.readers import discover

CLAUDE = FIXTURES / "claude_code" / "basic.jsonl"
CODEX = FIXTURES / "codex" / "rollout-2025-08-18T01-16-13-c3c4b301-27c8-4c70-b6e4-46b99fdf0236.jsonl"
GEMINI = FIXTURES / "gemini" / "session-2026-03-27T10-19-5b1c2d3e.json"
CLAUDE_FILE = "-home-dev-app/2f1c9a7e-5b1d-4c2e-9a8f-0e1d2c3b4a59.jsonl"


def _copy(src: Path, dest: Path) -> Path:
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src, dest)
    return dest


def home_backup(root: Path, claude_projects: Path | None = None) -> Path:
    """A home folder as backed up: three agents' hidden folders, and folders holding
    session-looking files that are not sessions (a repository, dependencies, a virtualenv, caches)."""
    home = root / "home"
    _copy(CLAUDE, (claude_projects or home / ".claude" / "projects") / CLAUDE_FILE)
    _copy(CODEX, home / ".codex" / "sessions" / "2026" / "01" / "02" / CODEX.name)
    _copy(GEMINI, home / ".gemini" / "tmp" / "5b1c2d3e" / "chats" / GEMINI.name)
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / "settings.json").write_text('{"theme": "dark"}')  # beside the way: not offered
    decoys = [".git/objects", "node_modules/pkg", ".venv/lib", "venv/lib", ".cache/x", ".npm/y", ".local/share/Trash"]
    for decoy in decoys:
        _copy(CLAUDE, home / decoy / "session.jsonl")
    (home / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (home / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    return home


def _claimed(found) -> list[str]:
    return sorted(c.path.name for c in found.claims)


def test_a_home_backup_reads_the_agents_hidden_folders_and_nothing_else(tmp_path: Path) -> None:
    home = home_backup(tmp_path)
    problems = Problems(home)
    found = discover(home, problems)
    assert _claimed(found) == sorted([Path(CLAUDE_FILE).name, CODEX.name, GEMINI.name])
    assert {c.reader.name for c in found.claims} == {"claude_code", "codex", "gemini"}
    assert [str(p) for p in problems.items] == []
    for skipped in (".git (version control)", "node_modules (dependencies)", ".venv (virtualenv)", "venv (virtualenv)"):
        assert skipped in found.skipped


def test_a_home_backup_builds(tmp_path: Path) -> None:
    home = home_backup(tmp_path)
    result = CliRunner().invoke(main, ["build", str(home), "-q", "-o", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    assert "3 sessions" in result.stdout
    assert "outside the archive" not in result.output


def _symlinked_home(tmp_path: Path) -> Path:
    elsewhere = tmp_path / "dotfiles" / "claude-projects"
    home = home_backup(tmp_path, claude_projects=elsewhere)
    (home / ".claude" / "projects").symlink_to(elsewhere, target_is_directory=True)
    return home


def test_a_symlinked_agent_folder_is_followed_by_discovery(tmp_path: Path) -> None:
    home = _symlinked_home(tmp_path)
    problems = Problems(home)
    found = discover(home, problems)
    assert Path(CLAUDE_FILE).name in _claimed(found)
    assert [str(p) for p in problems.items] == []


def test_discover_and_build_agree_on_a_symlinked_agent_folder(tmp_path: Path) -> None:
    home = _symlinked_home(tmp_path)
    env = {"SESSITE_HOME": str(home)}
    rows = json.loads(CliRunner().invoke(main, ["discover", "--json"], env=env).stdout)
    claude = next(r for r in rows if r["agent"] == "claude-code")
    assert (claude["sessions"], claude["problems"]) == (1, 0)
    result = CliRunner().invoke(main, ["build", "--discover", "-q", "-o", str(tmp_path / "a")], env=env)
    assert result.exit_code == 0 and "3 sessions" in result.stdout, result.output
    result = CliRunner().invoke(main, ["build", str(home), "-q", "-o", str(tmp_path / "b")])
    assert result.exit_code == 0 and "3 sessions" in result.stdout, result.output
    assert "outside the archive" not in result.output


def test_a_file_symlinked_out_of_the_archive_is_still_refused(tmp_path: Path) -> None:
    home = home_backup(tmp_path)
    secret = _copy(CLAUDE, tmp_path / "outside" / "other.jsonl")
    link = home / ".claude" / "projects" / "-home-dev-app" / "linked.jsonl"
    link.symlink_to(secret)
    problems = Problems(home)
    found = discover(home, problems)
    assert "linked.jsonl" not in _claimed(found)
    assert any("symlink to a file outside the archive" in str(p) for p in problems.items)


def test_a_file_symlinked_out_of_a_symlinked_agent_folder_is_refused(tmp_path: Path) -> None:
    home = _symlinked_home(tmp_path)
    secret = _copy(CLAUDE, tmp_path / "outside" / "other.jsonl")
    (tmp_path / "dotfiles" / "claude-projects" / "-home-dev-app" / "linked.jsonl").symlink_to(secret)
    problems = Problems(home)
    found = discover(home, problems)
    assert "linked.jsonl" not in _claimed(found)
    assert Path(CLAUDE_FILE).name in _claimed(found)
    assert any("symlink to a file outside the archive" in str(p) for p in problems.items)


def test_a_symlinked_folder_that_is_no_agents_is_not_followed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _copy(CLAUDE, tmp_path / "outside" / "s.jsonl")
    home.mkdir()
    (home / "notes").symlink_to(tmp_path / "outside", target_is_directory=True)
    problems = Problems(home)
    assert discover(home, problems).claims == []
    assert any("symlink to a folder outside the archive" in str(p) for p in problems.items)


def test_an_empty_archive_says_where_and_what_was_skipped(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    for decoy in (".git/objects", "node_modules/pkg", ".cache/x", ".npm/y"):
        _copy(CLAUDE, archive / decoy / "session.jsonl")
    result = CliRunner().invoke(main, ["build", str(archive), "-q", "-o", str(tmp_path / "site")])
    assert result.exit_code == 1
    assert (
        f"{archive}: no session files found (skipped: .git (version control), node_modules (dependencies), "
        ".cache, .npm)" in result.output
    )


def test_serve_discover_serves_what_build_discover_builds(tmp_path: Path, monkeypatch) -> None:
    home = _symlinked_home(tmp_path)
    seen = []
    monkeypatch.setattr(serve_cli, "serve", lambda config, **_: seen.append(config))
    result = CliRunner().invoke(main, ["serve", "--discover"], env={"SESSITE_HOME": str(home)})
    assert result.exit_code == 0, result.output
    [config] = seen
    roots = {config.archive, *config.archives}
    assert home / ".claude" / "projects" in roots and home / ".codex" / "sessions" in roots
    assert CliRunner().invoke(main, ["serve"]).exit_code == 2  # no ARCHIVE and no --discover


def test_check_reads_a_symlinked_agent_folder(tmp_path: Path) -> None:
    home = _symlinked_home(tmp_path)
    result = CliRunner().invoke(main, ["check", str(home)])
    assert "outside the archive" not in result.output, result.output
