"""The ``parallelism`` fact: how many of a replica's GPUs its serving engine uses (tensor x
pipeline x data parallel), how many it leaves idle, and what the idle ones cost a month.

Judged only when the tensor-parallel size is declared: an engine started with
``--tensor-parallel-size 4`` (``--tp-size``, ``--num-shard``) on a replica of 8 GPUs uses 4 and
the scheduler reserves all 8. An unset pipeline or data-parallel size is the engines' default,
1. The idle GPUs' cost is their share of the replica's price (the ``cost`` fact's monthly cost
x idle / GPUs per replica); null when the workload is not priced.
"""

from linter.facts import cost
from linter.facts.base import Fact, described
from linter.facts.subject import Subject
from linter.wording import money


class ParallelismFact(Fact):
    engine_gpus: int | None = described(
        "GPUs one replica's engine uses: tensor x pipeline x data parallel; null "
        "when the tensor-parallel size is not declared."
    )
    pipeline_parallel: int = described("Pipeline stages (1 when unset).")
    data_parallel: int = described("Data-parallel ranks (1 when unset).")
    gpus_per_replica: float | None = described("GPUs the scheduler reserves a replica.")
    idle_gpus_per_replica: float | None = described(
        "Reserved GPUs the engine does not use, per replica; null when not judged."
    )
    idle_gpus: float | None = described("The same across every priced replica.")
    idle_monthly: float | None = described("What the idle GPUs cost a month, USD.")
    idle_monthly_text: str | None = described("The same as money: '$2,336.00'.")


def compute(subject: Subject) -> ParallelismFact:
    serving = subject.workload.spec.serving
    stages, ranks = serving.pipeline_parallel or 1, serving.data_parallel or 1
    per_replica = subject.placement.gpus_per_replica
    used = None if serving.tensor_parallel is None else serving.tensor_parallel * stages * ranks
    idle = None
    if used is not None and per_replica is not None and per_replica > used:
        idle = per_replica - used
    idle_gpus = monthly = None
    if idle is not None and per_replica:
        priced = cost.compute(subject)
        idle_gpus = idle * priced.priced_replicas
        if priced.monthly is not None:
            monthly = round(priced.monthly * idle / per_replica, 2)
    return ParallelismFact(
        engine_gpus=used,
        pipeline_parallel=stages,
        data_parallel=ranks,
        gpus_per_replica=per_replica,
        idle_gpus_per_replica=idle,
        idle_gpus=idle_gpus,
        idle_monthly=monthly,
        idle_monthly_text=None if monthly is None else money(monthly),
    )
