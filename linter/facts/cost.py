"""The ``cost`` fact: running hours, hourly and monthly price on-demand and spot (where the price
catalogue has the instance type, in the workload's region or the nearest priced one, which it
then names), and, for self-hosted inference of a model also offered as a managed API, the
comparison with every offering residency allows, over the same hours. Prices are catalogue data
with sources and caveat flags; nothing here estimates one."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from linter.facts.base import Fact, listing, percent
from linter.facts.subject import Subject
from linter.model import Workload

CHEAPER_TEXT = {"api": "the API", "self-hosted": "self-hosting", "equal": "neither"}


class Comparison(Fact):
    provider: str = Field(description="The cheapest allowed managed offering.")
    model: str
    region: str | None = Field(description="Where that offering is called.")
    hours_per_month: float = Field(description="Hours both sides are compared over.")
    self_hosted_monthly: float
    api_monthly: float
    cheaper: Literal["self-hosted", "api", "equal"]
    cheaper_text: str = Field(description="'the API', 'self-hosting' or 'neither'.")
    monthly_saving: float = Field(description="What the cheaper side saves per month.")
    break_even_tokens_per_minute: int | None = Field(
        description="Sustained tokens per minute at which both cost the same."
    )
    split_assumed: bool = Field(description="The input:output split was assumed.")
    price_source: str


class ManagedApi(Fact):
    offered_by: list[str] = Field(description="Every managed API offering the model.")
    offered_by_text: str
    allowed_by: list[str] = Field(description="The offerings residency allows.")
    comparison: Comparison | None = Field(description="Null when it cannot be made (see missing).")
    missing: str | None = Field(description="What the comparison lacks, when it cannot be made.")


class CostFact(Fact):
    hours_per_month: float | None = Field(
        description="lifecycle.hoursPerMonth, else always on for inference, else maxRuntimeHours."
    )
    gpu_hours_per_month: float | None
    instances: int | None = Field(description="Priced instances (nodes x replicas).")
    price_region: str | None = Field(description="The region whose prices are used.")
    on_demand_per_hour: float | None = Field(description="All instances, USD.")
    spot_per_hour: float | None = Field(
        description="All instances, USD; null when the catalogue's spot price is not a market "
        "price (see price warnings)."
    )
    spot_saving_percent: float | None
    price_note: str | None = Field(description="Which prices were used and why, with the source.")
    price_warnings: list[str] = Field(description="Caveats the catalogue attaches to the price.")
    spot_saving_text: str | None = Field(
        description="Spot against on-demand, as a message says it."
    )
    per_hour: float | None = Field(description="At the declared capacity (spot or on-demand).")
    monthly: float | None = Field(description="per_hour x hours_per_month.")
    managed_api: ManagedApi | None = Field(
        description="Inference of a model a managed API also serves; null otherwise."
    )


def _money(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def _hours(workload: Workload) -> float | None:
    from linter.pricing import default_hours_per_month

    lifecycle = workload.spec.lifecycle
    if lifecycle.hours_per_month is not None:
        return lifecycle.hours_per_month
    if workload.spec.profile == "inference":
        return default_hours_per_month()
    return lifecycle.max_runtime_hours


def compute(subject: Subject) -> CostFact:
    from linter.pricing import instance_price, spot_saving

    workload = subject.workload
    resources = workload.spec.resources
    hours = _hours(workload)
    where = subject.placement
    price = None
    if resources.provider and resources.instance_type and where.instance:
        price = instance_price(resources.provider, resources.instance_type, resources.region)
    total_gpus = where.total_gpus
    gpu_hours = None if hours is None or total_gpus is None else round(total_gpus * hours, 1)
    if price is None:
        return CostFact(
            hours_per_month=hours,
            gpu_hours_per_month=gpu_hours,
            instances=None,
            price_region=None,
            on_demand_per_hour=None,
            spot_per_hour=None,
            spot_saving_percent=None,
            price_note=None,
            price_warnings=[],
            spot_saving_text=None,
            per_hour=None,
            monthly=None,
            managed_api=_managed_api(subject, hours),
        )
    count = where.instances
    on_demand = None if price.on_demand_per_hour is None else price.on_demand_per_hour * count
    spot = None if price.market_spot_per_hour is None else price.market_spot_per_hour * count
    saving = spot_saving(price)
    basis = price.basis_note()
    note = f"{price.region} catalogue prices" + (f" ({basis})" if basis else "")
    note += f", source {price.source}"
    saving_text = None
    if saving.fraction is not None:
        saving_text = (
            f"spot would cost ${_money(spot)}/h instead of ${_money(on_demand)}/h "
            f"({percent(saving.fraction):g}% less, {note})"
        )
    per_hour = spot if resources.capacity == "spot" else on_demand
    return CostFact(
        hours_per_month=hours,
        gpu_hours_per_month=gpu_hours,
        instances=count,
        price_region=price.region,
        on_demand_per_hour=_money(on_demand),
        spot_per_hour=_money(spot),
        spot_saving_percent=percent(saving.fraction),
        price_note=note,
        price_warnings=list(price.warnings()),
        spot_saving_text=saving_text,
        per_hour=_money(per_hour),
        monthly=None if per_hour is None or hours is None else _money(per_hour * hours),
        managed_api=_managed_api(subject, hours),
    )


def _managed_api(subject: Subject, hours: float | None) -> ManagedApi | None:
    """Every managed offering of the same model, and the cheapest one residency allows compared
    with self-hosting over the workload's own hours."""
    from linter.pricing import SelfHosted, compare_self_hosting, token_volume

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
        replicas=subject.placement.replicas,
    )
    allowed = list(workload.spec.data.residency) or list(subject.default_residency)
    volume = None if tokens is None else token_volume(tokens_per_minute=tokens)
    result = compare_self_hosting(
        model_id, hosted, hours_per_month=hours, volume=volume, allowed=allowed
    )
    if not result.verdicts:
        return None
    offered_by = sorted({v.offering.provider for v in result.verdicts})
    allowed_by = sorted({v.offering.provider for v in result.verdicts if v.allowed})
    comparison = None
    if result.comparisons:
        best = result.comparisons[0]
        outcome, offering = best.result, best.verdict.offering
        comparison = Comparison(
            provider=offering.provider,
            model=offering.model,
            region=best.verdict.region,
            hours_per_month=outcome.hours_per_month,
            self_hosted_monthly=round(outcome.self_hosted_monthly, 2),
            api_monthly=round(outcome.api_monthly, 2),
            cheaper=outcome.cheaper,
            cheaper_text=CHEAPER_TEXT[outcome.cheaper],
            monthly_saving=round(outcome.monthly_saving, 2),
            break_even_tokens_per_minute=None
            if outcome.break_even_tokens_per_minute is None
            else round(outcome.break_even_tokens_per_minute),
            split_assumed=volume is not None and volume.split_assumed,
            price_source=offering.source,
        )
    return ManagedApi(
        offered_by=offered_by,
        offered_by_text=listing(offered_by),
        allowed_by=allowed_by,
        comparison=comparison,
        missing=listing([m.detail for m in result.missing]) if result.missing else None,
    )
