"""Command-line arguments read against a flag table: the layer engines and launchers share.

Serving engines and training launchers parse their command lines with argparse (vLLM, SGLang,
torchrun, accelerate, TRL, OpenRLHF) or clap (TGI). What matters here is, per flag, its
spellings, whether it takes a value, how that value parses and which normalised field it sets:
that is data (``linter/formats/data/*.yaml``, each table with its source), read by this module
the way those parsers read a command line: ``--flag value`` and ``--flag=value``, the last
occurrence winning; switches, with their negative form (``--no-enforce-eager``) where the parser
has one; underscores for dashes where the parser accepts them; a value starting with ``-`` only
when it is a negative number. A flag the table does not know is ignored; it is taken to consume
the next word unless that word starts with ``-`` or the table lists the flag as a switch.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from linter.formats.shell import Variable, Word

Value = Union[int, float, bool, str, None]  # noqa: UP007 - a runtime alias

_NEGATIVE_NUMBER = re.compile(r"-\d+(\.\d*)?([eE][-+]?\d+)?\Z|-\.\d+\Z")
_INTEGER = re.compile(r"[-+]?\d+(_\d+)*\Z")
_TRUE = frozenset(("true", "yes", "y", "t", "1"))
_FALSE = frozenset(("false", "no", "n", "f", "0"))


class Record(BaseModel):
    """A record of a packaged data file: immutable, no unknown keys, no coercion."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class Source(Record):
    id: str = Field(min_length=1)
    title: str = Field(min_length=1, description="The document: page, repository path, commit.")


class Flag(Record):
    """One option of a program: its spellings and, when it matters, the field it sets."""

    names: list[str] = Field(
        min_length=1, description="Spellings, e.g. [--tensor-parallel-size, -tp]."
    )
    field: str | None = Field(None, description="Normalised field, e.g. serving.tensorParallel.")
    type: Literal["str", "int", "float", "bool", "switch", "choice"] = "str"
    choices: dict[str, str | bool | None] | None = Field(
        None, description="choice: the program's value -> the normalised one (null: unset)."
    )
    auto: list[str] = Field(
        default_factory=list, description="Values that leave the choice to the program."
    )
    suffixes: bool = Field(False, description="int: the table's size suffixes are accepted (128k).")
    lowercase: bool = False
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    many: bool = Field(False, description="Takes every following value (argparse nargs='+').")
    env: str | None = Field(None, description="Environment variable read when the flag is absent.")
    default: int | float | bool | str | None = Field(
        None, description="The program's default when it matters for sizing."
    )
    note: str | None = None


class FlagTable(Record):
    """The flags of one program, as its parser reads them."""

    title: str = Field(min_length=1, description="The program's name in messages, e.g. vLLM.")
    source: str = Field(min_length=1, description="Id of the source the table was checked against.")
    underscores: bool = Field(False, description="--max_model_len is read as --max-model-len.")
    negation: str | None = Field(None, description="Prefix of a switch's negative form: --no-.")
    suffixes: dict[str, int] = Field(default_factory=dict, description="Size suffix -> multiplier.")
    flags: list[Flag] = Field(default_factory=list)
    switches: list[str] = Field(
        default_factory=list,
        description="Other flags that take no value (so a word after them is not theirs).",
    )

    _index: dict[str, Flag] = PrivateAttr(default_factory=dict)

    def model_post_init(self, context: Any, /) -> None:
        for flag in self.flags:
            for name in flag.names:
                self._index.setdefault(self.spelling(name), flag)

    def spelling(self, name: str) -> str:
        """A flag name as the parser compares it."""
        if not self.underscores:
            return name
        stripped = name.lstrip("-")
        return name[: len(name) - len(stripped)] + stripped.replace("_", "-")

    def lookup(self, name: str) -> tuple[Flag | None, bool]:
        """The flag a spelling names, and whether it is a switch's negative form."""
        key = self.spelling(name)
        flag = self._index.get(key)
        if flag is None and self.negation and key.startswith(self.negation):
            positive = self._index.get("--" + key[len(self.negation) :])
            if positive is not None and positive.type == "switch":
                return positive, True
        return flag, False

    def is_switch(self, name: str) -> bool:
        key = self.spelling(name)
        known = {self.spelling(s) for s in self.switches}
        if key in known:
            return True
        return bool(self.negation and key.startswith(self.negation)) and (
            "--" + key[len(self.negation or "") :] in known
        )


@dataclass(frozen=True, slots=True)
class Setting:
    """A normalised field set on a command line or in the environment.

    ``value`` is None when the program is left to choose (``--dtype auto``, ``--max-model-len
    auto``) or, in ``unresolved``, when the value's word could not be resolved. ``flag`` is the
    option as written (``--max-model-len``, ``-tp``, ``MAX_TOTAL_TOKENS``, or a positional's name).
    ``flag_word`` and ``value_word`` are the words to point at: the same word for
    ``--flag=value`` and for switches; ``flag_word`` is None for a positional argument, and both
    are None for an environment variable the caller's env supplied (the adapter knows where).
    """

    field: str
    value: Value
    flag: str
    flag_word: Word | None
    value_word: Word | None


@dataclass(frozen=True, slots=True)
class ArgProblem:
    """A value the program would refuse, in its own words; the setting is left out."""

    message: str
    flag: str
    word: Word | None


@dataclass(frozen=True, slots=True)
class Arguments:
    """What a command line (or environment) says against a flag table."""

    settings: dict[str, Setting]
    unresolved: dict[str, Setting]
    problems: tuple[ArgProblem, ...]
    positionals: tuple[Word, ...]

    def over(self, base: Arguments) -> Arguments:
        """These arguments taking precedence over ``base`` (a command line over the env)."""
        settings = {k: v for k, v in base.settings.items() if k not in self.unresolved}
        settings.update(self.settings)
        unresolved = {k: v for k, v in base.unresolved.items() if k not in self.settings}
        unresolved.update(self.unresolved)
        return Arguments(
            settings, unresolved, base.problems + self.problems, base.positionals + self.positionals
        )


class _Collector:
    def __init__(self, table: FlagTable) -> None:
        self.table = table
        self.settings: dict[str, Setting] = {}
        self.unresolved: dict[str, Setting] = {}
        self.problems: list[ArgProblem] = []
        self.positionals: list[Word] = []

    def value(
        self, flag: Flag, spelling: str, raw: str, flag_word: Word | None, value_word: Word | None
    ) -> None:
        """Record ``raw`` as the value of ``flag`` (the last occurrence wins)."""
        if flag.field is None:
            return
        self.settings.pop(flag.field, None)
        self.unresolved.pop(flag.field, None)
        if value_word is not None and value_word.unresolved:
            self.unresolved[flag.field] = Setting(flag.field, None, spelling, flag_word, value_word)
            return
        parsed = parse_value(flag, self.table, raw)
        if isinstance(parsed, _Invalid):
            message = f"{self.table.title} {spelling}: {raw!r} {parsed.reason}"
            self.problems.append(ArgProblem(message, spelling, value_word))
            return
        self.settings[flag.field] = Setting(flag.field, parsed, spelling, flag_word, value_word)

    def result(self) -> Arguments:
        return Arguments(
            self.settings, self.unresolved, tuple(self.problems), tuple(self.positionals)
        )


def read_arguments(words: Sequence[Word], table: FlagTable) -> Arguments:
    """Read the words after a program's name against its flag table."""
    out = _Collector(table)
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word.text == "--":
            out.positionals.extend(words[index:])
            break
        if not _is_option(word.text):
            out.positionals.append(word)
            continue
        name, equals, inline = word.text.partition("=")
        flag, negated = table.lookup(name)
        if flag is None:
            takes_next = not equals and not table.is_switch(name)
            if takes_next and index < len(words) and not _is_option(words[index].text):
                index += 1
            continue
        if flag.type == "switch":
            if equals:
                message = f"{table.title} {name} takes no value"
                out.problems.append(ArgProblem(message, name, word))
            else:
                out.value(flag, name, "false" if negated else "true", word, word)
            continue
        if equals:
            value_word, raw = word, inline
        elif index < len(words) and not _is_option(words[index].text) and words[index].text != "--":
            value_word, raw = words[index], words[index].text
            index += 1
        else:
            out.problems.append(ArgProblem(f"{table.title} {name} expects a value", name, word))
            continue
        while flag.many and index < len(words) and not _is_option(words[index].text):
            index += 1
        out.value(flag, name, raw, word, value_word)
    return out.result()


def read_environment(env: Mapping[str, Variable], table: FlagTable) -> Arguments:
    """The flags a program reads from environment variables (TGI's ``MODEL_ID``, ...)."""
    out = _Collector(table)
    for flag in table.flags:
        if flag.env is None or flag.env not in env:
            continue
        variable = env[flag.env]
        if variable.value is None:
            if flag.field is not None:
                setting = Setting(flag.field, None, flag.env, variable.word, variable.word)
                out.settings.pop(flag.field, None)
                out.unresolved[flag.field] = setting
            continue
        out.value(flag, flag.env, variable.value, variable.word, variable.word)
    return out.result()


def _is_option(text: str) -> bool:
    return text.startswith("-") and len(text) > 1 and not _NEGATIVE_NUMBER.match(text)


# -- values ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Invalid:
    reason: str


def parse_value(flag: Flag, table: FlagTable, text: str) -> Value | _Invalid:
    """A flag's value, typed and mapped to its normalised form; None when it is an automatic
    choice; ``_Invalid`` (with the reason, in the program's terms) when the program refuses it."""
    if text in flag.auto:
        return None
    if flag.type == "choice":
        choices = flag.choices or {}
        if text in choices:
            return choices[text]
        return _Invalid("is not one of " + ", ".join(sorted([*choices, *flag.auto])))
    if flag.type in ("bool", "switch"):
        lowered = text.lower()
        if lowered in _TRUE or lowered in _FALSE:
            return lowered in _TRUE
        return _Invalid("is not true or false")
    if flag.type == "int":
        number = _integer(text, table.suffixes if flag.suffixes else {})
        if number is None:
            return _Invalid("is not a whole number" + _alternatives(flag, table))
        return _bounded(number, flag)
    if flag.type == "float":
        try:
            real = float(text)
        except ValueError:
            return _Invalid("is not a number" + _alternatives(flag, table))
        return _Invalid("is not a number") if math.isnan(real) else _bounded(real, flag)
    value = text.strip().lower() if flag.lowercase else text
    return value if value else _Invalid("is empty")


def _integer(text: str, suffixes: Mapping[str, int]) -> int | None:
    """An integer as the program reads it: digits, or a number with a size suffix when the
    table has them; a fraction only with a power-of-ten multiplier (vLLM ``human_readable_int``,
    SGLang ``human_readable_int``)."""
    text = text.strip()
    if _INTEGER.match(text):
        return int(text)
    for suffix, multiplier in sorted(suffixes.items(), key=lambda item: -len(item[0])):
        number = text[: -len(suffix)]
        if not text.endswith(suffix) or not re.fullmatch(r"\d+(\.\d+)?", number):
            continue
        if "." in number and not _is_power_of_ten(multiplier):
            return None
        try:
            return int(Decimal(number) * multiplier)
        except InvalidOperation:
            return None
    return None


def _is_power_of_ten(number: int) -> bool:
    while number > 1 and number % 10 == 0:
        number //= 10
    return number == 1


def _bounded(number: float, flag: Flag) -> Value | _Invalid:
    if flag.ge is not None and not number >= flag.ge:
        return _Invalid(f"is below {_plain(flag.ge)}")
    if flag.gt is not None and not number > flag.gt:
        return _Invalid(f"must be above {_plain(flag.gt)}")
    if flag.le is not None and not number <= flag.le:
        return _Invalid(f"is above {_plain(flag.le)}")
    return number


def _plain(number: float) -> str:
    return str(int(number)) if number == int(number) else str(number)


def _alternatives(flag: Flag, table: FlagTable) -> str:
    parts = []
    if flag.suffixes and table.suffixes:
        parts.append("a suffix " + "/".join(table.suffixes))
    parts.extend(flag.auto)
    return f" (or {', '.join(parts)})" if parts else ""
