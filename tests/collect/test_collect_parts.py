"""The parts of ``sessite collect``: whole lines only, what counts as dropped, dry runs, the schedule."""

from __future__ import annotations

import json
import plistlib
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessite.cli import main
from sessite.collect.compare import contains, only_adds
from sessite.collect.schedule import schedule_for
from sessite.collect.snapshot import take
from sessite.model import Problems

RECORD = {
    "type": "user",
    "sessionId": "0e0e0e0e-1111-4000-8000-000000000031",
    "uuid": "0e0e0e0e-1111-4000-8000-000000000001",
    "parentUuid": None,
    "timestamp": "2026-03-01T10:00:00.000Z",
    "cwd": "/home/u/proj",
    "message": {"role": "user", "content": "first question about the collector"},
}


def _line(n: int, text: str) -> str:
    uuid = f"0e0e0e0e-1111-4000-8000-{n:012d}"
    parent = f"0e0e0e0e-1111-4000-8000-{n - 1:012d}" if n > 1 else None
    return json.dumps({**RECORD, "uuid": uuid, "parentUuid": parent, "message": {"role": "user", "content": text}})


def _home(tmp_path: Path, body: str) -> tuple[Path, Path]:
    project = tmp_path / "home" / ".claude" / "projects" / "-home-u-proj"
    project.mkdir(parents=True)
    (project / "s.jsonl").write_text(body, "utf-8")
    return tmp_path / "home", project / "s.jsonl"


def _run(home: Path, *args: str) -> str:
    result = CliRunner().invoke(main, ["collect", *args], env={"SESSITE_HOME": str(home)})
    assert result.exit_code == 0, result.output
    return result.output


def test_a_line_being_written_waits_for_the_next_run(tmp_path: Path) -> None:
    home, source = _home(tmp_path, _line(1, "one") + "\n" + _line(2, "two") + "\n" + '{"type": "user", "mess')
    archive = tmp_path / "archive"
    assert "1 new" in _run(home, str(archive))
    copy = archive / ".claude" / "projects" / "-home-u-proj" / "s.jsonl"
    assert copy.read_text("utf-8") == _line(1, "one") + "\n" + _line(2, "two") + "\n"
    source.write_text(_line(1, "one") + "\n" + _line(2, "two") + "\n" + _line(3, "three") + "\n", "utf-8")
    assert "1 grown" in _run(home, str(archive))
    assert copy.read_text("utf-8").count("\n") == 3
    assert not (archive / ".sessite-kept").exists()


def test_a_whole_last_line_without_its_newline_is_copied(tmp_path: Path) -> None:
    problems = Problems()
    source = tmp_path / "s.jsonl"
    source.write_text(_line(1, "one") + "\n" + _line(2, "two"), "utf-8")
    kind, copy = take(source, tmp_path / "copy", problems) or ("", tmp_path)
    assert kind == "jsonl" and copy.read_bytes() == source.read_bytes()


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    home, _ = _home(tmp_path, _line(1, "one") + "\n")
    archive = tmp_path / "archive"
    out = _run(home, str(archive), "--dry-run")
    assert "would collect" in out and "1 new" in out
    assert not archive.exists()


def test_json_report_lists_each_file(tmp_path: Path) -> None:
    home, _ = _home(tmp_path, _line(1, "one") + "\n")
    report = json.loads(_run(home, str(tmp_path / "archive"), "--json"))
    assert report["counts"]["new"] == 1
    assert report["files"][0]["target"] == ".claude/projects/-home-u-proj/s.jsonl"
    assert report["files"][0]["agent"] == "claude-code"


def test_an_archive_inside_an_agent_folder_is_refused_in_one_line(tmp_path: Path) -> None:
    home, source = _home(tmp_path, _line(1, "one") + "\n")
    result = CliRunner().invoke(main, ["collect", str(source.parent / "a")], env={"SESSITE_HOME": str(home)})
    assert result.exit_code == 2
    assert "overlaps claude-code's folder" in result.output and "Traceback" not in result.output
    assert not (source.parent / "a").exists()


@pytest.mark.parametrize(
    ("old", "new", "kept"),
    [
        ({"messages": [{"text": "a" * 100}]}, {"messages": [{"text": "a" * 100}, {"text": "b"}]}, True),
        (
            {"messages": [{"text": "a" * 100}], "lastUpdated": "1"},
            {"messages": [{"text": "a" * 100}], "lastUpdated": "2"},
            True,
        ),
        ({"messages": [{"text": "a" * 100}, {"text": "b"}]}, {"messages": [{"text": "b"}]}, False),
        ({"messages": [{"text": "a" * 100}]}, {"messages": [{"text": "c" * 100}]}, False),
        ({"summary": "x", "messages": []}, {"messages": []}, False),
    ],
)
def test_json_keeps_earlier_content(old: object, new: object, kept: bool) -> None:
    assert contains(old, new) is kept


def _db(path: Path, rows: list[tuple[str, str]]) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE message (id TEXT PRIMARY KEY, body TEXT)")
    conn.executemany("INSERT INTO message VALUES (?, ?)", rows)
    conn.commit()
    conn.close()
    return path


def test_sqlite_rows_gone_means_rewritten(tmp_path: Path) -> None:
    old = _db(tmp_path / "old.db", [("m1", "hello"), ("m2", "world")])
    grown = _db(tmp_path / "grown.db", [("m1", "hello"), ("m2", "world, edited"), ("m3", "more")])
    shrunk = _db(tmp_path / "shrunk.db", [("m2", "world")])
    assert only_adds(old, grown, "sqlite")
    assert not only_adds(old, shrunk, "sqlite")


def test_sqlite_copy_holds_the_log_and_leaves_the_source_alone(tmp_path: Path) -> None:
    source = tmp_path / "agent" / "store.db"
    source.parent.mkdir()
    writer = sqlite3.connect(source)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("CREATE TABLE message (id TEXT PRIMARY KEY, body TEXT)")
    writer.execute("INSERT INTO message VALUES ('m1', 'only in the log')")
    writer.commit()  # the agent still has the store open: its rows are in store.db-wal
    before = {p.name: p.read_bytes() for p in source.parent.iterdir()}
    kind, copy = take(source, tmp_path / "copy.db", Problems()) or ("", tmp_path)
    after = {p.name: p.read_bytes() for p in source.parent.iterdir()}
    writer.close()
    assert kind == "sqlite" and before == after
    rows = sqlite3.connect(copy).execute("SELECT body FROM message").fetchall()
    assert rows == [("only in the log",)]
    assert not Path(f"{copy}-wal").exists()


def test_schedule_for_each_system() -> None:
    archive = Path("/home/u/sessions archive")
    plist = plistlib.loads(schedule_for("darwin", "/usr/local/bin/sessite", archive).encode())
    assert plist["ProgramArguments"] == ["/usr/local/bin/sessite", "collect", str(archive)]
    systemd = schedule_for("linux", "/usr/bin/sessite", archive)
    assert "OnCalendar=daily" in systemd and "ExecStart=/usr/bin/sessite collect '/home/u/sessions archive'" in systemd
    cron = schedule_for("linux", "/usr/bin/sessite", archive, systemd=False)
    assert "* * * /usr/bin/sessite collect '/home/u/sessions archive'" in cron
    assert "schtasks /Create /SC DAILY" in schedule_for("windows", "C:\\sessite.exe", archive)


def test_print_schedule_collects_nothing(tmp_path: Path) -> None:
    home, _ = _home(tmp_path, _line(1, "one") + "\n")
    out = _run(home, str(tmp_path / "archive"), "--print-schedule")
    assert "collect" in out and str(tmp_path / "archive") in out
    assert not (tmp_path / "archive").exists()


def test_an_archive_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    home, _ = _home(tmp_path, _line(1, "one") + "\n")
    (tmp_path / "file").write_text("not a folder", "utf-8")
    result = CliRunner().invoke(main, ["collect", str(tmp_path / "file" / "archive")], env={"SESSITE_HOME": str(home)})
    assert result.exit_code == 1
    assert result.output.startswith("Error: cannot write ") and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
