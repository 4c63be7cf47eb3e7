"""The version is written once, in ``linter/__init__.py``; the build puts it in the installed
metadata, and a run reads it as a constant."""

from __future__ import annotations

import importlib.metadata
import re
import sys

import pytest
from conftest import REPO

import linter
from linter.cli import main

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

WRITTEN = re.search(
    r'^__version__ = "([^"]+)"$', (REPO / "linter" / "__init__.py").read_text(), re.M
).group(1)  # type: ignore[union-attr]


def test_version_prints_the_written_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr() == (f"gpulint {WRITTEN}\n", "")
    assert linter.__version__ == linter.version() == WRITTEN


def test_the_installed_metadata_has_the_written_version() -> None:
    assert importlib.metadata.version("gpulint") == WRITTEN  # installed from this checkout


def test_pyproject_takes_the_version_from_the_package() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["hatch"]["version"] == {"path": "linter/__init__.py"}


def test_the_version_is_written_nowhere_else_in_the_package() -> None:
    written = [
        str(path.relative_to(REPO))
        for path in sorted((REPO / "linter").rglob("*.py"))
        if f'"{WRITTEN}"' in path.read_text(encoding="utf-8")
    ]
    assert written == ["linter/__init__.py"]


def test_the_changelog_has_an_entry_for_the_version() -> None:
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"\n## [{WRITTEN}] - " in changelog
    assert "\n## [Unreleased]\n" in changelog
