"""The preview leaves nothing behind: its temporary site (the sessions' text) is removed when it
is stopped by SIGTERM or SIGHUP as by Ctrl-C, and a folder left by a preview that was killed
outright is removed when the next preview starts."""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

import pytest
from helpers import FIXTURES

from sessite.serve.tempsite import PID_FILE, PREFIX, remove_leftovers


def _archive(tmp_path: Path) -> Path:
    archive = tmp_path / "archive"
    archive.mkdir()
    shutil.copy(FIXTURES / "claude_code" / "basic.jsonl", archive / "basic.jsonl")
    return archive


def _pump(stream: IO[str], lines: queue.Queue[str]) -> None:
    for line in stream:
        lines.put(line)
    lines.put("")


def _wait_for(lines: queue.Queue[str], text: str, timeout: float = 60) -> str:
    seen = []
    while True:
        try:
            line = lines.get(timeout=timeout)
        except queue.Empty:
            break
        if text in line:
            return line
        if not line:
            break
        seen.append(line)
    pytest.fail(f"no line with {text!r}; the output was:\n{''.join(seen)}")


def _start(tmp_path: Path, temp: Path) -> tuple[subprocess.Popen[str], queue.Queue[str], threading.Thread]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "sessite.cli", "serve", str(_archive(tmp_path)), "--port", "0"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "TMPDIR": str(temp)},
    )
    lines: queue.Queue[str] = queue.Queue()
    pump = threading.Thread(target=_pump, args=(proc.stderr, lines), daemon=True)
    pump.start()
    return proc, lines, pump


def _stop(proc: subprocess.Popen[str], pump: threading.Thread) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    pump.join(timeout=10)
    assert proc.stderr is not None
    proc.stderr.close()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_removes_the_temporary_site(tmp_path: Path, signum: int) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    proc, lines, pump = _start(tmp_path, temp)
    try:
        line = _wait_for(lines, "serving")
        site = Path(line.split("serving ", 1)[1].split(" at ", 1)[0])
        assert (site / "index.html").is_file()
        assert site.parent.parent == temp and site.parent.name.startswith(PREFIX)
        proc.send_signal(signum)
        assert proc.wait(timeout=20) == 0
        assert not site.parent.exists(), "the temporary preview folder is removed"
        assert list(temp.iterdir()) == []
    finally:
        _stop(proc, pump)


def test_a_killed_previews_folder_is_removed_at_the_next_start(tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # a process id that no longer runs
    leftover = temp / f"{PREFIX}killed"
    (leftover / "site").mkdir(parents=True)
    (leftover / "site" / "index.html").write_text("the sessions' text", "utf-8")
    (leftover / PID_FILE).write_text(str(dead.pid), "ascii")
    alive = temp / f"{PREFIX}running"  # another preview, still running: kept
    alive.mkdir()
    (alive / PID_FILE).write_text(str(os.getpid()), "ascii")
    unmarked = temp / f"{PREFIX}unmarked"  # no owner named: not ours to judge
    unmarked.mkdir()
    proc, lines, pump = _start(tmp_path, temp)
    try:
        _wait_for(lines, "serving")
        assert not leftover.exists()
        assert alive.is_dir() and unmarked.is_dir()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        _stop(proc, pump)


def test_remove_leftovers_keeps_its_own_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)  # gettempdir() reads TMPDIR again
    own = tmp_path / f"{PREFIX}own"
    own.mkdir()
    (own / PID_FILE).write_text(str(os.getpid()), "ascii")
    assert remove_leftovers() == []
    assert own.is_dir()
