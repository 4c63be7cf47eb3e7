"""The ``cost`` fact: what a workload runs (nodes, replicas, GPUs), for how many hours a month and
on what that rests, its hourly and monthly price on-demand and spot (where the price catalogue
has the instance type, in the workload's region or the nearest priced one, which it then names),
and, for self-hosted inference of a model also offered as a managed API, the comparison with
every offering residency allows, over the same hours. Prices are catalogue data with sources and
caveat flags; nothing here estimates one. Only the normalised workload is read, so the fact is
the same for every input format.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from linter.facts import estimates
from linter.facts.base import Fact, described, percent
from linter.facts.subject import Subject
from linter.model import Workload
from linter.model.fields import FIELDS
from linter.pricing.hours import HoursBasis, RunningHours
from linter.records import datarecord
from linter.wording import listing, money, money_per_hour

if TYPE_CHECKING:
    from linter.pricing import Capacity, InstancePrice, Missing

#: The field a missing comparison input is declared in (``linter.pricing.Missing`` codes).
MISSING_FIELD = {
    "no-volume": "expectedTokensPerMinute",
    "no-region": "region",
    "no-provider": "provider",
    "no-instance-type": "instanceType",
}


class Comparison(Fact):
    provider: str = described("The managed API (bedrock, vertex-ai, ...).")
    model: str
    region: str | None = described("Where that offering is called.")
    offering_text: str = described("e.g. 'bedrock meta.llama3-1-8b-instruct-v1:0 in us-east-1'.")
    same_region: bool = described("Called in the workload's own region.")
    hours_per_month: float = described("Hours both sides are compared over.")
    self_hosted_monthly: float
    api_monthly: float
    cheaper: Literal["self-hosted", "api", "equal"]
    monthly_saving: float = described("What the cheaper side saves per month.")
    break_even_tokens_per_minute: int | None = described(
        "Sustained tokens per minute at which both cost the same."
    )
    split_assumed: bool = described("The input:output split was assumed.")
    price_source: str


class ManagedApi(Fact):
    offered_by: list[str] = described("Every managed API offering the model.")
    offered_by_text: str
    allowed_by: list[str] = described("The offerings residency allows.")
    comparison: Comparison | None = described(
        "The cheapest allowed offering; null when no comparison can be made (see missing)."
    )
    comparisons: list[Comparison] = described(
        "Every allowed offering, cheapest first (then provider, model, region)."
    )
    comparisons_text: str = described(
        "Each allowed offering with its monthly cost, for messages ('none' when "
        "there is no comparison)."
    )
    missing: str | None = described("What the comparison lacks, when it cannot be made.")


class CostFact(Fact):
    nodes: int = described("Nodes of one replica.")
    replicas: int = described("Replicas running normally (1 for jobs; 0 is possible).")
    max_replicas: int | None = described("The autoscaler's maximum, when declared.")
    priced_replicas: int = described(
        "Replicas the cost is for: the replicas, at least 1 for a service that scales "
        "to zero (it runs at least one while it runs)."
    )
    instances: int = described("Instances priced: nodes x priced replicas.")
    gpus: float | None = described("GPUs across the priced instances; null if unknown.")
    hours_per_month: float | None = described("Hours a month the cost is for.")
    hours_basis: HoursBasis = described(
        "What the hours rest on: declared (lifecycle.hoursPerMonth), always-on, "
        "scale-to-zero or idle-shutdown (the whole month as a ceiling: no hours declared), "
        "max-runtime (a job's maxRuntimeHours, at most the month), unknown (a job with neither)."
    )
    hours_upper_bound: bool = described("The hours, so the monthly costs, are a ceiling.")
    hours_text: str = described("The hours and what they assume, in the file's words.")
    gpu_hours_per_month: float | None
    capacity: Literal["on-demand", "spot", "reserved"]
    price_region: str | None = described("The region whose prices are used.")
    on_demand_per_hour: float | None = described("All priced instances, USD.")
    spot_per_hour: float | None = described(
        "All priced instances, USD; null when the catalogue's spot price is not a "
        "market price (see price warnings)."
    )
    spot_saving_percent: float | None
    price_note: str | None = described("Which prices were used and why, with the source.")
    price_source: str | None = described("The id of the price's source (prices.yaml).")
    price_warnings: list[str] = described("Caveats the catalogue attaches to the price.")
    spot_saving_text: str | None = described(
        "Spot against on-demand, as a message says it, with the price's caveats."
    )
    per_hour: float | None = described(
        "At the declared capacity (spot replicas at spot, an on-demand fallback and "
        "reserved capacity at on-demand)."
    )
    monthly: float | None = described("per_hour x hours_per_month.")
    on_demand_monthly: float | None = described("Every priced instance on-demand.")
    spot_monthly: float | None = described("Every priced instance on spot.")
    max_monthly: float | None = described(
        "At the declared capacity with maxReplicas replicas; null without it."
    )
    unpriced: str | None = described("Why there is no price; null when there is one.")
    assumed_instance_type: str | None = described(
        "The instance type priced when the workload names its GPUs but no instance "
        "type: the cheapest catalogued one that holds them (price_note says where). Only "
        "`gpulint cost` assumes one; null in rules and when an instance type is declared."
    )
    managed_api: ManagedApi | None = described(
        "Inference of a model a managed API also serves; null otherwise."
    )


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def _name(subject: Subject, field: str) -> str:
    """The file's own name for a normalised field (``facts.names``)."""
    return subject.manifest.provenance.name(FIELDS[field].path)


def _hours_text(subject: Subject, hours: RunningHours) -> str:
    declared = _name(subject, "hoursPerMonth")
    runtime = _name(subject, "maxRuntimeHours")
    if hours.per_month is None:
        return f"unknown: a job with neither {declared} nor {runtime}"
    amount = f"{hours.per_month:g} hours a month"
    texts = {
        "declared": f"{amount}, as {declared} declares",
        "always-on": f"{amount}: always on (no {declared}, and it never stops)",
        "scale-to-zero": f"at most {amount}: it scales to zero, and no {declared} says for how "
        "long it runs",
        "idle-shutdown": f"at most {amount}: it shuts down when idle, and no {declared} says for "
        "how long it runs",
        "max-runtime": f"at most {amount}: one run of {runtime}",
    }
    return texts[hours.basis]


def _replicas(workload: Workload) -> tuple[int, int | None, int]:
    """Declared replicas, the autoscaler's maximum, and the replicas priced."""
    if workload.spec.profile != "inference":
        return 1, None, 1
    serving = workload.spec.serving
    replicas = 1 if serving.replicas is None else serving.replicas
    priced = max(replicas, 1) if workload.spec.lifecycle.scale_to_zero else replicas
    return replicas, serving.max_replicas, priced


@datarecord
class _Priced:
    """The price-dependent figures of the fact (all None without a price)."""

    region: str | None = None
    on_demand: float | None = None
    spot: float | None = None
    saving_percent: float | None = None
    note: str | None = None
    warnings: tuple[str, ...] = ()
    saving_text: str | None = None
    per_hour: float | None = None
    at_max_replicas: float | None = None


def _priced(
    price: InstancePrice, workload: Workload, replicas: int, max_replicas: int | None
) -> _Priced:
    from linter.pricing import fleet_per_hour, spot_saving

    resources = workload.spec.resources
    fallback = workload.spec.serving.on_demand_fallback_replicas or 0

    def fleet(capacity: Capacity, count: int, on_demand_replicas: int = fallback) -> float | None:
        return fleet_per_hour(
            price,
            capacity,
            nodes=resources.nodes,
            replicas=count,
            on_demand_replicas=on_demand_replicas,
        )

    on_demand = fleet("on-demand", replicas)
    spot = fleet("spot", replicas, on_demand_replicas=0)
    saving = spot_saving(price)
    basis = price.basis_note()
    note = f"{price.region} catalogue prices" + (f" ({basis})" if basis else "")
    note += f", source {price.source}"
    warnings = price.warnings()
    saving_text = None
    if saving.fraction is not None and on_demand is not None and spot is not None:
        caveats = "".join(f"; caveat: {warning}" for warning in warnings)
        saving_text = (
            f"spot would cost {money_per_hour(spot)}/h instead of {money_per_hour(on_demand)}/h "
            f"({percent(saving.fraction):g}% less, {note}{caveats})"
        )
    at_max = None
    if max_replicas is not None and max_replicas > replicas:
        at_max = fleet(resources.capacity, max_replicas)
    return _Priced(
        region=price.region,
        on_demand=on_demand,
        spot=spot,
        saving_percent=percent(saving.fraction),
        note=note,
        warnings=warnings,
        saving_text=saving_text,
        per_hour=fleet(resources.capacity, replicas),
        at_max_replicas=at_max,
    )


def compute(subject: Subject) -> CostFact:
    return cost_of(subject, compare=True)


def cost_of(subject: Subject, *, compare: bool, assume_instance: bool = False) -> CostFact:
    """The fact; with ``compare``, the managed API comparison too (budgets need only the
    monthly figure). With ``assume_instance`` (``gpulint cost``), a workload that names its GPUs
    but no instance type is priced as the cheapest catalogued instance that holds them: a lower
    bound a report can show and say so, where a rule would speak of a price nobody declared."""
    from linter.pricing import cheapest_instance_with_gpus, instance_price, running_hours

    workload = subject.workload
    resources = workload.spec.resources
    hours = running_hours(workload.spec.profile, workload.spec.lifecycle)
    replicas, max_replicas, priced_replicas = _replicas(workload)
    accelerator = resources.accelerator.type if resources.accelerator else None
    price = None
    if resources.provider and resources.instance_type:
        price = instance_price(
            resources.provider, resources.instance_type, resources.region, accelerator
        )
    gpus_per_node = subject.placement.gpus_per_node
    assumed = None
    if (
        assume_instance
        and price is None
        and not resources.instance_type
        and accelerator
        and gpus_per_node
    ):
        price = cheapest_instance_with_gpus(
            accelerator, gpus_per_node, resources.provider, resources.region
        )
        assumed = None if price is None else f"{price.provider} {price.instance_type}"
    if gpus_per_node is None and price is not None:
        gpus_per_node = price.accelerator_count
    gpus = None if gpus_per_node is None else gpus_per_node * resources.nodes * priced_replicas
    per_month = hours.per_month
    priced = _Priced() if price is None else _priced(price, workload, priced_replicas, max_replicas)

    def month(per_hour: float | None) -> float | None:
        return None if per_hour is None or per_month is None else round(per_hour * per_month, 2)

    return CostFact(
        nodes=resources.nodes,
        replicas=replicas,
        max_replicas=max_replicas,
        priced_replicas=priced_replicas,
        instances=resources.nodes * priced_replicas,
        gpus=gpus,
        hours_per_month=per_month,
        hours_basis=hours.basis,
        hours_upper_bound=hours.upper_bound,
        hours_text=_hours_text(subject, hours),
        gpu_hours_per_month=None if gpus is None or per_month is None else gpus * per_month,
        capacity=resources.capacity,
        price_region=priced.region,
        on_demand_per_hour=_round(priced.on_demand, 4),
        spot_per_hour=_round(priced.spot, 4),
        spot_saving_percent=priced.saving_percent,
        price_note=priced.note,
        price_source=None if price is None else price.source,
        price_warnings=list(priced.warnings),
        spot_saving_text=priced.saving_text,
        per_hour=_round(priced.per_hour, 4),
        monthly=month(priced.per_hour),
        on_demand_monthly=month(priced.on_demand),
        spot_monthly=month(priced.spot),
        max_monthly=month(priced.at_max_replicas),
        unpriced=None if price is not None else _unpriced(subject),
        assumed_instance_type=assumed,
        managed_api=_managed_api(subject, per_month, priced_replicas) if compare else None,
    )


def _unpriced(subject: Subject) -> str:
    from linter.catalog.prices import instance_rows

    resources = subject.workload.spec.resources
    if not resources.provider or not resources.instance_type:
        missing = [
            _name(subject, field)
            for field, value in (
                ("provider", resources.provider),
                ("instanceType", resources.instance_type),
            )
            if not value
        ]
        return f"no {' or '.join(missing)} declared: the catalogue prices instance types"
    name = f"{resources.instance_type} ({resources.provider})"
    rows = instance_rows(resources.provider, resources.instance_type)
    if rows:
        gpus = listing(sorted({row.accelerator for row in rows}))
        return (
            f"the catalogue prices {name} with {gpus}: name the GPU in "
            f"{_name(subject, 'accelerator')}"
        )
    return f"the catalogue has no price for {name}"


def _managed_api(subject: Subject, hours: float | None, replicas: int) -> ManagedApi | None:
    """Every managed offering of the same model, each one residency allows compared with
    self-hosting over the workload's own hours (cheapest first)."""
    from linter.pricing import SelfHosted

    workload = subject.workload
    model_id = workload.spec.model.id
    if workload.spec.profile != "inference" or not model_id or hours is None:
        return None
    resources = workload.spec.resources
    tokens = workload.spec.serving.expected_tokens_per_minute
    hosted = SelfHosted(
        provider=resources.provider,
        region=resources.region,
        instance_type=resources.instance_type,
        capacity="spot" if resources.capacity == "spot" else "on-demand",
        nodes=resources.nodes,
        replicas=replicas,
        accelerator=resources.accelerator.type if resources.accelerator else None,
        on_demand_replicas=workload.spec.serving.on_demand_fallback_replicas or 0,
    )
    allowed = list(workload.spec.data.residency) or list(subject.default_residency)
    result, volume = estimates.managed_comparison(model_id, hosted, hours, tokens, allowed)
    if not result.verdicts:
        return None
    comparisons = [
        Comparison(
            provider=c.verdict.offering.provider,
            model=c.verdict.offering.model,
            region=c.verdict.region,
            offering_text=f"{c.verdict.offering.provider} {c.verdict.offering.model} in "
            f"{c.verdict.region or 'any region'}",
            same_region=c.verdict.same_region,
            hours_per_month=c.result.hours_per_month,
            self_hosted_monthly=round(c.result.self_hosted_monthly, 2),
            api_monthly=round(c.result.api_monthly, 2),
            cheaper=c.result.cheaper,
            monthly_saving=round(c.result.monthly_saving, 2),
            break_even_tokens_per_minute=None
            if c.result.break_even_tokens_per_minute is None
            else round(c.result.break_even_tokens_per_minute),
            split_assumed=volume is not None and volume.split_assumed,
            price_source=c.verdict.offering.source,
        )
        for c in result.comparisons
    ]
    texts = [f"{c.offering_text} {money(c.api_monthly)}/month" for c in comparisons]
    offered_by = sorted({v.offering.provider for v in result.verdicts})
    return ManagedApi(
        offered_by=offered_by,
        offered_by_text=listing(offered_by),
        allowed_by=sorted({v.offering.provider for v in result.verdicts if v.allowed}),
        comparison=comparisons[0] if comparisons else None,
        comparisons=comparisons,
        comparisons_text=listing(texts),
        missing=listing([_missing(subject, m) for m in result.missing]) if result.missing else None,
    )


def _missing(subject: Subject, missing: Missing) -> str:
    """What a comparison lacks, naming the field to declare in the file's own words."""
    field = MISSING_FIELD.get(missing.code)
    return missing.detail if field is None else f"{missing.detail} ({_name(subject, field)})"
