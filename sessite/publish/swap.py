"""Putting a finished staging folder in the site's place in one step.

Linux (``renameat2`` with ``RENAME_EXCHANGE``, kernel 3.15+) and macOS (``renamex_np``
with ``RENAME_SWAP``, 10.12+) exchange two folders atomically: the site path holds the
old build, then the new one, with no instant in between, and the old build comes out
under the staging folder's name to be deleted. The site stays a plain folder (no
symlink), so git, cp, rsync, web servers and Pages' upload see what they always saw.

Where there is no such call (Windows, BSDs, file systems that refuse it) two renames do
the swap: the site is set aside as ``.<site>.old-<hex>``, then the staging folder takes
its name. A kill between the two leaves no site for that instant; the next build puts
the set-aside site back (``recover``) before it looks at anything else.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import platform
import sys
from collections.abc import Callable
from pathlib import Path

from sessite.publish.staging import Steps, is_ours, leftovers, lock_folder, unlock_folder, work_path

Exchange = Callable[[bytes, bytes], None]

_UNSUPPORTED = {errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOTTY}
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2  # linux/fs.h
_RENAME_SWAP = 2  # macOS stdio.h
_RENAMEAT2_SYSCALL = {"x86_64": 316, "aarch64": 276, "arm64": 276}  # where libc has no wrapper (glibc < 2.28)


def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") if sys.platform == "darwin" else None, use_errno=True)
    except OSError:
        return None


def _raise_errno(a: bytes, b: bytes) -> None:
    code = ctypes.get_errno()
    raise OSError(code, os.strerror(code), os.fsdecode(a), None, os.fsdecode(b))


def _linux_exchange(libc: ctypes.CDLL) -> Exchange | None:
    wrapper = getattr(libc, "renameat2", None)
    number = _RENAMEAT2_SYSCALL.get(platform.machine())
    if wrapper is None and number is None:
        return None

    def exchange(a: bytes, b: bytes) -> None:
        if wrapper is not None:
            result = wrapper(_AT_FDCWD, a, _AT_FDCWD, b, ctypes.c_uint(_RENAME_EXCHANGE))
        else:
            result = libc.syscall(number, _AT_FDCWD, a, _AT_FDCWD, b, ctypes.c_uint(_RENAME_EXCHANGE))
        if result != 0:
            _raise_errno(a, b)

    return exchange


def _macos_exchange(libc: ctypes.CDLL) -> Exchange | None:
    renamex = getattr(libc, "renamex_np", None)
    if renamex is None:
        return None

    def exchange(a: bytes, b: bytes) -> None:
        if renamex(a, b, ctypes.c_uint(_RENAME_SWAP)) != 0:
            _raise_errno(a, b)

    return exchange


def _find_exchange() -> Exchange | None:
    """The platform's atomic exchange of two paths, or None."""
    if sys.platform not in ("linux", "darwin"):
        return None
    libc = _libc()
    if libc is None:
        return None
    return _linux_exchange(libc) if sys.platform == "linux" else _macos_exchange(libc)


_exchange: Exchange | None = _find_exchange()  # None also once a file system refused it


def swap_in(staging: Path, output: Path, steps: Steps) -> Path | None:
    """Make ``staging`` the site at ``output``. Returns the folder that now holds the
    previous site (to delete), None when there was none. Raises OSError with the
    previous site in place."""
    global _exchange
    if not output.is_dir():
        steps("swap")
        os.rename(staging, output)
        return None
    if _exchange is not None:
        steps("swap")
        try:
            _exchange(os.fsencode(staging), os.fsencode(output))
            return staging
        except OSError as exc:
            if exc.errno not in _UNSUPPORTED:
                raise
            _exchange = None  # this file system cannot: two renames from now on
    return _two_renames(staging, output, steps)


def _two_renames(staging: Path, output: Path, steps: Steps) -> Path:
    """Set the site aside, move the staging folder in; put the site back if the second fails."""
    aside = work_path(output, "old")
    lock = lock_folder(output)  # no cleaning build removes it while it is set aside
    try:
        steps("set-aside")
        os.rename(output, aside)
        try:
            steps("swap")
            os.rename(staging, output)
        except OSError:
            os.rename(aside, output)
            raise
    finally:
        unlock_folder(lock)
    return aside


def recover(output: Path, steps: Steps) -> None:
    """After a kill between the two renames: put the set-aside site back in place."""
    if os.path.lexists(output):
        return
    candidates = [path for path in leftovers(output, "old") if is_ours(path)]
    if candidates:
        newest = max(candidates, key=lambda path: path.stat().st_mtime_ns)
        steps("recover")
        os.rename(newest, output)
