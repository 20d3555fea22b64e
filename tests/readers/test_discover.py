"""Local discovery: default agent folders under a fake home, overrides, counts, and building them all."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import EXAMPLE, FIXTURES

from sessite.cli import main
from sessite.model import Problems
from sessite.readers import discover, registry
from sessite.readers.locations import AGENTS, candidates, find, parse_agent_dirs, platform, survey

CLINE_TASKS = Path(".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks")
CURSOR_USER = Path("Library/Application Support/Cursor/User")


def fake_home(root: Path) -> Path:
    """A home folder holding one of each agent's layouts (clean sessions from the example archive)."""
    home = root / "home"

    def copy(src: Path, dest: Path) -> None:
        dest.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, dest)

    copy(EXAMPLE / "claude-code" / "-home-dev-webapp", home / ".claude" / "projects" / "-home-dev-webapp")
    copy(EXAMPLE / "codex", home / ".codex" / "sessions")
    copy(FIXTURES / "copilot_cli", home / ".copilot" / "session-state")
    copy(EXAMPLE / "gemini", home / ".gemini" / "tmp")
    copy(EXAMPLE / "opencode" / "storage", home / ".local" / "share" / "opencode" / "storage")
    (home / ".local" / "share" / "opencode" / "log").mkdir()
    (home / ".local" / "share" / "opencode" / "log" / "2026-02-07.log").write_text("INFO started\n")
    db = home / ".local" / "share" / "opencode" / "opencode.db"
    conn = sqlite3.connect(db)
    conn.executescript((FIXTURES / "opencode" / "opencode.sql").read_text())
    conn.execute("DELETE FROM part WHERE id = 'prt_db07'")  # keep the fake home free of problems
    conn.commit()
    conn.close()
    [task] = [p for p in (EXAMPLE / "cline").iterdir() if p.is_dir()]
    copy(task, home / CLINE_TASKS / task.name)
    copy(FIXTURES / "cline" / "tasks" / "1704103200000", home / ".cline" / "data" / "tasks" / "1704103200000")
    copy(EXAMPLE / "amp", home / ".local" / "share" / "amp" / "threads")
    copy(EXAMPLE / "cursor" / "state.vscdb", home / CURSOR_USER / "globalStorage" / "state.vscdb")
    copy(FIXTURES / "cursor" / "User" / "workspaceStorage", home / CURSOR_USER / "workspaceStorage")
    (home / CURSOR_USER / "globalStorage" / "storage.json").write_text('{"theme": "dark"}')  # not walked
    copy(EXAMPLE / "sage" / "-home-dev-notes-", home / ".emacs.d" / "sage" / "projects" / "-home-dev-notes-")
    return home


def snapshot(root: Path) -> dict[str, str]:
    """Every file's bytes and mtime, and every folder, under root."""
    files = {
        str(p.relative_to(root)): hashlib.sha1(p.read_bytes()).hexdigest() + f":{p.stat().st_mtime_ns}"
        for p in root.rglob("*")
        if p.is_file()
    }
    return files | {str(p.relative_to(root)) + "/": "" for p in root.rglob("*") if p.is_dir()}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return fake_home(tmp_path)


def test_finds_every_agent_folder(home: Path) -> None:
    found = find(home=home)
    assert [loc.agent for loc in found] == [
        "claude-code",
        "codex",
        "copilot-cli",
        "gemini",
        "opencode",
        "cline",
        "cline",
        "amp",
        "cursor",
        "sage",
    ]
    by = {(loc.agent, loc.folder.relative_to(home).as_posix()): loc for loc in found}
    opencode = by[("opencode", ".local/share/opencode")]
    assert [r.name for r in opencode.roots] == ["storage", "opencode.db"]  # not the logs next to them
    cursor = by[("cursor", str(CURSOR_USER))]
    assert [r.relative_to(home / CURSOR_USER).as_posix() for r in cursor.roots] == [
        "globalStorage/state.vscdb",
        "workspaceStorage/ws1/state.vscdb",
    ]
    assert by[("cline", str(CLINE_TASKS))].roots == (home / CLINE_TASKS,)
    assert ("cline", ".cline/data/tasks") in by and ("sage", ".emacs.d/sage/projects") in by
    assert not any(loc.overridden for loc in found)


def test_survey_counts_files_and_sessions(home: Path) -> None:
    problems = Problems(home)
    counts = {
        (s.location.agent, s.location.folder.relative_to(home).as_posix()): s
        for s in (survey(loc, problems) for loc in find(home=home))
    }
    assert not problems.items, [str(p) for p in problems.items]
    assert all(s.sessions >= 1 and s.files >= 1 for s in counts.values())
    opencode = counts[("opencode", ".local/share/opencode")]
    assert (opencode.sessions, opencode.formats) == (2, ("opencode",))  # one from the tree, one from the database
    assert opencode.files == len(list((home / ".local/share/opencode/storage").rglob("*.json"))) + 1
    assert (counts[("cline", str(CLINE_TASKS))].sessions, counts[("cline", str(CLINE_TASKS))].files) == (1, 3)
    assert (counts[("cline", ".cline/data/tasks")].sessions, counts[("cline", ".cline/data/tasks")].files) == (1, 1)
    cursor = counts[("cursor", str(CURSOR_USER))]
    assert (cursor.sessions, cursor.files) == (2, 3)  # a composer, an old chat tab; workspace.json is a companion
    assert counts[("amp", ".local/share/amp/threads")].sessions == 1


def test_discovery_and_reading_never_modify_the_agents_files(home: Path, tmp_path: Path) -> None:
    before = snapshot(home)
    problems = Problems(home)
    for loc in find(home=home):
        survey(loc, problems)
    result = CliRunner().invoke(
        main, ["build", "--discover", "-q", "-o", str(tmp_path / "site")], env={"SESSITE_HOME": str(home)}
    )
    assert result.exit_code == 0, result.output
    assert snapshot(home) == before  # no -wal, -shm or journal files either


def test_cli_discover_lists_counts(home: Path) -> None:
    result = CliRunner().invoke(main, ["discover"], env={"SESSITE_HOME": str(home)})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["agent", "sessions", "files", "folder"]
    rows = {line.split()[0]: line for line in lines[1:-1]}
    assert set(rows) == {"claude-code", "codex", "copilot-cli", "gemini", "opencode", "cline", "amp", "cursor", "sage"}
    assert "~/.local/share/opencode" in rows["opencode"] and rows["opencode"].split()[1:3] == [
        "2",
        str(opencode_files(home)),
    ]
    assert "~/Library/Application Support/Cursor/User" in rows["cursor"]
    assert str(home) not in result.stdout  # the home is shown as ~
    assert lines[-1].startswith(f"{sum(int(line.split()[1]) for line in lines[1:-1])} sessions in 10 folders")
    data = json.loads(CliRunner().invoke(main, ["discover", "--json"], env={"SESSITE_HOME": str(home)}).stdout)
    amp = next(row for row in data if row["agent"] == "amp")
    assert amp["sessions"] == 1 and amp["formats"] == ["amp"] and amp["folder"].endswith(".local/share/amp/threads")


def opencode_files(home: Path) -> int:
    return len(list((home / ".local/share/opencode/storage").rglob("*.json"))) + 1


def test_build_discover_makes_one_site(home: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    result = CliRunner().invoke(main, ["build", "--discover", "-o", str(out)], env={"SESSITE_HOME": str(home)})
    assert result.exit_code == 0, result.output
    assert "0 problems" in result.stdout
    pages = {p.name.split("-", 1)[0] for p in (out / "sessions").glob("*.html")}
    assert pages >= {"claude_code", "codex", "copilot_cli", "gemini", "opencode", "cline", "amp", "cursor", "sage"}
    # sources are shown relative to the home, never as the absolute home path
    index = (out / "index.html").read_text("utf-8")
    assert str(home) not in index


def test_build_discover_with_an_archive_too(home: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main,
        ["build", str(EXAMPLE / "aics"), "--discover", "-q", "-o", str(tmp_path / "site")],
        env={"SESSITE_HOME": str(home)},
    )
    assert result.exit_code == 0, result.output
    assert any(p.name.startswith("aics-") for p in (tmp_path / "site" / "sessions").iterdir())


def test_build_needs_an_archive_or_discover(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["build", "-o", str(tmp_path / "site")])
    assert result.exit_code == 2 and "--discover" in result.output
    empty = tmp_path / "empty-home"
    empty.mkdir()
    result = CliRunner().invoke(
        main, ["build", "--discover", "-o", str(tmp_path / "site")], env={"SESSITE_HOME": str(empty)}
    )
    assert result.exit_code == 1 and "no agent folders found" in result.output
    result = CliRunner().invoke(main, ["build", str(EXAMPLE), "--agent-dir", "amp=/x", "-o", str(tmp_path / "site")])
    assert result.exit_code == 2 and "only applies with --discover" in result.output


def test_agent_dir_overrides_the_defaults(home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(FIXTURES / "amp", elsewhere)
    found = find(home=home, overrides={"amp": [elsewhere]})
    [amp] = [loc for loc in found if loc.agent == "amp"]
    assert amp.folder == elsewhere and amp.overridden
    result = CliRunner().invoke(main, ["discover", "--agent-dir", f"amp={elsewhere}"], env={"SESSITE_HOME": str(home)})
    row = next(line for line in result.stdout.splitlines() if line.startswith("amp"))
    assert row.split()[1] == "2" and str(elsewhere) in row
    for bad, message in (("amp", "AGENT=FOLDER"), ("copilot=/x", "unknown agent"), ("=/x", "AGENT=FOLDER")):
        with pytest.raises(ValueError, match=message):
            parse_agent_dirs([bad])
    result = CliRunner().invoke(main, ["discover", "--agent-dir", "nope=/x"], env={"SESSITE_HOME": str(home)})
    assert result.exit_code == 2 and "unknown agent" in result.output


def test_overridden_home_ignores_the_real_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = tmp_path / "real-codex"
    shutil.copytree(EXAMPLE / "codex", real / "sessions")
    monkeypatch.setenv("CODEX_HOME", str(real))
    empty = tmp_path / "empty"
    empty.mkdir()
    assert find(home=empty) == []
    monkeypatch.setenv("SESSITE_HOME", str(empty))
    assert platform().home == empty and find() == []
    # with an explicit environment the variables count
    [codex, _] = [loc for loc in find(home=empty, env={"CODEX_HOME": str(real)})] + [None]
    assert codex.agent == "codex" and codex.folder == real / "sessions"


def test_environment_and_windows_locations(tmp_path: Path) -> None:
    home = tmp_path / "u"
    data = tmp_path / "xdg-data"
    shutil.copytree(EXAMPLE / "amp", data / "amp" / "threads")
    roaming = home / "AppData" / "Roaming"
    shutil.copytree(EXAMPLE / "cursor", roaming / "Cursor" / "User" / "globalStorage")
    task = next(p for p in (EXAMPLE / "cline").iterdir() if p.is_dir())
    shutil.copytree(
        task, roaming / "Code - Insiders" / "User" / "globalStorage" / "saoudrizwan.claude-dev" / "tasks" / task.name
    )
    found = find(home=home, env={"XDG_DATA_HOME": str(data)}, system="windows")
    assert [(loc.agent, loc.folder) for loc in found] == [
        ("cline", roaming / "Code - Insiders" / "User" / "globalStorage" / "saoudrizwan.claude-dev" / "tasks"),
        ("amp", data / "amp" / "threads"),
        ("cursor", roaming / "Cursor" / "User"),
    ]
    # APPDATA names the roaming folder when it is set
    found = find(home=tmp_path / "nobody", env={"APPDATA": str(roaming)}, system="windows")
    assert [loc.agent for loc in found] == ["cline", "cursor"]


def test_candidates_cover_every_agent_and_os(tmp_path: Path) -> None:
    plat = platform(home=tmp_path, system="darwin")
    listed = candidates(plat)
    # Aider and SpecStory keep no folder of their own (they write into each project): found with
    # --agent-dir only.
    folderless = {r.agent for r in registry() if r.agent and not r.default_folders(plat)}
    assert folderless == {"aider", "specstory"}
    assert {agent for agent, _ in listed} == set(AGENTS) - folderless
    paths = {p.relative_to(tmp_path).as_posix() for _, p in listed}
    for expected in (
        ".claude/projects",
        ".codex/sessions",
        ".gemini/tmp",
        ".local/share/opencode",
        ".cline/data/tasks",
        ".local/share/amp/threads",
        "Library/Application Support/Cursor/User",
        ".config/Cursor/User",
        "Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/tasks",
        ".config/VSCodium/User/globalStorage/saoudrizwan.claude-dev/tasks",
        "Library/Application Support/Cursor/User/globalStorage/saoudrizwan.claude-dev/tasks",
        ".emacs.d/sage/projects",
        ".sage/projects",
        ".hermes/sessions",
        ".openclaw/agents",
        ".local/share/kilo",
    ):
        assert expected in paths, expected


def test_a_walk_enters_the_hidden_folders_and_files_a_format_lives_under(tmp_path: Path) -> None:
    """A project archived with its committed ``.crush/``, ``.qwen/`` and aider transcript: those are
    read; other hidden folders (``.git``, ``.venv``) are still skipped."""
    project = tmp_path / "archive" / "shop"
    (project / ".crush").mkdir(parents=True)
    shutil.copyfile(FIXTURES / "crush" / "crush.db", project / ".crush" / "crush.db")
    chats = project / ".qwen" / "projects" / "shop" / "chats"
    chats.mkdir(parents=True)
    shutil.copyfile(FIXTURES / "qwen_code" / "5e0c2a1e-0000-4000-8000-00000000a0a0.jsonl", chats / "5e0c2a1e.jsonl")
    shutil.copyfile(FIXTURES / "aider" / "bakery.aider.chat.history.md", project / ".aider.chat.history.md")
    (project / ".venv").mkdir()
    (project / ".venv" / "pyvenv.json").write_text("{}")
    problems = Problems()
    claims = sorted((c.reader.name, c.path.relative_to(project).as_posix()) for c in discover(project, problems).claims)
    assert claims == [
        ("aider", ".aider.chat.history.md"),
        ("crush", ".crush/crush.db"),
        ("qwen_code", ".qwen/projects/shop/chats/5e0c2a1e.jsonl"),
    ]
    assert not [p for p in problems.items if ".venv" in str(p)]
