"""When Python's cyclic garbage collector looks at gpulint's objects.

A run makes two kinds of objects that live until it ends: start-up's (modules, classes, pydantic
schemas, compiled rules, catalogues: hundreds of thousands, and next to no garbage) and each
file's result. Every full collection traverses every object that is not frozen, so with the
collector's defaults a run over 10,000 manifests spent about a fifth of its time collecting
(2.8 s in the parent, about a second in each worker) and a run over one manifest about 55 ms of
its 700. So start-up collects rarely, and what is known to live on is frozen out of the
collector's sight (``gc.freeze``): start-up's objects, results as they are made and received,
and whatever a forked worker inherits (its collections would otherwise traverse that too, and
touch the pages it shares with the parent). Garbage still comes and goes as before: only
collections of young objects run, as often as Python's defaults have them.
"""

from __future__ import annotations

import gc

#: The collector's thresholds as gpulint found them (Python's defaults, unless set otherwise).
DEFAULT_THRESHOLD = gc.get_threshold()
#: Allocations between collections while starting up: a few collections, not hundreds. A
#: threshold, not ``gc.disable``: a command that never calls :func:`resume` still collects.
STARTUP_THRESHOLD = 100_000


def pause() -> None:
    """Start-up begins: collect rarely until :func:`resume`."""
    gc.set_threshold(STARTUP_THRESHOLD, *DEFAULT_THRESHOLD[1:])


def resume() -> None:
    """Start-up is over: what it made lives on, and collections run as by default."""
    gc.freeze()
    gc.set_threshold(*DEFAULT_THRESHOLD)


def lives_on() -> None:
    """Everything made so far lives until the run ends: the collector need not look at it."""
    gc.freeze()


def results_live_on() -> None:
    """A chunk of results is made and lives until the run ends; the garbage its making left is
    collected first. Freezing keeps whatever is tracked, garbage cycles still waiting for a
    collection included, for the rest of the process: a worker linting 5,000 manifests kept
    about 12 MiB of them. Everything older is frozen already, so this full collection looks at
    the chunk's objects only."""
    gc.collect()
    lives_on()
