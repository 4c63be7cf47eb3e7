"""The ``cost`` fact: running hours, hourly and monthly price on-demand and spot (where the price
catalogue has the instance type in that region), and, for self-hosted inference of a model also
offered as a managed API, the comparison with per-token pricing over the same hours. Prices are
catalogue data with sources; nothing here estimates one."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from linter.facts.base import Fact, listing, percent
from linter.facts.subject import Subject
from linter.model import Workload

#: The managed API a cloud's own customers would reach for first.
API_OF_CLOUD = {"aws": "bedrock", "gcp": "vertex-ai", "azure": "azure-openai"}
CHEAPER_TEXT = {"api": "the API", "self-hosted": "self-hosting", "equal": "neither"}


class Comparison(Fact):
    hours_per_month: float = Field(description="Hours both sides are compared over.")
    self_hosted_monthly: float
    api_monthly: float
    cheaper: Literal["self-hosted", "api", "equal"]
    cheaper_text: str = Field(description="'the API', 'self-hosting' or 'neither'.")
    monthly_saving: float = Field(description="What the cheaper side saves per month.")
    break_even_tokens_per_minute: int | None = Field(
        description="Sustained tokens per minute at which both cost the same."
    )
    split_assumed: bool = Field(description="A 3:1 input:output token split was assumed.")
    price_source: str


class ManagedApi(Fact):
    provider: str = Field(description="The offering compared against.")
    model: str = Field(description="Its model id.")
    offered_by: list[str] = Field(description="Every managed API offering the model.")
    offered_by_text: str
    comparison: Comparison | None = Field(description="Null when it cannot be made (see missing).")
    missing: str | None = Field(description="What the comparison lacks, when it cannot be made.")


class CostFact(Fact):
    hours_per_month: float | None = Field(
        description="lifecycle.hoursPerMonth, else always on for inference, else maxRuntimeHours."
    )
    gpu_hours_per_month: float | None
    instances: int | None = Field(description="Priced instances (nodes x replicas).")
    on_demand_per_hour: float | None = Field(description="All instances, USD.")
    spot_per_hour: float | None = Field(description="All instances, USD.")
    spot_saving_percent: float | None
    price_note: str | None = Field(description="Which prices were used, with their source.")
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
    from linter.pricing import HOURS_PER_MONTH

    lifecycle = workload.spec.lifecycle
    if lifecycle.hours_per_month is not None:
        return lifecycle.hours_per_month
    if workload.spec.profile == "inference":
        return HOURS_PER_MONTH
    return lifecycle.max_runtime_hours


class _Prices:
    """The instance's catalogue prices for every instance of the workload, or why there are none."""

    def __init__(self, subject: Subject) -> None:
        from linter.pricing import instance_price

        resources = subject.workload.spec.resources
        where = subject.placement
        self.on_demand: float | None = None
        self.spot: float | None = None
        self.note: str | None = None
        self.missing: str | None = None
        if not resources.instance_type:
            self.missing = "no instance type declared, so no instance price applies"
            return
        if not (resources.provider and resources.region and where.instance):
            self.missing = f"no price for {resources.instance_type} without a provider and region"
            return
        price = instance_price(resources.provider, resources.instance_type, resources.region)
        if price is None:
            self.missing = (
                f"no catalogued price for {resources.instance_type} in {resources.region}"
            )
            return
        count = where.instances
        if price.on_demand_per_hour is not None:
            self.on_demand = price.on_demand_per_hour * count
        if price.spot_per_hour is not None:
            self.spot = price.spot_per_hour * count
        self.note = f"{resources.region} catalogue prices, source {price.source}"


def compute(subject: Subject) -> CostFact:
    workload = subject.workload
    hours = _hours(workload)
    total_gpus = subject.placement.total_gpus
    prices = _Prices(subject)
    on_demand, spot = _money(prices.on_demand), _money(prices.spot)
    saving = (
        1 - prices.spot / prices.on_demand if prices.spot is not None and prices.on_demand else None
    )
    per_hour = spot if workload.spec.resources.capacity == "spot" else on_demand
    saving_text = None
    if saving is not None:
        saving_text = (
            f"spot would cost ${spot}/h instead of ${on_demand}/h "
            f"({percent(saving):g}% less, {prices.note})"
        )
    return CostFact(
        hours_per_month=hours,
        gpu_hours_per_month=None
        if hours is None or total_gpus is None
        else round(total_gpus * hours, 1),
        instances=subject.placement.instances if prices.note else None,
        on_demand_per_hour=on_demand,
        spot_per_hour=spot,
        spot_saving_percent=percent(saving),
        price_note=prices.note,
        spot_saving_text=saving_text,
        per_hour=per_hour,
        monthly=None if per_hour is None or hours is None else _money(per_hour * hours),
        managed_api=_managed_api(workload, per_hour, hours, prices),
    )


def _managed_api(
    workload: Workload, per_hour: float | None, hours: float | None, prices: _Prices
) -> ManagedApi | None:
    """The managed API offering the same model, compared over the workload's own hours."""
    from linter.pricing import api_price, break_even, managed_offerings

    model_id = workload.spec.model.id
    if workload.spec.profile != "inference" or not model_id:
        return None
    offerings = managed_offerings(model_id)
    if not offerings:
        return None
    preferred = API_OF_CLOUD.get(workload.spec.resources.provider or "")
    offerings.sort(key=lambda o: (o.provider != preferred, not o.has_price, o.provider))
    chosen = offerings[0]
    offered_by = sorted({o.provider for o in offerings})
    price = (
        api_price(chosen.provider, chosen.model, workload.spec.resources.region)
        if chosen.has_price
        else None
    )
    tokens = workload.spec.serving.expected_tokens_per_minute
    missing = None
    if price is None:
        missing = f"no catalogued per-token price for {chosen.provider} {chosen.model}"
    elif per_hour is None:
        missing = prices.missing or f"no {workload.spec.resources.capacity} price for the instance"
    elif tokens is None:
        missing = "no volume declared (serving.expectedTokensPerMinute)"
    comparison = None
    if missing is None and price is not None and per_hour is not None and tokens is not None:
        result = break_even(
            per_hour,
            price.input_per_million_tokens,
            price.output_per_million_tokens,
            tokens_per_minute=tokens,
            hours_per_month=hours if hours is not None else 0.0,
        )
        comparison = Comparison(
            hours_per_month=result.hours_per_month,
            self_hosted_monthly=round(result.self_hosted_monthly, 2),
            api_monthly=round(result.api_monthly, 2),
            cheaper=result.cheaper,
            cheaper_text=CHEAPER_TEXT[result.cheaper],
            monthly_saving=round(result.monthly_saving, 2),
            break_even_tokens_per_minute=None
            if result.break_even_tokens_per_minute is None
            else round(result.break_even_tokens_per_minute),
            split_assumed=result.split_assumed,
            price_source=price.source,
        )
    return ManagedApi(
        provider=chosen.provider,
        model=chosen.model,
        offered_by=offered_by,
        offered_by_text=listing(offered_by),
        comparison=comparison,
        missing=missing,
    )
