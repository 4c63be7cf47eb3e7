"""A placeholder that is a plain path renders by lookup, exactly as CEL would render it."""

from __future__ import annotations

from typing import Any

import pytest

from linter.cel import backend as cel
from linter.cel.flat_names import MISSING
from linter.policy.checking import Analyser
from linter.policy.template import parse_template

VALUES: list[Any] = [
    "text",
    7,
    -3,
    2.0,
    0.12345,
    float("nan"),
    True,
    None,
    [1, 2.5, None, "x"],
    [],
    [[1, 2], [3]],
    2**63,  # a uint in CEL
    2**70 + 1,  # beyond CEL's integers: a double there
    [2**70 + 1],
    {"key": "value"},
    [{"key": 1}],
]
TEMPLATE = (
    "{facts.x} {facts.x[0]} {facts.x[1]} {facts.x.key} {item.x} {item.x['key']}"
    " {workload.metadata.labels['team']} {facts.x:>6}"
)


def render_both(value: Any) -> tuple[str, str]:
    """The template rendered with lookups, and rendered by CEL alone."""
    prepared = {"facts__x": value, "workload__metadata__labels": {"team": value}}
    varying = {"item": {"x": value}}
    context = cel.new_context(prepared)
    context.set_variable_resolver(varying.get)
    template = parse_template(TEMPLATE, Analyser())

    def read(name: str) -> Any:
        return prepared.get(name, varying.get(name, MISSING))

    return template.render(context, read), template.render(context, lambda _: MISSING)


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_a_lookup_renders_what_cel_renders(value: Any) -> None:
    looked_up, evaluated = render_both(value)
    assert looked_up == evaluated


def test_plain_paths_are_looked_up_and_the_rest_evaluated() -> None:
    template = parse_template(
        "{facts.memory.gpu} {item.quotas[0]} {size(item.quotas)} {x}", Analyser()
    )
    lookups = [part.lookup for part in template.parts if not isinstance(part, str)]
    assert lookups == [("facts__memory__gpu", ()), ("item", ("quotas", 0)), None, ("x", ())]


def test_a_lookup_does_not_run_cel(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(program: Any, context: Any) -> Any:
        raise AssertionError("evaluated")

    monkeypatch.setattr(cel, "evaluate", refuse)
    template = parse_template(
        "{facts.memory.gpu} needs {facts.memory.requiredGiB:.1f} GiB", Analyser()
    )
    read = {"facts__memory__gpu": "L4", "facts__memory__requiredGiB": 30.04}.get
    assert template.render(None, read) == "L4 needs 30.0 GiB"


def test_a_format_spec_the_value_lacks_renders_a_question_mark() -> None:
    template = parse_template("[{facts.x:>6}] [{facts.y:.1f}]", Analyser())
    read = {"facts__x": None, "facts__y": [1]}.get
    context = cel.new_context({"facts__x": None, "facts__y": [1]})
    assert template.render(context, read) == "[?] [?]"


@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [
        ("{facts.x}", 68.42, 68.42),
        ("{facts.x}", 2, 2),
        ("{facts.x}", True, True),
        ("{facts.x}", "A100-80GB", "A100-80GB"),
        ("{facts.x}", [1, 2], "1, 2"),
        ("{facts.x}", None, "unset"),
        ("{facts.x:.1f}", 68.42, "68.4"),
        ("{facts.x} GiB", 68.42, "68.42 GiB"),
    ],
)
def test_a_property_keeps_a_plain_placeholders_value(text: str, value: Any, expected: Any) -> None:
    """One plain placeholder gives its number, flag or text; anything else the rendered text."""
    prepared = {"facts__x": value}
    template = parse_template(text, Analyser())
    found = template.value(cel.new_context(prepared), lambda name: prepared.get(name, MISSING))
    assert (found, type(found)) == (expected, type(expected))
