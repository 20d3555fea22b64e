"""Issue 30: only regular files are read, at any depth. A FIFO (or socket, or device) named like a
session file is one problem line and never opened for a blocking read; a folder nested past
Python's recursion limit is one problem line, and the build goes on."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cursor_agent_store import AGENT_ID, HASH, write_store
from helpers import build_site

from sessite.model import Problems
from sessite.readers import discover
from sessite.readers.regular import NotRegularFile, open_regular

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a POSIX thing")

SID = "11111111-2222-4333-8444-555555555555"
LINE = {
    "parentUuid": None,
    "cwd": "/home/dev/shop",
    "sessionId": SID,
    "type": "user",
    "message": {"role": "user", "content": "hello"},
    "uuid": "u-0001",
    "timestamp": "2026-10-01T10:00:00.000Z",
}


def test_opening_a_fifo_raises_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "x.jsonl")
    with pytest.raises(NotRegularFile, match="a FIFO"):
        open_regular(tmp_path / "x.jsonl")
    with pytest.raises(NotRegularFile, match="a character device"):
        open_regular("/dev/zero")


def test_fifos_in_a_claude_code_project_are_skipped_with_one_line_each(tmp_path: Path) -> None:
    """The sub-agent index opens every ``*.jsonl`` of the folder; a ``-wal`` FIFO sits beside a store."""
    folder = tmp_path / "archive" / "projects" / "-home-dev-shop"
    folder.mkdir(parents=True)
    (folder / f"{SID}.jsonl").write_text(json.dumps(LINE) + "\n")
    os.mkfifo(folder / "agent-x.jsonl")
    os.mkfifo(folder / "other.jsonl")
    os.mkfifo(tmp_path / "archive" / "store.db-wal")
    report = build_site(tmp_path / "archive", tmp_path / "site")
    assert report.sessions == 1
    odd = sorted(p.source for p in report.problems if "not a regular file" in p.message)
    assert odd == ["projects/-home-dev-shop/agent-x.jsonl", "projects/-home-dev-shop/other.jsonl", "store.db-wal"]


@pytest.fixture
def deep(tmp_path: Path) -> Iterator[Path]:
    """An archive with a session at the top and a folder nested past the recursion limit
    (made and removed through directory descriptors: paths that long are refused)."""
    root = tmp_path / "archive"
    root.mkdir()
    (root / "s.jsonl").write_text(json.dumps(LINE) + "\n")
    levels = sys.getrecursionlimit() + 100
    fds = [os.open(root, os.O_RDONLY)]
    for _ in range(levels):
        os.mkdir("d", dir_fd=fds[-1])
        fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
    yield root
    for fd in reversed(fds):  # shutil.rmtree (pytest's clean-up too) recurses: remove level by level
        if fd != fds[-1]:
            os.rmdir("d", dir_fd=fd)
        os.close(fd)


def test_a_folder_nested_1100_deep_is_one_line(deep: Path, tmp_path: Path) -> None:
    problems = Problems(root=deep)
    found = discover(deep, problems)
    assert [c.path.name for c in found.claims] == ["s.jsonl"]
    assert ["the cap on depth" in p.message for p in problems.items] == [True]
    report = build_site(deep, tmp_path / "site")
    assert report.sessions == 1


def test_a_deep_nest_inside_a_session_folder_costs_the_nest_only(tmp_path: Path) -> None:
    """The readers list a claimed folder's files without recursion too (``rglob`` recursed)."""
    base = tmp_path / "archive" / "projects" / "-home-dev-shop"
    base.mkdir(parents=True)
    (base / f"{SID}.jsonl").write_text(json.dumps(LINE) + "\n")
    (base / SID / "subagents").mkdir(parents=True)
    fds = [os.open(base / SID / "subagents", os.O_RDONLY)]
    try:
        for _ in range(sys.getrecursionlimit() + 100):
            os.mkdir("d", dir_fd=fds[-1])
            fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
        report = build_site(tmp_path / "archive", tmp_path / "site")
        assert report.sessions == 1
        assert ["the cap on depth" in p.message for p in report.problems] == [True]
    finally:
        for fd in reversed(fds):
            if fd != fds[-1]:
                os.rmdir("d", dir_fd=fd)
            os.close(fd)


def test_a_fifo_as_the_wal_beside_a_cursor_agent_store(tmp_path: Path) -> None:
    """The store is read from its main file; the FIFO is named once, never opened to block."""
    store = write_store(tmp_path / "archive" / "chats" / HASH / AGENT_ID / "store.db")
    os.mkfifo(store.with_name("store.db-wal"))
    report = build_site(tmp_path / "archive", tmp_path / "site")
    assert report.sessions == 1
    assert [p.message for p in report.problems if "FIFO" in p.message] == ["a FIFO, not a regular file; skipped"]
