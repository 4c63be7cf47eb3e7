"""Engine settings written as structured options rather than a command line: Ray Serve LLM's
``engine_kwargs`` (``max_model_len: 8192``) and production-stack's ``vllmConfig``
(``maxModelLen: 8192``, which its chart renders as ``--max-model-len``).

Each option is read as the flag it stands for, through the engine's own flag table (the same
parsing, bounds and normalisation as on a command line), so ``dtype: bfloat16`` and
``--dtype bfloat16`` mean the same and a value the engine refuses is reported in its words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from linter.formats.cmdline.arguments import read_arguments
from linter.formats.cmdline.engines import engine_table
from linter.formats.cmdline.shell import Word
from linter.formats.kubernetes.pods import Report
from linter.formats.kubernetes.scheduling import StatedValue
from linter.formats.kubernetes.settings import normalised
from linter.load.positions import Path
from linter.model.provenance import Origin
from linter.model.values import exists
from linter.records import datarecord


@datarecord
class Option:
    """One structured option: the engine flag it stands for (``--max-model-len``), its value
    as YAML wrote it, where it is, and what the file calls it."""

    flag: str
    value: Any
    origin: Origin
    name: str


@datarecord
class OptionValues:
    """What structured options set: normalised values with their origins, and the fields set to
    what the engine decides at run time (``max_model_len: auto``)."""

    values: dict[Path, StatedValue]
    undecided: frozenset[str]


def engine_options(engine: str, options: Sequence[Option], report: Report) -> OptionValues:
    """The normalised values the options set (fields the Workload has), the later option
    winning as on a command line; values the engine would refuse are reported."""
    table = engine_table(engine)
    words: list[Word] = []
    owners: list[Option] = []
    for option in options:
        flag, _ = table.lookup(option.flag)
        if flag is None or flag.field is None:
            continue
        texts = _words(option.flag, option.value, flag.type)
        if texts is None:
            report(option.origin, f"{option.name}: {option.value!r} is not a single value")
            continue
        for text in texts:
            words.append(Word(text, len(owners), 0, 0))
        owners.append(option)
    read = read_arguments(words, table)
    for problem in read.problems:
        owner = owners[problem.word.item] if problem.word is not None else None
        if owner is not None:
            report(owner.origin, problem.message.replace(problem.flag, owner.name, 1))
    out: dict[Path, StatedValue] = {}
    for setting in read.settings.values():
        path = normalised(setting.field)
        word = setting.value_word or setting.flag_word
        if setting.value is None or word is None or not exists(path):
            continue
        owner = owners[word.item]
        out[path] = StatedValue(setting.value, owner.origin, owner.name)
    auto = frozenset(field for field, setting in read.settings.items() if setting.value is None)
    return OptionValues(out, auto)


def _words(flag: str, value: Any, kind: str) -> list[str] | None:
    """The command-line words an option's value stands for (a switch: the flag or its
    negative form)."""
    if kind == "switch" and isinstance(value, bool):
        return [flag if value else "--no-" + flag.removeprefix("--")]
    if isinstance(value, bool):
        return [flag, "true" if value else "false"]
    if isinstance(value, int | float | str):
        return [flag, str(value)]
    return None
