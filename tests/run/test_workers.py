"""gpulint's own fork pool: results in order, every slice run once, failures raised with what
happened, and no worker left behind."""

from __future__ import annotations

import os
import signal

import pytest

from linter.run import workers
from linter.run.workers import PARALLEL_THRESHOLD, WorkerFailed, fork_map

pytestmark = pytest.mark.skipif(not workers.can_fork(), reason="workers are forked on Linux only")


def _no_children_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_results_come_back_in_slice_order_whichever_worker_ran_them() -> None:
    total = 1000
    parts = fork_map(lambda start, stop: (os.getpid(), list(range(start, stop))), total, 2)
    assert parts is not None
    assert [item for _, items in parts for item in items] == list(range(total))
    assert len(parts) == len(workers.work_slices(total, 2))
    assert {pid for pid, _ in parts} - {os.getpid()} == {pid for pid, _ in parts}
    assert len({pid for pid, _ in parts}) == 2
    assert _no_children_left()


def test_a_worker_that_finishes_early_takes_the_next_slice() -> None:
    """The first slice is slow; the other worker takes every slice after it."""
    import time

    def task(start: int, stop: int) -> int:
        if start == 0:
            time.sleep(0.5)  # not a timing assertion: only which worker took what
        return os.getpid()

    pids = fork_map(task, 1000, 2)
    assert pids is not None
    assert len(set(pids[1:])) == 1
    assert pids[0] != pids[1]


def test_small_runs_and_one_job_run_in_process() -> None:
    assert fork_map(lambda start, stop: stop, PARALLEL_THRESHOLD - 1, 2) is None
    assert fork_map(lambda start, stop: stop, 1000, 1) is None


def test_a_task_that_raises_is_raised_in_the_parent_with_the_workers_traceback() -> None:
    def task(start: int, stop: int) -> int:
        if start > 0:
            raise ValueError(f"slice from {start}")
        return stop

    with pytest.raises(WorkerFailed, match="ValueError: slice from") as raised:
        fork_map(task, 1000, 2)
    assert isinstance(raised.value.__cause__, ValueError)
    assert "in task" in str(raised.value)  # the worker's traceback, as text
    assert _no_children_left()


def test_an_exception_that_does_not_pickle_is_reported_as_text() -> None:
    class Unpicklable(Exception):
        def __reduce__(self) -> str | tuple[object, ...]:
            raise TypeError("no")

    def task(start: int, stop: int) -> int:
        raise Unpicklable("local class")

    with pytest.raises(WorkerFailed, match="Unpicklable: local class") as raised:
        fork_map(task, 1000, 2)
    assert raised.value.__cause__ is None
    assert _no_children_left()


def test_a_worker_that_dies_fails_the_run_and_the_others_are_stopped() -> None:
    def task(start: int, stop: int) -> int:
        if start > 0:
            os.kill(os.getpid(), signal.SIGKILL)
        return stop

    with pytest.raises(
        WorkerFailed, match=r"ended before its work was done \(killed by signal 9\)"
    ):
        fork_map(task, 1000, 2)
    assert _no_children_left()


def test_a_worker_that_exits_mid_slice_fails_the_run() -> None:
    def task(start: int, stop: int) -> int:
        os._exit(3)

    with pytest.raises(WorkerFailed, match=r"exit status 3"):
        fork_map(task, 1000, 2)
    assert _no_children_left()


def test_large_results_travel_whole() -> None:
    """A slice's outcome larger than a pipe holds (64 KiB) and than one read (1 MiB)."""
    parts = fork_map(lambda start, stop: bytes([start % 251]) * 3_000_000, 400, 2)
    assert parts is not None
    cut = workers.work_slices(400, 2)
    assert len(parts) == len(cut)
    for part, (start, _) in zip(parts, cut, strict=True):
        assert part == bytes([start % 251]) * 3_000_000


def test_a_fork_that_fails_runs_the_work_in_process_and_leaves_no_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A limit on processes (EAGAIN from fork) after one worker started: that one is stopped
    and the caller is told to run the work itself; no pipe is left open."""
    real_fork, forks = os.fork, []

    def fork() -> int:
        if forks:
            raise BlockingIOError(11, "Resource temporarily unavailable")
        forks.append(1)
        return real_fork()

    open_before = len(os.listdir("/proc/self/fd"))
    monkeypatch.setattr(os, "fork", fork)
    assert fork_map(lambda start, stop: stop, 1000, 2) is None
    assert forks == [1]
    assert _no_children_left()
    assert len(os.listdir("/proc/self/fd")) == open_before
