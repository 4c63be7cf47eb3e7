"""sbatch's options (``data/slurm.yaml``, from SchedMD's ``slurm_opt.c``) and the directives a
script's arguments make with them, read as ``getopt_long`` reads them: ``--name=value``,
``--name value`` for an option that requires one, a unique prefix of a long name
(``--gpus-per-n=8``), ``-Xvalue`` and ``-X value``. An unknown option or an argument that is not
an option is where sbatch stops reading the script ("Invalid directive"): a problem, and nothing
after it is read. The last occurrence of an option is the one that counts."""

from __future__ import annotations

import functools
from dataclasses import field
from typing import Literal

from linter.catalog.base import Catalogue, Record, SourceRef
from linter.declared import Field
from linter.formats.platforms import Quantity
from linter.formats.vocabulary import read_vocabulary
from linter.load.positions import Span
from linter.load.sbatch import Argument
from linter.records import datarecord

Takes = Literal["required", "optional", "none"]


class Option(Record):
    name: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    arg: Takes
    short: str | None = Field(None, pattern=r"^[A-Za-z]$")


class SlurmVocabulary(Catalogue):
    node_local_paths: list[str] = Field(min_length=1)
    node_local_source: SourceRef
    signal_default_seconds: int = Field(ge=0)
    env_source: SourceRef
    env: dict[str, Quantity]
    options_source: SourceRef
    options: list[Option] = Field(min_length=1)
    srun_options_source: SourceRef
    srun_options: list[Option]

    @functools.cached_property
    def longs(self) -> dict[str, Option]:
        return {option.name: option for option in self.options}

    @functools.cached_property
    def shorts(self) -> dict[str, Option]:
        return {option.short: option for option in self.options if option.short}

    @functools.cached_property
    def taking_value(self) -> frozenset[str]:
        """The words (``--nodes``, ``-N``) after which the next word is the value: how an
        ``srun`` line's own options are skipped to its command."""
        required = [o for o in (*self.options, *self.srun_options) if o.arg == "required"]
        return frozenset(
            [f"--{o.name}" for o in required] + [f"-{o.short}" for o in required if o.short]
        )


@functools.cache
def vocabulary() -> SlurmVocabulary:
    """The data file, read once (packaged and validated by the tests)."""
    return read_vocabulary("slurm.yaml", SlurmVocabulary)


@datarecord
class Directive:
    option: str  # the long name: gres, gpus-per-node, time
    value: str | None
    written: str  # as written: "--gres=gpu:8", "-N 2"
    span: Span
    index: int  # of the argument that names the option


@datarecord(frozen=False)
class Directives:
    found: list[Directive] = field(default_factory=list)
    problems: list[tuple[Span, str]] = field(default_factory=list)

    def last(self, option: str) -> Directive | None:
        """The directive that takes effect (getopt reads them in order: the last one wins)."""
        return next((d for d in reversed(self.found) if d.option == option), None)


def read_directives(arguments: list[Argument]) -> Directives:
    out = Directives()
    index = 0
    while index < len(arguments):
        at = index
        option, given, problem = _option(arguments[index].text)
        index += 1
        if option is None or problem is not None:
            if problem is not None:
                out.problems.append((arguments[at].span, problem))
            if option is None:
                return out  # sbatch stops reading at it
            continue
        text, span = arguments[at].text, arguments[at].span
        if given is None and option.arg == "required":
            if index >= len(arguments):
                out.problems.append((span, f"{text} needs a value"))
                return out
            given, span = arguments[index].text, _joined(span, arguments[index].span)
            text = f"{text} {given}"
            index += 1
        out.found.append(Directive(option.name, given, text, span, at))
    return out


def _option(text: str) -> tuple[Option | None, str | None, str | None]:
    """The option an argument names, the value it carries (``--x=v``, ``-Xv``), and a problem:
    with no option, sbatch stops at the argument; with one, the argument is dropped."""
    words = vocabulary()
    if text.startswith("--") and len(text) > 2:
        name, equals, value = text[2:].partition("=")
        option = words.longs.get(name)
        if option is None:
            matches = [o for o in words.options if o.name.startswith(name)]
            if len(matches) != 1:
                what = "ambiguous" if matches else "unknown"
                return None, None, f"{what} option --{name}: sbatch stops here"
            option = matches[0]
        if equals and option.arg == "none":
            return option, None, f"--{option.name} takes no value"
        return option, value if equals else None, None
    if text.startswith("-") and len(text) > 1:
        option = words.shorts.get(text[1])
        if option is None:
            return None, None, f"unknown option {text[:2]}: sbatch stops here"
        return option, text[2:] or None, None
    return None, None, f"{text!r} is not an option: sbatch rejects the script (Invalid directive)"


def _joined(first: Span, second: Span) -> Span:
    """An option and its value: one span when they are on one line."""
    if first.line == second.line:
        return Span(first.line, first.column, second.end_line, second.end_column)
    return first
