"""The layer contract: each unit of ``linter`` (a package or a module directly in it) imports only
units of earlier layers, never one of its own layer or a later one, so there is no import
cycle and a newcomer knows where code may go (docs/architecture.md, "Layers").

Every import counts, inside functions and ``if TYPE_CHECKING:`` blocks too: a deferred import
is still a dependency. ``EXCEPTIONS`` lists the edges tolerated for now, each to be removed; it
is empty, and a new edge against the order fails here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

LINTER = Path(__file__).resolve().parent.parent / "linter"

#: Lowest first. A unit may import the units of the layers before its own.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("__init__",),  # the version
    # foundations: they import nothing of gpulint's but its version
    ("record_templates",),  # generated: the records' __init__ templates
    ("records",),  # cheap dataclasses: every unit defines its records with them
    ("declared",),  # records declared as pydantic models are, built without pydantic
    ("errors", "atomic_file", "bundled", "printable", "wording"),
    ("load",),  # files to documents with positions, discovery, sources
    ("findings",),
    ("cache",),  # the user's cache store, parse cache, compact encodings
    ("catalog",),  # data about the world, with its loader
    ("model",),  # the normalised manifest kinds, Manifest, provenance
    ("config",),
    ("memory", "quota", "residency"),  # arithmetic over the catalogue
    ("pricing",),
    ("formats",),  # other formats to the normalised model
    ("facts",),
    ("cel",),
    ("policy",),  # rule files and their evaluation
    ("report",),  # renderers
    ("run",),  # the two passes, the result cache, suppressions, baselines, fixtures
    ("costs",),  # gpulint cost: the run's manifests priced, at two revisions
    ("commands",),
    ("cli", "schemas"),
    ("__main__",),
)
#: (importer, imported) edges that break the order, tolerated until removed.
EXCEPTIONS: frozenset[tuple[str, str]] = frozenset()
#: Within formats: the shared layers below, the format packages above, which never import one
#: another (a document is one format's).
FORMAT_PACKAGES = ("kubernetes", "skypilot", "dstack", "terraform", "slurm")
FORMAT_SHARED = ("cmdline", "platforms")


def _module(path: Path) -> str:
    parts = list(path.relative_to(LINTER.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> Iterator[tuple[int, str]]:
    """Every ``linter.*`` name a module imports (modules and the names taken from them)."""
    module = _module(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parents = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parents, *([base] if base else [])])
            yield node.lineno, base
            yield from ((node.lineno, f"{base}.{alias.name}") for alias in node.names)


def _unit(name: str) -> str | None:
    parts = name.split(".")
    if parts[0] != "linter":
        return None
    if len(parts) == 1:
        return "__init__"
    first = parts[1]
    return first if (LINTER / first).is_dir() or (LINTER / f"{first}.py").exists() else "__init__"


def _edges() -> Iterator[tuple[str, str, str]]:
    for path in sorted(LINTER.rglob("*.py")):
        importer = _unit(_module(path))
        for line, name in _imports(path):
            imported = _unit(name)
            if importer and imported and importer != imported:
                yield importer, imported, f"{path.relative_to(LINTER.parent)}:{line} ({name})"


RANK = {unit: rank for rank, layer in enumerate(LAYERS) for unit in layer}


def test_every_unit_has_a_layer() -> None:
    units = {_unit(_module(path)) for path in LINTER.rglob("*.py")}
    assert units == set(RANK)


def test_imports_go_only_to_earlier_layers() -> None:
    wrong = sorted(
        f"{where}: {importer} (layer {RANK[importer]}) imports {imported} (layer {RANK[imported]})"
        for importer, imported, where in _edges()
        if RANK[imported] >= RANK[importer] and (importer, imported) not in EXCEPTIONS
    )
    assert wrong == []


def test_every_tolerated_exception_still_exists() -> None:
    """An exception that no longer happens is removed from the list."""
    edges = {(importer, imported) for importer, imported, _ in _edges()}
    assert edges >= EXCEPTIONS


@pytest.mark.parametrize("package", FORMAT_PACKAGES + FORMAT_SHARED)
def test_format_packages_import_no_other_format(package: str) -> None:
    others = [p for p in FORMAT_PACKAGES if p != package]
    if package in FORMAT_SHARED:  # shared code is below every format
        others = list(FORMAT_PACKAGES)
    wrong = [
        f"{path.relative_to(LINTER.parent)}:{line} imports {name}"
        for path in sorted((LINTER / "formats" / package).rglob("*.py"))
        for line, name in _imports(path)
        if any(name.startswith(f"linter.formats.{other}") for other in others)
    ]
    assert wrong == []


def test_modules_directly_in_linter_are_few() -> None:
    """What every layer needs lives directly in linter/; the rest belongs to a stage."""
    assert len(list(LINTER.glob("*.py"))) <= 13  # records.py (issue 31) made 13
