"""The preview's temporary site: made in the system's temporary folder, removed however the
preview ends. Ctrl-C, SIGTERM (a service manager, ``kill``) and SIGHUP (the terminal closed) all
stop it the same way, through ``KeyboardInterrupt``, so the caller's ``finally`` removes the
folder. A preview killed outright (SIGKILL, a crash) cannot clean up: its folder names its
process, and the next preview removes the folders whose process is gone. The site holds the
sessions' text, so it should not outlive the preview.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

PREFIX = "sessite-preview-"
PID_FILE = "preview.pid"  # the process that owns the folder


def make_temporary() -> Path:
    """A new temporary folder for a preview, marked with this process's id."""
    folder = Path(tempfile.mkdtemp(prefix=PREFIX))
    (folder / PID_FILE).write_text(str(os.getpid()), "ascii")
    return folder


def remove_leftovers() -> list[Path]:
    """Remove the temporary folders of previews whose process is gone; what was removed."""
    removed = []
    for folder in Path(tempfile.gettempdir()).glob(PREFIX + "*"):
        pid = _owner(folder)
        if pid is None or pid == os.getpid() or _alive(pid):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def _owner(folder: Path) -> int | None:
    """The process id a preview folder of this user names, or None (not ours, not marked, unreadable)."""
    try:
        if folder.is_symlink() or not folder.is_dir() or folder.stat().st_uid != os.getuid():
            return None
        text = (folder / PID_FILE).read_text("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() and int(text) > 0 else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, but is another user's
        return True
    return True


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Within: SIGTERM and SIGHUP stop the preview as Ctrl-C does (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    signals = [s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None]
    previous = {s: signal.signal(s, _interrupt) for s in signals}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
