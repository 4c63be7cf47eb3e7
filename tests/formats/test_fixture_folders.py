"""One harness for every format's fixtures: ``tests/formats/<format>/good/`` and ``bad/``.

An entry of either folder is a file or, for a format whose unit is a folder (a Terraform module,
files that meet in run-wide rules), a folder linted as a whole. Each reports every error and
warning on exactly the lines marked ``# expect: GLxxx`` (notes only where marked: they follow
the price and model catalogues, not the format); a good entry has no error, a bad one marks at
least one finding. A format whose fixtures pin only what its adapter decides lists those rules
in ``SELECTED``: the launcher files name clouds and regions, and the quota and availability
rules would otherwise judge the catalogue, not the format. Format-specific behaviour (positions, vocabulary, defaults) is tested beside
this in ``test_<format>.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import lint
from launcher_files import ADAPTER_RULES

from linter.findings import Severity
from linter.policy.loader import Rulebook
from linter.run.fixtures import expected_markers

SELECTED: dict[str, tuple[str, ...]] = {
    "dstack": ADAPTER_RULES,
    "skypilot": ADAPTER_RULES,
    "kubernetes_capacity": ("GL001", "GL002", "GL307"),
}

HERE = Path(__file__).parent
FORMATS = sorted(path for path in HERE.iterdir() if (path / "good").is_dir())
ENTRIES = sorted(
    entry for folder in FORMATS for kind in ("good", "bad") for entry in (folder / kind).iterdir()
)


def _files(entry: Path) -> list[Path]:
    return sorted(p for p in entry.rglob("*") if p.is_file()) if entry.is_dir() else [entry]


def _name(path: Path, entry: Path) -> str:
    return path.resolve().relative_to(entry.resolve()).as_posix() if entry.is_dir() else path.name


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda p: p.relative_to(HERE).as_posix())
def test_entry_reports_exactly_its_marked_lines(entry: Path, rulebook: Rulebook) -> None:
    expected = {
        (_name(path, entry), rule, line)
        for path in _files(entry)
        for rule, line in expected_markers(path)
    }
    findings = [
        (
            _name(Path(f.location.file).resolve(), entry.resolve()),
            f.rule_id,
            f.location.span.line,
            f.level,
        )
        for f in lint([entry], rulebook, SELECTED.get(entry.parent.parent.name, ())).findings
    ]
    shown = {
        (file, rule, line)
        for file, rule, line, level in findings
        if level != Severity.NOTE or (file, rule, line) in expected
    }
    assert shown == expected
    if entry.parent.name == "good":
        assert [f for f in findings if f[3] == Severity.ERROR] == []
    else:
        assert expected


def test_every_format_has_good_and_bad_fixtures() -> None:
    names = {folder.name for folder in FORMATS}
    assert names >= {"dstack", "kubernetes", "kubernetes_capacity", "production_stack"}
    assert names >= {"skypilot", "slurm", "terraform"}
    for folder in FORMATS:
        assert any((folder / "good").iterdir()) and any((folder / "bad").iterdir()), folder
        loose = [p.name for p in folder.iterdir() if p.is_file()]
        assert loose == [], f"{folder.name}: fixtures belong in good/ or bad/"
