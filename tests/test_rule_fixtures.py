"""Every rule's good and bad fixtures, discovered from tests/rules/<ID>/{good,bad}/.

Each fixture is linted with only its rule plus the input rules (GL001, GL002) selected, so a
fixture that is itself invalid fails loudly. The findings must be exactly the lines marked
``# expect: <ID>``: none in good/, every marked line (and only those) in bad/.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import expected_markers, lint

from linter.policy.loader import Rulebook

HERE = Path(__file__).resolve().parent / "rules"
CASES = sorted(p for p in HERE.glob("*/*/*") if p.parent.name in ("good", "bad") and p.is_file())


@pytest.mark.parametrize("path", CASES, ids=lambda p: "/".join(p.parts[-3:]))
def test_fixture(path: Path, rulebook: Rulebook) -> None:
    rule_id = path.parts[-3]
    assert rule_id in rulebook.by_id, f"fixture folder for unknown rule {rule_id}"
    result = lint([path], rulebook, select=[rule_id, "GL001", "GL002"])
    found = {(f.rule_id, f.location.span.line) for f in result.findings}
    expected = expected_markers(path)
    if path.parent.name == "good":
        assert expected == set(), "good fixtures carry no expect markers"
    else:
        assert expected, "bad fixtures mark at least one line"
    assert found == expected, "\n".join(
        f"{f.location.span.line}: {f.rule_id} {f.message}" for f in result.findings
    )
