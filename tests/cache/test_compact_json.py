"""Compact JSON from the shared encoder: the text ``json.dumps`` with compact separators
writes, and its errors for what is not JSON data."""

from __future__ import annotations

import json
from typing import Any

import pytest

from linter.cache.compact_json import compact_json


@pytest.mark.parametrize(
    "value",
    [{"a": [1, 1.0, True, None], "b": {"c": "é\n"}}, [], "x", 0.1, (1, 2)],
    ids=["nested", "empty", "string", "float", "tuple"],
)
def test_the_text_is_that_of_json_dumps(value: Any) -> None:
    assert compact_json(value) == json.dumps(value, separators=(",", ":"))


def test_a_value_that_is_not_json_data_raises_as_json_dumps_does() -> None:
    with pytest.raises(TypeError):
        compact_json({"a": object()})
    assert compact_json({"a": 1}) == '{"a":1}'  # the encoder is unharmed
