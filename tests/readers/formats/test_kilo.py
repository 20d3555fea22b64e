"""Kilo CLI: OpenCode's store under Kilo's name (``~/.local/share/kilo/kilo.db``), its rows still in
the ``-wal`` read, bad input, and a public home folder's real ``kilo.db``."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from helpers import FIXTURES

from sessite.model import Kind, Problems, Session, walk
from sessite.readers import discover
from sessite.readers.formats.kilo import READER
from sessite.readers.locations import candidates, platform

FRESH = Path(__file__).resolve().parents[3].parent / "fresh" / "agents31b" / "kilo"
SQL = (FIXTURES / "opencode" / "opencode.sql").read_text()


def _home_with_kilo(home: Path) -> Path:
    data = home / ".local" / "share" / "kilo"
    data.mkdir(parents=True)
    (data / "log").mkdir()
    (data / "log" / "2026-03-11T150223.log").write_text("INFO service=default\n")
    conn = sqlite3.connect(data / "kilo.db")
    conn.executescript(SQL)
    conn.commit()
    conn.close()
    return data / "kilo.db"


def _read(path: Path) -> tuple[list[Session], list[str]]:
    """The sessions and the problems, less the bad part the OpenCode fixture holds on purpose."""
    problems = Problems(path.parent)
    sessions = list(READER.read(path, problems))
    return sessions, [str(p) for p in problems.items if "part prt_db07: data is not JSON" not in str(p)]


def test_a_home_with_kilo_is_read_as_kilo(tmp_path: Path) -> None:
    db = _home_with_kilo(tmp_path / "home")
    problems = Problems(tmp_path / "home")
    found = discover(tmp_path / "home", problems)
    assert [(c.path, c.reader.name) for c in found.claims] == [(db, "kilo")]
    sessions, read_problems = _read(db)
    assert read_problems == [] and sessions
    assert all(s.id.startswith("kilo-ses_") and s.agent == "kilo" and s.source.format == "kilo" for s in sessions)
    assert any(e.kind == Kind.USER for s in sessions for e in walk(s.events))
    assert ".local/share/kilo" in {
        p.relative_to(tmp_path).as_posix()
        for a, p in candidates(platform(home=tmp_path, system="linux"))
        if a == "kilo"
    }


def test_rows_only_in_the_wal_are_read(tmp_path: Path) -> None:
    live = tmp_path / "live"
    db = _home_with_kilo(live)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("UPDATE session SET title = 'Renamed while Kilo runs'")
    conn.commit()
    copy = tmp_path / "copy" / ".local" / "share" / "kilo"
    copy.mkdir(parents=True)
    for name in ("kilo.db", "kilo.db-wal"):
        shutil.copyfile(db.with_name(name), copy / name)
    conn.close()
    sessions, problems = _read(copy / "kilo.db")
    assert problems == [] and {s.title for s in sessions} == {"Renamed while Kilo runs"}


def test_a_damaged_database_is_one_problem(tmp_path: Path) -> None:
    db = _home_with_kilo(tmp_path / "home")
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])
    sessions, problems = _read(db)
    assert len(problems) == 1 and problems[0].startswith("kilo.db: opencode: ")
    assert isinstance(sessions, list)
    fake = tmp_path / "other" / "kilo.db"
    fake.parent.mkdir()
    fake.write_text("not a database")
    assert not READER.detect_path(fake)


@pytest.mark.skipif(not FRESH.is_dir(), reason="the gathered Kilo store (../fresh/agents31b) is not here")
def test_a_real_kilo_store_from_a_public_home_folder() -> None:
    problems = Problems(FRESH)
    found = discover(FRESH, problems)
    assert [c.reader.name for c in found.claims] == ["kilo"]
    said = [str(p) for p in problems.items]
    assert said and all("session_diff" in p and "no conversation" in p for p in said)
    sessions, read_problems = _read(found.claims[0].path)
    assert read_problems == [] and len(sessions) == 3
    assert sum(1 for s in sessions for e in walk(s.events) if e.kind == Kind.USER) >= 14
