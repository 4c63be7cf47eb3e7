"""The shell scripts a launcher runs (SkyPilot ``run`` and ``setup``, dstack ``commands``), read
into a workload: the serving engine or training launcher they start, every setting at the one
word that states it, in the file's words (``--max-model-len in `run```), and the engine's own
defaults for what the command leaves out ("vLLM default: the model's maximum context").

Commands are found by :mod:`linter.formats.cmdline.shell`, engines by
:mod:`linter.formats.cmdline.engines` and launchers by :mod:`linter.formats.cmdline.launchers`; this
module wires them to a :class:`~linter.formats.builder.WorkloadBuilder`. A command wrapped in GNU
``timeout DURATION`` (coreutils manual, "timeout invocation": suffixes s, m, h, d; options
``-s``/``--signal``, ``-k``/``--kill-after``, ``--preserve-status``, ``--foreground``, ``-v``) is
read as the command, and the duration as a runtime limit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from linter.formats.builder import WorkloadBuilder
from linter.formats.cmdline.arguments import Setting
from linter.formats.cmdline.config_files import config_sharding
from linter.formats.cmdline.engines import EngineCommand, engine_table, recognise_engine
from linter.formats.cmdline.launchers import SHARDING_FIELD, LaunchCommand, recognise_launch
from linter.formats.cmdline.launchers import catalogue as launchers_catalogue
from linter.formats.cmdline.programs import basename
from linter.formats.cmdline.shell import (
    Command,
    Env,
    Word,
    Wrappers,
    not_expanded,
    script_commands,
)
from linter.load.positions import Path
from linter.model.provenance import Origin
from linter.model.values import ValueProblem, check_value
from linter.model.workload import Profile
from linter.records import datarecord

_TIMEOUT = "timeout"
_TIMEOUT_OPTIONS_WITH_VALUE = frozenset(("-s", "--signal", "-k", "--kill-after"))
_TIMEOUT_DURATION = re.compile(r"(\d+(?:\.\d+)?)([smhd]?)\Z")
_TIMEOUT_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86_400}
_UNSET_NOTE = "unset: "


@datarecord
class Script:
    """One shell script of the document: where its string is, and its text."""

    path: Path
    text: str


@datarecord
class CommandScripts:
    """A command and the scripts its words' ``item`` indexes."""

    command: Command
    scripts: tuple[Script, ...]

    def origin(self, builder: WorkloadBuilder, word: Word) -> Origin:
        return builder.at_word(self.scripts[word.item].path, word.start, word.end)

    def span_origin(self, builder: WorkloadBuilder, first: Word, last: Word) -> Origin:
        """From the start of ``first`` to the end of ``last`` when both are in one string (a
        flag and its value), else ``last``."""
        if first.item == last.item and first.start <= last.start:
            return builder.at_word(self.scripts[first.item].path, first.start, last.end)
        return self.origin(builder, last)


@datarecord
class RuntimeLimit:
    seconds: float
    word: Word
    located: CommandScripts


@datarecord
class Reading:
    """What the scripts start: the first serving engine and the first training launch found, a
    ``timeout`` around either, and every command (for paths written in them)."""

    commands: tuple[CommandScripts, ...]
    engine: tuple[EngineCommand, CommandScripts] | None
    launch: tuple[LaunchCommand, CommandScripts] | None
    limit: RuntimeLimit | None

    def profile(self) -> Profile | None:
        """inference for an engine; fine-tuning for a launch of a fine-tuning framework (axolotl,
        torchtune, OpenRLHF, TRL's ``trl``) or one that names a model or a method; training for any
        other launch; None when neither is started."""
        if self.engine is not None:
            return "inference"
        if self.launch is None:
            return None
        launch = self.launch[0]
        framework = launch.trainer != launchers_catalogue().default_trainer
        named = "model.id" in launch.settings or "fineTuning.method" in launch.settings
        return "fine-tuning" if framework or named else "training"


def read_scripts(
    builder: WorkloadBuilder,
    shells: Sequence[Sequence[Script]],
    env: Env,
    wrappers: Wrappers | None = None,
) -> Reading:
    """Read ``shells``: each is a sequence of scripts run one after another in one shell (dstack
    ``commands``), and each shell starts afresh from ``env`` (SkyPilot ``setup``, then ``run``);
    ``wrappers`` are launch wrappers whose commands are read (Slurm's ``srun``). A reference left
    unexpanded at the bound on expansion is a problem at its word."""
    commands: list[CommandScripts] = []
    engine: tuple[EngineCommand, CommandScripts] | None = None
    launch: tuple[LaunchCommand, CommandScripts] | None = None
    limit: RuntimeLimit | None = None
    for shell in shells:
        scripts = tuple(shell)
        shell_commands = script_commands([s.text for s in scripts], env, wrappers)
        unexpanded = not_expanded(shell_commands)
        if unexpanded is not None:
            word, message = unexpanded
            builder.problem(
                CommandScripts(shell_commands[0], scripts).origin(builder, word), message
            )
        for command in shell_commands:
            located = CommandScripts(command, scripts)
            commands.append(located)
            inner, seconds, duration_word = _without_timeout(command)
            started = CommandScripts(inner, scripts)
            found_engine = recognise_engine(inner) if engine is None else None
            found_launch = None
            if engine is None and found_engine is None and launch is None:
                found_launch = recognise_launch(inner)
            if found_engine is not None:
                engine = (found_engine, started)
            if found_launch is not None:
                launch = (found_launch, started)
            if (found_engine or found_launch) and seconds is not None and duration_word:
                limit = RuntimeLimit(seconds, duration_word, located)
    return Reading(tuple(commands), engine, launch, limit)


def _without_timeout(command: Command) -> tuple[Command, float | None, Word | None]:
    """``timeout [options] DURATION command...`` -> the command, the limit and its word (a
    duration of 0 is no limit)."""
    words = command.words
    if not words or basename(words[0].text) != _TIMEOUT:
        return command, None, None
    index = 1
    while index < len(words) and words[index].text.startswith("-"):
        option = words[index].text
        index += 2 if option in _TIMEOUT_OPTIONS_WITH_VALUE else 1
    if index + 1 >= len(words):
        return command, None, None
    match = _TIMEOUT_DURATION.match(words[index].text)
    if match is None:
        return command, None, None
    seconds = float(match.group(1)) * _TIMEOUT_UNITS[match.group(2)]
    inner = Command(words[index + 1 :], command.env)
    return (inner, None, None) if seconds == 0 else (inner, seconds, words[index])


# -- applying what was read ----------------------------------------------------------------------


def workload_path(field: str) -> Path | None:
    """The normalised Workload path of a command-line field (``serving.maxContextTokens`` ->
    ``spec.serving.maxContextTokens``), or None when the Workload has no such field (launcher
    details such as ``launcher.processesPerNode``)."""
    path = ("spec", *field.split("."))
    try:
        check_value(path, None)
    except KeyError:
        return None
    except ValueProblem:
        pass
    return path


def nullable(path: Path) -> bool:
    """Whether the field at ``path`` may be left unset (None)."""
    try:
        check_value(path, None)
    except ValueProblem:
        return False
    return True


def setting_origin(builder: WorkloadBuilder, located: CommandScripts, setting: Setting) -> Origin:
    """The words a setting is written in: the flag and its value together when they are in one
    string, else whichever is known."""
    if setting.flag_word is not None and setting.value_word is not None:
        return located.span_origin(builder, setting.flag_word, setting.value_word)
    word = setting.value_word or setting.flag_word
    return located.origin(builder, word) if word is not None else builder.at(())


def setting_name(setting: Setting, where: str) -> str:
    """What the file calls a setting: ``--max-model-len in `run```, ``the model_tag argument
    in `run```."""
    if setting.flag_word is None and setting.value_word is not None:
        return f"the {setting.flag} argument in `{where}`"
    return f"{setting.flag} in `{where}`"


def apply_settings(
    builder: WorkloadBuilder,
    located: CommandScripts,
    settings: Mapping[str, Setting],
    where: str,
    env_origins: Mapping[str, tuple[Origin, str]],
) -> None:
    """Set every Workload field ``settings`` give, at its words, in the file's words. A setting
    read from an environment variable the document declares points at that declaration
    (``env_origins``: variable -> origin and what the file calls the place)."""
    for setting in settings.values():
        path = workload_path(setting.field)
        if path is None:
            continue
        declared = env_origins.get(setting.flag)
        if declared is not None and setting.flag_word is None and setting.value_word is None:
            origin, place = declared
            builder.set(path, setting.value, origin, name=f"{setting.flag} in `{place}`")
            continue
        origin = setting_origin(builder, located, setting)
        builder.set(path, setting.value, origin, name=setting_name(setting, where))


def apply_engine(
    builder: WorkloadBuilder,
    found: tuple[EngineCommand, CommandScripts],
    where: str,
    env_origins: Mapping[str, tuple[Origin, str]],
) -> None:
    """The serving settings of an engine command; for each field the command leaves unset, the
    engine's default (the flag table's ``default``, or what its ``unset:`` note says) with a note
    naming the engine, and the flag's name for messages. Values the engine would refuse are
    findings at their word."""
    engine, located = found
    apply_settings(builder, located, engine.settings, where, env_origins)
    for problem in engine.problems:
        word = problem.word
        origin = located.origin(builder, word) if word is not None else builder.at(())
        builder.problem(origin, problem.message)
    table = engine_table(engine.engine)
    launched = located.origin(builder, engine.program) if engine.program else builder.at(())
    handled = {*engine.settings, *engine.unresolved}
    for flag in table.flags:
        path = workload_path(flag.field) if flag.field else None
        if path is None or flag.field in handled or builder.has(path):
            continue
        handled.add(flag.field or "")
        name = f"{flag.names[0]} in `{where}`"
        if flag.default is not None:
            note = f"{table.title} default: {flag.names[0]} {_shown(flag.default)}"
            _default_at(builder, path, flag.default, launched, note, name)
        elif flag.note and flag.note.startswith(_UNSET_NOTE) and nullable(path):
            unset = flag.note[len(_UNSET_NOTE) :].split(";")[0]
            _default_at(builder, path, None, launched, f"{table.title} default: {unset}", name)
        else:
            builder.call(path, name)
    for setting in engine.unresolved.values():
        path = workload_path(setting.field)
        if path is not None:
            words = ", ".join(setting.value_word.missing) if setting.value_word else "?"
            builder.call(path, f"{setting_name(setting, where)} (from {words}, not known here)")


def _default_at(
    builder: WorkloadBuilder, path: Path, value: object, origin: Origin, note: str, name: str
) -> None:
    """A value the program decides, pointing at the command that leaves it out."""
    builder.set(path, value, replace(origin, kind="default", note=note), name=name)


def _shown(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def apply_launch(
    builder: WorkloadBuilder,
    found: tuple[LaunchCommand, CommandScripts],
    where: str,
    env_origins: Mapping[str, tuple[Origin, str]],
) -> None:
    """The model and fine-tuning settings of a training launch (checkpoints are read with the
    document's mounts: :mod:`linter.formats.cmdline.checkpoints`; nodes are the launcher
    platform's)."""
    launch, located = found
    wanted = {
        field: setting
        for field, setting in launch.settings.items()
        if not field.startswith(("checkpointing.", "resources."))
    }
    apply_settings(builder, located, wanted, where, env_origins)
    _config_sharding(builder, launch, located, where)
    for problem in launch.problems:
        word = problem.word
        origin = located.origin(builder, word) if word is not None else builder.at(())
        builder.problem(origin, problem.message)


def _config_sharding(
    builder: WorkloadBuilder, launch: LaunchCommand, located: CommandScripts, where: str
) -> None:
    """The sharding a DeepSpeed or accelerate config file in the repository says, over what its
    name suggested (a sharding flag on the command still wins)."""
    found, reads = config_sharding(launch.settings, builder.file.fs_path)
    builder.read(*reads)
    if found is None:
        return
    current = launch.settings.get(SHARDING_FIELD)
    if current is not None and current.value_word is not found.setting.value_word:
        return
    origin = setting_origin(builder, located, found.setting)
    name = f"{found.key} in {found.setting.value} ({setting_name(found.setting, where)})"
    builder.set(("spec", *SHARDING_FIELD.split(".")), found.value, origin, name=name)


def apply_limit(builder: WorkloadBuilder, limit: RuntimeLimit | None, where: str) -> None:
    """A ``timeout`` around the engine or launcher: the longest the job runs."""
    if limit is None:
        return
    hours = limit.seconds / 3600
    origin = limit.located.origin(builder, limit.word)
    builder.set("spec.lifecycle.maxRuntimeHours", hours, origin, name=f"`timeout` in `{where}`")
