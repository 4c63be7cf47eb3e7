"""Spread work over forked worker processes, for large runs.

Workers are forked so they inherit everything already loaded (compiled rules, parsed manifests,
catalogues, run-wide indices) instead of receiving it pickled; only each slice's results travel
back. Where ``fork`` is unavailable (Windows, or macOS where it is unsafe) or the work is small,
callers run it in-process instead. multiprocessing and concurrent.futures are imported only when
workers are started: a run of a few files never needs them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

from linter.run import garbage_collection

T = TypeVar("T")
Task = Callable[[int, int], T]

# The task of the current fork_map call. Module state, because a forked worker can only reach
# what existed before the fork; it is set and cleared around each call.
_TASK: Task[object] | None = None


# Below this many items (files, in either pass) starting workers costs more than it saves.
PARALLEL_THRESHOLD = 200
# At most this many items a slice: a worker holds a slice's results until it is done, and the
# parent its pickled bytes and results together as it takes them in (a run over 20,000 files
# in four slices a worker held 2,500 files' results at once).
SLICE_ITEMS = 500


def available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def can_fork() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def slices(total: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` contiguous, near-equal (start, stop) ranges covering ``range(total)``."""
    size, extra = divmod(total, parts)
    out, start = [], 0
    for index in range(parts):
        stop = start + size + (1 if index < extra else 0)
        if stop > start:
            out.append((start, stop))
        start = stop
    return out


def work_slices(total: int, jobs: int) -> list[tuple[int, int]]:
    """The slices ``jobs`` workers take in turn: four a worker (one that finishes early takes
    another), more where those would pass SLICE_ITEMS items."""
    return slices(total, max(jobs * 4, -(-total // SLICE_ITEMS)))


def _run(bounds: tuple[int, int]) -> object:
    assert _TASK is not None
    return _TASK(*bounds)


def fork_map(task: Task[T], total: int, jobs: int) -> Sequence[T] | None:
    """``task(start, stop)`` for slices of ``range(total)`` in ``jobs`` forked workers, results in
    order; None when it should run in-process instead (one job, too few items, or no fork).
    What the workers inherit and the results they send back live on
    (linter/run/garbage_collection.py)."""
    global _TASK
    if jobs <= 1 or total < PARALLEL_THRESHOLD or not can_fork():
        return None
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    _TASK = task
    try:
        context = multiprocessing.get_context("fork")
        garbage_collection.lives_on()  # what every worker inherits
        results: list[T] = []
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            for part in pool.map(_run, work_slices(total, jobs)):
                results.append(part)  # type: ignore[arg-type]  # _run returns the task's T
                garbage_collection.lives_on()
        return results
    finally:
        _TASK = None
