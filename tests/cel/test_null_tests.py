"""Names read only to compare with null, found on the syntax tree."""

from __future__ import annotations

import pytest

from linter.cel.null_tests import null_tested


@pytest.mark.parametrize(
    ("sources", "expected"),
    [
        (["a__b != null && a__b__c"], {"a__b"}),
        (["null == x", "y == null ? 1 : 2"], {"x", "y"}),
        (["x != null", "x.size() > 0"], set()),  # read as a whole elsewhere
        (["has(y.z) && y != null"], set()),
        (["v + w != null"], set()),  # the sum is compared, not v or w
        (["(x) != null"], {"x"}),
        (["!(x == null)"], {"x"}),
        (["l.map(q, q == null)"], set()),  # q is the comprehension's own
        (["l.all(l, l == null)"], set()),  # the outer l is read as a whole by all()
        (["x == 1", "x != null"], set()),
        (['"x != null" == s'], set()),
    ],
)
def test_null_tested(sources: list[str], expected: set[str]) -> None:
    assert null_tested(sources) == expected
