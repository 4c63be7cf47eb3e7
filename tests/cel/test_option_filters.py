"""Names read only through a filter by a rule option, found on the syntax tree."""

from __future__ import annotations

import pytest

from linter.cel.option_filters import option_filtered


@pytest.mark.parametrize(
    ("sources", "expected"),
    [
        (["w__l.filter(x, x in options.words)"], {"w__l": "words"}),
        (["size(w__l.filter(x, x in options.words)) > 0"], {"w__l": "words"}),
        (["w__l.exists(x, x in options.words)", "true"], {"w__l": "words"}),
        (["w__l.filter(x, x in options.words)", "size(w__l) > 1"], {}),  # read whole too
        (["w__l.filter(x, x in options.a)", "w__l.exists(y, y in options.b)"], {}),
        (["w__l.all(x, x in options.words)"], {}),  # all() depends on the others too
        (["w__l.map(x, x in options.words)"], {}),
        (["w__l.filter(x, options.words.exists(o, o == x))"], {}),
        (["w__l.filter(x, x in options)"], {}),  # the options themselves
        (["w__l.filter(x, x in other.words)"], {}),
        (["w__l.filter(x, y in options.words)"], {}),  # not the element
        (["w__l.filter(options, options in options.words)"], {}),  # options shadowed
        (["[1].filter(w__l, w__l.filter(x, x in options.k).size() > 0)"], {}),  # bound
        (["w__l.filter(x, x in options.words).filter(y, y in options.words)"], {"w__l": "words"}),
    ],
)
def test_option_filtered(sources: list[str], expected: dict[str, str]) -> None:
    assert option_filtered(sources) == expected
