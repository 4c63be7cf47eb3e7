"""A Slurm batch script as a ``Workload``: the GPUs, nodes, time limit, partition and requeue its
directives ask for, and what its commands run, read by the same command readers as the other
formats (``linter.formats.cmdline``: torchrun, ``accelerate launch``, deepspeed, ``python``
with Hugging Face Trainer or TRL flags, serving engines; behind ``srun`` and its options).

- GPUs per node from ``--gres=gpu[:type]:N``, ``--gpus-per-node``, ``--gpus-per-task`` with
  ``--ntasks-per-node``, or ``--gpus`` over the nodes. A type that is a catalogued GPU (``a100``,
  ``h100``) pins it. A type the site defines (``80g``, ``big``: slurm.conf's ``NodeName ...
  Gres=gpu:80g:4`` may name a GRES type anything) does not say which GPU it is: like no type, the
  count is of GPUs of unknown type, sized on every GPU the job may land on (the ``unpinned``
  and ``landing`` facts: the partition, or the ``cluster:`` inventory), until a
  ``# gpulint.dev/accelerator:`` comment names it.
- ``--partition`` is the pool (``resources.pool``): the seam where a cluster inventory will say
  what a partition's nodes are and whether its jobs are preempted. Until then the partition's
  preemption is unknown and the capacity stays the model's default; a ``# gpulint.dev/capacity:
  spot`` comment declares a preemptible partition.
- ``--time`` is the runtime limit; absent, the partition's default applies (not known here).
- ``--requeue`` / ``--no-requeue`` say whether a preempted job starts again; absent, the
  cluster's ``JobRequeue`` decides, and nothing is claimed.
- A directive after the first command, an option sbatch does not know and a value it refuses
  are GL001 findings at their lines: sbatch ignores or rejects them.
"""

from __future__ import annotations

from dataclasses import replace

from linter.catalog.gpus import resolve_gpu
from linter.formats.base import Adapted, InputFile
from linter.formats.builder import WorkloadBuilder
from linter.formats.cmdline.checkpoints import Mount, Where, apply_checkpoints
from linter.formats.cmdline.scripts import (
    Reading,
    Script,
    apply_engine,
    apply_launch,
    apply_limit,
    read_scripts,
)
from linter.formats.platforms import platform_env, platforms
from linter.formats.platforms.shared import workload_name
from linter.formats.slurm.options import Directive, read_directives, vocabulary
from linter.formats.slurm.requests import Requests, requests, signal_seconds
from linter.load import Document
from linter.load.hcl import Lines
from linter.load.positions import Path
from linter.load.sbatch import ANNOTATIONS, DIRECTIVES, SCRIPT, ScriptDocument
from linter.model.assumptions import ANNOTATION_PREFIX
from linter.model.fields import FIELDS
from linter.model.provenance import Origin
from linter.model.workload import Profile

FORMAT = "slurm"
_WHERE = "the batch script"
_STORAGE = "the cluster's shared file system"
_IGNORED = (
    "sbatch ignores this directive: it comes after the first command, and directives are read "
    "only before it"
)
_UNSET = {
    "maxRuntimeHours": "--time (unset: the partition's default time limit applies)",
    "restartOnPreemption": "--requeue (unset: the cluster's JobRequeue setting decides)",
    "idleShutdownMinutes": "an idle limit (Slurm has none: the job holds its nodes until it "
    "ends or reaches --time)",
    "pool": "--partition",
    "nodes": "--nodes",
    "accelerator": "--gres=gpu:<type>:<count> or --gpus-per-node=<type>:<count>",
    "capacity": "the partition's preemption (# gpulint.dev/capacity: spot for a partition whose "
    "jobs are preempted)",
}


class ScriptBuilder(WorkloadBuilder):
    """A workload of a script: a command's word is at its offsets in the file (the script is
    the file's own text, not a YAML scalar)."""

    def __init__(self, document: ScriptDocument, file: InputFile, name: str) -> None:
        super().__init__(
            document, file, format=FORMAT, source_kind="batch script", name=name, object_path=()
        )
        self.body_offset = document.body_offset
        self.lines = Lines(file.text)

    def at_word(self, item_path: Path, start: int, end: int) -> Origin:
        first, last = self.body_offset + start, self.body_offset + end
        return Origin(item_path, span=self.lines.span(first, last))


def adapt(document: Document, source: InputFile) -> Adapted:
    if not isinstance(document, ScriptDocument):
        return Adapted()
    directives = read_directives(document.arguments)
    asked = requests(directives)
    named = asked.job_name.value if asked.job_name is not None else None
    builder = ScriptBuilder(document, source, workload_name(named, source.fs_path, "slurm-job"))
    for span, message in [*document.problems, *asked.problems]:
        builder.problem(Origin((), span=span), message)
    for span in document.ignored:
        builder.problem(Origin((), span=span), _IGNORED)
    reading = _commands(builder, document, asked, source)
    started = reading.launch is not None or reading.engine is not None
    if asked.gpus is None and asked.gpus_directive is None and not started:
        return Adapted(findings=builder.findings)  # a batch job without GPUs
    profile = _profile(builder, document, reading)
    _resources(builder, asked)
    _lifecycle(builder, asked)
    if profile in ("training", "fine-tuning"):
        _checkpoints(builder, reading)
    for name, text in _UNSET.items():
        if builder.name_of(FIELDS[name].path) is None:
            builder.call(FIELDS[name].path, text)
    for entry in FIELDS.values():
        if entry.annotation is not None and builder.name_of(entry.path) is None:
            builder.call(entry.path, f"the comment # gpulint.dev/{entry.annotation} in the script")
    annotations = {ANNOTATION_PREFIX + k: v for k, v in document.annotations.items()}
    return builder.build({"metadata": {"annotations": annotations}}, ANNOTATIONS)


def _at(directive: Directive) -> Origin:
    return Origin((*DIRECTIVES, directive.index), span=directive.span)


def _commands(
    builder: ScriptBuilder, document: ScriptDocument, asked: Requests, source: InputFile
) -> Reading:
    """What the script runs, with the ``SLURM_*`` variables its directives decide."""
    per_node = asked.gpus.count if asked.gpus is not None else None
    env = platform_env(vocabulary().env, per_node, asked.nodes or 1)
    if asked.nodes_range:
        env.update({name: None for name, what in vocabulary().env.items() if what == "nodes"})
    body = source.text[document.body_offset :]
    wrappers = {"srun": vocabulary().taking_value}
    reading = read_scripts(builder, [[Script(SCRIPT, body)]], env, wrappers)
    if reading.engine is not None:
        apply_engine(builder, reading.engine, _WHERE, {})
    if reading.launch is not None:
        apply_launch(builder, reading.launch, _WHERE, {})
    apply_limit(builder, reading.limit, _WHERE)
    return reading


def _profile(builder: ScriptBuilder, document: ScriptDocument, reading: Reading) -> Profile:
    """The profile the commands show (an engine: inference; a launcher: training or
    fine-tuning); a batch job that starts neither is training. A comment annotation wins."""
    profile: Profile = reading.profile() or "training"
    if "profile" not in document.annotations:
        builder.set("spec.profile", profile, Origin(SCRIPT))
    return profile


def _resources(builder: ScriptBuilder, asked: Requests) -> None:
    gpus = asked.gpus
    if gpus is not None:
        origin, written = _at(gpus.directive), f"{gpus.directive.written} in #SBATCH"
        if gpus.type is not None and resolve_gpu(gpus.type) is not None:
            builder.place("spec.resources.accelerator", origin)
            builder.set("spec.resources.accelerator.type", gpus.type, origin, name=written)
            builder.set("spec.resources.accelerator.count", gpus.count, origin, name=written)
        elif _annotated(builder, "accelerator"):
            builder.place("spec.resources.accelerator", origin)
            builder.set("spec.resources.accelerator.count", gpus.count, origin, name=written)
        else:
            builder.set("spec.resources.gpusOfUnknownType", gpus.count, origin, name=written)
    if asked.nodes is not None and asked.nodes_directive is not None:
        directive = asked.nodes_directive
        name = f"{directive.written} in #SBATCH"
        builder.set("spec.resources.nodes", asked.nodes, _at(directive), name=name)
    partition = asked.partition
    if partition is not None and partition.value:
        name = f"{partition.written} in #SBATCH"
        first = partition.value.split(",")[0]
        builder.set("spec.resources.pool", first, _at(partition), name=name)


def _annotated(builder: ScriptBuilder, suffix: str) -> bool:
    """Whether the script's comments or the configuration name a field's value."""
    document = builder.document
    assert isinstance(document, ScriptDocument)
    path = FIELDS[suffix].path
    return suffix in document.annotations or any(a.path == path for a in builder.file.assumptions)


def _lifecycle(builder: ScriptBuilder, asked: Requests) -> None:
    time = asked.time_directive
    builder.place("spec.lifecycle", _at(time) if time is not None else Origin(()))
    if time is not None and asked.time_minutes:
        name = f"{time.written} in #SBATCH"
        builder.set("spec.lifecycle.maxRuntimeHours", asked.time_minutes / 60, _at(time), name=name)
    elif time is not None and asked.time_minutes == 0:
        builder.call("spec.lifecycle.maxRuntimeHours", f"{time.written} in #SBATCH (no limit)")
    requeue = asked.requeue
    if requeue is not None:
        name = f"{requeue.written} in #SBATCH"
        restarts = requeue.option == "requeue"
        builder.set("spec.lifecycle.restartOnPreemption", restarts, _at(requeue), name=name)
    signal = asked.signal
    if signal is not None and signal_seconds(signal) is None:
        builder.problem(_at(signal), f"{signal.written}: not [{{R|B}}:]signal[@seconds]")


def _checkpoints(builder: ScriptBuilder, reading: Reading) -> None:
    """Checkpoints the training command writes: a path on the cluster's shared file system
    outlives a preempted node; node-local paths (``data/slurm.yaml``) do not."""
    at = Origin(SCRIPT)
    note = replace(at, kind="default", note="Slurm: the cluster's shared file system")
    shared = Mount("/", "/", note, _STORAGE)
    local = [
        Mount(path, None, at, f"{path}, the node's own storage")
        for path in vocabulary().node_local_paths
    ]
    hints = platforms().checkpoint_flag_hints
    apply_checkpoints(builder, reading, [shared, *local], Where(_WHERE, _STORAGE), hints)
