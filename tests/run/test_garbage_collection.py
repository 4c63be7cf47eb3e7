"""The garbage collector's settings over a run (linter/run/garbage_collection.py): start-up collects rarely,
and once it is over what it made is frozen and collections run at the run's thresholds: Python's,
the youngest generation's raised."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest
from conftest import REPO, run_cli

from linter.run import garbage_collection as collector


def test_start_up_collects_rarely_and_then_at_the_run_thresholds() -> None:
    default = collector.DEFAULT_THRESHOLD
    collector.pause()
    assert gc.get_threshold() == (collector.STARTUP_THRESHOLD, *default[1:])
    made = [[number] for number in range(1000)]  # start-up's objects
    frozen = gc.get_freeze_count()
    collector.resume()
    assert gc.get_threshold() == (collector.RUN_THRESHOLD, *default[1:])
    assert gc.get_freeze_count() >= frozen + len(made)
    assert gc.isenabled()


def test_a_check_leaves_the_run_thresholds_and_start_up_frozen(tmp_path: Path) -> None:
    (tmp_path / "w.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    gc.unfreeze()
    result = run_cli("check", str(tmp_path))
    assert result.code == 0, result.err
    assert gc.get_threshold() == (collector.RUN_THRESHOLD, *collector.DEFAULT_THRESHOLD[1:])
    assert gc.get_freeze_count() > 10_000  # modules, classes, rules: what start-up made


def test_a_command_that_fails_before_start_up_ends_still_collects(tmp_path: Path) -> None:
    result = run_cli("check", "--config", str(tmp_path / "absent.yaml"), str(tmp_path))
    assert result.code == 2
    # start-up never ended, and the collector is not off: it only collects less often
    assert gc.isenabled()
    assert gc.get_threshold()[0] == collector.STARTUP_THRESHOLD


@pytest.mark.parametrize(
    ("found", "run"),
    [
        ((700, 10, 10), (20_000, 10, 10)),
        ((50_000, 5, 5), (50_000, 5, 5)),
        ((0, 10, 10), (0, 10, 10)),
    ],
)
def test_the_run_threshold_raises_only_the_youngest_and_never_turns_collection_on(
    monkeypatch: pytest.MonkeyPatch, found: tuple[int, ...], run: tuple[int, ...]
) -> None:
    monkeypatch.setattr(collector, "DEFAULT_THRESHOLD", found)
    assert collector.run_threshold() == run


class _Cycle:
    """An object that refers to itself: freed only by a collection."""

    def __init__(self) -> None:
        self.me = self


def test_results_live_on_without_the_garbage_their_making_left() -> None:
    gc.unfreeze()
    try:
        kept, garbage = _Cycle(), _Cycle()
        gone = weakref.ref(garbage)
        del garbage
        collector.results_live_on(collector.FEW_FILES)
        assert gone() is None  # collected, not frozen for the rest of the run
        assert gc.get_freeze_count() > 0 and kept.me is kept
        cycle = _Cycle()
        still = weakref.ref(cycle)
        del cycle
        collector.lives_on()  # a freeze alone keeps a cycle that awaited a collection
        gc.collect()
        assert still() is not None
    finally:
        gc.unfreeze()


def test_a_chunk_of_few_files_is_frozen_without_a_collection() -> None:
    gc.unfreeze()
    try:
        cycle = _Cycle()
        kept = weakref.ref(cycle)
        del cycle
        collector.results_live_on(collector.FEW_FILES - 1)
        gc.collect()
        assert kept() is not None and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


#: What a file's work makes and lets go of: each freed as soon as it is let go (reference
#: counting), never left for a collection to find. A composer that held its own bound methods,
#: and the activation sizes a recursive closure held, kept every manifest, fact and parsed
#: document of a run in cycles, 165,000 objects for 1,000 manifests (issue 31).
PER_FILE = {"Composer", "Document", "SourceMap", "Manifest", "Facts", "Workload", "MemoryFact"}


def test_linting_files_leaves_no_cycles_for_the_collector(tmp_path: Path) -> None:
    for name in ("inference-chat.yaml", "finetune-spot.yaml"):
        (tmp_path / name).write_bytes((REPO / "examples" / name).read_bytes())
    kubernetes = REPO / "examples" / "kubernetes" / "vllm-llama-3b.yaml"
    (tmp_path / "deployment.yaml").write_bytes(kubernetes.read_bytes())
    run_cli("check", "--no-cache", str(tmp_path))  # start-up's once-only objects made
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        result = run_cli("check", "--no-cache", "--format", "json", str(tmp_path))
        gc.collect()
        left = {type(found).__name__ for found in gc.garbage} & PER_FILE
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert '"filesChecked":3' in result.out
    assert left == set()
