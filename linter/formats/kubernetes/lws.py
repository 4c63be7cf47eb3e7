"""LeaderWorkerSet (leaderworkerset.x-k8s.io): groups of pods that serve one model together.

Each of ``spec.replicas`` groups (default 1) is a leader and ``size - 1`` workers
(``leaderWorkerTemplate.size``, default 1), one node each: a group is one replica of ``size``
nodes with the worker pod's GPUs each (the leader's template defaults to the worker's). The
engine is usually started on the leader (``vllm serve ... --tensor-parallel-size 8
--pipeline-parallel-size 2`` after ``ray start``), so the leader's program is read first.
"""

from __future__ import annotations

from linter.formats.kubernetes.containers import pod_program
from linter.formats.kubernetes.context import Context
from linter.formats.kubernetes.pod_workload import Unit
from linter.formats.kubernetes.pods import template

_TEMPLATE = ("spec", "leaderWorkerTemplate")


def leader_worker_set(ctx: Context) -> list[Unit]:
    worker = template(ctx.data, (*_TEMPLATE, "workerTemplate"))
    leader = template(ctx.data, (*_TEMPLATE, "leaderTemplate")) or worker
    programs = (pod_program(pod, ctx.report) for pod in (leader, worker) if pod is not None)
    program = next((found for found in programs if found is not None), None)
    return [
        Unit(
            ctx.name,
            ctx.kind,
            "inference",
            pod=worker or leader,
            program=program,
            nodes=ctx.count((*_TEMPLATE, "size"), "spec.leaderWorkerTemplate.size", minimum=1),
            replicas=ctx.count(("spec", "replicas"), "spec.replicas"),
            names={
                "spec.serving.replicas": "spec.replicas",
                "spec.resources.nodes": "spec.leaderWorkerTemplate.size",
            },
        )
    ]
