"""Command-line arguments read against a flag table: the layer engines and launchers share.

Serving engines and training launchers parse their command lines with argparse (vLLM, SGLang,
torchrun, accelerate, DeepSpeed, TRL, OpenRLHF) or clap (TGI). What matters here is, per flag,
its spellings, whether it takes a value, how that value parses and which normalised field it
sets: that is data (``linter/formats/data/*.yaml``, each table with its source), read by this
module the way those parsers read a command line: ``--flag value`` and ``--flag=value``, the
last occurrence winning; switches, with their negative form (``--no-enforce-eager``) where the
parser has one; underscores for dashes where the parser accepts them; a unique prefix of a long
option where the parser takes abbreviations (argparse's default: ``--tensor-parallel 8`` is
``--tensor-parallel-size 8``; a prefix several known options share is reported, as argparse
refuses it; a prefix of an option the table does not list reads as an unknown flag); a value
starting with ``-`` only when it is a negative number. A flag the table does not know is
ignored; it is taken to consume the next word unless that word starts with ``-``, names a
script (``train.py``) or the table lists the flag as a switch.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any, Literal, Union

from linter.catalog.base import Record
from linter.declared import Field, PrivateAttr
from linter.formats.cmdline.shell import Variable, Word
from linter.records import datarecord

Value = Union[int, float, bool, str, None]  # noqa: UP007 - a runtime alias

_NEGATIVE_NUMBER = re.compile(r"-\d+(\.\d*)?([eE][-+]?\d+)?\Z|-\.\d+\Z")
_INTEGER = re.compile(r"[-+]?\d+(_\d+)*\Z")
_DECIMAL = re.compile(r"\d+(\.\d+)?\Z")
_TRUE = frozenset(("true", "yes", "y", "t", "1"))
_FALSE = frozenset(("false", "no", "n", "f", "0"))


class Hint(Record):
    """A name that tells something: a recipe or config named ``*qlora*`` is a QLoRA run."""

    contains: str = Field(min_length=1)
    value: str = Field(min_length=1)


class Flag(Record):
    """One option of a program: its spellings and, when it matters, the field it sets."""

    names: list[str] = Field(min_length=1, description="Spellings: [--tensor-parallel-size, -tp].")
    field: str | None = Field(None, description="Normalised field, e.g. serving.tensorParallel.")
    type: Literal[
        "str", "int", "float", "bool", "switch", "choice", "present", "above-zero", "hint"
    ] = Field(
        "str",
        description="present: true whatever the value; above-zero: a number, true when above 0 "
        "(a save interval where 0 or -1 turns saving off); hint: the flag's hints, else the "
        "table's, found in the value (a recipe or config name, an option list).",
    )
    choices: dict[str, str | bool | None] | None = Field(
        None,
        description="choice: the program's value -> the normalised one (null: unset); bool and "
        "switch: 'true'/'false' -> the normalised one.",
    )
    auto: list[str] = Field(
        default_factory=list, description="Values that leave the choice to the program."
    )
    suffixes: bool = Field(False, description="int: the table's size suffixes are accepted.")
    elastic: bool = Field(False, description="int: MIN:MAX is accepted; the value is MAX.")
    lowercase: bool = False
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    optional: bool = Field(False, description="bool: the flag alone means true.")
    many: bool = Field(False, description="Takes every following value (argparse nargs='+').")
    env: str | None = Field(None, description="Environment variable read when the flag is absent.")
    default: int | float | bool | str | None = Field(
        None, description="The program's default when it matters for sizing."
    )
    note: str | None = None
    hints: list[Hint] = Field(
        default_factory=list,
        description="hint: what a value containing each name says, first match first (--fsdp "
        "'full_shard auto_wrap' -> fsdp); empty: the table's hints.",
    )


class Positional(Record):
    """A positional argument that sets a field (vLLM's model_tag, axolotl's config file)."""

    name: str = Field(min_length=1, description="The argument's name in the engine's usage.")
    field: str
    source: str | None = None


class FlagTable(Record):
    """The flags of one program, as its parser reads them."""

    title: str = Field(min_length=1, description="The program's name in messages, e.g. vLLM.")
    source: str = Field(min_length=1, description="Id of the source the table was checked with.")
    underscores: bool = Field(False, description="--max_model_len is read as --max-model-len.")
    negation: str | None = Field(None, description="Prefix of a switch's negative form: --no-.")
    suffixes: dict[str, int] = Field(default_factory=dict, description="Size suffix: multiplier.")
    flags: list[Flag] = Field(default_factory=list)
    switches: list[str] = Field(
        default_factory=list,
        description="Other flags that take no value (so a word after them is not theirs).",
    )
    script_suffixes: list[str] = Field(
        default_factory=list,
        description="A word ending so (train.py) is never taken as an unknown flag's value.",
    )
    assignments: bool = Field(False, description="key=value words set the flag named key.")
    abbreviations: bool = Field(
        False,
        description="A unique prefix of a long option names it (argparse's allow_abbrev, its "
        "default); clap and parsers built with allow_abbrev=False leave this off. Uniqueness is "
        "judged among the table's options: a prefix the program finds ambiguous with an option "
        "the table omits is read as the listed one.",
    )
    hints: list[Hint] = Field(default_factory=list, description="For flags of type hint.")

    _index: dict[str, Flag] = PrivateAttr(default_factory=dict)
    _switches: frozenset[str] = PrivateAttr(default=frozenset())
    #: The long options, sorted: what an abbreviation may expand to.
    _long_options: tuple[str, ...] = PrivateAttr(default=())

    def model_post_init(self, context: Any, /) -> None:
        for flag in self.flags:
            for name in flag.names:
                self._index.setdefault(self.spelling(name), flag)
        self._switches = frozenset(self.spelling(name) for name in self.switches)
        known = {*self._index, *self._switches}
        self._long_options = tuple(sorted(option for option in known if option.startswith("--")))

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
        positive = self._positive(key)
        if flag is None and positive is not None:
            flag = self._index.get(positive)
            if flag is not None and flag.type == "switch":
                return flag, True
            return None, False
        return flag, False

    def expansions(self, name: str) -> list[str]:
        """The known long options (flags and switches) ``name`` abbreviates, as argparse matches
        a prefix; empty when the table takes no abbreviations or ``name`` is a whole option."""
        if not self.abbreviations:
            return []
        key = self.spelling(name)
        if not key.startswith("--") or key in self._index or key in self._switches:
            return []
        return [option for option in self._long_options if option.startswith(key)]

    def is_switch(self, name: str) -> bool:
        key = self.spelling(name)
        return key in self._switches or self._positive(key) in self._switches

    def _positive(self, key: str) -> str | None:
        if self.negation and key.startswith(self.negation):
            return "--" + key[len(self.negation) :]
        return None


@datarecord(slots=True)
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


@datarecord(slots=True)
class ArgProblem:
    """A value the program would refuse, in its own words; that setting is left out."""

    message: str
    flag: str
    word: Word | None


@datarecord(slots=True)
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
        problems = base.problems + self.problems
        return Arguments(settings, unresolved, problems, base.positionals + self.positionals)


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
        elif not isinstance(parsed, _Nothing):
            self.settings[flag.field] = Setting(flag.field, parsed, spelling, flag_word, value_word)

    def result(self) -> Arguments:
        problems = tuple(self.problems)
        return Arguments(self.settings, self.unresolved, problems, tuple(self.positionals))


def read_arguments(
    words: Sequence[Word], table: FlagTable, stop_at_positional: bool = False
) -> Arguments:
    """Read the words after a program's name against its flag table.

    With ``stop_at_positional`` (a launcher before its script), reading ends at the first
    positional word: it and every word after it are the positionals.
    """
    out = _Collector(table)
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word.text == "--":
            out.positionals.extend(words[index:])
            break
        if not _is_option(word.text):
            name, equals, inline = word.text.partition("=")
            flag = table.lookup(name)[0] if table.assignments and equals else None
            if flag is not None:
                out.value(flag, name, inline, word, word)
                continue
            out.positionals.append(word)
            if stop_at_positional:
                out.positionals.extend(words[index:])
                break
            continue
        index = _option(words, index, word, table, out)
    return out.result()


def _option(
    words: Sequence[Word], index: int, word: Word, table: FlagTable, out: _Collector
) -> int:
    """Read the option ``word`` (the words from ``index`` on follow it); the next index."""
    name, equals, inline = word.text.partition("=")
    options = table.expansions(name)
    if len(options) > 1:
        message = f"{table.title} {name} is ambiguous: it could be " + ", ".join(options)
        out.problems.append(ArgProblem(message, name, word))
    option = options[0] if len(options) == 1 else name
    flag, negated = table.lookup(option)
    following = words[index] if index < len(words) else None
    takes_following = following is not None and _is_value(following.text)
    if flag is None:
        script = following is not None and following.text.endswith(tuple(table.script_suffixes))
        switch = table.is_switch(option)
        return index + (not equals and not switch and takes_following and not script)
    if flag.type == "switch":
        if equals:
            out.problems.append(ArgProblem(f"{table.title} {name} takes no value", name, word))
        else:
            out.value(flag, name, "false" if negated else "true", word, word)
        return index
    if equals:
        out.value(flag, name, inline, word, word)
        return index
    if flag.optional and not (following is not None and _is_bool(following.text)):
        out.value(flag, name, "true", word, word)
        return index
    if following is None or not takes_following:
        out.problems.append(ArgProblem(f"{table.title} {name} expects a value", name, word))
        return index
    out.value(flag, name, following.text, word, following)
    index += 1
    while flag.many and index < len(words) and not _is_option(words[index].text):
        index += 1
    return index


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


def _is_value(text: str) -> bool:
    return not _is_option(text) and text != "--"


def _is_bool(text: str) -> bool:
    return text.lower() in _TRUE or text.lower() in _FALSE


# -- values ---------------------------------------------------------------------------------------


@datarecord(slots=True)
class _Invalid:
    reason: str


class _Nothing:
    """A value that says nothing: a name that matches no hint."""


_NOTHING = _Nothing()


def parse_value(flag: Flag, table: FlagTable, text: str) -> Value | _Invalid | _Nothing:
    """A flag's value, typed and mapped to its normalised form: None when it is an automatic
    choice, ``_Invalid`` (the reason, in the program's terms) when the program refuses it."""
    if text in flag.auto:
        return None
    if flag.type == "choice":
        choices = flag.choices or {}
        if text in choices:
            return choices[text]
        return _Invalid("is not one of " + ", ".join(sorted([*choices, *flag.auto])))
    if flag.type in ("bool", "switch"):
        if not _is_bool(text):
            return _Invalid("is not true or false")
        truth = text.lower() in _TRUE
        return truth if flag.choices is None else flag.choices.get(str(truth).lower())
    if flag.type == "present":
        return True
    if flag.type == "hint":
        found = hint(flag.hints or table.hints, text)
        return _NOTHING if found is None else found
    if flag.type == "int":
        number = _integer(text, table.suffixes if flag.suffixes else {}, flag.elastic)
        if number is None:
            return _Invalid("is not a whole number" + _alternatives(flag, table))
        return _bounded(number, flag)
    if flag.type in ("float", "above-zero"):
        real = _real(text)
        if real is None:
            return _Invalid("is not a number" + _alternatives(flag, table))
        return real > 0 if flag.type == "above-zero" else _bounded(real, flag)
    value = text.strip().lower() if flag.lowercase else text
    return value if value else _Invalid("is empty")


def hint(hints: Sequence[Hint], name: str) -> str | None:
    """What the first hint found in ``name`` says (``8B_qlora_single_device`` -> qlora)."""
    lowered = name.lower()
    return next((h.value for h in hints if h.contains in lowered), None)


def _real(text: str) -> float | None:
    try:
        real = float(text)
    except ValueError:
        return None
    return None if math.isnan(real) else real


def _integer(text: str, suffixes: Mapping[str, int], elastic: bool) -> int | None:
    """An integer as the program reads it: digits; with size suffixes when the table has them
    (a fraction only with a power-of-ten multiplier: vLLM's and SGLang's ``human_readable_int``);
    ``MIN:MAX`` when elastic (torchrun ``--nnodes``), read as MAX."""
    text = text.strip()
    if elastic and text.count(":") == 1:
        low, high = text.split(":")
        return int(high) if _INTEGER.match(low) and _INTEGER.match(high) else None
    if _INTEGER.match(text):
        return int(text)
    for suffix, multiplier in sorted(suffixes.items(), key=lambda item: -len(item[0])):
        number = text[: -len(suffix)]
        if not text.endswith(suffix) or not _DECIMAL.match(number):
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
