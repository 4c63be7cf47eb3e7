"""How work is cut for workers: four slices a worker, none above SLICE_ITEMS items."""

from __future__ import annotations

import pytest

from linter.run.workers import SLICE_ITEMS, work_slices


def _covers(cut: list[tuple[int, int]], total: int) -> bool:
    return [start for start, _ in cut] == [0, *(stop for _, stop in cut[:-1])] and (
        cut[-1][1] == total
    )


def test_four_slices_a_worker_below_the_bound() -> None:
    assert work_slices(1000, 2) == [(n * 125, n * 125 + 125) for n in range(8)]


@pytest.mark.parametrize("total", [20_000, 20_001, 4 * 2 * SLICE_ITEMS + 1, 123_457])
def test_large_runs_are_cut_in_slices_of_at_most_the_bound(total: int) -> None:
    cut = work_slices(total, 2)
    assert _covers(cut, total)
    assert max(stop - start for start, stop in cut) <= SLICE_ITEMS
    assert len(cut) == max(8, -(-total // SLICE_ITEMS))
