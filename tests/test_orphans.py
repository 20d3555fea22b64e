"""Forked workers leave with their parent: a killed build leaves no process rendering on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="workers are forked")

PROGRAM = """
import os, sys, time
from sessite.parallel import parallel_map

def slow(folder, item):
    open(os.path.join(folder, str(os.getpid())), "w").close()
    time.sleep(60)
    return item

for _ in parallel_map(slow, [1, 2], 2, context=sys.argv[1]):
    pass
"""


def test_busy_workers_exit_when_the_build_is_killed(tmp_path: Path) -> None:
    parent = subprocess.Popen([sys.executable, "-c", PROGRAM, str(tmp_path)])
    deadline = time.monotonic() + 30
    while len(os.listdir(tmp_path)) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    workers = [int(name) for name in os.listdir(tmp_path)]
    assert len(workers) == 2, "the workers did not start"
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 5
    alive = workers
    while alive and time.monotonic() < deadline:
        time.sleep(0.05)
        alive = [pid for pid in workers if _running(pid)]
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    assert not alive, "workers outlived the killed build"


def _running(pid: int) -> bool:
    """Alive and not a zombie (an exited orphan waits for init to reap it)."""
    if os.path.isdir("/proc"):
        try:
            with open(f"/proc/{pid}/stat") as fh:
                return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
        except FileNotFoundError:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
