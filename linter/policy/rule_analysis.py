"""What a rule's expressions are, worked out from their text when the rule file is checked, and
kept with its data in the start-up cache (linter/cache/parse_cache.py).

Compiling a rule needs, for each expression, its text with member chains flattened (linter/
policy/flatten.py), for each message placeholder that is a plain path how to read it without
CEL, and the rule's cost models (linter/policy/cost_model.py). All three come from parsing the
expressions with gpulint's own CEL parser, which costs more to import and run than the rest of
start-up's rule loading. They depend only on the text (and gpulint's code, which the cache key
holds), so they are worked out once, by linter/policy/checking.py the first time a rule file's
bytes are seen, and a later run compiles from this record without importing the parser.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from linter import cel
from linter.policy.cost_model import CostModel

if TYPE_CHECKING:
    from linter.policy.rule_file import RuleFile

#: How a plain-path placeholder is read without CEL: the variable its compiled (flattened)
#: expression reads, then the keys and list indexes to follow from that variable's value.
Lookup = tuple[str, tuple[str | int, ...]]
#: A rule's cost models: of ``applies`` and ``each``, and of everything evaluated per element.
Costs = tuple[CostModel, CostModel]


class Analysis(Protocol):
    """Where compiling a rule (linter/policy/loader.py) gets what parsing would tell it."""

    def flattened(self, source: str) -> str:
        """``source`` with its member chains flattened; raises cel.CelError."""

    def lookup(self, source: str) -> Lookup | None:
        """How to read the placeholder expression ``source`` without CEL, if it is a plain
        path."""

    def costs(self, meta: RuleFile) -> Costs:
        """The rule's cost models."""


@dataclass(frozen=True)
class RuleAnalysis:
    """An analysis as recorded when the rule was checked."""

    flat: Mapping[str, str]
    lookups: Mapping[str, Lookup]
    rule_costs: Costs

    def flattened(self, source: str) -> str:
        try:
            return self.flat[source]
        except KeyError:  # only in an entry this code did not write
            raise cel.CelError(f"no analysis of {source!r}") from None

    def lookup(self, source: str) -> Lookup | None:
        return self.lookups.get(source)

    def costs(self, meta: RuleFile) -> Costs:
        return self.rule_costs

    def as_data(self) -> dict[str, Any]:
        """JSON data that ``from_data`` reads back."""
        return {
            "flat": dict(self.flat),
            "lookups": {
                source: [name, list(keys)] for source, (name, keys) in self.lookups.items()
            },
            "costs": [model.as_data() for model in self.rule_costs],
        }

    @classmethod
    def from_data(cls, data: Any) -> RuleAnalysis:
        """What ``as_data`` wrote; ValueError for anything else."""
        if not isinstance(data, dict) or data.keys() != {"flat", "lookups", "costs"}:
            raise ValueError("not a rule analysis")
        flat, lookups, costs = data["flat"], data["lookups"], data["costs"]
        if not (isinstance(flat, dict) and all(isinstance(v, str) for v in flat.values())):
            raise ValueError("flattened expressions are text")
        if not isinstance(lookups, dict) or not isinstance(costs, list) or len(costs) != 2:
            raise ValueError("not a rule analysis")
        once, per_item = (CostModel.from_data(model) for model in costs)
        return cls(
            flat, {source: _lookup(found) for source, found in lookups.items()}, (once, per_item)
        )


def _lookup(data: Any) -> Lookup:
    if isinstance(data, list) and len(data) == 2:
        name, keys = data
        keys_valid = isinstance(keys, list) and all(type(key) in (str, int) for key in keys)
        if isinstance(name, str) and keys_valid:
            return name, tuple(keys)
    raise ValueError(f"not a lookup: {data!r}")
