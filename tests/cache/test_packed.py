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


def test_a_packed_list_takes_chunks_packed_elsewhere_in_order() -> None:
    items = [_record(number) for number in range(CHUNK_ITEMS + 30)]
    packed = PackedList(items[:3])
    ((chunk, _), *_) = pack(items[3:40])
    packed.extend_packed(chunk, 37)
    for item in items[40:]:
        packed.append(item)
    assert len(packed) == len(items)
    assert list(packed) == items


def _index_records(results: list[FileResult]) -> dict[str, list[Any]]:
    from linter.facts.run import RunIndex, RunSide
    from linter.run.second_pass import _add_records

    unused = RunSide(lambda manifest, facts: None, lambda records, inputs: None, lambda r, i: None)
    run = RunIndex({"quota": unused, "pool": unused})
    _add_records(run, results)
    return {name: list(records) for name, records in run._records.items()}


def _two_providers(number: int) -> FileResult:
    result = _result(number)
    target, records = result.wide_parts().records[0]
    file = target[0]
    second = ((file, 1, 0), {"quota": None, "pool": _pool(file, "shared", "serving")[1]})
    result.wide = WideParts([(target, records), second], result.wide_parts().deferred)
    return result


def test_consecutive_results_give_the_index_their_records_packed_by_provider() -> None:
    """The run's index takes a chunk's records as the chunk packed them, in the same order as
    file by file; a chunk whose files do not come one after another in the run (a result
    restored from the cache between them) is read file by file."""
    expected = _index_records([_two_providers(number) for number in range(150)])
    assert [len(records) for records in expected.values()] == [150, 150]
    consecutive = [_two_providers(number) for number in range(150)]
    pack_wide(consecutive, consecutive=True)
    assert {id(result.wide[0]) for result in consecutive} == {  # type: ignore[index]
        id(consecutive[n].wide[0])
        for n in (0, 64, 128)  # type: ignore[index]
    }
    assert _index_records(consecutive) == expected
    travelled = pickle.loads(pickle.dumps(consecutive))  # back from a worker process
    assert _index_records(travelled) == expected
    interleaved = [_two_providers(number) for number in range(150)]
    pack_wide(interleaved[:75] + interleaved[76:], consecutive=True)  # 75 was restored
    pack_wide([interleaved[75]])
    assert _index_records(interleaved) == expected
    assert _index_records(list(reversed(consecutive))) == {
        name: list(reversed(records)) for name, records in expected.items()
    }


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
