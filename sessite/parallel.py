"""One way to run work on every core: forked processes that inherit what they work on.

The work is rendering and encoding from big structures already in memory (a
session's model, thousands of planned pages, the search postings). A forked
process sees them copy-on-write, so nothing is pickled to it: it is sent item
numbers and sends back small, picklable results (file names, collected items,
encoded chunks). Where fork is missing, or the work is too small to pay for
processes, the same function runs here, in order.

- ``parallel_map(fn, items, jobs, context=...)``: ``fn(context, item)`` for every
  item, results in item order, on ``jobs`` forked workers fed from a bounded window.
- ``fork_call(fn)``: one function in one forked process, its result picked up later
  (the later half of a big session renders beside the first).
- ``default_jobs()``, ``aggregate_jobs(config)``: how many processes.
"""

from __future__ import annotations

import os
import pickle
import queue
import signal
import struct
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from functools import partial
from multiprocessing import get_all_start_methods, get_context
from multiprocessing.connection import Connection, Pipe, wait
from multiprocessing.reduction import ForkingPickler
from multiprocessing.synchronize import Lock
from typing import Any, Generic, TypeVar

Item = TypeVar("Item")
Context = TypeVar("Context")
Result = TypeVar("Result")

_DONE, _FAILED, _LOST = 0, 1, 2  # how an item came back from a worker


def can_fork() -> bool:
    return hasattr(os, "fork") and "fork" in get_all_start_methods()


def default_jobs() -> int:
    """Processes a build renders its sources with: one per core, at most 8."""
    return max(1, min(os.cpu_count() or 1, 8))


def aggregate_jobs(config: Any, cap: int = 4) -> int:
    """Processes a site-wide output may fork for its own work (search chunks, ref pages):
    the build's ``jobs``, else one per core, at most ``cap``."""
    return max(1, min(getattr(config, "jobs", 0) or os.cpu_count() or 1, cap))


def _fork(body: Callable[[], object], inherited: Sequence[Connection | int] = ()) -> int:
    """Fork; the child closes ``inherited`` (this process's ends of other pipes), runs
    ``body`` and leaves with ``os._exit``: it never returns into the caller's frames, so
    no ``finally`` or exit handler of the parent runs twice. The child also leaves as
    soon as its parent is gone (``_exit_with``). Raises OSError."""
    parent = os.getpid()
    pid = os.fork()
    if pid:
        return pid
    status = 1
    try:
        _exit_with(parent)
        for end in inherited:
            if isinstance(end, int):
                os.close(end)
            else:
                end.close()
        body()
        status = 0
    finally:
        os._exit(status)


ORPHAN_CHECK_SECONDS = 0.2  # how often a forked child looks whether its parent is still there


def _exit_with(parent: int) -> None:
    """In a forked child: end this process as soon as ``parent`` has gone (killed, say),
    so no worker goes on rendering into a spool folder nobody will publish. A thread
    polls the parent's id, which changes when the child is re-parented: fork has no
    portable parent-death signal, and Linux's PR_SET_PDEATHSIG follows the thread that
    forked, not the process (the preview server builds on a watcher thread)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(ORPHAN_CHECK_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="sessite-orphan-watch", daemon=True).start()


# ---------------------------------------------------------------- one call


class Forked(Generic[Result]):
    """A function running in a forked process; ``result()`` collects what it returned."""

    def __init__(self, pid: int, conn: Connection) -> None:
        self.pid = pid
        self.conn = conn

    def result(self) -> Result | None:
        """What the function returned, or None when its process failed (the work must be done again)."""
        try:
            value = self.conn.recv()  # before waiting: a result bigger than the pipe's buffer waits for this read
        except Exception:  # noqa: BLE001 - it died before sending, or sent something cut or unreadable
            value = None
        finally:
            self.conn.close()
        _, status = os.waitpid(self.pid, 0)
        return value if status == 0 else None

    def cancel(self) -> None:
        """Stop it and reap it: its result is not wanted (the caller is failing)."""
        with suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)
        self.conn.close()
        with suppress(OSError):
            os.waitpid(self.pid, 0)


def fork_call(fn: Callable[[], Result]) -> Forked[Result] | None:
    """Start ``fn()`` in a forked process, which shares this one's memory copy-on-write
    (nothing is pickled to it); None where fork is missing or fails. ``fn`` must
    return something picklable, and not None (None means it failed)."""
    if not can_fork():
        return None
    try:
        reader, writer = Pipe(duplex=False)
    except OSError:
        return None
    try:
        pid = _fork(lambda: writer.send(fn()), inherited=[reader])
    except OSError:
        reader.close()
        writer.close()
        return None
    writer.close()
    return Forked(pid, reader)


# ---------------------------------------------------------------- many items


def parallel_map(
    fn: Callable[[Context, Item], Result],
    items: Sequence[Item],
    jobs: int,
    *,
    context: Context,
    window: int | None = None,
) -> Iterator[Result]:
    """``fn(context, item)`` for every item, results in item order.

    With ``jobs`` > 1, at least two items and fork available, ``jobs`` forked
    workers (started now, before this returns) inherit ``fn``, ``context`` and
    ``items`` and take item numbers from one queue, so a free worker always takes
    the next item; at most ``window`` items (default: all) run ahead of the result
    the caller takes next, so a slow item at the head keeps the other workers busy
    without piling up results. An exception raised by ``fn`` in a worker is raised
    here, at its item. When a worker dies, the items not back yet are computed here.
    Otherwise everything runs here, lazily, in order.
    """
    if jobs < 2 or len(items) < 2 or not can_fork():
        return _here(fn, context, items)
    try:
        return _Pool(fn, context, items, min(jobs, len(items)), window or len(items))
    except OSError:  # no pipes or semaphores left before any worker started: here, then
        return _here(fn, context, items)


def _here(fn: Callable[[Context, Item], Result], context: Context, items: Sequence[Item]) -> Iterator[Result]:
    for item in items:
        yield fn(context, item)


_HEAD = struct.Struct("<qB")  # a result's item number and status, before its pickled value


def _serve(
    fn: Callable[[Context, Item], Result],
    context: Context,
    items: Sequence[Item],
    queue_lock: Lock,
    tasks: Connection,
    results: Connection,
) -> None:
    """A worker's loop: take the next item number from the shared queue, send back
    its head and pickled value (or exception), until the queue is closed."""
    while True:
        try:
            with queue_lock:  # one reader at a time: each number goes to exactly one worker
                index = tasks.recv()
        except EOFError:
            return
        try:
            status, value = _DONE, _pickled(fn(context, items[index]))
        except Exception as exc:  # noqa: BLE001 - raised again in the caller, at this item
            status, value = _FAILED, _pickled(exc)
        results.send_bytes(_HEAD.pack(index, status) + value)


def _pickled(value: object) -> bytes:
    try:
        return ForkingPickler.dumps(value, pickle.HIGHEST_PROTOCOL).tobytes()
    except Exception as exc:  # noqa: BLE001 - a value or exception that cannot be pickled
        return ForkingPickler.dumps(RuntimeError(f"{type(exc).__name__}: {exc}")).tobytes()


class _Feeder:
    """The workers and the thread that keeps their queue filled: at most ``depth`` items
    out at once and at most ``window`` ahead of the result the caller takes next. It
    hands each result to the caller's inbox, ``None`` last; it stops at the first
    worker that dies (the caller then computes what did not come back)."""

    def __init__(self, serve: Callable[..., None], jobs: int, count: int, window: int) -> None:
        self.count = count
        self.window = window
        self.depth = 2 * jobs  # one running and one waiting per worker
        self.taken = 0  # results the caller has taken (written by the caller's thread)
        self.sent = 0  # item numbers put in the queue
        self.received = 0  # results back
        self.inbox: queue.SimpleQueue[tuple[int, int, memoryview] | None] = queue.SimpleQueue()
        self.closing = False
        queue_lock = get_context("fork").Lock()
        task_read, self.tasks = Pipe(duplex=False)
        self.wake_read, self.wake_write = os.pipe()  # the caller's "look again" to the feeder thread
        os.set_blocking(self.wake_write, False)
        self.pids: list[int] = []
        self.results: list[Connection] = []
        for _ in range(jobs):
            if not self._start_worker(partial(serve, queue_lock, task_read)):
                break  # no more pipes or processes: the ones started do the work (or the caller does)
        task_read.close()
        self.thread = threading.Thread(target=self.run, name="sessite-parallel-map", daemon=True)
        self.thread.start()

    def _start_worker(self, serve: Callable[[Connection], None]) -> bool:
        try:
            result_read, result_write = Pipe(duplex=False)
        except OSError:
            return False
        inherited: list[Connection | int] = [self.tasks, self.wake_read, self.wake_write, result_read, *self.results]
        try:
            self.pids.append(_fork(partial(serve, result_write), inherited))
        except OSError:
            result_read.close()
            return False
        finally:
            result_write.close()
        self.results.append(result_read)
        return True

    def wake(self) -> None:
        with suppress(BlockingIOError):  # earlier wake-ups not read yet: it will look anyway
            os.write(self.wake_write, b"!")

    def stop(self) -> None:
        """Stop the thread, then the workers: idle ones leave when the queue closes, busy ones are killed."""
        self.closing = True
        self.wake()
        self.thread.join()
        self.tasks.close()
        for conn in self.results:
            conn.close()
        for pid in self.pids:
            if self.received < self.sent:  # some work nobody will take is still running
                with suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        self.pids = []
        os.close(self.wake_read)
        os.close(self.wake_write)

    def run(self) -> None:
        try:
            while not self.closing and self._step():
                pass
        except Exception:  # noqa: BLE001 - whatever did not come back is computed by the caller
            pass
        finally:
            self.inbox.put(None)

    def _step(self) -> bool:
        """Fill the queue, wait for a result or a wake-up; False when nothing more will come back."""
        if not self.results or self.received >= self.count:
            return False
        limit = min(self.count, self.taken + self.window, self.received + self.depth)
        while self.sent < limit:
            self.tasks.send(self.sent)
            self.sent += 1
        waiting = self.results if self.received < self.sent else []
        ready = wait([*waiting, self.wake_read])
        if self.wake_read in ready:
            os.read(self.wake_read, 4096)
        for conn in waiting:
            if conn in ready:
                try:
                    data = conn.recv_bytes()
                except (EOFError, OSError):  # a worker died: the caller computes what is missing
                    return False
                index, status = _HEAD.unpack_from(data)
                self.inbox.put((index, status, memoryview(data)[_HEAD.size :]))
                self.received += 1
        return True


class _Pool(Iterator[Result]):
    """The forked side of ``parallel_map``, as the caller sees it: results in item order.
    Dropping it (or ``close()``) stops the workers; the feeder thread holds no reference
    to it, so an abandoned pool is collected and closed."""

    def __init__(
        self,
        fn: Callable[[Context, Item], Result],
        context: Context,
        items: Sequence[Item],
        jobs: int,
        window: int,
    ) -> None:
        self._call: Callable[[int], Result] = lambda index: fn(context, items[index])
        self._count = len(items)
        self._ready: dict[int, tuple[int, memoryview]] = {}
        self._fed = False  # the feeder has finished: what is not in _ready is computed here
        self._feeder: _Feeder | None = _Feeder(partial(_serve, fn, context, items), jobs, len(items), window)

    def __next__(self) -> Result:
        feeder = self._feeder
        if feeder is None or feeder.taken >= self._count:
            self.close()
            raise StopIteration
        index = feeder.taken
        status, data = self._wait_for(index, feeder)
        feeder.taken = index + 1
        if feeder.taken == self._count:
            self.close()  # every result is in: let the workers go now
        else:
            feeder.wake()
        if status == _LOST:
            return self._call(index)  # its worker died: compute it here
        value = pickle.loads(data)
        if status == _FAILED:
            try:
                raise value
            finally:
                del value  # the exception's traceback holds this frame: no cycle keeping the pool alive
        return value  # a worker's Result, unpickled

    def _wait_for(self, index: int, feeder: _Feeder) -> tuple[int, memoryview]:
        """How item ``index`` came back; lost when the feeder ended without it."""
        while index not in self._ready and not self._fed:
            message = feeder.inbox.get()
            if message is None:
                self._fed = True
            else:
                self._ready[message[0]] = message[1:]
        return self._ready.pop(index, (_LOST, memoryview(b"")))

    def close(self) -> None:
        """Stop the workers; results not taken yet are dropped."""
        feeder, self._feeder = self._feeder, None
        if feeder is not None:
            feeder.stop()

    def __del__(self) -> None:
        self.close()
