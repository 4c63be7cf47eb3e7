"""Which accelerator quotas a self-hosted workload draws on (AWS, GCP, Azure)."""

from __future__ import annotations

from linter.catalog import quotas
from linter.catalog.instances import service_of
from linter.catalog.memo import memoize_list
from linter.catalog.quotas import capacity_class
from linter.quota.keys import ANY_CAPACITY, SPOT, QuotaKey


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
    capacity values, instances the catalogue cannot place in a quota, and a managed service's
    instance types (SageMaker ``ml.*``: its quotas are the service's, not catalogued).
    """
    quota_class = capacity_class(capacity)
    if quota_class is None or (instance_type and service_of(instance_type, provider)):
        return []
    cloud = provider.strip().lower()
    if cloud == "aws":
        family = instance_type.split(".", 1)[0] if instance_type else instance_family
        return _aws(region, family, quota_class) if family and region else []
    if cloud == "gcp":
        return _gcp(region, instance_type, gpu_type, quota_class)
    if cloud == "azure" and region:
        return _azure(region, instance_type, instance_family, quota_class)
    return []


def _aws(region: str, family: str, quota_class: str) -> list[QuotaKey]:
    rule = quotas.aws_family(family)
    if rule is None:
        return []
    code = rule.spot if quota_class == SPOT else rule.on_demand
    quota = quotas.aws_quota(code) if code is not None else None
    if quota is None:
        return []
    unit = quotas.aws().unit
    return [QuotaKey("aws", region, quota.code, quota.name, unit, quota.capacity, quota.default)]


def _gcp(
    region: str | None, machine_type: str | None, gpu_type: str | None, quota_class: str
) -> list[QuotaKey]:
    gpu = quotas.gcp_gpu(machine_type=machine_type, gpu_type=gpu_type)
    if gpu is None and not gpu_type:
        return []
    table = quotas.gcp()
    total = table.global_quota
    keys = [QuotaKey("gcp", None, total.code, total.code, table.unit, ANY_CAPACITY, total.default)]
    if gpu is not None and region:
        metric = gpu.spot if quota_class == SPOT else gpu.on_demand
        keys.insert(
            0, QuotaKey("gcp", region, metric, metric, table.unit, quota_class, gpu.default)
        )
    return keys


def _azure(
    region: str, size: str | None, family_name: str | None, quota_class: str
) -> list[QuotaKey]:
    table = quotas.azure()
    if quota_class == SPOT:
        spot = table.spot_quota
        return [QuotaKey("azure", region, spot.code, spot.name, table.unit, SPOT)]
    family = quotas.azure_family(size=size, family=family_name)
    if family is None:
        return []
    return [
        QuotaKey(
            "azure",
            region,
            family.code,
            family.quota_name,
            table.unit,
            quota_class,
            family.default,
        )
    ]
