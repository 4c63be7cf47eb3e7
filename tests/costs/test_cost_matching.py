"""Which workload at the base is which workload now."""

from __future__ import annotations

from dataclasses import dataclass

from linter.pricing.matching import pair_workloads


@dataclass(frozen=True)
class W:
    file: str
    name: str
    index: int = 0
    part: int = 0


def pairs(base: list[W], head: list[W], **problems: dict[str, str]) -> list[tuple[str, str, str]]:
    return sorted(
        (
            p.status,
            f"{p.base.file}/{p.base.name}" if p.base else "-",
            f"{p.head.file}/{p.head.name}" if p.head else "-",
        )
        for p in pair_workloads(base, head, **problems)
    )


def test_same_file_and_name() -> None:
    assert pairs(
        [W("a.yaml", "x"), W("a.yaml", "y", 1)], [W("a.yaml", "y", 0), W("a.yaml", "x", 1)]
    ) == [
        ("same", "a.yaml/x", "a.yaml/x"),
        ("same", "a.yaml/y", "a.yaml/y"),
    ]


def test_a_workload_moved_to_another_file_keeps_its_name() -> None:
    assert pairs([W("old/a.yaml", "x")], [W("new/a.yaml", "x")]) == [
        ("moved", "old/a.yaml/x", "new/a.yaml/x")
    ]


def test_a_name_that_is_not_unique_is_not_guessed_across_files() -> None:
    assert pairs([W("a.yaml", "x"), W("b.yaml", "x")], [W("c.yaml", "x")]) == [
        ("added", "-", "c.yaml/x"),
        ("removed", "a.yaml/x", "-"),
        ("removed", "b.yaml/x", "-"),
    ]


def test_a_renamed_workload_is_the_same_document_of_the_same_file() -> None:
    assert pairs(
        [W("a.yaml", "x", 0), W("a.yaml", "y", 1)], [W("a.yaml", "x2", 0), W("a.yaml", "y", 1)]
    ) == [
        ("renamed", "a.yaml/x", "a.yaml/x2"),
        ("same", "a.yaml/y", "a.yaml/y"),
    ]


def test_added_and_removed() -> None:
    assert pairs([W("a.yaml", "x")], [W("a.yaml", "x"), W("b.yaml", "z", 3)]) == [
        ("added", "-", "b.yaml/z"),
        ("same", "a.yaml/x", "a.yaml/x"),
    ]


def test_a_file_that_cannot_be_read_on_the_other_side_is_not_compared() -> None:
    result = pair_workloads(
        [W("a.yaml", "x"), W("vendor/b.yaml", "y")],
        [W("c.yaml", "z")],
        base_problems={"c.yaml": "a symbolic link at the revision (not followed)"},
        head_problems={"a.yaml": "syntax error", "vendor": "a submodule"},
    )
    assert sorted((p.status, p.reason) for p in result) == [
        ("not-compared", "a submodule"),
        ("not-compared", "a symbolic link at the revision (not followed)"),
        ("not-compared", "syntax error"),
    ]
