"""The ``cluster:`` section of ``.gpulint.yaml``: the GPU types a team's cluster has, and its pools.

A workload that requests GPUs without naming their type (a Kubernetes ``nvidia.com/gpu`` limit
with no GPU node selector, a dstack ``gpu: 2``, a Slurm ``--gres=gpu:2``) may be scheduled on
any GPU the cluster has, or, when it selects a pool, on that pool's GPUs only; it is sized on
each (``facts/landing.py``). A pool is selected by its name (the workload's ``resources.pool``:
a Slurm partition, a node pool) or by one of its ``selector`` labels (the workload's pool is
``key=value``: a node-pool label or a Kueue queue label, as the Kubernetes reader writes it).

GPU names are resolved through the GPU catalogue's spellings (``h100``, ``NVIDIA-L4``); a name
the catalogue does not know is an error at its position, so a typo never silently narrows the
inventory.
"""

from linter.declared import CamelRecord, Field, empty_list, field_validator


def _canonical(names: list[str]) -> list[str]:
    """The catalogue's names for ``names``, in order, each once; an unknown one is an error.
    (The catalogue is read only for a configuration that has a ``cluster:`` section.)"""
    from linter.catalog.gpus import resolve_gpu

    out: list[str] = []
    for name in names:
        gpu = resolve_gpu(name)
        if gpu is None:
            raise ValueError(f"{name!r} is not a GPU gpulint knows (see gpulint's GPU catalogue)")
        if gpu.name not in out:
            out.append(gpu.name)
    return out


class InventoryPool(CamelRecord):
    """One pool of the cluster: its GPU types and how a workload selects it."""

    gpus: list[str] = Field(min_length=1, description="GPU types its nodes have.")
    selector: dict[str, str] = Field(
        default_factory=dict,
        description="Node labels that select it (cloud.google.com/gke-nodepool: a100-pool); a "
        "workload whose pool is one of them, written key=value, lands here. Its name always "
        "selects it (a Slurm partition, a Karpenter NodePool).",
    )

    @field_validator("gpus")
    @classmethod
    def _known_gpus(cls, names: list[str]) -> list[str]:
        return _canonical(names)


class ClusterInventory(CamelRecord):
    """The GPU types workloads that do not pin one may be scheduled on."""

    gpus: list[str] = Field(
        default_factory=empty_list,
        description="Every GPU type the cluster has; a workload that selects no pool may land on "
        "any of them (empty: the pools' GPUs together).",
    )
    pools: dict[str, InventoryPool] = Field(
        default_factory=dict, description="Pool name -> its GPUs and selector labels."
    )

    @field_validator("gpus")
    @classmethod
    def _known_gpus(cls, names: list[str]) -> list[str]:
        return _canonical(names)

    def pool_of(self, pool: str | None) -> tuple[str, InventoryPool] | None:
        """The pool a workload's ``resources.pool`` selects: by name, else by a selector label."""
        if pool is None:
            return None
        if pool in self.pools:
            return pool, self.pools[pool]
        for name, candidate in self.pools.items():
            if any(f"{key}={value}" == pool for key, value in candidate.selector.items()):
                return name, candidate
        return None

    def every_gpu(self) -> list[str]:
        """What a workload selecting no pool may land on: ``gpus``, else every pool's."""
        if self.gpus:
            return list(self.gpus)
        out: list[str] = []
        for pool in self.pools.values():
            out.extend(gpu for gpu in pool.gpus if gpu not in out)
        return out
