"""sessite.parallel: the one way the build runs work on every core."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sessite.parallel import can_fork, fork_call, parallel_map

PARENT = os.getpid()

pytestmark = pytest.mark.skipif(not can_fork() or not Path("/proc/self/task").is_dir(), reason="needs fork and /proc")


def _square(context: dict[str, int], item: int) -> tuple[int, int]:
    """(the process that computed it, item squared plus the inherited offset)."""
    if item == context.get("die_at") and os.getpid() != PARENT:
        os._exit(3)
    if item == context.get("raise_at"):
        raise ValueError(f"item {item}")
    return os.getpid(), item * item + context["offset"]


def _child_pids() -> set[int]:
    """This process's live children (Linux /proc); other tests' children (a browser) are among them."""
    pids: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").glob("*/children"):
        pids.update(int(pid) for pid in task.read_text().split())
    return pids


BEFORE: set[int] = set()


@pytest.fixture(autouse=True)
def _children_before() -> None:
    BEFORE.clear()
    BEFORE.update(_child_pids())


def _children() -> bool:
    """Whether a child started by this test is still alive (or not yet reaped)."""
    return bool(_child_pids() - BEFORE)


def test_results_come_in_item_order_from_forked_workers_that_inherit_the_context():
    context = {"offset": 7}  # the workers inherit it: nothing is pickled to them
    results = list(parallel_map(_square, range(60), 3, context=context, window=4))
    assert [value for _, value in results] == [n * n + 7 for n in range(60)]
    assert PARENT not in {pid for pid, _ in results} and len({pid for pid, _ in results}) > 1
    assert not _children(), "the workers are gone once the last result is taken"


def test_small_jobs_run_here_in_order():
    results = list(parallel_map(_square, range(5), 1, context={"offset": 0}))
    assert results == [(PARENT, n * n) for n in range(5)]
    assert list(parallel_map(_square, [3], 4, context={"offset": 0})) == [(PARENT, 9)]


def test_an_exception_in_a_worker_is_raised_at_its_item():
    results = parallel_map(_square, range(20), 2, context={"offset": 0, "raise_at": 5})
    assert [value for _, value in (next(results) for _ in range(5))] == [0, 1, 4, 9, 16]
    with pytest.raises(ValueError, match="item 5"):
        next(results)
    del results
    assert not _children()


def test_items_of_a_dead_worker_are_computed_here():
    results = list(parallel_map(_square, range(20), 2, context={"offset": 0, "die_at": 7}))
    assert [value for _, value in results] == [n * n for n in range(20)]
    assert results[7][0] == PARENT
    assert not _children()


def test_an_abandoned_map_stops_its_workers():
    results = parallel_map(_square, range(1000), 2, context={"offset": 0}, window=3)
    next(results)
    del results
    assert not _children()


def test_fork_call_returns_the_result_or_none_when_the_child_fails():
    big = fork_call(lambda: (os.getpid(), b"x" * 5_000_000))  # bigger than a pipe's buffer
    assert big is not None
    result = big.result()
    assert result is not None and result[0] != PARENT and len(result[1]) == 5_000_000
    failed = fork_call(lambda: os._exit(1))
    assert failed is not None and failed.result() is None
    assert not _children()
