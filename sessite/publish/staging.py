"""The private folders a build keeps beside its site, and clearing those of builds that were killed.

A build writes into work folders next to the site, on the same file system so that
publishing is a rename: ``.<site>.staging-<hex>`` becomes the new site, and
``.<site>.spool-<hex>`` holds pages that worker processes rendered. Each one carries a
marker file and, while its build lives, a lock (``flock`` on the folder on POSIX; on
Windows the marker is held open, and an open file cannot be deleted). A build that was
killed leaves them behind; the next build removes a folder beside the site only when
its name has that pattern, it is marked as ours (or empty) and nobody holds its lock.
Nothing else is ever touched.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import stat
from pathlib import Path
from typing import BinaryIO

try:
    import fcntl
except ImportError:  # Windows: the open marker file is the lock
    fcntl = None  # type: ignore[assignment]  # the module is absent there, checked before each use

SITE_MARKER = ".sessite-site"  # written into every site; we only ever replace a folder that has it
WORK_MARKER = ".sessite-work"  # in a staging or spool folder while it is being filled
KINDS = ("staging", "spool", "old")  # "old": a site set aside by the two-rename swap (no atomic exchange)
KILL_AT_ENV = "SESSITE_TEST_KILL_AT"  # tests only: kill the build at this step (a number or a step name)
_WORK_TEXT = b"A sessite build is writing here; a later build removes this folder if that build died.\n"


class Steps:
    """Counts the writer's filesystem steps, so a test can kill a build at any one of them.

    ``SESSITE_TEST_KILL_AT=N`` kills this process (SIGKILL, nothing cleans up) just before
    its Nth step; a step name (``swap``, ``remove-old``, …) kills it before the first step
    of that name. Unset, as it always is outside the tests, a step costs a counter.
    """

    def __init__(self, kill_at: str | None = None) -> None:
        self.kill_at = kill_at or None
        self.count = 0

    @classmethod
    def from_environment(cls) -> Steps:
        return cls(os.environ.get(KILL_AT_ENV))

    def __call__(self, name: str) -> None:
        self.count += 1
        if self.kill_at is not None and self.kill_at in (str(self.count), name):
            _kill_self()


def _kill_self() -> None:
    kill = getattr(signal, "SIGKILL", None)
    if kill is None:  # Windows: the nearest thing to a kill
        os._exit(137)
    os.kill(os.getpid(), kill)


def work_path(output: Path, kind: str) -> Path:
    """A fresh name of ``kind`` beside ``output`` (not created)."""
    return output.parent / f".{output.name}.{kind}-{secrets.token_hex(6)}"


def site_of(folder: Path) -> Path | None:
    """The site a work folder belongs to, from its name (None if it is not one)."""
    match = re.fullmatch(rf"\.(.+)\.(?:{'|'.join(KINDS)})-[A-Za-z0-9_]+", folder.name)
    return folder.parent / match.group(1) if match else None


def _leftover_name(output: Path) -> re.Pattern[str]:
    return re.compile(rf"\.{re.escape(output.name)}\.({'|'.join(KINDS)})-[A-Za-z0-9_]+")


class WorkFolder:
    """A staging or spool folder: created marked and locked; ``release`` when done with it."""

    def __init__(self, path: Path, lock: int | BinaryIO | None) -> None:
        self.path = path
        self._lock = lock

    @classmethod
    def create(cls, output: Path, kind: str, steps: Steps, mode: int = 0o777) -> WorkFolder:
        """Make the folder (``mode`` less the umask, as any new folder; not mkdtemp's 0700,
        which would hide a new site from a web server), lock it, mark it. Raises OSError."""
        output.parent.mkdir(parents=True, exist_ok=True)
        while True:
            path = work_path(output, kind)
            steps(kind)
            try:
                os.mkdir(path, mode)
                break
            except FileExistsError:
                continue
        folder = cls(path, None)
        try:
            folder._lock = _hold(path)
            steps("mark")
            with open(path / WORK_MARKER, "xb") as fh:
                fh.write(_WORK_TEXT)
            if fcntl is None:  # Windows: an open marker cannot be deleted by a cleaning build
                folder._lock = open(path / WORK_MARKER, "rb")  # noqa: SIM115 - held until release()
        except BaseException:
            folder.remove()
            raise
        return folder

    def go_live(self, output: Path, steps: Steps) -> None:
        """Ready a staging folder to become the site at ``output``: the published site's
        mode (if the user set one) and no marker. On POSIX the lock stays until ``release``."""
        if output.is_dir():
            os.chmod(self.path, stat.S_IMODE(output.stat().st_mode))
        if fcntl is None:
            self.release()
        steps("unmark")
        os.unlink(self.path / WORK_MARKER)

    def release(self) -> None:
        lock, self._lock = self._lock, None
        if isinstance(lock, int):
            os.close(lock)  # closing the descriptor drops the flock
        elif lock is not None:
            lock.close()

    def remove(self) -> None:
        self.release()
        shutil.rmtree(self.path, ignore_errors=True)


def _hold(path: Path) -> int | None:
    """POSIX: a descriptor of the folder holding an exclusive flock (it follows the folder
    through renames, and a killed process's locks go with it); None where that fails
    (a file system without locks: the folder is just unlocked)."""
    return None if fcntl is None else _flock(path)


def _flock(path: Path) -> int | None:
    """POSIX: a descriptor of the folder holding an exclusive flock; None when the lock is
    refused (another process holds it, or the file system has no locks). Raises OSError
    when the folder cannot be opened."""
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def lock_folder(path: Path) -> int | None:
    """Lock a folder the way work folders are locked (the site, before it is set aside)."""
    try:
        return _hold(path)
    except OSError:
        return None


def unlock_folder(lock: int | None) -> None:
    if lock is not None:
        os.close(lock)


# ---------------------------------------------------------------- leftovers of killed builds


def leftovers(output: Path, kind: str | None = None) -> list[Path]:
    """Folders beside ``output`` named like our work folders (of ``kind``, or of any kind)."""
    pattern = _leftover_name(output)
    try:
        entries = list(os.scandir(output.parent))
    except OSError:
        return []
    found = []
    for entry in entries:
        match = pattern.fullmatch(entry.name)
        if match and (kind is None or match.group(1) == kind) and entry.is_dir(follow_symlinks=False):
            found.append(Path(entry.path))
    return sorted(found)


def clean_leftovers(output: Path, steps: Steps) -> None:
    """Remove what killed builds left beside ``output``: only folders that are provably
    ours (name pattern, marker or empty, unlocked). Never fails: a folder that cannot be
    removed now is tried again next time."""
    for path in leftovers(output):
        _remove_if_ours(path, steps)


def _remove_if_ours(path: Path, steps: Steps) -> None:
    try:
        names = set(os.listdir(path))
    except OSError:
        return
    if names and not names & {WORK_MARKER, SITE_MARKER}:
        return  # not provably ours: left alone
    free, lock = _take(path)
    if not free:
        return  # a live build holds it, or locks do not work here: it cannot be proven dead
    try:
        steps("clean")
        if names:
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.rmdir(path)
    except OSError:
        pass  # tried again by the next build
    finally:
        unlock_folder(lock)


def _take(path: Path) -> tuple[bool, int | None]:
    """Lock a leftover before removing it: (no live build holds it, the lock's descriptor).
    POSIX: an exclusive flock, refused while its build lives. Windows: a live build holds
    its marker open, so deleting the marker fails."""
    if fcntl is None:
        try:
            os.unlink(path / WORK_MARKER)
        except FileNotFoundError:
            pass
        except OSError:
            return False, None
        return True, None
    try:
        fd = _flock(path)
    except OSError:
        return False, None
    return fd is not None, fd


def is_ours(path: Path) -> bool:
    """A set-aside site: marked as a sessite site."""
    return (path / SITE_MARKER).is_file()
