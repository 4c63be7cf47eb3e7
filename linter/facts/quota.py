"""The ``quota`` fact: which accelerator and managed-API quotas a workload draws on, how much it
needs, what the ledgers of the run approve, and what all workloads of the run need together."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from linter.facts.resources import Placement, placement
from linter.facts.run import RunIndex
from linter.formats.manifest import Manifest
from linter.model import QuotaLedger, Workload
from linter.quota import (
    ManagedQuotaKey,
    QuotaKey,
    endpoint_quota,
    matches,
    offered_in_region,
    quota_for,
    units_needed,
)

CLOUD_PROVIDERS = frozenset({"aws", "gcp", "azure"})
MAX_LISTED = 5


@dataclass(frozen=True)
class Draw:
    manifest: Manifest
    key: QuotaKey
    needed: float


def _draws(manifest: Manifest) -> list[Draw]:
    workload = manifest.model
    assert isinstance(workload, Workload)
    where = placement(workload)
    resources = workload.spec.resources
    if (
        resources.provider not in CLOUD_PROVIDERS
        or not resources.region
        or where.gpus_per_node is None
    ):
        return []
    keys = quota_for(
        resources.provider,
        resources.region,
        instance_type=resources.instance_type,
        instance_family=where.instance.family if where.instance else None,
        gpu_type=where.gpu_name,
        capacity=resources.capacity,
    )
    draws = []
    for key in keys:
        if key.unit == "vCPU" and where.instance is None:
            continue  # a vCPU quota needs the instance shape, which an accelerator alone lacks
        needed = units_needed(
            key,
            vcpus_per_instance=where.instance.vcpus if where.instance else 0,
            gpus_per_instance=where.gpus_per_node,
            instances_total=resources.nodes * where.replicas,
        )
        draws.append(Draw(manifest, key, needed))
    return draws


def _all_draws(run: RunIndex) -> dict[QuotaKey, list[Draw]]:
    index: dict[QuotaKey, list[Draw]] = {}
    for manifest in run.workloads:
        for draw in _draws(manifest):
            index.setdefault(draw.key, []).append(draw)
    return index


def _ledger_entries(run: RunIndex) -> list[tuple[Manifest, int, Any]]:
    out: list[tuple[Manifest, int, Any]] = []
    for ledger in run.ledgers:
        assert isinstance(ledger.model, QuotaLedger)
        out.extend(
            (ledger, number, entry) for number, entry in enumerate(ledger.model.spec.entries)
        )
    return out


def _covering(
    run: RunIndex, key: QuotaKey | ManagedQuotaKey, model: str | None = None
) -> Iterator[tuple[Manifest, int, Any]]:
    for ledger, number, entry in run.shared("quota.entries", _ledger_entries):
        if matches(
            key,
            entry.provider,
            entry.region,
            entry.quota,
            entry.capacity,
            entry_model=model and entry.model,
        ):
            yield ledger, number, entry


def _status(entries: list[Any]) -> str:
    for status in ("approved", "requested", "denied"):
        if any(entry.status == status for entry in entries):
            return status
    return "missing"


def _ref(ledger: Manifest, number: int) -> dict[str, Any]:
    return {
        "file": ledger.file,
        "document": ledger.index,
        "path": f"spec.entries[{number}]",
        "message": f"ledger entry in {ledger.name}",
    }


def _accelerator_quota(manifest: Manifest, run: RunIndex) -> list[dict[str, Any]]:
    index = run.shared("quota.draws", _all_draws)
    out = []
    for draw in _draws(manifest):
        key = draw.key
        covering = list(_covering(run, key))
        status = _status([entry for _, _, entry in covering])
        approved = sum(
            entry.approved or 0 for _, _, entry in covering if entry.status == "approved"
        )
        sharing = index.get(key, [])
        total = sum(d.needed for d in sharing)
        out.append(
            {
                "provider": key.provider,
                "region": key.region,
                "code": key.code,
                "name": key.name,
                "unit": key.unit,
                "capacity": key.capacity,
                "needed": draw.needed,
                "status": status,
                "approved": approved if status == "approved" else None,
                "runTotal": total,
                "shortfall": max(0.0, total - approved) if status == "approved" else None,
                "workloadCount": len(sharing),
                # a sample: thousands of workloads can share one quota in a large repository
                "workloads": [
                    f"{d.manifest.name} ({d.needed:g} {key.unit})" for d in sharing[:MAX_LISTED]
                ],
                "ledgerEntries": [_ref(ledger, number) for ledger, number, _ in covering],
            }
        )
    return out


def _limit(
    keys: list[tuple[ManagedQuotaKey, list[Any]]], unit: str, expected: float | None
) -> dict[str, Any] | None:
    """Expected versus approved for the quota of one unit (RPM or TPM), if the endpoint has one."""
    field = "requests_per_minute" if unit == "RPM" else "tokens_per_minute"
    for key, entries in keys:
        if key.unit == unit:
            limits = [
                getattr(e, field)
                for e in entries
                if e.status == "approved" and getattr(e, field) is not None
            ]
            return {
                "name": key.name,
                "expected": expected,
                "approved": sum(limits) if limits else None,
            }
    return None


def _managed_quota(manifest: Manifest, run: RunIndex) -> list[dict[str, Any]]:
    """One entry per endpoint: the quotas it draws on, their ledger status and limits."""
    workload = manifest.model
    assert isinstance(workload, Workload)
    out = []
    for number, endpoint in enumerate(workload.spec.endpoints):
        if not endpoint.model or not endpoint.region:
            continue
        keys = endpoint_quota(
            endpoint.provider,
            endpoint.model,
            endpoint.region,
            endpoint.inference_profile,
            deployment_type=endpoint.deployment_type,
        )
        if not keys:
            continue
        covered = [
            (key, [entry for _, _, entry in _covering(run, key, endpoint.model)]) for key in keys
        ]
        statuses = [_status(entries) for _, entries in covered]
        status = next((s for s in ("missing", "denied", "requested") if s in statuses), "approved")
        out.append(
            {
                "endpoint": number,
                "provider": endpoint.provider,
                "region": endpoint.region,
                "model": endpoint.model,
                "quotas": [key.name for key in keys],
                "status": status,
                "requests": _limit(covered, "RPM", endpoint.expected_requests_per_minute),
                "tokens": _limit(covered, "TPM", endpoint.expected_tokens_per_minute),
            }
        )
    return out


def _availability(manifest: Manifest) -> bool | None:
    workload = manifest.model
    assert isinstance(workload, Workload)
    resources = workload.spec.resources
    if resources.provider not in CLOUD_PROVIDERS or not resources.region:
        return None
    where: Placement = placement(workload)
    return offered_in_region(
        resources.provider,
        resources.region,
        instance_type=resources.instance_type,
        gpu_type=where.gpu_name,
    )


def prepare(run: RunIndex) -> None:
    run.shared("quota.draws", _all_draws)
    run.shared("quota.entries", _ledger_entries)


def compute(manifest: Manifest, run: RunIndex) -> dict[str, Any]:
    workload = manifest.model
    assert isinstance(workload, Workload)
    provider = workload.spec.resources.provider
    return {
        "cloud": provider in CLOUD_PROVIDERS,
        "accelerators": _accelerator_quota(manifest, run),
        "managedApis": _managed_quota(manifest, run),
        "offeredInRegion": _availability(manifest),
    }
