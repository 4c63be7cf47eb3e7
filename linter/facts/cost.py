"""The ``cost`` fact: GPU-hours per month, hourly and monthly price on-demand and spot (where the
price catalogue has the instance type in that region), and, for self-hosted inference of a model
also offered as a managed API, the break-even against per-token pricing. Prices are catalogue
data with sources; nothing here estimates one."""

from __future__ import annotations

from typing import Any

from linter.documents import Manifest
from linter.facts.resources import Placement, placement
from linter.facts.run import RunIndex
from linter.model import Workload

API_OF_CLOUD = {"aws": "bedrock", "gcp": "vertex-ai", "azure": "azure-openai"}


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


def _instance_prices(workload: Workload, where: Placement) -> dict[str, Any]:
    from linter.pricing import instance_price

    resources = workload.spec.resources
    if not (resources.provider and resources.region and resources.instance_type and where.instance):
        return {}
    price = instance_price(resources.provider, resources.instance_type, resources.region)
    if price is None:
        return {}
    instances = resources.nodes * where.replicas
    on_demand = None if price.on_demand_per_hour is None else price.on_demand_per_hour * instances
    market_spot = price.market_spot_per_hour
    spot = None if market_spot is None else market_spot * instances
    basis = price.basis_note()
    prices_from = f"{price.region} catalogue prices" + (f" ({basis})" if basis else "")
    return {
        "instances": instances,
        "onDemandPerHour": _money(on_demand),
        "spotPerHour": _money(spot),
        "spotSavingFraction": round(1 - spot / on_demand, 3)
        if on_demand and spot is not None
        else None,
        "priceNote": f"{prices_from}, source {price.source}",
    }


def _managed_alternative(
    workload: Workload, per_hour: float | None, hours: float | None
) -> dict[str, Any] | None:
    """The managed API offering the same model, and the break-even when volume is declared."""
    from linter.pricing import break_even, managed_offerings, token_volume

    model_id = workload.spec.model.id
    if workload.spec.profile != "inference" or not model_id:
        return None
    offerings = managed_offerings(model_id)
    if not offerings:
        return None
    preferred = API_OF_CLOUD.get(workload.spec.resources.provider or "")
    region = workload.spec.resources.region
    offerings.sort(key=lambda o: (o.provider != preferred, o.region != region, o.provider))
    chosen = offerings[0]
    out: dict[str, Any] = {
        "provider": chosen.provider,
        "model": chosen.model,
        "offeredBy": sorted({o.provider for o in offerings}),
        "breakEven": None,
    }
    tokens = workload.spec.serving.expected_tokens_per_minute
    if per_hour is None or tokens is None or hours is None:
        return out
    volume = token_volume(tokens_per_minute=tokens)
    result = break_even(
        per_hour,
        chosen.input_per_million_tokens,
        chosen.output_per_million_tokens,
        volume,
        hours_per_month=hours,
    )
    out["breakEven"] = {
        "selfHostedMonthly": _money(result.self_hosted_monthly),
        "apiMonthly": _money(result.api_monthly),
        "cheaper": result.cheaper,
        "monthlySaving": _money(result.monthly_saving),
        "breakEvenTokensPerMinute": None
        if result.break_even_tokens_per_minute is None
        else round(result.break_even_tokens_per_minute),
        "splitAssumed": volume.split_assumed,
        "priceSource": chosen.source,
    }
    return out


def compute(manifest: Manifest, run: RunIndex) -> dict[str, Any]:
    workload = manifest.model
    assert isinstance(workload, Workload)
    where = placement(workload)
    hours = _hours(workload)
    per_node = where.gpus_per_node
    total_gpus = (
        None if per_node is None else per_node * workload.spec.resources.nodes * where.replicas
    )
    prices = _instance_prices(workload, where)
    capacity = workload.spec.resources.capacity
    per_hour = prices.get("spotPerHour") if capacity == "spot" else prices.get("onDemandPerHour")
    return {
        "hoursPerMonth": hours,
        "gpuHoursPerMonth": None
        if hours is None or total_gpus is None
        else round(total_gpus * hours, 1),
        "instances": prices.get("instances"),
        "onDemandPerHour": prices.get("onDemandPerHour"),
        "spotPerHour": prices.get("spotPerHour"),
        "spotSavingFraction": prices.get("spotSavingFraction"),
        "priceNote": prices.get("priceNote"),
        "perHour": per_hour,
        "monthly": None if per_hour is None or hours is None else _money(per_hour * hours),
        "managedApi": _managed_alternative(workload, per_hour, hours),
    }
