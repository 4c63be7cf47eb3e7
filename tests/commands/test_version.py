"""The version is written once, in pyproject.toml, and read from the installed metadata."""

from __future__ import annotations

import importlib.metadata
import re

import pytest
from conftest import REPO

import linter
from linter.cli import main

PYPROJECT = re.search(
    r'^\[project\]\n(?:.*\n)*?version = "([^"]+)"', (REPO / "pyproject.toml").read_text(), re.M
).group(1)  # type: ignore[union-attr]


def test_version_prints_the_installed_metadata(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr() == (f"gpulint {importlib.metadata.version('gpulint')}\n", "")
    assert importlib.metadata.version("gpulint") == PYPROJECT  # installed from this checkout
    assert linter.__version__ == linter.version() == PYPROJECT


def test_the_version_is_written_nowhere_else_in_the_package() -> None:
    written = [
        str(path.relative_to(REPO))
        for path in sorted((REPO / "linter").rglob("*.py"))
        if f'"{PYPROJECT}"' in path.read_text(encoding="utf-8")
    ]
    assert written == []


def test_the_changelog_has_an_entry_for_the_version() -> None:
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"\n## [{PYPROJECT}] - " in changelog
    assert "\n## [Unreleased]\n" in changelog


def test_a_source_tree_that_was_never_installed_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    linter.version.cache_clear()
    monkeypatch.setattr(importlib.metadata, "version", missing)
    try:
        assert linter.version() == linter.NOT_INSTALLED == "0+unknown"
    finally:
        monkeypatch.undo()
        linter.version.cache_clear()
