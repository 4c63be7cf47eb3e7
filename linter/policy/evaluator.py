"""Run compiled rules over validated manifests and their facts.

Rules that read only a workload's own facts run while its file is read (pass 1, on the
manifest); rules that read a run-wide fact (``facts.pool``, ``facts.quota``) run once every
file has been read (pass 2, on the manifest's :class:`~linter.run.wide_parts.Deferred` part). Both
go through :class:`Evaluator`, which sees a :class:`Target`: where a finding can point, and what
configuration assumed of it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import Any, Protocol, cast

from linter.cache.compact_json import compact_json
from linter.cel import backend as cel
from linter.cel.flat_names import MISSING, SEPARATOR, activation_roots, kind_variable, member
from linter.cel.value_paths import Path
from linter.cel.work import SizeOf, WorkModel, document_sizes, over_work_limit
from linter.facts import PROVIDERS, RUN_WIDE, Facts
from linter.findings import Finding, Location, Severity
from linter.load.positions import Path as ManifestPath
from linter.load.positions import format_path, parse_path
from linter.model.manifest import Manifest
from linter.policy.loader import CompiledCheck, CompiledRule
from linter.policy.memo import Memo
from linter.policy.selection import RuleSettings, resolve_severity
from linter.policy.template import Read, Scalar, looked_up_data
from linter.records import datarecord

EVALUATION_RULE = "GL006"
Rules = Sequence[tuple[CompiledRule, RuleSettings]]


class Target(Protocol):
    """What a rule is evaluated on, as findings need it."""

    @property
    def file(self) -> str: ...

    @property
    def index(self) -> int: ...

    @property
    def kind(self) -> str: ...

    def location(self, path: ManifestPath, message: str | None = None) -> Location: ...

    def present(self, path: ManifestPath) -> bool: ...

    def assumed(self) -> Sequence[tuple[ManifestPath, str]]: ...


#: The target at (file, document, part), for related locations; None when not in the run.
Find = Callable[[str, int, int], Target | None]


def is_run_wide(rule: CompiledRule) -> bool:
    """Whether a rule reads a run-wide fact, so it runs once every file has been read."""
    return bool(rule.fact_providers & RUN_WIDE)


#: Names a rule reads that are not the target's: its options, and per element of ``each`` the
#: element, its index and the rule's variables, served by the context's resolver (adding a
#: variable would make the backend convert the whole context again).
VARYING = frozenset({"options", "item", "index", "variables"})
#: At most this many outcomes are remembered per evaluator (the oldest are forgotten first).
#: 10,000 generated manifests keep about 10,300 (benchmarks/generate.py): at 4,096 the oldest
#: were forgotten before they were asked for again, and 35% more rules ran (13% more CPU).
MEMO_SIZE = 16384


@datarecord
class _Group:
    """The rules for one kind and profile, and what they read."""

    rules: Rules
    #: The names of the target its rules read (flattened; options and items excepted) but
    #: those of run-wide facts, which are known only in the second pass.
    local_names: tuple[str, ...]
    providers: frozenset[str]  # fact providers
    #: What the outcomes of its remembered rules are remembered under, together (each name with
    #: whether it is a stand-in), and where in that each one's key is.
    keys: tuple[tuple[str, bool], ...]
    positions: Mapping[CompiledRule, tuple[int, ...]]
    #: Where in ``keys`` the names each rule's verdict reads are, for the rules whose quiet
    #: outcomes are also remembered under them (:class:`_Verdict`).
    verdict_positions: Mapping[CompiledRule, tuple[int, ...]]
    #: How to resolve ``keys``' names (:func:`_plan`), and every name those rules read (that
    #: none failed is what lets one be given a remembered quiet outcome).
    plan: Plan


@datarecord
class _Fired:
    """A check that fired, as CEL left it: where it points (the path template rendered), its
    related entries, its message and fix. The same for every target with the same values."""

    check: CompiledCheck
    path: str
    related: tuple[dict[str, Any], ...]
    message: str
    fix: str | None
    properties: tuple[tuple[str, Scalar], ...] = ()


@datarecord
class _Outcome:
    """What evaluating a rule gave: the checks that fired, in order, and why evaluation stopped
    early (GL006), if it did."""

    fired: tuple[_Fired, ...]
    error: str | None = None


#: The outcome of most evaluations, shared by them (the memo keeps thousands).
_QUIET = _Outcome(())


@datarecord
class _Verdict:
    """What a rule's quiet outcome is remembered under besides every value it reads: the
    values its verdict reads (``applies``, ``variables``, each ``violation``), each name with
    whether it is a stand-in; of those read only through a filter by an option, the elements
    that option lists (linter/cel/option_filters.py)."""

    keys: tuple[tuple[str, bool], ...]
    narrowed: Mapping[str, frozenset[str]]


@datarecord
class _Quiet:
    """A quiet outcome remembered under its verdict's values, with the values of the rule's
    ``variables`` when it computed them (None: ``applies`` was false, or it has none): the
    budget checks that came before the verdict are made again on each document it is given
    to, on that document's sizes."""

    variables: dict[str, Any] | None


class Values:
    """The values of one target's (flattened) names, each resolved from the activation once and
    shared by its rules (``facts__memory__gpu`` is found in the value of ``facts__memory``);
    MISSING for a path the target does not have."""

    __slots__ = ("activation", "nodes")

    def __init__(self, activation: Mapping[str, Any]) -> None:
        self.activation = activation
        #: Each name resolved so far and its value (facts, the whole, as the Facts mapping).
        self.nodes: dict[str, Any] = {}

    def __call__(self, name: str) -> Any:
        value = self._node(name)
        # All of ``facts`` at once. An exact type test: Facts is a Mapping, and an abstract
        # class's isinstance takes longer than the rest of this call.
        return dict(value) if type(value) is Facts else value

    def _node(self, name: str) -> Any:
        if name in self.nodes:
            return self.nodes[name]
        activation = self.activation
        if name in activation:
            value = activation[name]
        else:
            parent, separator, last = name.rpartition(SEPARATOR)
            value = member(self._node(parent), last) if separator else MISSING
        self.nodes[name] = value
        return value

    def resolve_all(self, plan: Plan) -> dict[str, Exception]:
        """Resolve every name of ``plan`` as :meth:`__call__` would, in one loop rather than a
        recursion per name (a workload's rules read a hundred or more); return the names whose
        value could not be computed (a fact that failed, and every name within it), with why.
        Failures are not kept: asked again, a name is computed again, as before."""
        nodes, activation = self.nodes, self.activation
        failed: dict[str, Exception] = {}
        for name, parent, last in plan:
            if name in nodes:
                continue
            if parent in failed and name not in activation:
                failed[name] = failed[parent]
                continue
            try:
                if name in activation:
                    value = activation[name]
                elif parent is None:
                    value = MISSING
                else:  # member()'s usual case inline: a name in a dict (200 a workload)
                    holder = nodes[parent]
                    value = (
                        holder.get(last, MISSING) if type(holder) is dict else member(holder, last)
                    )
            except (cel.CelError, ValueError) as err:
                failed[name] = err
                continue
            nodes[name] = value
        return failed

    def resolved(self, name: str) -> Any:
        """The value of a name :meth:`resolve_all` resolved, as :meth:`__call__` gives it
        (``_tokens``, which asks for a hundred or more names a workload, reads ``nodes``
        itself)."""
        value = self.nodes[name]
        return dict(value) if type(value) is Facts else value


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _token(value: Any) -> str | None:
    """The value as a string that equals another's only for an equal value of the same types
    (1, 1.0 and true differ); None for a value that is not plain data."""
    if value is MISSING:
        return ""  # no value's token is empty
    if type(value) in _SCALARS:
        return repr(value)  # quoted strings, digits, True, None: never a JSON list or map
    try:
        return compact_json(value)
    except (TypeError, ValueError):
        return None


class Evaluator:
    """Enabled rules ready to run: grouped by kind and profile, with the names each rule reads
    of its target and each rule's cost budget (options filled in) computed once per run.

    A rule's outcome depends only on the values it reads (its options are fixed for the run),
    so it is remembered under those values: workloads that agree on everything a rule reads
    share one evaluation, and only the parts that depend on the target (where a finding is in
    its file, the assumptions it relies on) are computed for each. Rules that read a
    workload's name are not remembered: no two workloads share one."""

    def __init__(self, rules: Rules, memo_size: int = MEMO_SIZE) -> None:
        self.by_kind: dict[str, list[tuple[CompiledRule, RuleSettings]]] = {}
        for rule, settings in rules:
            if not rule.meta.engine:
                for kind in rule.meta.scope.kinds:
                    self.by_kind.setdefault(kind, []).append((rule, settings))
        self.budgets = {rule.id: _budget(rule, settings) for rule, settings in rules}
        self._reads = {rule: tuple(sorted(rule.reads - VARYING)) for rule, _ in rules}
        #: What a rule needs in the CEL context before it runs: the names that decide whether
        #: a check fires. Those read only to report one are given to the context on request,
        #: so a large value (the workloads a pool is shared with) is converted only for a
        #: finding; except for a rule with ``each``, whose checks may fire per element.
        self._eager = {
            rule: (rule.reads if rule.each is not None else rule.verdict_reads) - VARYING
            for rule, _ in rules
        }
        #: Names every rule that reads them only compares with null (linter/cel/null_tests.py),
        #: and no rule's cost is measured at or under: the context holds an empty stand-in for a
        #: map or list there (``facts__memory__inference``: converting its 40 strings took
        #: longer than the expressions that read it), and only whether it is null is
        #: remembered.
        self._stand_ins = _stand_ins([(rule, self.budgets[rule.id]) for rule, _ in rules])
        #: What a rule's outcome is remembered under: the names it reads, less those within
        #: another it reads (``facts__memory__inference__batch`` is in ``facts__memory``), each
        #: with whether it is a stand-in (then within it does not count).
        self._keys = {
            rule: _key_names(names, self._stand_ins) for rule, names in self._reads.items()
        }
        documents = activation_roots() - {"facts"}
        self._remembered = frozenset(
            rule for rule, _ in rules if not _reads_identity(rule, documents)
        )
        #: Rules whose options are put in the CEL context they run in: those whose options hold
        #: a list or a map. The resolver's value is converted on every read (per element, inside
        #: a comprehension: GL201 read its list of words 5 times a workload, 830,000 instructions
        #: of the backend), a variable added to the context once (its other values are kept
        #: converted). A rule whose options the backend cannot convert keeps the resolver, in a
        #: context of its own, where no other rule's options are found in their stead.
        convertible = {
            rule: _convertible(settings.options)
            for rule, settings in rules
            if "options" in rule.reads
        }
        self._options_in_context = frozenset(
            rule
            for rule, settings in rules
            if convertible.get(rule)
            and any(isinstance(value, list | dict) for value in settings.options.values())
        )
        self._own_context = frozenset(rule for rule, ok in convertible.items() if not ok)
        #: Rules whose quiet outcomes are remembered under their verdict's values too
        #: (:class:`_Verdict`): a rule whose outcome depends on more than its verdict reads
        #: (GL201 quotes where a workload's words are written, GL205 its name), so that its
        #: every outcome's key is the workload's own, though most are quiet. Only rules without
        #: ``each`` (whose budget checks this memo makes again are those of one element) and
        #: that read no whole document or ``facts`` (whose failure ``resolve_all`` cannot tell).
        roots = activation_roots()
        self._verdicts = {
            rule: verdict
            for rule, settings in rules
            if rule.each is None and not rule.reads & roots
            for verdict in [_verdict(rule, settings.options, self._stand_ins)]
            if rule not in self._remembered or verdict.narrowed or verdict.keys != self._keys[rule]
        }
        self._groups: dict[tuple[str, str | None], _Group] = {}
        self._memo: Memo[_Outcome] = Memo(memo_size)
        self._quiet: Memo[_Quiet] = Memo(memo_size)

    def __bool__(self) -> bool:
        return bool(self.by_kind)

    def applicable(self, kind: str, profile: str | None) -> Rules:
        """The rules for manifests of this kind and profile."""
        return self._group(kind, profile).rules

    def local_names(self, kind: str, profile: str | None) -> tuple[str, ...]:
        """The names of a target the rules for its kind and profile read, but those of run-wide
        facts (known only once every file is read)."""
        return self._group(kind, profile).local_names

    def providers(self, kind: str, profile: str | None) -> frozenset[str]:
        """The fact providers the rules for a kind and profile read."""
        return self._group(kind, profile).providers

    def _group(self, kind: str, profile: str | None) -> _Group:
        found = self._groups.get((kind, profile))
        if found is None:
            rules = tuple(
                (rule, settings)
                for rule, settings in self.by_kind.get(kind, ())
                if not rule.meta.scope.profiles or profile in rule.meta.scope.profiles
            )
            remembered = [rule for rule, _ in rules if rule in self._remembered]
            verdicts = [rule for rule, _ in rules if rule in self._verdicts]
            keys = sorted(
                {key for rule in remembered for key in self._keys[rule]}
                | {key for rule in verdicts for key in self._verdicts[rule].keys}
            )
            position = {key: index for index, key in enumerate(keys)}
            names = frozenset(name for rule, _ in rules for name in self._reads[rule])
            key_names = [name for name, _ in keys]
            checked = sorted({name for rule in verdicts for name in self._reads[rule]})
            found = self._groups[(kind, profile)] = _Group(
                rules,
                tuple(name for name in names if not _of_run_wide_fact(name)),
                frozenset(provider for rule, _ in rules for provider in rule.fact_providers),
                tuple(keys),
                {rule: tuple(position[key] for key in self._keys[rule]) for rule in remembered},
                {
                    rule: tuple(position[key] for key in self._verdicts[rule].keys)
                    for rule in verdicts
                },
                _plan([*key_names, *checked]),  # each name once, in this order
            )
        return found

    def evaluate(
        self,
        target: Target,
        values: Values,
        profile: str | None,
        find: Find,
    ) -> Iterator[Finding]:
        """Findings of the rules for the target's kind and profile, on the target's ``values``
        (of its activation: ``document``, the kind's name, ``facts``)."""
        group = self._group(target.kind, profile)
        applicable = group.rules
        if not applicable:
            return
        sizes: list[SizeOf] = []  # the document's sizes, measured on the first evaluation

        def size_of() -> SizeOf:
            if not sizes:
                sizes.append(document_sizes(nested(values.activation)))
            return sizes[0]

        outcomes = self._outcomes(group, values, size_of)
        for (rule, settings), outcome in zip(applicable, outcomes, strict=True):
            error: str | None
            if isinstance(outcome, str):
                error = outcome
            else:
                try:
                    for fired in outcome.fired:
                        yield _finding(rule, fired, target, find)
                    error = outcome.error
                except (cel.CelError, ValueError) as err:
                    error = explain(err)
            if error is not None:
                # Fail closed: a policy that cannot be checked (or would cost too much to check
                # on this document) is reported at the policy's own severity, so an error-level
                # rule still fails the run.
                yield Finding(
                    EVALUATION_RULE,
                    resolve_severity(rule.meta, None, settings),
                    f"rule {rule.id} ({rule.meta.name}) could not be evaluated here: {error}",
                    target.location(("kind",)),
                )

    def _outcomes(
        self, group: _Group, values: Values, size_of: Callable[[], SizeOf]
    ) -> list[_Outcome | str]:
        """Each rule's outcome on these values (remembered, or evaluated now), or why it could
        not be evaluated.

        The rules evaluated now share one CEL context: the backend converts each value into it
        (about 3 us a scalar, 100 us for a fact of a few dozen fields), and rules of one target
        read many of the same values."""
        applicable = group.rules
        unresolved = values.resolve_all(group.plan)
        tokens, failing = _tokens(group.keys, unresolved, values)
        found: list[_Outcome | str | None] = []
        keys: list[tuple[str, ...] | None] = []
        verdict_keys: dict[int, tuple[str, ...]] = {}
        for index, (rule, settings) in enumerate(applicable):
            positions = group.positions.get(rule)
            picked = None if positions is None else tuple(map(tokens.__getitem__, positions))
            unread = _first_failed(picked) if failing and picked else None
            key: tuple[str, ...] | None = None
            outcome: _Outcome | str | None = None
            if unread is not None:
                outcome = unread.reason
            elif picked is not None and None not in picked:  # remembered, and plain data
                key = cast("tuple[str, ...]", picked)  # no token failed or None: each a str
                outcome = self._memo.get(rule, key)
            if outcome is None and rule in group.verdict_positions:
                verdict_key = self._verdict_key(group, rule, tokens, unresolved, values)
                if verdict_key is not None:
                    quiet = self._quiet.get(rule, verdict_key)
                    if quiet is not None and _within_budget(
                        rule, self.budgets[rule.id], quiet, size_of, settings.options
                    ):
                        outcome = _QUIET
                    verdict_keys[index] = verdict_key
            found.append(outcome)
            keys.append(key)
        missed = [index for index, outcome in enumerate(found) if outcome is None]
        if missed:
            wanted = {name for index in missed for name in self._reads[applicable[index][0]]}
            read, failed = _prepare(sorted(wanted), values)
            eager = {name for index in missed for name in self._eager[applicable[index][0]]}
            shared = _Prepared.shared(read, eager, self._stand_ins)
            for index in missed:
                rule, settings = applicable[index]
                unreadable = [failed[name] for name in self._reads[rule] if name in failed]
                if unreadable:
                    found[index] = unreadable[0]
                    continue
                try:
                    prepared = (None if rule in self._own_context else shared) or _Prepared.of(
                        {name: read[name] for name in self._reads[rule] if name in read},
                        self._eager[rule],
                        self._stand_ins,
                    )
                except ValueError as err:  # a value the backend cannot convert
                    found[index] = explain(err)
                    continue
                computed: dict[str, Any] = {}
                outcome = _run(
                    rule,
                    settings,
                    self.budgets[rule.id],
                    prepared,
                    size_of,
                    rule in self._options_in_context,
                    computed,
                )
                found[index] = outcome
                key = keys[index]
                if key is not None:
                    self._memo.put(rule, key, outcome)
                verdict_key = verdict_keys.get(index)
                if verdict_key is not None and not outcome.fired and outcome.error is None:
                    self._quiet.put(rule, verdict_key, _Quiet(computed.get("variables")))
        return found  # type: ignore[return-value]  # every None was filled in

    def _verdict_key(
        self,
        group: _Group,
        rule: CompiledRule,
        tokens: Sequence[str | _Failed | None],
        unresolved: Mapping[str, Exception],
        values: Values,
    ) -> tuple[str, ...] | None:
        """What ``rule``'s quiet outcome is remembered under on this target (:class:`_Verdict`),
        or None where it cannot be: a value that is not plain data, or any value the rule
        reads that could not be computed (the rule then fails as it would have)."""
        if unresolved and any(name in unresolved for name in self._reads[rule]):
            return None
        verdict = self._verdicts[rule]
        picked = [tokens[position] for position in group.verdict_positions[rule]]
        for index, (name, _) in enumerate(verdict.keys):
            kept = verdict.narrowed.get(name)
            if kept is not None:
                picked[index] = _narrowed(values.resolved(name), kept, picked[index])
        if any(type(token) is not str for token in picked):
            return None
        return cast("tuple[str, ...]", tuple(picked))


@datarecord
class _Prepared:
    """The values the rules evaluated on one target read (flattened name -> value): in one CEL
    context, the ``eager`` ones; the others given to it on request."""

    context: Any
    values: Mapping[str, Any]
    on_request: Mapping[str, Any]

    @classmethod
    def of(
        cls, values: Mapping[str, Any], eager: Collection[str], stand_ins: Collection[str] = ()
    ) -> _Prepared:
        """Raises ValueError for a value the backend cannot convert; ``stand_ins``: names
        whose values only matter as null or not."""
        # A null stays in the context: the backend takes a null on request for "undefined".
        now = {
            name: _stand_in(value) if name in stand_ins else value
            for name, value in values.items()
            if name in eager or value is None
        }
        later = {name: value for name, value in values.items() if name not in now}
        return cls(cel.new_context(now), values, later)

    @classmethod
    def shared(
        cls, values: Mapping[str, Any], eager: Collection[str], stand_ins: Collection[str]
    ) -> _Prepared | None:
        """One for several rules; None when a value cannot be converted, so that each rule is
        given its own and only those that read that value fail."""
        try:
            return cls.of(values, eager, stand_ins)
        except ValueError:
            return None


def _prepare(names: Sequence[str], values: Values) -> tuple[dict[str, Any], dict[str, str]]:
    """The values of ``names`` the target has (flattened name -> value), and why each name
    whose value could not be computed could not be (a fact that failed)."""
    prepared: dict[str, Any] = {}
    failed: dict[str, str] = {}
    for name in names:
        try:
            value = values(name)
        except (cel.CelError, ValueError) as err:
            failed[name] = explain(err)
            continue
        if value is not MISSING:
            prepared[name] = value
    return prepared, failed


def _convertible(options: Mapping[str, Any]) -> bool:
    """Whether the backend takes ``options`` into a context (a date in a list it does not)."""
    try:
        cel.new_context({"options": options})
    except ValueError:
        return False
    return True


def _reads_identity(rule: CompiledRule, documents: frozenset[str]) -> bool:
    """Whether a rule reads a manifest's name (or a whole that holds it) from one of the
    ``documents`` variables: its outcome is the target's own, never shared."""
    identity = ("metadata", "name")
    for name in rule.reads:
        root, *path = name.split(SEPARATOR)
        if root in documents and tuple(path[:2]) == identity[: len(path[:2])]:
            return True
    return False


def _stand_ins(rules: Sequence[tuple[CompiledRule, WorkModel]]) -> frozenset[str]:
    """The names only compared with null by every rule that reads them, less those at or
    above a path a rule's budget measures (its bound depends on the size there) unless that
    rule reads another name there, remembered by its value."""
    candidates = {name for rule, _ in rules for name in rule.null_tested}
    candidates -= {name for rule, _ in rules for name in rule.reads - rule.null_tested}
    measured: set[str] = set()
    for rule, budget in rules:
        for path in budget.paths:
            named = cast("tuple[str, ...]", path[: _named(path)])  # the leading names
            names = [SEPARATOR.join(named[:length]) for length in range(1, len(named) + 1)]
            if not any(name in rule.reads and name not in candidates for name in names):
                measured.update(names)
    return frozenset(candidates - measured)


def _named(path: Path) -> int:
    """How many of ``path``'s first segments are names."""
    return next((i for i, segment in enumerate(path) if type(segment) is not str), len(path))


def _key_names(names: Sequence[str], stand_ins: frozenset[str]) -> tuple[tuple[str, bool], ...]:
    """``names`` less those within another that is not a stand-in, each with whether it is
    one, in their order."""
    outer = [name for name in names if name not in stand_ins]
    within = {name for name in outer for other in outer if name.startswith(other + SEPARATOR)}
    return tuple((name, name in stand_ins) for name in names if name not in within)


@datarecord
class _Failed:
    """A token that could not be made: why the value could not be computed."""

    reason: str


def _tokens(
    names: Sequence[tuple[str, bool]], failed: Mapping[str, Exception], values: Values
) -> tuple[list[str | _Failed | None], bool]:
    """The token of the value of each of ``names``, resolved in ``values`` but those that
    ``failed`` (of a stand-in, whether it is null or missing); None for one that is not plain
    data. And whether any is a :class:`_Failed`."""
    out: list[str | _Failed | None] = []
    append, scalars, nodes = out.append, _SCALARS, values.nodes
    failing = False
    for name, stand_in in names:  # each name once per target: a hundred or more for a workload
        if name in failed:
            append(_Failed(explain(failed[name])))
            failing = True
            continue
        value = nodes[name]  # Values.resolved inline: its calls were 0.8% of a workload
        if type(value) is Facts:  # all of ``facts``: each fact computed now
            try:
                value = dict(value)
            except (cel.CelError, ValueError) as err:
                append(_Failed(explain(err)))
                failing = True
                continue
        if stand_in:
            append(_presence(value))
        else:  # a scalar's token without a call: most values are scalars
            append(repr(value) if type(value) in scalars else _token(value))
    return out, failing


#: Each name to resolve, after its parent: (name, parent or None for a top-level name, the
#: name's last segment).
Plan = tuple[tuple[str, str | None, str], ...]


def _plan(names: Sequence[str]) -> Plan:
    """The steps that resolve ``names`` in order, each preceded by the names it is within that
    no earlier step resolved: the order in which resolving each name in turn (:meth:`Values.
    _node`) would first reach them, so facts are computed in the same order."""
    steps: list[tuple[str, str | None, str]] = []
    seen: set[str] = set()

    def add(name: str) -> None:
        if name in seen:
            return
        parent, separator, last = name.rpartition(SEPARATOR)
        if separator:
            add(parent)
        seen.add(name)
        steps.append((name, parent, last) if separator else (name, None, name))

    for name in names:
        add(name)
    return tuple(steps)


def _of_run_wide_fact(name: str) -> bool:
    """Whether a flattened name is within a run-wide fact (``facts__quota__...``)."""
    parts = name.split(SEPARATOR, 2)
    return parts[0] == "facts" and len(parts) > 1 and parts[1] in RUN_WIDE


def _first_failed(key: tuple[str | _Failed | None, ...]) -> _Failed | None:
    return next((token for token in key if type(token) is _Failed), None)


def _presence(value: Any) -> str:
    """A stand-in's token: no token of a value is a letter alone."""
    return "" if value is MISSING else "n" if value is None else "v"


def _stand_in(value: Any) -> Any:
    """What the CEL context holds for a value only compared with null."""
    return {} if type(value) is dict else [] if type(value) is list else value


def nested(activation: Mapping[str, Any]) -> Mapping[str, Any]:
    """Flattened names (``workload__spec__profile``) back into nested mappings, for sizes."""
    if not any(SEPARATOR in name for name in activation):
        return activation
    out: dict[str, Any] = {}
    for name, value in activation.items():
        parts = name.split(SEPARATOR)
        node = out
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return out


_UNDEFINED = re.compile(r"Undefined variable or function: '(\w+)'")


def explain(error: Exception) -> str:
    """The backend's message in manifest terms: a flattened name that is not defined is a path
    the document does not have."""
    message = str(error)
    match = _UNDEFINED.search(message)
    if match and SEPARATOR in match.group(1):
        return f"no such field: {match.group(1).replace(SEPARATOR, '.')}"
    return message


def activation(
    manifest: Manifest,
    default_residency: Sequence[str] = (),
    run: Any = None,
    calibration: Any = None,
) -> dict[str, Any]:
    """The variables a rule sees: the document under its kind's name and as ``document``, and
    ``facts``. Built once per manifest and shared by every rule."""
    document = manifest.model.model_dump(mode="json", by_alias=True)
    return {
        "document": document,
        kind_variable(manifest.kind): document,
        "facts": Facts(manifest, run, default_residency, calibration),
    }


def profile_of(manifest: Manifest) -> str | None:
    spec = manifest.data.get("spec")
    return spec.get("profile") if isinstance(spec, dict) else None


def _budget(rule: CompiledRule, settings: RuleSettings) -> WorkModel:
    """What evaluating a rule may cost, with its options' sizes filled in: checked on each
    document before anything runs (the CEL backend has no budget of its own)."""
    once, per_item = rule.work_models
    options = document_sizes({"options": dict(settings.options)})
    return (once + per_item).specialise("options", options)


def _run(
    rule: CompiledRule,
    settings: RuleSettings,
    budget: WorkModel,
    prepared: _Prepared,
    size_of: Callable[[], SizeOf],
    options_in_context: bool = False,
    computed: dict[str, Any] | None = None,
) -> _Outcome:
    """Evaluate a rule on the values it reads (``prepared``; possibly other rules' values too,
    which it never names), with its options in the context or given by the resolver; the
    values of its ``variables`` go into ``computed`` (the last element's, with ``each``)."""
    context, on_request = prepared.context, prepared.on_request
    options = settings.options
    varying: dict[str, Any] = {}
    if options_in_context:
        context.add_variable("options", options)
    else:
        varying["options"] = options

    def resolve(name: str) -> Any:
        """A variable the context lacks: an option or element, or a value read on request."""
        return varying[name] if name in varying else on_request.get(name)

    context.set_variable_resolver(resolve)

    def read(name: str) -> Any:
        """A name as CEL resolves it: the context's variable, else the resolver's non-null
        value (a null from the resolver is an undefined variable)."""
        if name in prepared.values:
            return prepared.values[name]
        value = options if name == "options" else varying.get(name)
        return MISSING if value is None else value

    fired: list[_Fired] = []
    try:
        refused = over_work_limit(budget, size_of())
        if refused:
            raise cel.CelError(f"not run: {refused}")
        if rule.applies is not None and not _truth(rule.applies, context, "applies"):
            return _Outcome(())
        items: list[Any] = [None]
        if rule.each is not None:
            items = cel.evaluate(rule.each, context)
            if not isinstance(items, list):
                raise cel.CelError("`each` must evaluate to a list")
        for index, item in enumerate(items):
            if rule.each is not None:
                varying["item"], varying["index"] = item, index
            if rule.variables:
                values: dict[str, Any] = {}
                varying["variables"] = values
                for name, program in rule.variables:
                    values[name] = cel.evaluate(program, context)
                if computed is not None:
                    computed["variables"] = values
                # Only now are the sizes of the variables known: check the rest against them
                # (the target's sizes as measured for the budget).
                sizes = _with_sizes(size_of(), {"variables": values, "options": options})
                refused = over_work_limit(rule.work_models[1], sizes)
                if refused:
                    raise cel.CelError(f"not run: {refused}")
            for check in rule.checks:
                if _truth(check.violation, context, "violation"):
                    fired.append(_fire(check, context, read))
    except cel.CelError as err:
        return _Outcome(tuple(fired), explain(err))
    return _Outcome(tuple(fired)) if fired else _QUIET


def _with_sizes(target: SizeOf, variables: dict[str, Any]) -> SizeOf:
    """``target``'s sizes, and those of the paths from ``variables`` measured on them."""
    own = document_sizes(variables)
    return lambda path: own(path) if path[0] in variables else target(path)


def _verdict(rule: CompiledRule, options: Mapping[str, Any], stand_ins: frozenset[str]) -> _Verdict:
    """The names ``rule``'s verdict reads, as its outcomes' keys are made of them, and of those
    read through a filter by an option that lists strings, the strings."""
    narrowed = {
        name: frozenset(listed)
        for name, key in rule.option_filtered.items()
        for listed in [options.get(key)]
        if type(listed) is list and all(type(item) is str for item in listed)
    }
    return _Verdict(_key_names(sorted(rule.verdict_reads - VARYING), stand_ins), narrowed)


def _narrowed(
    value: Any, kept: frozenset[str], token: str | _Failed | None
) -> str | _Failed | None:
    """The token of a list of strings read only through a filter by an option: the strings
    the option lists, in order (a letter first: no other token starts with one but a
    stand-in's, which is one letter alone); ``token`` for any other value."""
    if type(value) is list and all(type(item) is str for item in value):
        return "f" + compact_json([item for item in value if item in kept])
    return token


def _within_budget(
    rule: CompiledRule,
    budget: WorkModel,
    quiet: _Quiet,
    size_of: Callable[[], SizeOf],
    options: Mapping[str, Any],
) -> bool:
    """Whether the budget checks :func:`_run` makes before a verdict pass on this document as
    they did where ``quiet`` was computed: the rule's, and with its variables' values the one
    of what runs per element. A quiet outcome is given only where they do; elsewhere the rule
    runs and reports why it could not be evaluated."""
    if over_work_limit(budget, size_of()) is not None:
        return False
    if quiet.variables is None:
        return True
    sizes = _with_sizes(size_of(), {"variables": quiet.variables, "options": options})
    return over_work_limit(rule.work_models[1], sizes) is None


def _truth(program: Any, context: Any, what: str) -> bool:
    value = cel.evaluate(program, context)
    if not isinstance(value, bool):
        raise cel.CelError(f"`{what}` must be true or false, got {value!r}")
    return value


def _fire(check: CompiledCheck, context: Any, read: Read) -> _Fired:
    path = check.path.render(context, read)
    related: tuple[dict[str, Any], ...] = ()
    if check.related is not None:
        entries = looked_up_data(check.related_lookup, read) if check.related_lookup else MISSING
        if entries is MISSING:
            entries = cel.evaluate(check.related, context)
        if not isinstance(entries, list):
            raise cel.CelError("`related` must evaluate to a list of maps")
        if not all(isinstance(entry, dict) for entry in entries):
            raise cel.CelError("`related` entries must be maps with file, document and path")
        related = tuple(entries)
    return _Fired(
        check,
        path,
        related,
        check.message.render(context, read),
        check.fix.render(context, read) if check.fix else None,
        tuple((name, template.value(context, read)) for name, template in check.properties),
    )


def _finding(rule: CompiledRule, fired: _Fired, target: Target, find: Find) -> Finding:
    """A fired check as a finding on ``target``; raises ValueError for a path that is not
    one."""
    path = pick_path(target, fired.path)
    related = tuple(_related(fired.related, find))
    message, fix = fired.message, fired.fix
    # the configuration's assumptions the verdict rests on are said with the fix, which carries
    # the reasoning, so the message stays one line (issue 30)
    assumed = relied_assumptions(rule, target)
    if assumed and fix:
        fix = f"{fix} ({assumed})"
    elif assumed:
        message = f"{message} ({assumed})"
    check = fired.check
    return Finding(
        rule.id,
        Severity(check.severity) if check.severity else None,
        message,
        target.location(path),
        related,
        fix=fix,
        properties=fired.properties,
    )


def relied_assumptions(rule: CompiledRule, target: Target) -> str | None:
    """The configuration's assumptions a finding of ``rule`` relies on, named for its message:
    those at a document path the rule reads, or read by a fact provider the rule reads."""
    notes = []
    for path, note in target.assumed():
        dotted = format_path(path)
        direct = any(_overlap(path, read) for read in rule.document_paths)
        via_fact = any(
            dotted.startswith(prefix) or prefix.startswith(dotted)
            for provider in rule.fact_providers
            for prefix in PROVIDERS[provider].reads
        )
        if direct or via_fact:
            notes.append(f"{dotted.removeprefix('spec.')} {note}")
    return "; ".join(notes) or None


def _overlap(a: ManifestPath, b: tuple[str, ...]) -> bool:
    shorter = min(len(a), len(b))
    return a[:shorter] == b[:shorter]


def pick_path(target: Target, spec: str) -> ManifestPath:
    """``spec.lifecycle | spec.resources``: the first alternative present in the normalised
    document, else the first one (which then resolves to its nearest present ancestor).
    Raises ValueError for an alternative that is not a path."""
    alternatives = _alternatives(spec)
    for path in alternatives:
        if target.present(path):
            return path
    return alternatives[0]


@functools.lru_cache(maxsize=1024)
def _alternatives(spec: str) -> tuple[ManifestPath, ...]:
    return tuple(parse_path(part.strip()) for part in spec.split("|"))


def _related(entries: Sequence[dict[str, Any]], find: Find) -> Iterator[Location]:
    for entry in entries:
        document, part = entry.get("document"), entry.get("part", 0)
        if not isinstance(document, int) or not isinstance(part, int):
            continue
        target = find(str(entry.get("file")), document, part)
        if target is not None:
            path = parse_path(str(entry.get("path") or "kind"))
            yield target.location(path, entry.get("message"))
