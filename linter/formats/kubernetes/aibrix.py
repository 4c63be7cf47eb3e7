"""AIBrix orchestration (orchestration.aibrix.ai): StormService, RoleSet and RayClusterFleet,
field spellings from AIBrix's ``api/orchestration/v1alpha1`` types.

- A StormService (``spec.template.spec.roles``) or a RoleSet (``spec.roles``) is a set of roles,
  each a pod template: a prefill/decode pair, a router beside them. Each role whose pods request
  GPUs or run an engine is one workload (each role of a P/D pair is sized on its own GPUs); a
  router that does neither is not. A role instance is ``podGroupSize`` pods (default 1), one
  node each, serving together (``--nnodes``); ``replicas`` instances of it run (default 1) in
  each of the StormService's ``spec.replicas`` copies (default 1).
- A RayClusterFleet (and the RayClusterReplicaSet it manages) runs ``spec.replicas`` (default
  1) copies of the Ray cluster in ``spec.template.spec``. The engine is started on one of the
  cluster's pods (usually the head: ``vllm serve ... --distributed-executor-backend ray``) and
  spreads over every pod of the cluster that holds GPUs: one workload whose nodes are the GPU
  pods (the head when it has GPUs, and each worker group's ``replicas``, else ``minReplicas``),
  with the GPUs of one pod per node.
"""

from __future__ import annotations

from linter.formats.kubernetes.containers import pod_program
from linter.formats.kubernetes.context import Context
from linter.formats.kubernetes.pod_workload import Unit
from linter.formats.kubernetes.pods import PodSpec, mapping, pod_gpus, sequence, template
from linter.formats.kubernetes.scheduling import StatedValue
from linter.load.positions import Path, format_path

_ROLES: dict[str, Path] = {
    "StormService": ("spec", "template", "spec", "roles"),
    "RoleSet": ("spec", "roles"),
}
_CLUSTER: Path = ("spec", "template", "spec")


def storm_service(ctx: Context) -> list[Unit]:
    """One workload per role that requests GPUs or runs an engine (StormService, RoleSet)."""
    roles = _ROLES[ctx.kind]
    copies = (
        ctx.count(("spec", "replicas"), "spec.replicas") if ctx.kind == "StormService" else None
    )
    units: list[Unit] = []
    for index, role in enumerate(sequence(ctx.get(roles))):
        path = (*roles, index)
        pod = template(ctx.data, (*path, "template"))
        if pod is None:
            continue
        program = pod_program(pod, ctx.report)
        if pod_gpus(pod, ctx.report)[0] == 0 and (program is None or program.engine is None):
            continue
        name = mapping(role).get("name")
        units.append(
            Unit(
                f"{ctx.name}-{name}" if isinstance(name, str) and name else f"{ctx.name}-{index}",
                ctx.kind,
                "inference",
                object_path=path,
                part=len(units),
                pod=pod,
                program=program,
                nodes=ctx.count((*path, "podGroupSize"), format_path((*path, "podGroupSize")), 1),
                replicas=_replicas(ctx, path, copies),
                names={
                    "spec.serving.replicas": format_path((*path, "replicas")),
                    "spec.resources.nodes": format_path((*path, "podGroupSize")),
                },
            )
        )
    return units


def _replicas(ctx: Context, path: Path, copies: StatedValue | None) -> StatedValue | None:
    """Role instances in all copies of the service: the role's ``replicas`` times the
    StormService's ``spec.replicas`` (each 1 when unset)."""
    own = ctx.count((*path, "replicas"), format_path((*path, "replicas")))
    if copies is None or copies.value == 1:
        return own
    each = 1 if own is None else int(own.value)
    where = own.origin if own is not None else copies.origin
    what = f"spec.replicas x {format_path((*path, 'replicas'))}"
    return StatedValue(int(copies.value) * each, where, what)


def ray_cluster_fleet(ctx: Context) -> list[Unit]:
    """The fleet's Ray cluster as one workload over all of its GPU pods."""
    groups: list[tuple[PodSpec, Path | None]] = []
    head = template(ctx.data, (*_CLUSTER, "headGroupSpec", "template"))
    if head is not None:
        groups.append((head, None))
    workers = (*_CLUSTER, "workerGroupSpecs")
    for index in range(len(sequence(ctx.get(workers)))):
        pod = template(ctx.data, (*workers, index, "template"))
        if pod is not None:
            groups.append((pod, (*workers, index)))
    programs = (pod_program(pod, ctx.report) for pod, _ in groups)
    program = next((found for found in programs if found is not None), None)
    with_gpus = [(pod, path) for pod, path in groups if pod_gpus(pod, ctx.report)[0] > 0]
    if not with_gpus:
        return [Unit(ctx.name, ctx.kind, "inference", pod=groups[0][0] if groups else None)]
    nodes = 0
    for _, path in with_gpus:
        if path is None:
            nodes += 1
            continue
        group = ctx.count((*path, "replicas"), format_path((*path, "replicas")))
        group = group or ctx.count((*path, "minReplicas"), format_path((*path, "minReplicas")))
        nodes += 1 if group is None else int(group.value)
    pod, first = with_gpus[0]
    where = (*first, "replicas") if first is not None else (*_CLUSTER, "headGroupSpec")
    what = "the Ray cluster's GPU pods (head and worker groups' replicas)"
    return [
        Unit(
            ctx.name,
            ctx.kind,
            "inference",
            pod=pod,
            program=program,
            nodes=StatedValue.at(nodes, where, what) if nodes else None,
            replicas=ctx.count(("spec", "replicas"), "spec.replicas"),
            names={"spec.serving.replicas": "spec.replicas", "spec.resources.nodes": what},
        )
    ]
