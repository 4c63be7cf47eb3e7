"""What a rule's expressions are, worked out from their text when the rule file is checked, and
kept with its data in the start-up cache (linter/cache/parse_cache.py).

Compiling a rule needs, for each expression, its text with member chains flattened (linter/
policy/flatten.py), for each message placeholder that is a plain path how to read it without
CEL, and the rule's cost models (linter/cel/work.py). All three come from parsing the
expressions with gpulint's own CEL parser, which takes longer to import and run than the rest of
start-up's rule loading. They depend only on the text (and gpulint's code, which the cache key
holds), so they are worked out once, by linter/policy/checking.py the first time a rule file's
bytes are seen, and a later run compiles from this record without importing the parser.

The record also keeps the variables each flattened expression reads, as the compiled program
lists them: a restored rule knows what it reads (what the evaluator prepares for it) without
compiling anything, and compiles each expression when it first runs (linter/cel/backend.py's
``Deferred``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from linter.cel import backend as cel
from linter.cel.work import WorkModel
from linter.records import datarecord

if TYPE_CHECKING:
    from linter.policy.rule_file import RuleFile

#: How a plain-path placeholder is read without CEL: the variable its compiled (flattened)
#: expression reads, then the keys and list indexes to follow from that variable's value.
Lookup = tuple[str, tuple[str | int, ...]]
#: A rule's cost models: of ``applies`` and ``each``, and of everything evaluated per element.
WorkModels = tuple[WorkModel, WorkModel]


class Analysis(Protocol):
    """Where compiling a rule (linter/policy/loader.py) gets what parsing would tell it."""

    def flattened(self, source: str) -> str:
        """``source`` with its member chains flattened; raises cel.CelError."""

    def compiled(self, source: str) -> Any:
        """The program of ``source`` (flattened), or one that compiles when it first runs;
        raises cel.CelError."""

    def lookup(self, source: str) -> Lookup | None:
        """How to read the placeholder expression ``source`` without CEL, if it is a plain
        path."""

    def work_models(self, meta: RuleFile) -> WorkModels:
        """The rule's cost models."""

    def null_tested(self) -> frozenset[str]:
        """The (flattened) names the rule's expressions read only to compare with null
        (linter/cel/null_tests.py)."""

    def option_filtered(self, meta: RuleFile) -> Mapping[str, str]:
        """The (flattened) names the rule's verdict (``applies``, ``each``, ``variables``, each
        ``violation``) reads only through a filter by one of its options, each with that
        option's key (linter/cel/option_filters.py)."""


@datarecord
class RuleAnalysis:
    """An analysis as recorded when the rule was checked."""

    flat: Mapping[str, str]
    lookups: Mapping[str, Lookup]
    rule_work: WorkModels
    null_names: frozenset[str]
    #: The variables each flattened expression reads, in the compiled program's order.
    reads: Mapping[str, list[str]]
    filtered: Mapping[str, str]

    def flattened(self, source: str) -> str:
        try:
            return self.flat[source]
        except KeyError:  # only in an entry this code did not write
            raise cel.CelError(f"no analysis of {source!r}") from None

    def compiled(self, source: str) -> cel.Deferred:
        """Compiled when it first runs: it compiled when the rule was checked."""
        flat = self.flattened(source)
        try:
            return cel.Deferred(flat, self.reads[flat])
        except KeyError:  # only in an entry this code did not write
            raise cel.CelError(f"no analysis of {source!r}") from None

    def lookup(self, source: str) -> Lookup | None:
        return self.lookups.get(source)

    def work_models(self, meta: RuleFile) -> WorkModels:
        return self.rule_work

    def null_tested(self) -> frozenset[str]:
        return self.null_names

    def option_filtered(self, meta: RuleFile) -> Mapping[str, str]:
        return self.filtered

    def as_data(self) -> dict[str, Any]:
        """JSON data that ``from_data`` reads back."""
        return {
            "flat": dict(self.flat),
            "lookups": {
                source: [name, list(keys)] for source, (name, keys) in self.lookups.items()
            },
            "work_models": [model.as_data() for model in self.rule_work],
            "null_tested": sorted(self.null_names),
            "reads": {flat: list(names) for flat, names in self.reads.items()},
            "option_filtered": dict(self.filtered),
        }

    @classmethod
    def from_data(cls, data: Any) -> RuleAnalysis:
        """What ``as_data`` wrote; ValueError for anything else."""
        if not isinstance(data, dict) or data.keys() != set(_FIELDS):
            raise ValueError("not a rule analysis")
        flat, lookups, work_models, null_names, reads, filtered = (data[field] for field in _FIELDS)
        if not (isinstance(flat, dict) and all(isinstance(v, str) for v in flat.values())):
            raise ValueError("flattened expressions are text")
        if (
            not isinstance(lookups, dict)
            or not isinstance(work_models, list)
            or len(work_models) != 2
            or not isinstance(null_names, list)
            or not all(isinstance(name, str) for name in null_names)
            or not isinstance(reads, dict)
            or not all(_names(names) for names in reads.values())
            or not isinstance(filtered, dict)
            or not all(isinstance(key, str) for key in filtered.values())
        ):
            raise ValueError("not a rule analysis")
        once, per_item = (WorkModel.from_data(model) for model in work_models)
        return cls(
            flat,
            {source: _lookup(found) for source, found in lookups.items()},
            (once, per_item),
            frozenset(null_names),
            {flat: list(names) for flat, names in reads.items()},
            dict(filtered),
        )


_FIELDS = ("flat", "lookups", "work_models", "null_tested", "reads", "option_filtered")


def _names(data: Any) -> bool:
    return isinstance(data, list) and all(isinstance(name, str) for name in data)


def _lookup(data: Any) -> Lookup:
    if isinstance(data, list) and len(data) == 2:
        name, keys = data
        keys_valid = isinstance(keys, list) and all(type(key) in (str, int) for key in keys)
        if isinstance(name, str) and keys_valid:
            return name, tuple(keys)
    raise ValueError(f"not a lookup: {data!r}")
