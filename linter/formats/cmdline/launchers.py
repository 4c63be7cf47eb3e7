"""Training launchers in commands: how many processes and nodes, which model, which fine-tuning
method, and the evidence about checkpoints (where they go, whether saving is off, whether the run
resumes).

torchrun, ``accelerate launch``, ``deepspeed`` and ``tune run`` read their own flags up to the
script, module or recipe they run; the words after it belong to the training program, read with
that program's vocabulary: OpenRLHF's (``deepspeed --module openrlhf.cli.train_sft``), axolotl's
(``accelerate launch -m axolotl.cli.train cfg.yml``), torchtune's (``key=value`` overrides) or,
for any other script, Hugging Face TrainingArguments with TRL's model flags (``python train.py
--output_dir ...``). ``axolotl train`` and ``trl sft`` are training programs started directly.
All of it is data (``linter/formats/data/launcher_flags.yaml``, with the sources checked); this
module only wires launcher to trainer and derives the fine-tuning method from its evidence.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

from linter.catalog.base import Catalogue, Record
from linter.declared import Field, model_validator
from linter.formats.cmdline.arguments import (
    ArgProblem,
    Arguments,
    FlagTable,
    Hint,
    Positional,
    Setting,
    hint,
    read_arguments,
)
from linter.formats.cmdline.programs import Entrypoint, program
from linter.formats.cmdline.shell import Command, Word
from linter.formats.vocabulary import read_vocabulary
from linter.records import datarecord

METHOD_FIELD = "fineTuning.method"
RANK_FIELD = "fineTuning.loraRank"
_FOUR_BIT_FIELD = "fineTuning.loadIn4bit"
#: The trainer's config file a launch names (``axolotl train config.yml``).
CONFIG_FIELD = "training.configFile"
SHARDING_FIELD = "fineTuning.sharding"
#: Config files that may say the sharding (by name or content): DeepSpeed's, then the launcher's.
SHARDING_CONFIGS = ("training.deepspeedConfig", "launcher.configFile")
_PYTHON = "python"


class Trainer(FlagTable):
    """The argument vocabulary of a training program."""

    name: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    modules: list[str] = Field(
        default_factory=list,
        description="Dotted module prefixes of the scripts that read this vocabulary.",
    )
    positional: Positional | None = None


class Launcher(FlagTable):
    """A program that starts training processes (or a training program started directly)."""

    name: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    entrypoints: list[Entrypoint] = Field(min_length=1)
    script: bool = Field(False, description="A script, module or recipe follows its flags.")
    module_flags: list[str] = Field(default_factory=list, description="Switches: run a module.")
    trainer: str | None = Field(
        None, description="Vocabulary of the words it passes on; none: chosen by the script."
    )
    recipe_sharding: list[Hint] = Field(
        default_factory=list, description="The sharding a recipe's name says (its default)."
    )

    @model_validator(mode="after")
    def _passes_words_on(self) -> Launcher:
        if not self.script and self.trainer is None:
            raise ValueError("a launcher without a script names the trainer of its arguments")
        return self


class ConfigKey(Record):
    """A key of a launcher's or DeepSpeed's config file that says the sharding."""

    path: str = Field(min_length=1, description="Dotted key path: zero_optimization.stage.")
    choices: dict[str, str] = Field(description="The file's value -> fineTuning.sharding.")


class LauncherCatalogue(Catalogue):
    hints: list[Hint] = Field(default_factory=list)
    sharding_hints: list[Hint] = Field(
        default_factory=list, description="The sharding a config file's name says."
    )
    config_sharding: list[ConfigKey] = Field(
        default_factory=list, description="The keys of a config file that say the sharding."
    )
    launchers: list[Launcher] = Field(min_length=1)
    trainers: list[Trainer] = Field(min_length=1)
    default_trainer: str = Field(description="The vocabulary of any other script.")


@datarecord(slots=True)
class LaunchCommand:
    """A command that starts training, read against its launcher's and trainer's tables.

    ``launcher`` is torchrun, accelerate, deepspeed, torchtune, axolotl, trl or python (a script
    or module run directly); ``trainer`` the vocabulary its arguments were read with (hf,
    openrlhf, axolotl, torchtune). ``settings``, ``unresolved`` and ``problems`` are as for
    engines (``linter.formats.cmdline.engines.EngineCommand``).
    """

    launcher: str
    trainer: str
    program: Word
    script: Word | None
    settings: Mapping[str, Setting]
    unresolved: Mapping[str, Setting]
    problems: tuple[ArgProblem, ...]


def recognise_launch(command: Command) -> LaunchCommand | None:
    """The training a command launches, or None. A Python script or module run directly counts
    only when its trainer is known or its arguments say something."""
    started = program(command.words)
    if started is None:
        return None
    for launcher in catalogue().launchers:
        for entrypoint in launcher.entrypoints:
            args = entrypoint.arguments(started)
            if args is not None:
                return _launch(launcher, started.word, args)
    if started.kind == "executable":
        return None
    trainer = _trainer_for(started.name, module=started.kind == "module")
    arguments = _trainer_arguments(trainer, started.args)
    if not trainer.modules and not arguments.settings and not arguments.unresolved:
        return None
    return _result(_PYTHON, trainer, started.word, started.word, arguments, None)


def deciding_file(launch: LaunchCommand) -> Word | None:
    """The file gpulint does not read that decides what the command leaves unsaid: the trainer's
    config file (``axolotl train config.yml``), else a script whose trainer is not known (``python
    train.py``, read with the default vocabulary)."""
    config = launch.settings.get(CONFIG_FIELD) or launch.unresolved.get(CONFIG_FIELD)
    if config is not None and config.value_word is not None:
        return config.value_word
    if launch.trainer == catalogue().default_trainer:
        return launch.script
    return None


@functools.cache
def catalogue() -> LauncherCatalogue:
    """The launchers data file, read once (packaged and validated by the tests)."""
    return read_vocabulary("launcher_flags.yaml", LauncherCatalogue)


def trainer_table(name: str) -> Trainer:
    """A trainer's entry in the data file; KeyError if unknown."""
    for trainer in catalogue().trainers:
        if trainer.name == name:
            return trainer
    raise KeyError(name)


def _launch(launcher: Launcher, program_word: Word, args: Sequence[Word]) -> LaunchCommand:
    if not launcher.script and launcher.trainer is not None:  # the validator makes it so
        trainer = trainer_table(launcher.trainer)
        arguments = _trainer_arguments(trainer, args)
        return _result(launcher.name, trainer, program_word, None, arguments, None)
    own = read_arguments(args, launcher, stop_at_positional=True)
    script = own.positionals[0] if own.positionals else None
    flags = {launcher.spelling(name) for name in launcher.module_flags}
    before = args[: len(args) - len(own.positionals)]
    module = any(launcher.spelling(word.text) in flags for word in before)
    if launcher.trainer is not None:
        trainer = trainer_table(launcher.trainer)
    else:
        trainer = _trainer_for(script.text if script else "", module)
    theirs = _trainer_arguments(trainer, own.positionals[1:])
    mine = Arguments(own.settings, own.unresolved, own.problems, ())
    named = hint(launcher.hints, script.text) if script is not None else None
    script_hint = Setting(METHOD_FIELD, named, "recipe", None, script) if named else None
    sharded = hint(launcher.recipe_sharding, script.text) if script is not None else None
    recipe = Setting(SHARDING_FIELD, sharded, "recipe", None, script) if sharded else None
    arguments = theirs.over(mine)
    return _result(launcher.name, trainer, program_word, script, arguments, script_hint, recipe)


def _trainer_arguments(trainer: Trainer, words: Sequence[Word]) -> Arguments:
    arguments = read_arguments(words, trainer)
    if trainer.positional is None or not arguments.positionals:
        return arguments
    word, field = arguments.positionals[0], trainer.positional.field
    setting = Setting(
        field, None if word.unresolved else word.text, trainer.positional.name, None, word
    )
    settings = dict(arguments.settings)
    unresolved = dict(arguments.unresolved)
    (unresolved if word.unresolved else settings).setdefault(field, setting)
    return Arguments(settings, unresolved, arguments.problems, arguments.positionals[1:])


def _trainer_for(script: str, module: bool) -> Trainer:
    """The trainer whose modules the script names (a dotted module, or a path to one), else the
    default one."""
    dotted = script if module else script.removesuffix(".py").replace("/", ".")
    padded = f".{dotted.strip('.')}."
    for trainer in catalogue().trainers:
        if any(f".{prefix}." in padded for prefix in trainer.modules):
            return trainer
    return trainer_table(catalogue().default_trainer)


def _result(
    launcher: str,
    trainer: Trainer,
    program_word: Word,
    script: Word | None,
    arguments: Arguments,
    script_hint: Setting | None,
    recipe_sharding: Setting | None = None,
) -> LaunchCommand:
    settings = dict(arguments.settings)
    method = _method(settings, trainer, script_hint)
    if method is not None:
        settings[METHOD_FIELD] = method
    sharding = _sharding(settings) or (None if SHARDING_FIELD in settings else recipe_sharding)
    if sharding is not None:
        settings[SHARDING_FIELD] = sharding
    return LaunchCommand(
        launcher,
        trainer.name,
        program_word,
        script,
        settings,
        arguments.unresolved,
        arguments.problems,
    )


def _sharding(settings: Mapping[str, Setting]) -> Setting | None:
    """The sharding a DeepSpeed or launcher config file is named for (``fsdp1.yaml``,
    ``ds_z3_config.json``), when no flag sets it: the file itself is not read."""
    if SHARDING_FIELD in settings:
        return None
    for field in SHARDING_CONFIGS:
        config = settings.get(field)
        if config is None or not isinstance(config.value, str):
            continue
        named = hint(catalogue().sharding_hints, config.value.rsplit("/", 1)[-1])
        if named is not None:
            return Setting(SHARDING_FIELD, named, config.flag, config.flag_word, config.value_word)
    return None


def _method(
    settings: Mapping[str, Setting], trainer: Trainer, script_hint: Setting | None
) -> Setting | None:
    """The fine-tuning method from its evidence, most specific first: a flag or override that
    names it, then the config's name, then the recipe's; a LoRA rank above 0 says lora; a 4-bit
    base under LoRA makes it qlora. No evidence, no method."""
    method = settings.get(METHOD_FIELD)
    config = settings.get(CONFIG_FIELD)
    if method is None and config is not None and isinstance(config.value, str):
        named = hint(trainer.hints, config.value)
        if named is not None:
            method = Setting(METHOD_FIELD, named, config.flag, config.flag_word, config.value_word)
    method = method or script_hint
    rank = settings.get(RANK_FIELD)
    if method is None and rank is not None and isinstance(rank.value, int) and rank.value > 0:
        method = Setting(METHOD_FIELD, "lora", rank.flag, rank.flag_word, rank.value_word)
    four_bit = settings.get(_FOUR_BIT_FIELD)
    if method is not None and method.value == "lora" and four_bit is not None and four_bit.value:
        method = Setting(
            METHOD_FIELD, "qlora", four_bit.flag, four_bit.flag_word, four_bit.value_word
        )
    return method
