"""The ``quota`` fact: which accelerator and managed-API quotas a workload draws on, how much it
needs, what the ledgers of the run approve, and what all workloads of the run need together.

Run-wide: each workload records the quotas it draws on (resolved through the catalogues while
its file is read) and each QuotaLedger its entries; the index sums every quota's draws once and
matches ledger entries to a quota once, so a quota shared by thousands of workloads costs O(n).
"""

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any, Literal, cast

from linter.catalog.regions import clouds
from linter.facts.base import Fact, Tally, described
from linter.facts.placement import resolve_placement
from linter.facts.pool import Reference
from linter.facts.run import Records, RunInputs, RunSide
from linter.model import Workload
from linter.model.manifest import Manifest
from linter.quota import (
    ManagedQuotaKey,
    QuotaKey,
    endpoint_quota,
    matches,
    offered_in_region,
    quota_for,
    units_needed,
)
from linter.records import datarecord
from linter.wording import MAX_LISTED, listing

if TYPE_CHECKING:  # defined when a run first reads one (linter.model.kind_model)
    from linter.model.quota_ledger import QuotaEntry, QuotaLedger

Status = Literal["approved", "requested", "denied", "missing"]


class AcceleratorQuota(Fact):
    provider: str
    region: str | None = described("Null for a quota over all regions.")
    region_text: str = described("The region, or 'all regions'.")
    code: str
    name: str
    unit: str = described("vCPU or GPU.")
    capacity: str = described("on-demand, spot or any.")
    needed: float = described("What this workload draws, in the quota's unit.")
    status: Status = described("What the run's QuotaLedger entries say.")
    approved: float | None = described("Approved amount, when status is approved.")
    run_total: float = described("What every workload of the run drawing on it needs.")
    shortfall: float | None = described("run_total beyond approved (0 if within).")
    workload_count: int
    workloads: list[str] = described(f"The first {MAX_LISTED}, with what each needs.")
    workloads_text: str
    ledger_entries: list[Reference]


class QuotaLimit(Fact):
    name: str = described("The quota's name.")
    expected: float | None = described("What the workload declares it expects.")
    approved: float | None = described("Sum of approved ledger limits.")


class ManagedQuota(Fact):
    endpoint: int = described("Index into spec.endpoints.")
    provider: str
    region: str
    model: str
    quotas: list[str]
    quotas_text: str
    status: Status
    requests: QuotaLimit | None = described("Requests-per-minute quota, if the API has one.")
    tokens: QuotaLimit | None = described("Tokens-per-minute quota, if the API has one.")


class QuotaFact(Fact):
    cloud: bool = described("Runs on a cloud gpulint knows quotas of (aws, gcp, azure).")
    ledger_kept: bool = described(
        "The run holds a QuotaLedger entry: quota is recorded in the repository, so "
        "a quota no entry covers is missing, not merely unrecorded."
    )
    accelerators: list[AcceleratorQuota]
    managed_apis: list[ManagedQuota]
    offered_in_region: bool | None = described(
        "The catalogue lists the instance or GPU in the region; null if unknown."
    )


# -- records (per manifest, while its file is read) -----------------------------------------


def record(manifest: Manifest, _known: Mapping[str, Fact]) -> dict[str, Any] | None:
    """A workload's draws and endpoint quotas, or a ledger's entries, as plain data."""
    if manifest.kind == "QuotaLedger":
        ledger = cast("QuotaLedger", manifest.model)
        entries = [e.model_dump(mode="json") for e in ledger.spec.entries]
        return {"ledger": manifest.name, "entries": entries}
    if not isinstance(manifest.model, Workload):
        return None
    workload = manifest.model
    return {
        "name": manifest.name,
        "cloud": workload.spec.resources.provider in clouds(),
        "draws": _draws(workload),
        "endpoints": _endpoints(workload),
        "offered": _availability(workload),
    }


def _draws(workload: Workload) -> list[dict[str, Any]]:
    where = resolve_placement(workload)
    resources = workload.spec.resources
    if resources.provider not in clouds() or not resources.region or where.gpus_per_node is None:
        return []
    keys = quota_for(
        resources.provider,
        resources.region,
        instance_type=resources.instance_type,
        instance_family=where.instance.family if where.instance else None,
        gpu_type=where.gpu_name,
        capacity=resources.capacity,
    )
    # quota is drawn at the peak: a pool that scales 0..6 needs quota for 6 when it scales up
    peak = max(where.replicas, workload.spec.serving.max_replicas or 0)
    draws = []
    for key in keys:
        if key.unit == "vCPU" and where.instance is None:
            continue  # a vCPU quota needs the instance shape, which an accelerator alone lacks
        needed = units_needed(
            key,
            vcpus_per_instance=where.instance.vcpus if where.instance else 0,
            gpus_per_instance=where.gpus_per_node,
            instances_total=resources.nodes * peak,
        )
        if needed > 0:  # nothing running and no peak said: no draw to judge
            draws.append({"key": _key_data(key), "needed": needed})
    return draws


def _endpoints(workload: Workload) -> list[dict[str, Any]]:
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
        if keys:
            out.append(
                {
                    "endpoint": number,
                    "provider": endpoint.provider,
                    "region": endpoint.region,
                    "model": endpoint.model,
                    "keys": [_key_data(key) for key in keys],
                    "requests": endpoint.expected_requests_per_minute,
                    "tokens": endpoint.expected_tokens_per_minute,
                }
            )
    return out


def _key_data(key: QuotaKey | ManagedQuotaKey) -> dict[str, Any]:
    """A quota key as plain data, for a record."""
    return dict(_key_items(key))


@functools.lru_cache(maxsize=4096)
def _key_items(key: QuotaKey | ManagedQuotaKey) -> tuple[tuple[str, Any], ...]:
    # Converted once per key: a run's workloads draw on a few keys over and over, and
    # dataclasses.asdict (which copies deeply) was most of the time of making their records.
    return tuple(dataclasses.asdict(key).items())


def _availability(workload: Workload) -> bool | None:
    resources = workload.spec.resources
    if resources.provider not in clouds() or not resources.region:
        return None
    return offered_in_region(
        resources.provider,
        resources.region,
        instance_type=resources.instance_type,
        gpu_type=resolve_placement(workload).gpu_name,
    )


# -- the index (once per run) ----------------------------------------------------------------


@datarecord
class Draw:
    name: str
    needed: float


@datarecord
class LedgerEntry:
    """One QuotaLedger entry, with where it is written."""

    reference: Reference
    entry: "QuotaEntry"


@datarecord(frozen=False)
class QuotaIndex:
    draws: dict[QuotaKey, Tally[Draw]] = field(default_factory=dict)
    entries: list[LedgerEntry] = field(default_factory=list)
    _covering: dict[tuple[Any, ...], list[LedgerEntry]] = field(default_factory=dict)

    def covering(
        self, key: QuotaKey | ManagedQuotaKey, model: str | None = None
    ) -> list[LedgerEntry]:
        """The ledger entries that cover ``key`` (matched once per key and run)."""
        cache_key = (key, model)
        if cache_key not in self._covering:
            self._covering[cache_key] = [
                e
                for e in self.entries
                if matches(
                    key,
                    e.entry.provider,
                    e.entry.region,
                    e.entry.quota,
                    e.entry.capacity,
                    entry_model=model and e.entry.model,
                )
            ]
        return self._covering[cache_key]


def index(records: Records, _inputs: RunInputs) -> QuotaIndex:
    out = QuotaIndex()
    for (file, document, part), item in records:
        for draw in item.get("draws", ()):
            out.draws.setdefault(_key(draw["key"]), Tally()).add(
                Draw(item["name"], draw["needed"]), draw["needed"]
            )
        for number, entry in enumerate(item.get("entries", ())):
            reference = Reference(
                file=file,
                document=document,
                part=part,
                path=f"spec.entries[{number}]",
                message=f"ledger entry in {item['ledger']}",
            )
            out.entries.append(LedgerEntry(reference, _ledger_entry(entry)))
    return out


def _ledger_entry(entry: dict[str, Any]) -> "QuotaEntry":
    from linter.model.quota_ledger import QuotaEntry

    return QuotaEntry.model_validate(entry)


def _key(data: dict[str, Any]) -> QuotaKey:
    return QuotaKey(**data)


def _managed_key(data: dict[str, Any]) -> ManagedQuotaKey:
    return ManagedQuotaKey(**{**data, "aliases": tuple(data["aliases"])})


# -- the fact ----------------------------------------------------------------------------------


def _status(entries: list[LedgerEntry]) -> Status:
    for status in ("approved", "requested", "denied"):
        if any(e.entry.status == status for e in entries):
            return status
    return "missing"


def _accelerator_quota(item: dict[str, Any], quotas: QuotaIndex) -> list[AcceleratorQuota]:
    out = []
    for draw in item["draws"]:
        key = _key(draw["key"])
        covering = quotas.covering(key)
        status = _status(covering)
        approved = sum(e.entry.approved or 0 for e in covering if e.entry.status == "approved")
        sharing = quotas.draws[key]
        total = sharing.total
        shown = [f"{d.name} ({d.needed:g} {key.unit})" for d in sharing.sample]
        out.append(
            AcceleratorQuota(
                provider=key.provider,
                region=key.region,
                region_text=key.region or "all regions",
                code=key.code,
                name=key.name,
                unit=key.unit,
                capacity=key.capacity,
                needed=draw["needed"],
                status=status,
                approved=approved if status == "approved" else None,
                run_total=total,
                shortfall=max(0.0, total - approved) if status == "approved" else None,
                workload_count=sharing.count,
                workloads=shown,
                workloads_text=listing(shown, sharing.count),
                ledger_entries=[e.reference for e in covering],
            )
        )
    return out


def _limit(
    covered: list[tuple[ManagedQuotaKey, list[LedgerEntry]]], unit: str, expected: float | None
) -> QuotaLimit | None:
    """Expected versus approved for the quota of one unit (RPM or TPM), if the endpoint has one."""
    attribute = "requests_per_minute" if unit == "RPM" else "tokens_per_minute"
    for key, entries in covered:
        if key.unit == unit:
            limits = [
                getattr(e.entry, attribute)
                for e in entries
                if e.entry.status == "approved" and getattr(e.entry, attribute) is not None
            ]
            return QuotaLimit(
                name=key.name, expected=expected, approved=sum(limits) if limits else None
            )
    return None


def _managed_quota(item: dict[str, Any], quotas: QuotaIndex) -> list[ManagedQuota]:
    """One entry per endpoint: the quotas it draws on, their ledger status and limits."""
    out = []
    for endpoint in item["endpoints"]:
        keys = [_managed_key(key) for key in endpoint["keys"]]
        covered = [(key, quotas.covering(key, endpoint["model"])) for key in keys]
        statuses = [_status(entries) for _, entries in covered]
        status: Status = next(
            (s for s in ("missing", "denied", "requested") if s in statuses), "approved"
        )
        names = [key.name for key in keys]
        out.append(
            ManagedQuota(
                endpoint=endpoint["endpoint"],
                provider=endpoint["provider"],
                region=endpoint["region"],
                model=endpoint["model"],
                quotas=names,
                quotas_text=listing(names),
                status=status,
                requests=_limit(covered, "RPM", endpoint["requests"]),
                tokens=_limit(covered, "TPM", endpoint["tokens"]),
            )
        )
    return out


def fact(item: dict[str, Any] | None, quotas: QuotaIndex) -> QuotaFact:
    if item is None or "draws" not in item:
        return QuotaFact(
            cloud=False,
            ledger_kept=bool(quotas.entries),
            accelerators=[],
            managed_apis=[],
            offered_in_region=None,
        )
    return QuotaFact(
        cloud=item["cloud"],
        ledger_kept=bool(quotas.entries),
        accelerators=_accelerator_quota(item, quotas),
        managed_apis=_managed_quota(item, quotas),
        offered_in_region=item["offered"],
    )


RUN = RunSide(record, index, fact, {"QuotaLedger": ("spec.entries",)})
