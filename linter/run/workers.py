"""Spread work over forked worker processes, for large runs.

Workers are forked so they inherit everything already loaded (compiled rules, parsed manifests,
catalogues, run-wide indices) instead of receiving it pickled; only each slice's results travel
back. Where ``fork`` is unavailable (anything but Linux: macOS, where it is unsafe, and Windows)
or the work is small, callers run it in-process instead.

The pool is gpulint's own, a pair of pipes a worker, rather than ``concurrent.futures``: over
its two passes a run over 1,000 Kubernetes Deployments waited some 33 ms on that machinery with
a CPU idle (importing multiprocessing, concurrent.futures and what they import, ~12 ms; starting
its queues and threads; shutting it down), 12 ms with this pool, from a pass's call to its
first slice begun and from its last slice done to the pass's end (``benchmarks/timeline.py``'s
events, medians of 8 runs; issue 31). The parent hands out slices one at a time as workers
finish them, so a worker slowed by a busy machine takes fewer.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import sys
import traceback
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

#: A slice handed to a worker: its start and stop, each in this many bytes, big-endian.
_BOUND_BYTES = 8
#: The length of a worker's message (its pickled outcome) before the message, as above.
_LENGTH_BYTES = 8
#: How much of a worker's message the parent reads at a time.
_READ_BYTES = 1 << 20


class WorkerFailed(RuntimeError):
    """A worker process died, or its task raised; the message says which, and how."""


def available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def can_fork() -> bool:
    return sys.platform.startswith("linux") and hasattr(os, "fork")


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
    """One slice of the current task (a name of its own: ``benchmarks/timeline.py`` times it)."""
    assert _TASK is not None
    return _TASK(*bounds)


def fork_map(task: Task[T], total: int, jobs: int) -> Sequence[T] | None:
    """``task(start, stop)`` for slices of ``range(total)`` in ``jobs`` forked workers, results in
    order; None when it should run in-process instead (one job, too few items, no fork, or a
    fork or pipe refused by the system's limits).
    What the workers inherit and the results they send back live on
    (linter/run/garbage_collection.py). :class:`WorkerFailed` if a worker dies or its task
    raises."""
    global _TASK
    if jobs <= 1 or total < PARALLEL_THRESHOLD or not can_fork():
        return None
    _TASK = task
    try:
        garbage_collection.lives_on()  # what every worker inherits
        try:
            pool = _Pool(work_slices(total, jobs), jobs)
        except OSError:  # no process or pipe to spare (a limit on either): run in-process
            return None
        return pool.results()  # type: ignore[return-value]
    finally:
        _TASK = None


class _Worker:
    """The parent's side of one worker: its pid, the pipe it is given slices on, the pipe its
    outcomes come back on, and what it is doing."""

    def __init__(self, pid: int, slices_to: int, outcomes_from: int) -> None:
        self.pid = pid
        self.slices_to: int | None = slices_to
        self.outcomes_from = outcomes_from
        self.slice: int | None = None  # the index of the slice it is working on
        self.received = bytearray()

    def give(self, index: int | None, bounds: Sequence[tuple[int, int]]) -> None:
        """Hand it slice ``index``, or, with None, tell it there is no more (it then exits)."""
        assert self.slices_to is not None
        self.slice = index
        if index is None:
            os.close(self.slices_to)
            self.slices_to = None
            return
        start, stop = bounds[index]
        _write_all(
            self.slices_to,
            start.to_bytes(_BOUND_BYTES, "big") + stop.to_bytes(_BOUND_BYTES, "big"),
        )

    def message(self) -> bytes | None:
        """A whole message, once all its bytes have come (taken out of what was received)."""
        if len(self.received) < _LENGTH_BYTES:
            return None
        end = _LENGTH_BYTES + int.from_bytes(self.received[:_LENGTH_BYTES], "big")
        if len(self.received) < end:
            return None
        with memoryview(self.received) as received:  # one copy of a message of megabytes
            message = received[_LENGTH_BYTES:end].tobytes()
        del self.received[:end]
        return message


class _Pool:
    """Forked workers that take ``bounds`` one slice at a time, and their outcomes in order."""

    def __init__(self, bounds: Sequence[tuple[int, int]], jobs: int) -> None:
        self.bounds = bounds
        self.workers: list[_Worker] = []
        self.next_slice = 0
        try:
            for _ in range(min(jobs, len(bounds))):
                self.workers.append(self._fork())
        except OSError:  # the workers forked so far are stopped
            self._stop()
            raise

    def _fork(self) -> _Worker:
        fds: list[int] = []
        try:
            fds.extend(os.pipe())
            fds.extend(os.pipe())
            pid = os.fork()
        except OSError:
            for fd in fds:
                os.close(fd)
            raise
        slices_from, slices_to, outcomes_from, outcomes_to = fds
        if pid == 0:  # pragma: no cover - the worker never returns (coverage is the parent's)
            os.close(slices_to)
            os.close(outcomes_from)
            for worker in self.workers:  # the other workers' pipes, inherited from the parent
                for inherited in (worker.slices_to, worker.outcomes_from):
                    if inherited is not None:
                        os.close(inherited)
            _serve(slices_from, outcomes_to)
        os.close(slices_from)
        os.close(outcomes_to)
        return _Worker(pid, slices_to, outcomes_from)

    def results(self) -> list[object]:
        outcomes: list[object] = [None] * len(self.bounds)
        try:
            for worker in self.workers:
                self._give_next(worker)
            busy = {worker.outcomes_from: worker for worker in self.workers}
            poller = select.poll()
            for fd in busy:
                poller.register(fd, select.POLLIN)
            while busy:
                for fd, _ in poller.poll():
                    worker = busy[fd]
                    chunk = os.read(fd, _READ_BYTES)
                    if not chunk:  # it exited, or died
                        poller.unregister(fd)
                        del busy[fd]
                        self._ended(worker)
                        continue
                    worker.received += chunk
                    message = worker.message()
                    while message is not None:
                        assert worker.slice is not None
                        outcomes[worker.slice] = _outcome(message)
                        garbage_collection.lives_on()  # what came back lives on
                        self._give_next(worker)
                        message = worker.message()
        finally:
            self._stop()
        return outcomes

    def _give_next(self, worker: _Worker) -> None:
        if self.next_slice < len(self.bounds):
            worker.give(self.next_slice, self.bounds)
            self.next_slice += 1
        elif worker.slices_to is not None:
            worker.give(None, self.bounds)

    def _ended(self, worker: _Worker) -> None:
        """Its outcomes pipe closed: fine once it was told there is no more work."""
        os.close(worker.outcomes_from)
        _, status = os.waitpid(worker.pid, 0)
        worker.pid = 0
        if worker.slice is not None or worker.received:
            raise WorkerFailed(f"a worker process ended before its work was done ({_how(status)})")

    def _stop(self) -> None:
        """Every worker still running (after a failure elsewhere) is stopped and waited for."""
        for worker in self.workers:
            if worker.slices_to is not None:
                os.close(worker.slices_to)
                worker.slices_to = None
            if worker.pid:
                with contextlib.suppress(ProcessLookupError):  # it has just exited
                    os.kill(worker.pid, signal.SIGKILL)
                os.waitpid(worker.pid, 0)
                os.close(worker.outcomes_from)
                worker.pid = 0


def _serve(slices_from: int, outcomes_to: int) -> None:  # pragma: no cover - runs in a worker
    """A worker's life: each slice it is given, its outcome sent back; then it exits, without
    running the parent's exit handlers or flushing buffers it inherited from the parent."""
    status = 0
    try:
        while True:
            bounds = _read_exactly(slices_from, 2 * _BOUND_BYTES)
            if bounds is None:
                break
            start = int.from_bytes(bounds[:_BOUND_BYTES], "big")
            stop = int.from_bytes(bounds[_BOUND_BYTES:], "big")
            try:
                message = pickle.dumps((True, _run((start, stop))), pickle.HIGHEST_PROTOCOL)
            except BaseException as error:  # sent to the parent, which raises it
                message = _failure(error)
            _write_all(outcomes_to, len(message).to_bytes(_LENGTH_BYTES, "big"))
            _write_all(outcomes_to, message)  # not joined to its length: a copy of megabytes
    except BaseException:
        status = 1
    finally:
        os._exit(status)


def _failure(error: BaseException) -> bytes:
    """What a task's exception is sent back as: the exception where it pickles, with the
    worker's traceback as text."""
    where = "".join(traceback.format_exception(error))
    try:
        return pickle.dumps((False, (error, where)), pickle.HIGHEST_PROTOCOL)
    except Exception:
        return pickle.dumps((False, (None, where)), pickle.HIGHEST_PROTOCOL)


def _outcome(message: bytes) -> object:
    succeeded, value = pickle.loads(message)  # from a worker this process forked
    if succeeded:
        return value
    error, where = value
    failed = WorkerFailed(f"a worker's task failed:\n{where}")
    if isinstance(error, BaseException):
        raise failed from error
    raise failed


def _how(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


def _read_exactly(fd: int, size: int) -> bytes | None:  # pragma: no cover - runs in a worker
    """``size`` bytes from ``fd``; None at its end."""
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
