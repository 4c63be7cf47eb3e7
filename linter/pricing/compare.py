"""Self-hosting a model against every managed offering of it that residency allows.

The self-hosted side is the instance's own price in the workload's region (never another
region's: a comparison across regions would mix two markets), times nodes and replicas (spot
replicas at the market spot price, a fallback kept on on-demand at on-demand); the API side is
the declared token volume at each allowed offering's per-token price, both over the same hours.
When a comparison cannot be made, ``missing`` says exactly what is missing.
"""

from collections.abc import Sequence
from typing import Literal, NamedTuple

from linter.pricing.allowed import OfferingVerdict, allowed_offerings
from linter.pricing.apis import managed_offerings
from linter.pricing.break_even import BreakEven, TokenVolume, break_even
from linter.pricing.instances import InstancePrice, instance_price
from linter.pricing.monthly import fleet_per_hour

MissingCode = Literal[
    "no-offering",
    "no-offering-allowed",
    "no-provider",
    "no-instance-type",
    "no-region",
    "no-instance-price",
    "no-spot-price",
    "no-volume",
]


class Missing(NamedTuple):
    code: MissingCode
    detail: str


class OfferingComparison(NamedTuple):
    verdict: OfferingVerdict
    result: BreakEven


class SelfHostingComparison(NamedTuple):
    hf_id: str
    hours_per_month: float
    #: The workload region's price (None when missing) and the hourly cost of all instances.
    instance: InstancePrice | None
    self_hosted_per_hour: float | None
    #: Every offering of the model with its residency verdict, in catalogue order.
    verdicts: tuple[OfferingVerdict, ...]
    #: One per allowed offering, cheapest API first (then provider, model, region).
    comparisons: tuple[OfferingComparison, ...]
    missing: tuple[Missing, ...]


class SelfHosted(NamedTuple):
    """How the model is self-hosted."""

    provider: str | None
    region: str | None
    instance_type: str | None
    capacity: Literal["on-demand", "spot"]
    nodes: int = 1
    replicas: int = 1
    accelerator: str | None = None
    #: On spot, replicas kept on on-demand capacity as a fallback.
    on_demand_replicas: int = 0


def _hourly(hosted: SelfHosted) -> tuple[InstancePrice | None, float | None, list[Missing]]:
    """The region's own price and the hourly cost of every instance, or what is missing."""
    if not hosted.provider:
        return None, None, [Missing("no-provider", "no cloud provider declared")]
    if not hosted.instance_type:
        return None, None, [Missing("no-instance-type", "no instance type declared")]
    name = f"{hosted.instance_type} ({hosted.provider})"
    if hosted.region is None:
        return None, None, [Missing("no-region", f"no region declared for {name}")]
    price = instance_price(hosted.provider, hosted.instance_type, hosted.region, hosted.accelerator)
    if price is None:
        return None, None, [Missing("no-instance-price", f"the catalogue has no price for {name}")]
    if not price.region_matched:
        detail = f"the catalogue has no price for {name} in {hosted.region} ({price.basis_note()})"
        return None, None, [Missing("no-instance-price", detail)]
    if hosted.capacity == "spot" and price.market_spot_per_hour is None:
        why = "; ".join(price.spot_withheld_because()) or "none is catalogued"
        detail = f"no market spot price for {name} in {price.region}: {why}"
        return price, None, [Missing("no-spot-price", detail)]
    per_hour = fleet_per_hour(
        price,
        hosted.capacity,
        nodes=hosted.nodes,
        replicas=hosted.replicas,
        on_demand_replicas=hosted.on_demand_replicas,
    )
    if per_hour is None:
        detail = f"the catalogue has no on-demand price for {name} in {price.region}"
        return price, None, [Missing("no-instance-price", detail)]
    return price, per_hour, []


def _offerings_missing(hf_id: str, verdicts: Sequence[OfferingVerdict]) -> list[Missing]:
    if not verdicts:
        return [Missing("no-offering", f"no managed offering of {hf_id} is catalogued")]
    if not any(verdict.allowed for verdict in verdicts):
        why = "; ".join(
            f"{v.offering.provider} {v.offering.model} ({v.region or 'any region'}): {v.reason}"
            for v in verdicts
        )
        return [Missing("no-offering-allowed", f"no offering of {hf_id} is allowed: {why}")]
    return []


def compare_self_hosting(
    hf_id: str,
    hosted: SelfHosted,
    *,
    hours_per_month: float,
    volume: TokenVolume | None,
    allowed: Sequence[str] = (),
) -> SelfHostingComparison:
    """Self-hosting ``hf_id`` as ``hosted`` against each managed offering ``allowed`` admits
    (jurisdiction tags or country codes; empty: every offering), over ``hours_per_month``."""
    offerings = managed_offerings(hf_id)
    verdicts = allowed_offerings(offerings, allowed, provider=hosted.provider, region=hosted.region)
    price, per_hour, missing = _hourly(hosted)
    missing += _offerings_missing(hf_id, verdicts)
    if volume is None:
        missing.append(Missing("no-volume", "no token volume declared"))
    comparisons: list[OfferingComparison] = []
    if per_hour is not None and volume is not None:
        comparisons = [
            OfferingComparison(
                verdict,
                break_even(
                    per_hour,
                    verdict.offering.input_per_million_tokens,
                    verdict.offering.output_per_million_tokens,
                    volume,
                    hours_per_month=hours_per_month,
                ),
            )
            for verdict in verdicts
            if verdict.allowed
        ]
        comparisons.sort(
            key=lambda c: (
                c.result.api_monthly,
                c.verdict.offering.provider,
                c.verdict.offering.model,
                c.verdict.region or "",
            )
        )
    return SelfHostingComparison(
        hf_id=hf_id,
        hours_per_month=hours_per_month,
        instance=price,
        self_hosted_per_hour=per_hour,
        verdicts=tuple(verdicts),
        comparisons=tuple(comparisons),
        missing=tuple(missing),
    )
