"""The ``quota`` fact: which accelerator and managed-API quotas a workload draws on, how much it
needs, what the ledgers of the run approve, and what all workloads of the run need together."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from linter.facts.base import MAX_LISTED, Fact, Tally, listing
from linter.facts.placement import Placement, resolve_placement
from linter.facts.pool import Reference
from linter.facts.run import RunIndex
from linter.facts.subject import Subject
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
Status = Literal["approved", "requested", "denied", "missing"]


class AcceleratorQuota(Fact):
    provider: str
    region: str | None = Field(description="Null for a quota over all regions.")
    region_text: str = Field(description="The region, or 'all regions'.")
    code: str
    name: str
    unit: str = Field(description="vCPU or GPU.")
    capacity: str = Field(description="on-demand, spot or any.")
    needed: float = Field(description="What this workload draws, in the quota's unit.")
    status: Status = Field(description="What the run's QuotaLedger entries say.")
    approved: float | None = Field(description="Approved amount, when status is approved.")
    run_total: float = Field(description="What every workload of the run drawing on it needs.")
    shortfall: float | None = Field(description="run_total beyond approved (0 if within).")
    workload_count: int
    workloads: list[str] = Field(description=f"The first {MAX_LISTED}, with what each needs.")
    workloads_text: str
    ledger_entries: list[Reference]


class Limit(Fact):
    name: str = Field(description="The quota's name.")
    expected: float | None = Field(description="What the workload declares it expects.")
    approved: float | None = Field(description="Sum of approved ledger limits.")


class ManagedQuota(Fact):
    endpoint: int = Field(description="Index into spec.endpoints.")
    provider: str
    region: str
    model: str
    quotas: list[str]
    quotas_text: str
    status: Status
    requests: Limit | None = Field(description="Requests-per-minute quota, if the API has one.")
    tokens: Limit | None = Field(description="Tokens-per-minute quota, if the API has one.")


class QuotaFact(Fact):
    cloud: bool = Field(description="Runs on a cloud gpulint knows quotas of (aws, gcp, azure).")
    accelerators: list[AcceleratorQuota]
    managed_apis: list[ManagedQuota]
    offered_in_region: bool | None = Field(
        description="The catalogue lists the instance or GPU in the region; null if unknown."
    )


@dataclass(frozen=True)
class Draw:
    manifest: Manifest
    key: QuotaKey
    needed: float


def _draws(manifest: Manifest) -> list[Draw]:
    workload = manifest.model
    assert isinstance(workload, Workload)
    where = resolve_placement(workload)
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


def _all_draws(run: RunIndex) -> dict[QuotaKey, Tally[Draw]]:
    """Quota -> what the run's workloads draw on it together; built once per run, so a quota
    shared by thousands of workloads costs O(n), not O(n^2)."""
    index: dict[QuotaKey, Tally[Draw]] = {}
    for manifest in run.workloads:
        for draw in _draws(manifest):
            index.setdefault(draw.key, Tally()).add(draw, draw.needed)
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


def _status(entries: list[Any]) -> Status:
    for status in ("approved", "requested", "denied"):
        if any(entry.status == status for entry in entries):
            return status
    return "missing"


def _ref(ledger: Manifest, number: int) -> Reference:
    return Reference(
        file=ledger.file,
        document=ledger.index,
        part=ledger.part,
        path=f"spec.entries[{number}]",
        message=f"ledger entry in {ledger.name}",
    )


def _accelerator_quota(manifest: Manifest, run: RunIndex) -> list[AcceleratorQuota]:
    index = run.shared("quota.draws", _all_draws)
    out = []
    for draw in _draws(manifest):
        key = draw.key
        covering = list(_covering(run, key))
        status = _status([entry for _, _, entry in covering])
        approved = sum(
            entry.approved or 0 for _, _, entry in covering if entry.status == "approved"
        )
        sharing = index[key]
        total = sharing.total
        shown = [f"{d.manifest.name} ({d.needed:g} {key.unit})" for d in sharing.sample]
        out.append(
            AcceleratorQuota(
                provider=key.provider,
                region=key.region,
                region_text=key.region or "all regions",
                code=key.code,
                name=key.name,
                unit=key.unit,
                capacity=key.capacity,
                needed=draw.needed,
                status=status,
                approved=approved if status == "approved" else None,
                run_total=total,
                shortfall=max(0.0, total - approved) if status == "approved" else None,
                workload_count=sharing.count,
                workloads=shown,
                workloads_text=listing(shown, sharing.count),
                ledger_entries=[_ref(ledger, number) for ledger, number, _ in covering],
            )
        )
    return out


def _limit(
    keys: list[tuple[ManagedQuotaKey, list[Any]]], unit: str, expected: float | None
) -> Limit | None:
    """Expected versus approved for the quota of one unit (RPM or TPM), if the endpoint has one."""
    field = "requests_per_minute" if unit == "RPM" else "tokens_per_minute"
    for key, entries in keys:
        if key.unit == unit:
            limits = [
                getattr(e, field)
                for e in entries
                if e.status == "approved" and getattr(e, field) is not None
            ]
            return Limit(name=key.name, expected=expected, approved=sum(limits) if limits else None)
    return None


def _managed_quota(manifest: Manifest, run: RunIndex) -> list[ManagedQuota]:
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
        status: Status = next(
            (s for s in ("missing", "denied", "requested") if s in statuses), "approved"
        )
        names = [key.name for key in keys]
        out.append(
            ManagedQuota(
                endpoint=number,
                provider=endpoint.provider,
                region=endpoint.region,
                model=endpoint.model,
                quotas=names,
                quotas_text=listing(names),
                status=status,
                requests=_limit(covered, "RPM", endpoint.expected_requests_per_minute),
                tokens=_limit(covered, "TPM", endpoint.expected_tokens_per_minute),
            )
        )
    return out


def _availability(manifest: Manifest) -> bool | None:
    workload = manifest.model
    assert isinstance(workload, Workload)
    resources = workload.spec.resources
    if resources.provider not in CLOUD_PROVIDERS or not resources.region:
        return None
    where: Placement = resolve_placement(workload)
    return offered_in_region(
        resources.provider,
        resources.region,
        instance_type=resources.instance_type,
        gpu_type=where.gpu_name,
    )


def prepare(run: RunIndex) -> None:
    run.shared("quota.draws", _all_draws)
    run.shared("quota.entries", _ledger_entries)


def compute(subject: Subject) -> QuotaFact:
    manifest, run = subject.manifest, subject.run
    return QuotaFact(
        cloud=subject.workload.spec.resources.provider in CLOUD_PROVIDERS,
        accelerators=_accelerator_quota(manifest, run),
        managed_apis=_managed_quota(manifest, run),
        offered_in_region=_availability(manifest),
    )
