"""Resumable checkpoints from what a launcher file says: the storage it mounts on the node and
the training command's flags.

A checkpoint outlives a preempted node only when it is written under a mount whose storage
outlives the node (a bucket mounted read-write, a network volume); a directory on the node's own
disk, or under a bucket that is only copied to the node, is lost with it. The training command
says where it writes (its trainer's checkpoint flag: ``--output_dir``, ``--ckpt_path``,
``output_dir=``; or, for a script gpulint does not know, a flag whose name says so, such as
``--save-dir /ckpt``), whether saving is on (``--save_steps -1`` turns it off; a trainer's own
default where it has one, such as OpenRLHF's ``--save_steps -1``), and whether it resumes
(``--resume_from_checkpoint``); without a resume flag it starts from step zero.

A trainer's config file in the repository (``axolotl train config.yml``, ``llamafactory-cli
train sft.yaml``) is read for the same settings under the trainer's own names (its table's
options without their dashes: ``output_dir``, ``save_steps``, ``save_strategy``,
``auto_resume_from_checkpoints``); the command's flags override it, as the trainers do.

What a file gpulint does not read decides is unknown, not absent: a training script it does not
know (``python train.py``, ``bash finetune.sh``; the script may save and resume by itself) and a
trainer's config file outside the repository are named in ``checkpointing.decidedIn``, and the
trainer's defaults are not assumed for what they may set.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from linter.formats.builder import WorkloadBuilder
from linter.formats.cmdline.arguments import parse_value
from linter.formats.cmdline.config_files import read_config
from linter.formats.cmdline.launchers import (
    CONFIG_FIELD,
    LaunchCommand,
    deciding_file,
    trainer_table,
)
from linter.formats.cmdline.programs import program
from linter.formats.cmdline.scripts import CommandScripts, Reading, setting_name, setting_origin
from linter.formats.cmdline.shell import Word
from linter.model.provenance import Origin
from linter.records import datarecord

_URI = "checkpointing.uri"
_ENABLED = "checkpointing.enabled"
_RESUME = "checkpointing.resumeFromLatest"
_SHELLS = frozenset(("bash", "sh"))
_SHELL_SCRIPT = ".sh"


@datarecord
class Mount:
    """Storage mounted on the node. ``storage`` is what outlives the node (``s3://bucket/run``,
    ``network volume ckpt``), None when nothing does (a bucket copied to the node, an instance
    volume); ``written`` is how the file names the mount (``file_mounts /ckpt``)."""

    path: str
    storage: str | None
    origin: Origin
    written: str


@datarecord
class Where:
    """How the file names the places checkpoints involve."""

    script: str  # the scripts' key: run, commands
    storage: str  # durable storage the format offers: "a bucket in `file_mounts` (mode: MOUNT)"


def under(path: str, mounts: Sequence[Mount]) -> tuple[Mount, str] | None:
    """The mount holding ``path`` (the deepest one) and the rest of the path below it."""
    if not path.startswith("/"):
        return None
    normal = posixpath.normpath(path)
    best: tuple[Mount, str] | None = None
    for mount in mounts:
        root = posixpath.normpath(mount.path)
        inside = normal == root or normal.startswith(root.rstrip("/") + "/")
        if inside and (best is None or len(root) > len(posixpath.normpath(best[0].path))):
            best = (mount, normal[len(root) :].lstrip("/"))
    return best


def _joined(storage: str, rest: str) -> str:
    return f"{storage.rstrip('/')}/{rest}" if rest else storage


def apply_checkpoints(
    builder: WorkloadBuilder,
    reading: Reading,
    mounts: Sequence[Mount],
    where: Where,
    hints: Sequence[str],
) -> None:
    """Set ``spec.checkpointing`` from the training command and the mounts, and name its fields
    in the file's words for the fields that stay unset."""
    launch = reading.launch
    evidence = _from_flags(builder, launch, mounts, where)
    read = _from_config(builder, launch, mounts, where) if launch is not None else None
    evidence = evidence or read
    if evidence is None:
        evidence = _from_paths(builder, reading, mounts, where, hints)
    if evidence is not None:
        builder.place("spec.checkpointing", evidence)
    unread = read is None and _decided_in(builder, reading, where)
    _enabled(builder, launch, evidence, where)
    _resume(builder, launch, where, unread)
    if evidence is None:
        flag = _flag_of(launch, _URI) or "--output_dir"
        builder.call(
            "spec.checkpointing.uri",
            f"a checkpoint directory ({flag} in `{where.script}`) on {where.storage}",
        )
    builder.call("spec.checkpointing", f"checkpoints written by the command in `{where.script}`")


def _from_flags(
    builder: WorkloadBuilder,
    launch: tuple[LaunchCommand, CommandScripts] | None,
    mounts: Sequence[Mount],
    where: Where,
) -> Origin | None:
    """The trainer's own checkpoint flag: its storage when a durable mount holds it."""
    setting = launch[0].settings.get(_URI) if launch is not None else None
    if launch is None or setting is None or not isinstance(setting.value, str):
        return None
    located = launch[1]
    path = setting.value
    origin = setting_origin(builder, located, setting)
    written = f"{setting.flag} {path} in `{where.script}`"
    found = under(path, mounts)
    if found is not None and found[0].storage is not None:
        mount, rest = found
        uri = _joined(found[0].storage, rest)
        builder.set("spec.checkpointing.uri", uri, origin, name=f"{written}, on {mount.written}")
    elif found is not None:
        builder.call(
            "spec.checkpointing.uri",
            f"{written}, on {found[0].written}, which does not outlive the node: "
            f"use {where.storage}",
        )
    else:
        builder.call(
            "spec.checkpointing.uri",
            f"{written}, on the node's own disk: use {where.storage}",
        )
    return origin


def _from_config(
    builder: WorkloadBuilder,
    launch: tuple[LaunchCommand, CommandScripts],
    mounts: Sequence[Mount],
    where: Where,
) -> Origin | None:
    """The checkpoint settings of the trainer's config file when it is in the repository, for
    what the command's flags leave unsaid; the config's word in the command is where they point.
    None when there is no such file to read."""
    command, located = launch
    config = command.settings.get(CONFIG_FIELD)
    word = config.value_word if config is not None else None
    if word is None or word.unresolved:
        return None
    found = read_config(word.text, builder.file.fs_path)
    if found is None:
        return None
    read, data = found
    builder.read(read)
    at_config = located.origin(builder, word)
    table = trainer_table(command.trainer)
    keys = _flattened(data)
    for flag in table.flags:
        if flag.field not in (_URI, _ENABLED, _RESUME) or flag.field in command.settings:
            continue
        key = next((n.lstrip("-") for n in flag.names if n.lstrip("-") in keys), None)
        if key is None or keys[key] is None:
            continue
        value = parse_value(flag, table, _text(keys[key]))
        if not isinstance(value, (bool, str)):
            continue
        name = f"{key} in {word.text} (named in `{where.script}`)"
        if flag.field == _URI and isinstance(value, str):
            _config_uri(builder, value, mounts, at_config, name, where)
        elif flag.field != _URI and not builder.has(f"spec.{flag.field}"):
            builder.set(f"spec.{flag.field}", value, at_config, name=name)
    return at_config


def _config_uri(
    builder: WorkloadBuilder,
    path: str,
    mounts: Sequence[Mount],
    origin: Origin,
    name: str,
    where: Where,
) -> None:
    """Where the config file has checkpoints written: durable only under a mount that outlives
    the node."""
    found = under(path, mounts)
    if found is not None and found[0].storage is not None:
        mount, rest = found
        uri = _joined(mount.storage or "", rest)
        builder.set("spec.checkpointing.uri", uri, origin, name=f"{name}, on {mount.written}")
    else:
        on = found[0].written if found is not None else "the node's own disk"
        builder.call("spec.checkpointing.uri", f"{name}, on {on}: use {where.storage}")


def _flattened(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """A config's keys as the trainers' ``key=value`` overrides write them
    (``checkpointer.output_dir``)."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(_flattened(value, f"{dotted}."))
        else:
            out[dotted] = value
    return out


def _text(value: Any) -> str:
    """A YAML value as it would be written on the command line (``true``, ``500``)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _from_paths(
    builder: WorkloadBuilder,
    reading: Reading,
    mounts: Sequence[Mount],
    where: Where,
    hints: Sequence[str],
) -> Origin | None:
    """A flag whose name says checkpoints (``--save-dir``, ``--ckpt``) pointing under a mount
    that outlives the node, in any command (a training script gpulint does not know)."""
    for located in reading.commands:
        words = located.command.words
        for index, word in enumerate(words):
            flag, value, first = _flag_and_value(words, index)
            if flag is None or not any(hint in flag.lower() for hint in hints):
                continue
            found = under(value, mounts)
            if found is None or found[0].storage is None or word.unresolved:
                continue
            mount, rest = found
            origin = located.span_origin(builder, first, word)
            name = f"{flag} {value} in `{where.script}`, on {mount.written}"
            builder.set("spec.checkpointing.uri", _joined(found[0].storage, rest), origin, name)
            builder.set("spec.checkpointing.enabled", True, origin)
            return origin
    return None


def _flag_and_value(words: Sequence[Word], index: int) -> tuple[str | None, str, Word]:
    """``--flag=value`` at ``index``, or ``--flag value`` ending at ``index``: the flag, the value
    and the word the pair starts at."""
    word = words[index]
    if word.text.startswith("-") and "=" in word.text:
        flag, _, value = word.text.partition("=")
        return flag, value, word
    previous = words[index - 1] if index else None
    if (
        previous is not None
        and previous.text.startswith("-")
        and "=" not in previous.text
        and not word.text.startswith("-")
    ):
        return previous.text, word.text, previous
    return None, "", word


def _enabled(
    builder: WorkloadBuilder,
    launch: tuple[LaunchCommand, CommandScripts] | None,
    evidence: Origin | None,
    where: Where,
) -> None:
    """Saving on or off: the command's flag, else the trainer's default when checkpoints have a
    place (OpenRLHF: --save_steps -1, off; Hugging Face Trainer: every 500 steps, on)."""
    if builder.has("spec.checkpointing.enabled"):
        return
    if launch is not None and _ENABLED in launch[0].settings:
        command, located = launch
        setting = command.settings[_ENABLED]
        origin = setting_origin(builder, located, setting)
        builder.set("spec.checkpointing.enabled", setting.value, origin)
        builder.place("spec.checkpointing", origin)
        return
    if launch is None or evidence is None:
        return
    command, located = launch
    table = trainer_table(command.trainer)
    at_program = located.origin(builder, command.program)
    for flag in table.flags:
        if flag.field == _ENABLED and flag.default is not None:
            value = parse_value(flag, table, str(flag.default))
            if isinstance(value, bool):
                note = f"{table.title}'s default: {flag.names[0]} {flag.default}"
                default = replace(at_program, kind="default", note=note)
                builder.set("spec.checkpointing.enabled", value, default)
                return
    uri_flag = _flag_of(launch, _URI) or "its output directory"
    note = f"{table.title}'s default: saves checkpoints to {uri_flag}"
    builder.set("spec.checkpointing.enabled", True, replace(evidence, kind="default", note=note))


def _decided_in(builder: WorkloadBuilder, reading: Reading, where: Where) -> bool:
    """Name the file that decides checkpointing when gpulint does not read it: the trainer's
    config file, else a training script it does not know (run by a launcher or directly, the
    first such command when no launch is recognised). Whether one was named."""
    found = _unread_file(reading)
    if found is None:
        return False
    word, located = found
    origin = located.origin(builder, word)
    name = f"{word.text} in `{where.script}`"
    builder.set("spec.checkpointing.decidedIn", word.text, origin, name=name)
    return True


def _unread_file(reading: Reading) -> tuple[Word, CommandScripts] | None:
    if reading.launch is not None:
        command, located = reading.launch
        word = deciding_file(command)
        return None if word is None else (word, located)
    for located in reading.commands:
        script = _script_run(located.command.words)
        if script is not None:
            return script, located
    return None


def _script_run(words: Sequence[Word]) -> Word | None:
    """The script a command runs: ``python train.py``, ``python -m pkg.train``, ``bash x.sh``,
    ``./x.sh``."""
    started = program(words)
    if started is None:
        return None
    if started.kind != "executable" or started.name.endswith(_SHELL_SCRIPT):
        return started.word
    if started.name in _SHELLS and started.args and not started.args[0].text.startswith("-"):
        return started.args[0]
    return None


def _resume(
    builder: WorkloadBuilder,
    launch: tuple[LaunchCommand, CommandScripts] | None,
    where: Where,
    unread: bool,
) -> None:
    """Resuming from the latest checkpoint: the command's resume flag, else the trainer's config
    file, else the trainer starts from step zero, unless a file gpulint does not read decides it."""
    resume_flag = _flag_of(launch, _RESUME)
    if launch is not None and _RESUME in launch[0].settings:
        command, located = launch
        setting = command.settings[_RESUME]
        origin = setting_origin(builder, located, setting)
        builder.set(
            "spec.checkpointing.resumeFromLatest",
            setting.value,
            origin,
            name=setting_name(setting, where.script),
        )
        return
    name = (
        f"{resume_flag} in `{where.script}`"
        if resume_flag
        else f"a resume flag on the training command in `{where.script}`"
    )
    if builder.has("spec.checkpointing.resumeFromLatest"):
        return  # the trainer's config file says it
    if launch is not None and builder.has("spec.checkpointing.enabled") and not unread:
        command, located = launch
        table = trainer_table(command.trainer)
        without = resume_flag or "a resume flag"
        note = f"{table.title}'s default: starts from step zero without {without}"
        origin = replace(located.origin(builder, command.program), kind="default", note=note)
        builder.set("spec.checkpointing.resumeFromLatest", False, origin, name=name)
        return
    builder.call("spec.checkpointing.resumeFromLatest", name)


def _flag_of(launch: tuple[LaunchCommand, CommandScripts] | None, field: str) -> str | None:
    """The trainer's first flag for a checkpoint field (``--resume_from_checkpoint``)."""
    if launch is None:
        return None
    table = trainer_table(launch[0].trainer)
    return next((f.names[0] for f in table.flags if f.field == field), None)
