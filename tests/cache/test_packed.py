"""Packed run data (linter/cache/packed.py): what goes in comes out, in order, in a fraction of the
bytes; and the run-wide indices that read it hold nothing per workload they do not need."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import lint

from linter.cache import packed
from linter.cache.packed import CHUNK_ITEMS, PackedList, pack
from linter.facts import pool, spend
from linter.facts.run import RunInputs
from linter.policy.loader import Rulebook
from linter.run.file_result import FileResult, WideParts, pack_wide
from linter.run.wide_parts import WidePart

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _record(number: int) -> dict[str, Any]:
    """A workload's quota record, as alike as workloads of one repository are."""
    return {
        "name": f"svc-{number}",
        "cloud": True,
        "draws": [
            {
                "key": {
                    "provider": "aws",
                    "region": "us-west-2",
                    "code": "L-DB2E81BA",
                    "name": "Running On-Demand G and VT instances",
                    "unit": "vCPU",
                    "capacity": "on-demand",
                    "default": 0.0,
                },
                "needed": 4.0,
            }
        ],
    }


def test_a_packed_list_gives_back_every_item_in_order_as_often_as_read() -> None:
    items = [_record(number) for number in range(2 * CHUNK_ITEMS + 8)]
    packed = PackedList(items)
    assert len(packed) == 136
    assert list(packed) == items
    assert list(packed) == items  # read again: the indices read their records twice
    assert _record(135) in packed and _record(136) not in packed


def test_packing_keeps_a_fraction_of_the_bytes() -> None:
    items = [_record(number) for number in range(CHUNK_ITEMS)]
    (chunk, _), *_ = pack(items)
    assert len(chunk.blob) * 8 < len(pickle.dumps(items, pickle.HIGHEST_PROTOCOL))


def test_pack_says_where_each_item_went() -> None:
    items = [_record(number) for number in range(2 * CHUNK_ITEMS + 2)]
    places = pack(items)
    assert [number for _, number in places] == [*range(64), *range(64), 0, 1]
    assert len({id(chunk) for chunk, _ in places}) == 3
    assert [chunk.items()[number] for chunk, number in places] == items


def _result(number: int) -> FileResult:
    file = f"team/workload-{number}.yaml"
    part = WidePart(file, 0, 0, "Workload", "inference", {"name": f"svc-{number}"}, {})
    wide = WideParts([((file, 0, 0), {"quota": _record(number)})], [part])
    return FileResult(file, False, checked=True, wide=wide)


def test_a_packed_result_unpacks_to_its_own_parts_and_travels_packed() -> None:
    results = [_result(number) for number in range(70)]
    expected = [result.wide_parts() for result in results]
    pack_wide(results)
    assert all(not isinstance(result.wide, WideParts) for result in results)
    assert [result.wide_parts() for result in results] == expected
    travelled = pickle.loads(pickle.dumps(results))  # back from a worker process
    assert [result.wide_parts() for result in travelled] == expected
    assert [result.wide_to_json() for result in travelled] == [r.wide_to_json() for r in results]


def _pool(file: str, name: str, side: str) -> tuple[tuple[str, int, int], dict[str, Any]]:
    profile = "training" if side == "training" else "inference"
    workload = file.removesuffix(".yaml")
    return (file, 0, 0), {"pool": name, "side": side, "name": workload, "profile": profile}


def test_the_pool_index_keeps_only_the_pools_both_sides_use() -> None:
    records = PackedList(
        [
            _pool("a.yaml", "shared", "serving"),
            _pool("b.yaml", "own-b", "serving"),
            _pool("c.yaml", "shared", "training"),
            _pool("d.yaml", "own-d", "training"),
            _pool("e.yaml", "shared", "serving"),
        ]
    )
    index = pool.index(records, RunInputs())
    assert sorted(index) == [("shared", "serving"), ("shared", "training")]
    assert index[("shared", "serving")].count == 2
    assert [c.file for c in index[("shared", "serving")].sample] == ["a.yaml", "e.yaml"]
    fact = pool.fact(records_of(records, "a.yaml"), index)
    assert (fact.conflict_count, fact.conflicts_text) == (1, "c in c.yaml")


def records_of(records: PackedList[Any], file: str) -> dict[str, Any]:
    return next(record for (name, _, _), record in records if name == file)


def test_a_run_of_separate_pools_indexes_nothing() -> None:
    records = PackedList([_pool(f"{n}.yaml", f"pool-{n}", "serving") for n in range(300)])
    assert pool.index(records, RunInputs()) == {}


def test_without_budgets_or_a_base_spend_indexes_nothing() -> None:
    records = PackedList(
        [(("a.yaml", 0, 0), {"at": ["a.yaml", 0, 0], "name": "a", "labels": {}, "monthly": 9.5})]
    )
    costs = spend.index(records, RunInputs())
    assert (costs.pairs, costs.budgets, costs.head) == ({}, {}, {})
    fact = spend.fact({"at": ["a.yaml", 0, 0], "name": "a", "labels": {}, "monthly": 9.5}, costs)
    assert (fact.change, fact.budgets) == (None, [])


def test_a_run_unpacks_each_chunk_a_bounded_number_of_times(
    tmp_path: Path, rulebook: Rulebook
) -> None:
    """Pass 2 reads every file in order and findings point at the same few other files (the
    quota ledger, the first workloads of a pool): each chunk of files is unpacked about twice
    (the indices, then the rules), not once per finding (as it was when related locations
    evicted the chunk being read)."""
    subprocess.run(
        [sys.executable, str(BENCHMARKS / "generate.py"), str(tmp_path), "300"], check=True
    )
    packed._unpacked.cache_clear()
    result = lint([tmp_path], rulebook)
    assert len(result.findings) == 1357  # GL201 no longer warns on production serving
    chunks = -(-301 // CHUNK_ITEMS)  # 300 workloads and the ledger: 5 chunks
    assert packed._unpacked.cache_info().misses <= 2 * chunks
