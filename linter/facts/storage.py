"""The ``storage`` fact: the volume a serving engine keeps the model's files in
(``model.cacheGib``: production-stack ``pvcStorage``, a Kubernetes volume mounted at the
engine's Hugging Face cache, SkyPilot ``disk_size``) against the checkpoint it must hold.

The checkpoint is the model's published size (safetensors ``total_size`` in the model catalogue
or config) when known, else its parameters at the precision it is stored in (16-bit when that is
not known). It is a lower bound on what the volume needs: the cache may also hold other
revisions, and a disk also holds the system and the image. Computed only when a cache size is
declared.
"""

from linter.facts.base import Fact, described
from linter.facts.memory_sizing import architecture
from linter.facts.subject import Subject

_GIB = 1024**3
#: The precision a checkpoint of unknown format is sized in (most are published in 16-bit).
_STORED_DEFAULT = "bf16"


class StorageFact(Fact):
    cache_gib: float | None = described("Size of the model's cache volume, GiB.")
    checkpoint_gib: float | None = described(
        "The model's files, GiB; null when the model is not known."
    )
    shortfall_gib: float | None = described(
        "How much more the checkpoint needs than the volume has; null when it fits "
        "or either is unknown."
    )


def compute(subject: Subject) -> StorageFact:
    cache = subject.workload.spec.model.cache_gib
    checkpoint = _checkpoint_gib(subject) if cache is not None else None
    short = None
    if cache is not None and checkpoint is not None and checkpoint > cache:
        short = round(checkpoint - cache, 2)
    return StorageFact(cache_gib=cache, checkpoint_gib=checkpoint, shortfall_gib=short)


def _checkpoint_gib(subject: Subject) -> float | None:
    from linter.memory.weights import weight_bytes

    workload = subject.workload
    model = workload.spec.model
    if not (model.id or model.config or model.parameters is not None):
        return None
    arch, _, problem, _ = architecture(subject.manifest, workload)
    if problem is not None:
        return None
    stored = (arch.checkpoint_precision if arch is not None else None) or _STORED_DEFAULT
    try:
        size = weight_bytes(arch, model.parameters, stored)
    except ValueError:
        return None
    return round(size / _GIB, 2)
