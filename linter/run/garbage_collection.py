"""When Python's cyclic garbage collector looks at gpulint's objects.

A run makes two kinds of objects that live until it ends: start-up's (modules, classes, pydantic
schemas, compiled rules, catalogues: hundreds of thousands, and next to no garbage) and each
file's result. Every full collection traverses every object that is not frozen, so with the
collector's defaults a run over 10,000 manifests spent about a fifth of its time collecting
(2.8 s in the parent, about a second in each worker) and a run over one manifest about 55 ms of
its 700. So start-up collects rarely, and what is known to live on is frozen out of the
collector's sight (``gc.freeze``): start-up's objects, results as they are made and received,
and whatever a forked worker inherits (its collections would otherwise traverse that too, and
touch the pages it shares with the parent). Garbage still comes and goes as before, but the
youngest objects are collected every 20,000 allocations rather than every 700: a file's work
leaves almost no cycles behind (refcounting frees the rest), so most of those collections only
traversed the objects the file was still using (10,000 manifests in one process: 2.2 s of
collecting before the cycles went, 1.1 s after, 0.5 s at this threshold, with the same peak).
"""

from __future__ import annotations

import gc

#: The collector's thresholds as gpulint found them (Python's defaults, unless set otherwise).
DEFAULT_THRESHOLD = gc.get_threshold()
#: Allocations between collections while starting up: a few collections, not hundreds. A
#: threshold, not ``gc.disable``: a command that never calls :func:`resume` still collects.
STARTUP_THRESHOLD = 100_000
#: Allocations between collections of the youngest objects once start-up is over.
RUN_THRESHOLD = 20_000
#: A chunk of results for fewer files is frozen without a collection (:func:`results_live_on`).
FEW_FILES = 8


def pause() -> None:
    """Start-up begins: collect rarely until :func:`resume`."""
    gc.set_threshold(STARTUP_THRESHOLD, *DEFAULT_THRESHOLD[1:])


def resume() -> None:
    """Start-up is over: what it made lives on, and collections run at the run's thresholds."""
    gc.freeze()
    gc.set_threshold(*run_threshold())


def run_threshold() -> tuple[int, ...]:
    """Python's thresholds as gpulint found them, the youngest generation's raised to
    RUN_THRESHOLD (0, automatic collection off, stays off)."""
    youngest, *older = DEFAULT_THRESHOLD
    return (max(youngest, RUN_THRESHOLD) if youngest else 0, *older)


def lives_on() -> None:
    """Everything made so far lives until the run ends: the collector need not look at it."""
    gc.freeze()


def results_live_on(files: int) -> None:
    """A chunk of results for ``files`` files is made and lives until the run ends; the garbage
    its making left is collected first. Freezing keeps whatever is tracked, garbage cycles still
    waiting for a collection included, for the rest of the process: a worker linting 5,000
    manifests kept about 12 MiB of them. Everything older is frozen already, so this full
    collection looks at the chunk's objects only, and those of what the chunk's first use
    imported: a chunk of fewer than FEW_FILES files is frozen without it (one manifest left 7
    objects of garbage, and collecting them cost some 5 ms of the run's 250, issue 31)."""
    if files >= FEW_FILES:
        gc.collect()
    lives_on()
