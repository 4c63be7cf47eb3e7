"""The ``unpinned`` fact: a workload that requests GPUs without naming their type (a Kubernetes
``nvidia.com/gpu`` limit with no GPU selector, a dstack ``gpu: 2``, a Slurm ``--gres=gpu:2``),
sized as if it had each catalogued GPU.

What fits depends on the GPU beyond its memory (vLLM picks its scheduler defaults by GPU
class, some GPUs have calibrated overheads), so the workload is sized on every catalogued GPU,
each estimate remembered under its inputs (``facts/estimates.py``): identical workloads share
them. ``runsOn`` is the GPUs it runs on, which is how the run-wide ``landing`` fact judges the
GPUs of the pools it may land on.

The smallest catalogued NVIDIA data-centre GPU that runs it is what a note suggests when no
inventory says which GPUs the cluster has (``nvidia.com/gpu`` and ``--gres=gpu`` are NVIDIA's).
"""

from linter.catalog.gpus import GpuSpec, all_gpus
from linter.facts import memory
from linter.facts.base import described
from linter.facts.subject import Subject
from linter.model import Workload
from linter.model.workload import Accelerator

CHECKED = "checked"
#: Whose GPUs a note suggests, and of which segment.
SUGGESTED = ("nvidia", "datacenter")


class UnpinnedFact(memory.MemoryRecord):
    requested: bool = described("GPUs are requested and no type or instance is named.")
    gpus: int | None = described("GPUs per node requested.")
    sized: bool = described("The model was sized (on the smallest GPU that runs it).")
    status: str | None = described("The memory fact's status when it was not sized.")
    reason: str | None = described("Why it was not sized.")
    fits_any: bool = described("Some catalogued GPU runs it.")
    required_gib: float | None = described(
        "Needed per GPU to start, on the smallest catalogued GPU that runs it (on "
        "the largest when none does): serving, the weights, activations, runtime and one "
        "full-length sequence's KV cache (vLLM queues more sequences); training, the step's "
        "peak."
    )
    runs_on: list[str] = described(
        "The catalogued GPUs it runs on (serving: vLLM starts), by usable memory, smallest first."
    )
    smallest_gpu: str | None = described("Smallest catalogued NVIDIA data-centre GPU that runs it.")
    smallest_gpu_gib: float | None = described("That GPU's memory.")


def requests_untyped(workload: Workload) -> bool:
    """GPUs requested without a type, an accelerator or an instance type that would name one."""
    resources = workload.spec.resources
    return (
        resources.gpus_of_unknown_type is not None
        and resources.accelerator is None
        and resources.instance_type is None
    )


def on_gpu(workload: Workload, gpu: str) -> Workload:
    """The workload with its unknown-type GPUs as ``gpu``."""
    resources = workload.spec.resources
    count = resources.gpus_of_unknown_type or 1
    update = {"accelerator": Accelerator(type=gpu, count=count), "gpus_of_unknown_type": None}
    spec = workload.spec.model_copy(update={"resources": resources.model_copy(update=update)})
    return workload.model_copy(update={"spec": spec})


def compute(subject: Subject) -> UnpinnedFact:
    workload = subject.workload
    if not requests_untyped(workload):
        return _fact(False, None)
    count = workload.spec.resources.gpus_of_unknown_type
    sized = [
        (gpu, memory.compute_as(subject, on_gpu(workload, gpu.name)))
        for gpu in sorted(all_gpus(), key=lambda gpu: (gpu.usable_bytes, gpu.name))
    ]
    largest = sized[-1][1]
    if largest.status != CHECKED:
        return _fact(True, count, status=largest.status, reason=largest.reason)
    running = [(gpu, found) for gpu, found in sized if runs(found)]
    suggested = next(
        (gpu for gpu, _ in running if (gpu.vendor, gpu.segment) == SUGGESTED),
        None,
    )
    return _fact(
        True,
        count,
        sized=True,
        required=_needed_gib(running[0][1] if running else largest),
        runs_on=[gpu.name for gpu, _ in running],
        suggested=suggested,
    )


def runs(found: memory.MemoryFact) -> bool:
    """Serving: vLLM starts (weights, activations, runtime and one full-length sequence fit;
    more concurrent sequences queue). Training: the step's peak fits."""
    if found.status != CHECKED:
        return False
    if found.inference is not None and found.inference.starts is not None:
        return found.inference.starts
    return bool(found.fits)


def _needed_gib(found: memory.MemoryFact) -> float | None:
    """Per GPU, what it takes to start: serving, the weights, activations, runtime and one
    full-length sequence's KV cache; otherwise what the estimate requires."""
    serving = found.inference
    if serving is None or serving.weights_gib is None or serving.sequence_kv_gib is None:
        return found.required_gib
    parts = (serving.weights_gib, serving.activation_gib or 0.0, serving.overhead_gib)
    return round(sum(parts) + serving.sequence_kv_gib, 2)


def _fact(
    requested: bool,
    gpus: int | None,
    *,
    sized: bool = False,
    status: str | None = None,
    reason: str | None = None,
    required: float | None = None,
    runs_on: list[str] | None = None,
    suggested: GpuSpec | None = None,
) -> UnpinnedFact:
    return UnpinnedFact(
        requested=requested,
        gpus=gpus,
        sized=sized,
        status=status,
        reason=reason,
        fits_any=bool(runs_on),
        required_gib=required,
        runs_on=runs_on or [],
        smallest_gpu=suggested.name if suggested else None,
        smallest_gpu_gib=round(suggested.memory_bytes / memory.GIB, 2) if suggested else None,
    )
