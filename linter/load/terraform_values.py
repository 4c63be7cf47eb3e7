"""The values of a Terraform module's expressions, as far as Terraform knows them before it plans.

Computed: literals, templates, ``var.*`` (a ``.tfvars`` file Terraform loads by itself first, then
the variable's default), ``local.*``, an argument written in another block of the module
(``azurerm_cognitive_account.chat.location``), the ``each``/``count``/``dynamic`` iterators of the
instance being read, operators, conditionals and a few pure functions. Everything else (an
attribute known only after apply such as ``.id``, a data source, a module output, a ``for``
expression, a template directive, a function not listed here) is :class:`Unknown` with the
reason, never a guess.

A module is hostile input once values are computed, so evaluation is bounded: it nests at most
``MAX_EVAL_DEPTH`` calls, one document costs at most ``EVAL_BUDGET`` steps, a value holds at most
``MAX_VALUE_SIZE`` characters and items (40 locals each doubling the next would otherwise reach
2^40 bytes), and a reference cycle (``local.a = local.a``) is an unknown that says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import field
from typing import Any

from linter.load import hcl
from linter.load.positions import Span
from linter.records import datarecord

MAX_EVAL_DEPTH = 150
EVAL_BUDGET = 200_000
MAX_VALUE_SIZE = 1_000_000
_NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][+-]?\d+)?\Z")


@datarecord(slots=True)
class Unknown:
    """A value not known before apply (or not computed by gpulint), and why."""

    reason: str


@datarecord(slots=True)
class ValueOrigin:
    """A place a value came through: ``what`` names it (``default of variable "region"``)."""

    file: str
    span: Span
    what: str


@datarecord(slots=True)
class Value:
    value: Any  # str | int | float | bool | None | list | dict | Unknown
    via: tuple[ValueOrigin, ...] = ()


@datarecord(frozen=False)
class Module:
    """The parsed files of one module: what expressions may refer to."""

    variables: dict[str, tuple[str, hcl.Block]] = field(default_factory=dict)
    locals: dict[str, tuple[str, hcl.Attribute]] = field(default_factory=dict)
    tfvars: dict[str, tuple[str, hcl.Attribute]] = field(default_factory=dict)
    #: ("resource" | "data", type, name) and ("provider", name, alias or "") -> file and block
    blocks: dict[tuple[str, str, str], tuple[str, hcl.Block]] = field(default_factory=dict)


def size(value: Any) -> int:
    """Characters and items of a computed value, counted iteratively (stops past the bound)."""
    total, stack = 0, [value]
    while stack and total <= MAX_VALUE_SIZE:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, list):
            total += len(item)
            stack.extend(item)
        elif isinstance(item, dict):
            total += len(item)
            stack.extend(item.keys())
            stack.extend(item.values())
        else:
            total += 1
    return total


def unknown_in(value: Any) -> Unknown | None:
    """The first unknown inside a value, if any."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Unknown):
            return item
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return None


def to_string(value: Any) -> Any:
    """Terraform's conversion to a string (a number prints without a trailing ``.0``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(int(value)) if float(value).is_integer() else repr(value)
    if isinstance(value, str):
        return value
    if isinstance(value, Unknown):
        return value
    return Unknown("a collection where a string is expected")


def to_number(value: Any) -> Any:
    """Terraform's conversion to a number: ``"1"`` is 1 (a variable typed string, or a string
    written where a number is wanted, is converted the same way)."""
    if isinstance(value, bool):
        return Unknown("a bool where a number is expected")
    if isinstance(value, (int, float, Unknown)):
        return value
    if isinstance(value, str) and _NUMBER.match(value.strip()):
        text = value.strip()
        number = float(text)
        integral = number.is_integer() and "." not in text and "e" not in text.lower()
        return int(number) if integral else number
    return Unknown(f"{value!r} is not a number")


def _lookup(args: list[Any]) -> Any:
    if len(args) in (2, 3) and isinstance(args[0], dict) and isinstance(args[1], str):
        if args[1] in args[0]:
            return args[0][args[1]]
        return args[2] if len(args) == 3 else Unknown(f"no key {args[1]!r}")
    return Unknown("lookup of something that is not a map")


def _merge(args: list[Any]) -> Any:
    merged: dict[str, Any] = {}
    for arg in args:
        if arg is None:
            continue
        if not isinstance(arg, dict):
            return Unknown("merge of something that is not a map")
        merged.update(arg)
    return merged


def _concat(args: list[Any]) -> Any:
    joined: list[Any] = []
    for arg in args:
        if not isinstance(arg, list):
            return Unknown("concat of something that is not a list")
        joined.extend(arg)
    return joined


def _distinct(items: list[Any]) -> Any:
    if not all(isinstance(item, (str, int, float, bool)) for item in items):
        return Unknown("toset() of a list of collections")
    return list(dict.fromkeys(items))


def _one(name: str, kinds: type | tuple[type, ...], compute: Callable[[Any], Any]) -> Any:
    def function(args: list[Any]) -> Any:
        if len(args) != 1 or not isinstance(args[0], kinds) or isinstance(args[0], bool):
            return Unknown(f"{name}() of an argument it does not take")
        return compute(args[0])

    return function


#: Terraform built-ins of the same name, computed when every argument is known (``try`` and
#: ``coalesce`` are evaluated lazily in :meth:`TerraformEvaluator._call`).
FUNCTIONS: dict[str, Callable[[list[Any]], Any]] = {
    "tostring": lambda a: to_string(a[0]) if len(a) == 1 else Unknown("tostring() of two"),
    "tonumber": lambda a: to_number(a[0]) if len(a) == 1 else Unknown("tonumber() of two"),
    "lower": _one("lower", str, str.lower),
    "upper": _one("upper", str, str.upper),
    "trimspace": _one("trimspace", str, str.strip),
    "length": _one("length", (str, list, dict), len),
    "tolist": _one("tolist", list, list),
    "tomap": _one("tomap", dict, dict),
    "toset": _one("toset", list, lambda items: _distinct(items)),
    "lookup": _lookup,
    "merge": _merge,
    "concat": _concat,
}


class TerraformEvaluator:
    """Evaluates the expressions of one module; ``scope`` holds the ``each``, ``count`` and
    dynamic-block iterators of the instance being read."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self.steps = 0
        self.depth = 0
        self.resolving: set[tuple[str, ...]] = set()
        self.memo: dict[tuple[str, ...], Value] = {}

    def new_document(self) -> None:
        self.steps = 0

    def evaluate(self, expr: hcl.Expr, file: str, scope: Mapping[str, Any]) -> Value:
        self.steps += 1
        if self.steps > EVAL_BUDGET:
            return Value(Unknown("evaluation budget exceeded"))
        if self.depth >= MAX_EVAL_DEPTH:
            return Value(Unknown("nested too deeply to evaluate"))
        self.depth += 1
        try:
            result = self._evaluate(expr, file, scope)
        finally:
            self.depth -= 1
        if not isinstance(result.value, Unknown) and size(result.value) > MAX_VALUE_SIZE:
            return Value(Unknown("value too large"), result.via)
        return result

    def _evaluate(self, expr: hcl.Expr, file: str, scope: Mapping[str, Any]) -> Value:
        if isinstance(expr, hcl.HclLiteral):
            return Value(expr.value)
        if isinstance(expr, hcl.HclTemplate):
            return self._template(expr, file, scope)
        if isinstance(expr, hcl.TupleExpr):
            items = [self.evaluate(item, file, scope) for item in expr.items]
            return Value([item.value for item in items], _via(items))
        if isinstance(expr, hcl.ObjectExpr):
            return self._object(expr, file, scope)
        if isinstance(expr, hcl.Traversal):
            return self._traversal(expr, file, scope)
        if isinstance(expr, hcl.Postfix):
            target = self.evaluate(expr.target, file, scope)
            return self._steps(target, expr.steps, file, scope)
        if isinstance(expr, hcl.Operation):
            return self._operation(expr, file, scope)
        if isinstance(expr, hcl.HclCall):
            return self._call(expr, file, scope)
        return Value(Unknown("a for expression"))

    def _object(self, expr: hcl.ObjectExpr, file: str, scope: Mapping[str, Any]) -> Value:
        result: dict[str, Any] = {}
        values: list[Value] = []
        for key_expr, value_expr in expr.items:
            if isinstance(key_expr, hcl.Traversal) and not key_expr.steps:
                key: Any = key_expr.root  # a bare identifier key is the name itself
            else:
                key = self.evaluate(key_expr, file, scope).value
            if not isinstance(key, str):
                return Value(Unknown("an object key that is not a known string"))
            value = self.evaluate(value_expr, file, scope)
            result[key] = value.value
            values.append(value)
        return Value(result, _via(values))

    def _template(self, expr: hcl.HclTemplate, file: str, scope: Mapping[str, Any]) -> Value:
        if expr.directive:
            return Value(Unknown("a template with %{} directives"))
        if len(expr.parts) == 1 and not isinstance(expr.parts[0], str) and not expr.heredoc:
            return self.evaluate(expr.parts[0], file, scope)  # "${x}" is x, of its own type
        pieces: list[str] = []
        values: list[Value] = []
        total = 0
        for part in expr.parts:
            if not isinstance(part, str):
                value = self.evaluate(part, file, scope)
                values.append(value)
                part = to_string(value.value)
                if isinstance(part, Unknown):
                    return Value(part, _via(values))
            pieces.append(part)
            total += len(part)
            if total > MAX_VALUE_SIZE:
                return Value(Unknown("value too large"))
        return Value("".join(pieces), _via(values))

    def _traversal(self, expr: hcl.Traversal, file: str, scope: Mapping[str, Any]) -> Value:
        root, steps = expr.root, list(expr.steps)
        if root in scope:
            return self._steps(Value(scope[root]), steps, file, scope)
        if root in ("var", "local") and steps and isinstance(steps[0], str):
            return self._steps(self._named(root, steps[0]), steps[1:], file, scope)
        if root in ("path", "terraform"):
            return Value(Unknown(f"{root}.* is known only when Terraform runs"))
        if root in ("data", "module"):
            return Value(Unknown(f"{text_of(expr)} is known only after planning or apply"))
        if steps and isinstance(steps[0], str):
            return self._argument_of(root, steps[0], steps[1:], expr)
        return Value(Unknown(f"{text_of(expr)} is not a value of this module"))

    def _named(self, kind: str, name: str) -> Value:
        key = (kind, name)
        memo = self.memo.get(key)
        if memo is not None:
            return memo
        if key in self.resolving:
            return Value(Unknown(f"{kind}.{name} refers to itself"))
        self.resolving.add(key)
        try:
            result = self._resolve_named(kind, name)
        finally:
            self.resolving.discard(key)
        self.memo[key] = result
        return result

    def _resolve_named(self, kind: str, name: str) -> Value:
        module = self.module
        if kind == "local":
            found = module.locals.get(name)
            if found is None:
                return Value(Unknown(f"local.{name} is not declared"))
            where, attribute = found
            value = self.evaluate(attribute.expr, where, {})
            origin = ValueOrigin(where, attribute.name_span, f"local {name}")
            return Value(value.value, (origin, *value.via))
        given = module.tfvars.get(name)
        if given is not None:
            where, attribute = given
            value = self.evaluate(attribute.expr, where, {})
            origin = ValueOrigin(where, attribute.name_span, f'variable "{name}" in {where}')
            return Value(value.value, (origin, *value.via))
        declared = module.variables.get(name)
        if declared is None:
            return Value(Unknown(f"var.{name} is not declared"))
        where, block = declared
        default = block.body.attributes.get("default")
        if default is None:
            reason = f"var.{name} has no default: it is set where the module is used"
            return Value(
                Unknown(reason), (ValueOrigin(where, block.type_span, f'variable "{name}"'),)
            )
        value = self.evaluate(default.expr, where, {})
        origin = ValueOrigin(where, default.name_span, f'default of variable "{name}"')
        return Value(value.value, (origin, *value.via))

    def argument(self, type_: str, name: str, attribute: str) -> Value | None:
        """The argument ``attribute`` as written in block ``type_.name`` of the module, computed
        outside any instance; None when the block or the argument is not written."""
        found = self.module.blocks.get(("resource", type_, name))
        if found is None:
            return None
        where, block = found
        written = block.body.attributes.get(attribute)
        if written is None:
            return None
        key = ("argument", type_, name, attribute)
        if key in self.resolving:
            return Value(Unknown(f"{type_}.{name}.{attribute} refers to itself"))
        self.resolving.add(key)
        try:
            value = self.evaluate(written.expr, where, {})
        finally:
            self.resolving.discard(key)
        origin = ValueOrigin(where, written.name_span, f"{attribute} of {type_}.{name}")
        return Value(value.value, (origin, *value.via))

    def _argument_of(self, type_: str, name: str, rest: list[Any], expr: hcl.Traversal) -> Value:
        """``aws_x.y.arg``: the argument as written in that block, when it does not depend on
        the instance (an index after the name is passed over only then)."""
        if rest and not isinstance(rest[0], str):
            rest = rest[1:]  # aws_x.y[0].arg: the same for every instance, if instance-free
        if not rest or not isinstance(rest[0], str):
            return Value(Unknown(f"{text_of(expr)} is known only after apply"))
        value = self.argument(type_, name, rest[0])
        if value is None:
            return Value(Unknown(f"{text_of(expr)} is known only after apply"))
        if isinstance(value.value, Unknown) and value.value.reason.startswith(("each", "count")):
            return Value(Unknown(f"{text_of(expr)} differs between instances"))
        return self._steps(value, rest[1:], "", {})

    def _steps(self, base: Value, steps: list[Any], file: str, scope: Mapping[str, Any]) -> Value:
        value = base.value
        values = [base]
        for step in steps:
            if isinstance(value, Unknown):
                break
            if step == "*":
                return Value(Unknown("a splat expression"), _via(values))
            if isinstance(step, str):
                key: Any = int(step) if step.isdigit() and isinstance(value, list) else step
            else:
                index = self.evaluate(step, file, scope)
                values.append(index)
                key = index.value
                if isinstance(key, Unknown):
                    return Value(key, _via(values))
            value = _element(value, key)
        return Value(value, _via(values))

    def _operation(self, expr: hcl.Operation, file: str, scope: Mapping[str, Any]) -> Value:
        if expr.op == "?:":
            condition = self.evaluate(expr.operands[0], file, scope)
            if not isinstance(condition.value, bool):
                reason = condition.value
                if not isinstance(reason, Unknown):
                    reason = Unknown("a condition that is not a bool")
                return Value(reason, condition.via)
            chosen = self.evaluate(expr.operands[1 if condition.value else 2], file, scope)
            return Value(chosen.value, condition.via + chosen.via)
        values = [self.evaluate(operand, file, scope) for operand in expr.operands]
        for value in values:
            if isinstance(value.value, Unknown):
                return Value(value.value, _via(values))
        return Value(_apply(expr.op, [value.value for value in values]), _via(values))

    def _call(self, expr: hcl.HclCall, file: str, scope: Mapping[str, Any]) -> Value:
        if expr.name in ("try", "coalesce"):
            for arg in expr.args:
                value = self.evaluate(arg, file, scope)
                known = not isinstance(value.value, Unknown)
                if known and (expr.name == "try" or value.value not in (None, "")):
                    return value
                if expr.name == "try":
                    return Value(Unknown("try() whose first choice is not known"), value.via)
            return Value(Unknown(f"{expr.name}() of unknown values"))
        function = FUNCTIONS.get(expr.name)
        if function is None or expr.expand:
            return Value(Unknown(f"function {expr.name}() is not computed by gpulint"))
        if not expr.args:
            return Value(Unknown(f"{expr.name}() without arguments"))
        values = [self.evaluate(arg, file, scope) for arg in expr.args]
        for value in values:
            missing = unknown_in(value.value)
            if missing is not None:
                return Value(missing, _via(values))
        return Value(function([value.value for value in values]), _via(values))


def _element(value: Any, key: Any) -> Any:
    if isinstance(value, dict) and isinstance(key, str) and key in value:
        return value[key]
    if (
        isinstance(value, list)
        and isinstance(key, (int, float))
        and not isinstance(key, bool)
        and 0 <= int(key) < len(value)
    ):
        return value[int(key)]
    if value is None:
        return Unknown("an attribute of null")
    return Unknown(f"no element {key!r}")


def _apply(op: str, args: list[Any]) -> Any:
    if op == "!":
        return (not args[0]) if isinstance(args[0], bool) else Unknown("! of a non-bool")
    if op == "neg":
        number = to_number(args[0])
        return -number if not isinstance(number, Unknown) else number
    left, right = args
    if op in ("==", "!="):
        return (left == right) == (op == "==")
    if op in ("&&", "||"):
        if not isinstance(left, bool) or not isinstance(right, bool):
            return Unknown(f"{op} of non-bools")
        return (left and right) if op == "&&" else (left or right)
    a, b = to_number(left), to_number(right)
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return Unknown(f"{op} of non-numbers")
    if op in ("/", "%") and b == 0:
        return Unknown("division by zero")
    arithmetic: dict[str, Callable[[Any, Any], Any]] = {
        "+": lambda x, y: x + y,
        "-": lambda x, y: x - y,
        "*": lambda x, y: x * y,
        "/": lambda x, y: x / y,
        "%": lambda x, y: x % y,
        "<": lambda x, y: x < y,
        ">": lambda x, y: x > y,
        "<=": lambda x, y: x <= y,
        ">=": lambda x, y: x >= y,
    }
    result = arithmetic[op](a, b)
    if isinstance(result, (int, float)) and not isinstance(result, bool) and abs(result) > 1e15:
        return Unknown("a number too large")
    return result


def _via(values: list[Value]) -> tuple[ValueOrigin, ...]:
    seen: dict[ValueOrigin, None] = {}
    for value in values:
        for origin in value.via:
            seen.setdefault(origin)
    return tuple(seen)


def text_of(expr: hcl.Traversal) -> str:
    """A traversal as written, indices elided: ``aws_x.y[...].arg``."""
    parts = [expr.root]
    for step in expr.steps:
        parts.append("[*]" if step == "*" else f".{step}" if isinstance(step, str) else "[...]")
    return "".join(parts)
