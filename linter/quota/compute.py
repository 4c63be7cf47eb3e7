"""Which accelerator quotas a self-hosted workload draws on (AWS, GCP, Azure)."""

from __future__ import annotations

import fnmatch
import re
from typing import Any

from linter import catalog
from linter.memo import memoize_list
from linter.quota.keys import ANY_CAPACITY, SPOT, QuotaKey, capacity_class
from linter.residency.names import squash


@memoize_list
def quota_for(
    provider: str,
    region: str | None,
    *,
    instance_type: str | None = None,
    instance_family: str | None = None,
    gpu_type: str | None = None,
    capacity: str = "on-demand",
) -> list[QuotaKey]:
    """The quotas a workload draws on.

    - AWS: the On-Demand or Spot vCPU bucket of the instance family (``family`` is the text of
      ``instance_type`` before the first ``.``, else ``instance_family``; longest catalogued
      prefix wins).
    - GCP: the per-region GPU metric of the GPU (its preemptible metric for spot), identified by
      machine type first, then by GPU name, plus the global ``GPUS_ALL_REGIONS`` (unit GPU).
    - Azure: the VM family's vCPU quota (by VM size, then family name); any spot VM draws on the
      one regional low-priority vCPU quota instead.

    Reserved capacity draws on the on-demand quotas. Regional quotas need a ``region``: without
    one only global quotas are returned. Returns [] for on-prem, unknown providers, unknown
    capacity values and instances the catalogue cannot place in a quota.
    """
    quota_class = capacity_class(capacity)
    if quota_class is None:
        return []
    data = catalog.load("quotas")
    cloud = provider.strip().lower()
    if cloud == "aws":
        family = instance_type.split(".", 1)[0] if instance_type else instance_family
        return _aws(data["aws"], region, family, quota_class) if family and region else []
    if cloud == "gcp":
        return _gcp(data["gcp"], region, instance_type, gpu_type, quota_class)
    if cloud == "azure" and region:
        return _azure(data["azure"], region, instance_type, instance_family, quota_class)
    return []


def _aws(data: Any, region: str, family: str, quota_class: str) -> list[QuotaKey]:
    family = family.strip().lower()
    rule = max(
        (rule for rule in data["families"] if family.startswith(rule["prefix"])),
        key=lambda rule: len(rule["prefix"]),
    )
    code = rule["spot" if quota_class == SPOT else "on_demand"]
    if code is None:
        return []
    quota = next(q for q in data["quotas"] if q["code"] == code)
    return [
        QuotaKey(
            "aws", region, code, quota["name"], data["unit"], quota["capacity"], quota["default"]
        )
    ]


def _gcp(
    data: Any, region: str | None, machine_type: str | None, gpu_type: str | None, quota_class: str
) -> list[QuotaKey]:
    gpu = _gcp_gpu(data["gpus"], machine_type, gpu_type)
    if gpu is None and not gpu_type:
        return []
    total = data["global_quota"]
    keys = [
        QuotaKey(
            "gcp", None, total["code"], total["code"], data["unit"], ANY_CAPACITY, total["default"]
        )
    ]
    if gpu is not None and region:
        metric = gpu["spot" if quota_class == SPOT else "on_demand"]
        keys.insert(
            0, QuotaKey("gcp", region, metric, metric, data["unit"], quota_class, gpu["default"])
        )
    return keys


def _gcp_gpu(gpus: list[Any], machine_type: str | None, gpu_type: str | None) -> Any:
    if machine_type:
        name = machine_type.strip().lower()
        for gpu in gpus:
            if any(fnmatch.fnmatchcase(name, glob) for glob in gpu.get("machine_types", [])):
                return gpu
    if gpu_type:
        wanted = squash(gpu_type)
        for gpu in gpus:
            if wanted in {squash(alias) for alias in gpu["aliases"]}:
                return gpu
    return None


def _azure(
    data: Any, region: str, size: str | None, family_name: str | None, quota_class: str
) -> list[QuotaKey]:
    if quota_class == SPOT:
        spot = data["spot_quota"]
        return [QuotaKey("azure", region, spot["code"], spot["name"], data["unit"], SPOT)]
    for family in data["families"]:
        by_size = size is not None and any(
            re.match(pattern, size.strip(), re.IGNORECASE) for pattern in family["sizes"]
        )
        names = [family["code"], family.get("name", family["code"]), *family["aliases"]]
        by_name = family_name is not None and squash(family_name) in {squash(n) for n in names}
        if by_size or by_name:
            return [
                QuotaKey(
                    "azure",
                    region,
                    family["code"],
                    family.get("name", family["code"]),
                    data["unit"],
                    quota_class,
                    family["default"],
                )
            ]
    return []
