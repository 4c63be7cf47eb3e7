"""The ``resources`` fact: which accelerators a workload runs on and how many."""

from linter.catalog import spot
from linter.facts.base import Fact, described, duration
from linter.facts.subject import Subject
from linter.wording import listing


class ResourcesFact(Fact):
    gpu_type: str | None = described("Catalogue name of the GPU, when known.")
    gpu_memory_bytes: int | None = described("Memory of one GPU (nvidia-smi total).")
    gpus_per_node: float | None = described("GPUs per node or instance; null if unknown.")
    nodes: int = described("Nodes of one replica.")
    replicas: int = described("Replicas (1 for jobs).")
    gpus_per_replica: float | None
    total_gpus: float | None = described("GPUs across every node and replica.")
    uses_gpu: bool | None = described("True with one GPU or more; null when unknown.")
    unknown: str | None = described("What is not in the catalogue, e.g. instance type 'x'.")
    instance_family: str | None
    vcpus_per_instance: int | None
    interconnect: str | None = described("High-bandwidth interconnect: efa, infiniband, ...")
    spot_notice_text: str = described(
        "How much warning spot reclamation gives on this cloud (every cloud when "
        "the provider is not known)."
    )


def compute(subject: Subject) -> ResourcesFact:
    where = subject.placement
    resources = subject.workload.spec.resources
    instance = where.instance
    per_replica, total = where.gpus_per_replica, where.total_gpus
    return ResourcesFact(
        gpu_type=where.gpu_name,
        gpu_memory_bytes=where.gpu.memory_bytes if where.gpu else None,
        gpus_per_node=where.gpus_per_node,
        nodes=where.nodes,
        replicas=where.replicas,
        gpus_per_replica=per_replica,
        total_gpus=total,
        uses_gpu=None if where.gpus_per_node is None else where.gpus_per_node > 0,
        unknown=where.unknown,
        instance_family=instance.family if instance else None,
        vcpus_per_instance=instance.vcpus if instance else None,
        interconnect=instance.interconnect.type if instance and instance.interconnect else None,
        spot_notice_text=_spot_notice(resources.provider),
    )


def _spot_notice(provider: str | None) -> str:
    known = spot.notice(provider) if provider else None
    if known is not None:
        return f"{duration(known.seconds)}' notice on {known.provider}"
    every = [f"{duration(n.seconds)}' notice on {n.provider}" for n in spot.notices()]
    return listing(every)
