"""Every catalogue validates against its model, and its published schema is up to date."""

from __future__ import annotations

import pytest
from conftest import REPO

from linter.catalog.base import checked
from linter.catalog.schemas import generate, registry, render


@pytest.mark.parametrize("name", sorted(registry()))
def test_catalogue_matches_its_model(name: str) -> None:
    checked(name, registry()[name])


@pytest.mark.parametrize("file", sorted(generate()))
def test_published_catalogue_schema_is_current(file: str) -> None:
    published = (REPO / "schemas" / "catalog" / file).read_text(encoding="utf-8")
    assert published == render(generate()[file]), (
        f"schemas/catalog/{file} is stale: run python -m linter.schemas"
    )
