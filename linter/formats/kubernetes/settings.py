"""What a container's engine or launcher settles, set on the workload with its origins: each
value at its word, each field named the way the file spells it, the engine's own defaults with
a note saying whose they are, and the values the program would refuse as problems at their word.
"""

from __future__ import annotations

from linter.formats.builder import WorkloadBuilder, unrendered
from linter.formats.cmdline.arguments import FlagTable, Setting
from linter.formats.cmdline.engines import EngineCommand, engine_table
from linter.formats.cmdline.launchers import LaunchCommand, deciding_file, trainer_table
from linter.formats.cmdline.releases import set_release
from linter.formats.kubernetes.containers import LaunchedProgram
from linter.load.positions import Path, parse_path
from linter.memory.architecture import ArchitectureError, architecture_from_catalogue
from linter.model.provenance import Origin
from linter.model.values import exists

MODEL_FIELD = "model.id"
CONTEXT_FIELD = "serving.maxContextTokens"
#: The engine's cap on the GPU memory it uses (vLLM's utilisation, TGI's memory fraction).
MEMORY_CAP_FIELD = "serving.gpuMemoryUtilization"
#: The file that decides the checkpoint settings a launch leaves unsaid.
DECIDED_FIELD = "checkpointing.decidedIn"
#: A flag note saying the engine uses the model's maximum context when the flag is unset.
MODEL_MAXIMUM = "unset: the model's maximum context"
#: Fields whose flag messages should name even when the command does not set them.
NAMED_FIELDS = (
    CONTEXT_FIELD,
    "serving.maxBatchSize",
    "serving.gpuMemoryUtilization",
    "serving.kvCachePrecision",
    "serving.tensorParallel",
    "model.precision",
    "model.quantization",
    "checkpointing.uri",
    "checkpointing.resumeFromLatest",
)


def normalised(field: str) -> Path:
    """An engine or launcher field (``serving.maxContextTokens``) as a Workload path."""
    return ("spec", *parse_path(field))


def apply(builder: WorkloadBuilder, program: LaunchedProgram) -> None:
    """Set what the program's command line says; report what it would refuse."""
    found = program.engine or program.launch
    assert found is not None
    for setting in found.settings.values():
        _set(builder, program, setting)
    model = found.unresolved.get(MODEL_FIELD)
    if model is not None and model.value_word is not None and not builder.has("spec.model.id"):
        # an unknown model is reported as such ("unknown model"), never guessed
        builder.set(
            normalised(MODEL_FIELD),
            model.value_word.text,
            _origin(builder, program, model),
            name=_name(program, model),
        )
    for problem in found.problems:
        if problem.word is None:
            builder.problem(builder.at(program.path), f"{problem.message} ({program.owner})")
            continue
        message = unrendered(problem.flag, problem.word.text)
        origin = program.origin(builder, problem.word)
        builder.problem(origin, message or f"{problem.message} ({program.owner})")
    if program.engine is not None:
        _name_unset(builder, program, engine_table(program.engine.engine))
        if program.image is not None:
            image, where = program.image
            name = f"the image tag of {program.owner}"
            set_release(builder, program.engine.engine, image, Origin(where), name)
    if program.launch is not None:
        _name_unset(builder, program, trainer_table(program.launch.trainer))
        deciding = deciding_file(program.launch)
        if deciding is not None:
            origin = program.origin(builder, deciding)
            name = program.describe(deciding.text, deciding)
            builder.set(normalised(DECIDED_FIELD), deciding.text, origin, name=name)


def _set(builder: WorkloadBuilder, program: LaunchedProgram, setting: Setting) -> None:
    path = normalised(setting.field)
    if setting.value is None or not exists(path):
        return
    origin = _origin(builder, program, setting)
    if isinstance(setting.value, str):
        message = unrendered(setting.flag, setting.value)
        if message is not None:
            builder.problem(origin, message)
            return
    builder.set(path, setting.value, origin, name=_name(program, setting))


def _origin(builder: WorkloadBuilder, program: LaunchedProgram, setting: Setting) -> Origin:
    word = setting.value_word or setting.flag_word
    return program.env_origin(setting.flag) if word is None else program.origin(builder, word)


def _name(program: LaunchedProgram, setting: Setting) -> str:
    if setting.flag_word is None and setting.value_word is None:
        return f"env {setting.flag} of {program.owner}"
    if setting.flag_word is None:
        return program.describe("the model argument", setting.value_word)
    return program.describe(setting.flag, setting.flag_word)


def _name_unset(builder: WorkloadBuilder, program: LaunchedProgram, table: FlagTable) -> None:
    """Name the program's flags for the fields its command leaves unset (messages say where to
    add them: ``--max-model-len in the vllm container's args``)."""
    part = program.flag_part()
    for flag in table.flags:
        field = normalised(flag.field) if flag.field in NAMED_FIELDS else None
        if field is not None and not builder.has(field) and builder.name_of(field) is None:
            builder.call(field, f"{flag.names[0]} in {program.owner}'s {part}")


def undecided(found: EngineCommand | LaunchCommand) -> frozenset[str]:
    """Fields a command sets to what the program decides at run time (``--max-model-len auto``)
    or to a value that cannot be known here (a secret): set, so no default applies."""
    auto = {field for field, setting in found.settings.items() if setting.value is None}
    return frozenset(auto | set(found.unresolved))


def engine_defaults(
    builder: WorkloadBuilder,
    engine_name: str,
    where: str,
    lacking: Path,
    declared: frozenset[str] = frozenset(),
) -> None:
    """The engine's own defaults for what the file does not set: its context and its memory
    cap. ``where`` is where a setting would be written (``the vllm container's args``),
    ``lacking`` the object findings on it point at, and ``declared`` the fields the file sets to
    something only known at run time."""
    _default_context(builder, engine_name, where, lacking, declared)
    _default_memory_cap(builder, engine_name, where, lacking, declared)


def _default_context(
    builder: WorkloadBuilder, engine_name: str, where: str, lacking: Path, declared: frozenset[str]
) -> None:
    """The engine's context when the file does not set it: the model's maximum, when the engine
    says so and the model is catalogued."""
    if builder.has(normalised(CONTEXT_FIELD)) or CONTEXT_FIELD in declared:
        return
    engine = engine_table(engine_name)
    flag = next((f for f in engine.flags if f.field == CONTEXT_FIELD), None)
    model = builder.value(normalised(MODEL_FIELD))
    if (
        flag is None
        or not (flag.note or "").startswith(MODEL_MAXIMUM)
        or not isinstance(model, str)
    ):
        return
    try:
        architecture = architecture_from_catalogue(model)
    except ArchitectureError:
        return
    maximum = architecture.max_position_embeddings if architecture else None
    if maximum is None:
        return
    name = builder.name_of(normalised(CONTEXT_FIELD)) or f"{flag.names[0]} in {where}"
    builder.default(
        normalised(CONTEXT_FIELD),
        maximum,
        f"{engine.title} default: the model's maximum context ({maximum:,} tokens)",
        name=name,
        lacking=lacking,
    )


def _default_memory_cap(
    builder: WorkloadBuilder, engine_name: str, where: str, lacking: Path, declared: frozenset[str]
) -> None:
    """The engine's own default memory cap when the file does not set it (TGI's
    --cuda-memory-fraction 1.0), so that it is not read as vLLM's utilisation default; an engine
    whose table has no such default (vLLM: it depends on the release) is left to the facts."""
    path = normalised(MEMORY_CAP_FIELD)
    if builder.has(path) or MEMORY_CAP_FIELD in declared:
        return
    engine = engine_table(engine_name)
    flag = next((f for f in engine.flags if f.field == MEMORY_CAP_FIELD), None)
    if flag is None or flag.default is None:
        return
    builder.default(
        path,
        flag.default,
        f"{engine.title} default: {flag.names[0]} {flag.default}",
        name=f"{flag.names[0]} in {where}",
        lacking=lacking,
    )


def check_parallelism(builder: WorkloadBuilder, program: LaunchedProgram, gpus: int) -> None:
    """An engine sharded over more GPUs than the object gives it does not start (vLLM: the world
    size, tensor x pipeline parallel, must fit the GPUs it can see)."""
    found = program.engine
    if found is None:
        return
    tensor = found.settings.get("serving.tensorParallel")
    pipeline = found.settings.get("serving.pipelineParallel")
    world = 1
    for setting in (tensor, pipeline):
        if setting is not None and isinstance(setting.value, int):
            world *= setting.value
    if world <= gpus:
        return
    worst = tensor if tensor is not None else pipeline
    assert worst is not None
    builder.problem(
        _origin(builder, program, worst),
        f"{_name(program, worst)} shards the model over {world} GPUs but the workload has "
        f"{gpus}: the engine cannot start",
    )
