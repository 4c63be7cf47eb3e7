"""Quota identities and the arithmetic and matching over them."""

from __future__ import annotations

from linter.catalog.endpoints import bedrock_profile, cloud_of
from linter.catalog.quotas import capacity_class
from linter.catalog.spelling import name_key
from linter.records import datarecord

SPOT = "spot"
ANY_CAPACITY = "any"
"""``QuotaKey.capacity`` of a quota shared by every capacity type (GCP ``GPUS_ALL_REGIONS``)."""


@datarecord
class QuotaKey:
    """One accelerator quota a workload draws on.

    ``region`` is None for a global quota. ``unit`` is ``vCPU`` or ``GPU``. ``capacity`` is the
    quota's class: ``on-demand`` (also drawn on by reserved capacity), ``spot``, or ``any``.
    ``default`` is the value for a new account, when known.
    """

    provider: str
    region: str | None
    code: str
    name: str
    unit: str
    capacity: str
    default: float | None = None


@datarecord
class ManagedQuotaKey:
    """One throughput quota of a managed inference API (per source region, per model).

    ``unit`` is ``RPM`` (requests per minute) or ``TPM`` (tokens per minute); ``model`` is the
    model name as the quota spells it and ``model_id`` the ID it was resolved from. ``route``
    says which counter: Bedrock ``on-demand``, ``cross-region`` or ``global``; Vertex
    ``regional``; Azure the deployment usage name.
    ``aliases`` are older spellings of ``name``; ``code`` is set where a quota code is known.
    """

    provider: str
    region: str | None
    model: str
    model_id: str
    route: str
    name: str
    unit: str
    code: str | None = None
    aliases: tuple[str, ...] = ()


def units_needed(
    key: QuotaKey, *, vcpus_per_instance: float, gpus_per_instance: float, instances_total: float
) -> float:
    """Amount of ``key``'s unit the workload needs: instances x vCPUs (AWS, Azure) or
    instances x GPUs (GCP)."""
    per_instance = {"vCPU": vcpus_per_instance, "GPU": gpus_per_instance}.get(key.unit)
    if per_instance is None:
        raise ValueError(f"quota {key.code} is counted in {key.unit}, not per instance")
    return float(per_instance * instances_total)


def matches(
    key: QuotaKey | ManagedQuotaKey,
    entry_provider: str,
    entry_region: str | None,
    entry_quota: str | None,
    entry_capacity: str | None,
    *,
    entry_model: str | None = None,
) -> bool:
    """Whether a QuotaLedger entry covers ``key``.

    The provider may be a cloud or managed-service name (``bedrock`` covers an ``aws`` key). The
    region must equal the key's (a global key wants no region or ``global``). ``entry_quota`` is
    the code (``L-417A185B``, ``NVIDIA_A100_GPUS``, ``lowPriorityCores``) or the name, compared
    case- and punctuation-insensitively. A stated ``entry_capacity`` must be in the key's class:
    spot and on-demand are different quotas (reserved counts as on-demand); left unstated, the
    quota's code already fixes it. A managed-API entry that names no quota matches by
    ``entry_model`` (the model ID or the quota's model name) instead.
    """
    if cloud_of(entry_provider) != key.provider:
        return False
    wanted_region = key.region.lower() if key.region else "global"
    if (entry_region or "global").strip().lower() != wanted_region:
        return False
    if isinstance(key, QuotaKey):
        stated = capacity_class(entry_capacity) if entry_capacity is not None else key.capacity
        if key.capacity not in (ANY_CAPACITY, stated):
            return False
        names = {key.code, key.name}
    else:
        names = {key.name, *key.aliases, *([key.code] if key.code else [])}
    if entry_quota is not None:
        return name_key(entry_quota) in {name_key(name) for name in names}
    if isinstance(key, QuotaKey) or entry_model is None:
        return False
    _, base_model = bedrock_profile(entry_model)  # a profile ID names the same model
    return name_key(base_model) in {name_key(key.model), name_key(key.model_id)}
