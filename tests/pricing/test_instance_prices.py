"""Instance prices with exact figures: the region's own, the nearest priced one, spot savings
that honour the caveat flags, and monthly cost."""

from __future__ import annotations

import pytest

from linter.catalog.prices import flag
from linter.pricing import (
    MonthlyCost,
    default_hours_per_month,
    instance_price,
    monthly_cost,
    spot_saving,
)


def test_gcp_spot_saving_in_the_region_with_its_warning() -> None:
    price = instance_price("gcp", "a3-highgpu-8g", "us-central1")
    assert price is not None
    assert (price.accelerator, price.accelerator_count) == ("H100", 8)
    assert (price.on_demand_per_hour, price.spot_per_hour) == (43.06615, 25.55326)
    assert (price.basis, price.source) == ("region", "skypilot-catalog-v8-gcp")
    saving = spot_saving(price)
    assert saving.withheld == ()
    assert saving.per_hour == pytest.approx(17.51289, abs=1e-9)
    assert saving.fraction == pytest.approx(1 - 25.55326 / 43.06615, abs=1e-12)
    assert round(saving.fraction, 4) == 0.4067
    assert price.warnings() == (flag("regional-price-spread").description,)


def test_azure_spot_saving_is_shown_as_stale() -> None:
    price = instance_price("azure", "Standard_NC24ads_A100_v4", "eastus")
    assert price is not None
    assert (price.on_demand_per_hour, price.spot_per_hour) == (3.673, 0.444433)
    saving = spot_saving(price)
    assert round(saving.fraction or 0, 4) == 0.879
    assert saving.per_hour == pytest.approx(3.228567, abs=1e-9)
    assert price.warnings() == (flag("stale-source").description,)
    # The size matches without "Standard_" and in any spelling.
    spelled = instance_price("azure", "nc24ads-a100-v4", "EastUS")
    assert spelled is not None
    assert (spelled.instance_type, spelled.region, spelled.basis) == (
        "Standard_NC24ads_A100_v4",
        "eastus",
        "region",
    )


@pytest.mark.parametrize(
    ("provider", "instance_type", "region", "flag_id"),
    [
        ("aws", "g4dn.12xlarge", "af-south-1", "spot-placeholder"),  # 0.519 of 5.19
        ("aws", "g5.2xlarge", "me-central-1", "spot-above-on-demand"),  # 1.4867 > 1.48669
        ("azure", "Standard_NC40ads_H100_v5", "eastus", "spot-equals-on-demand"),  # 6.98 = 6.98
    ],
)
def test_flagged_spot_prices_make_no_saving_claim(
    provider: str, instance_type: str, region: str, flag_id: str
) -> None:
    price = instance_price(provider, instance_type, region)
    assert price is not None and price.spot_per_hour is not None
    saving = spot_saving(price)
    assert (saving.fraction, saving.per_hour) == (None, None)
    assert saving.withheld == (flag(flag_id).description,)
    assert price.market_spot_per_hour is None


def test_a_missing_on_demand_price_withholds_the_saving() -> None:
    price = instance_price("aws", "p5e.48xlarge", "us-east-2")
    assert price is not None
    assert (price.on_demand_per_hour, price.spot_per_hour) == (None, 17.4812)
    assert spot_saving(price).withheld == (
        "the catalogue has no on-demand price for p5e.48xlarge in us-east-2",
    )


def test_zone_resolves_to_its_region() -> None:
    price = instance_price("aws", "g5.xlarge", "us-east-1a")
    assert price is not None
    assert (price.region, price.basis, price.on_demand_per_hour) == ("us-east-1", "region", 1.006)


@pytest.mark.parametrize(
    ("instance_type", "asked", "region", "basis", "on_demand"),
    [
        # g6e.xlarge is priced in us-east-1, us-east-2 and us-west-2 (1.861 each): same country.
        ("g6e.xlarge", "us-west-1", "us-east-1", "same-country", 1.861),
        # g5.xlarge has no eu-south-2 price; the cheapest EU one is eu-north-1 (London is not EU).
        ("g5.xlarge", "eu-south-2", "eu-north-1", "same-jurisdiction", 1.067),
        # Nothing in South Africa or sharing a tag with it: the cheapest anywhere.
        ("g5.xlarge", "af-south-1", "us-east-1", "any-region", 1.006),
        ("g5.xlarge", None, "us-east-1", "no-region-given", 1.006),
    ],
)
def test_another_regions_price_says_which_and_why(
    instance_type: str, asked: str | None, region: str, basis: str, on_demand: float
) -> None:
    price = instance_price("aws", instance_type, asked)
    assert price is not None
    assert (price.region, price.basis, price.on_demand_per_hour) == (region, basis, on_demand)
    assert price.region_matched is False


def test_basis_notes() -> None:
    far = instance_price("aws", "g5.xlarge", "af-south-1")
    near = instance_price("aws", "g5.xlarge", "eu-south-2")
    assert far is not None and near is not None
    assert far.basis_note() == (
        "no price in af-south-1 or near it; us-east-1 is the cheapest priced region of any"
    )
    assert near.basis_note() == (
        "no price in eu-south-2; eu-north-1 is the cheapest priced region sharing its jurisdiction"
    )


def test_unpriced_types_and_providers_are_none() -> None:
    assert instance_price("aws", "z9.huge", "us-east-1") is None
    assert instance_price("gcp", "g5.xlarge", "us-east-1") is None
    assert instance_price("aws", "g5.xlarge", "us-east-1", accelerator="H100") is None
    # SageMaker bills its ml.* instances at its own rates: the EC2 row is not their price
    assert instance_price("aws", "g5.8xlarge", "us-east-1") is not None
    assert instance_price("aws", "ml.g5.8xlarge", "us-east-1") is None


def test_monthly_cost_is_nodes_times_replicas_times_hours() -> None:
    price = instance_price("aws", "g5.xlarge", "us-east-1")
    assert price is not None
    cost = monthly_cost(price, nodes=2, replicas=3, hours_per_month=100)
    assert cost == MonthlyCost(price, 6, 100, cost.on_demand, cost.spot)
    assert cost.on_demand == pytest.approx(603.6, abs=1e-9)  # 1.006 x 6 x 100
    assert cost.spot == pytest.approx(275.46, abs=1e-9)  # 0.4591 x 6 x 100
    month = monthly_cost(price, nodes=1, replicas=1, hours_per_month=default_hours_per_month())
    assert month.on_demand == pytest.approx(734.38, abs=1e-9)  # 1.006 x 730


def test_monthly_spot_cost_is_never_a_placeholder() -> None:
    price = instance_price("aws", "g4dn.12xlarge", "af-south-1")
    assert price is not None
    cost = monthly_cost(price, nodes=1, replicas=1, hours_per_month=730)
    assert (cost.on_demand, cost.spot) == (pytest.approx(3788.7, abs=1e-9), None)


def test_the_cheapest_instance_holding_a_workloads_gpus() -> None:
    """A workload naming four H100s and no instance type (issue 30): the cheapest catalogued
    instance with at least four, in its region when priced there, else the nearest."""
    from linter.pricing import cheapest_instance_with_gpus

    anywhere = cheapest_instance_with_gpus("NVIDIA-H100-80GB-HBM3", 4, None, None)
    assert anywhere is not None
    assert (anywhere.provider, anywhere.instance_type, anywhere.region, anywhere.basis) == (
        "gcp",
        "a3-highgpu-4g",
        "us-central1",
        "no-region-given",
    )
    assert anywhere.on_demand_per_hour == 21.53307
    on_aws = cheapest_instance_with_gpus("H100", 4, "aws", "us-east-1")
    assert on_aws is not None
    assert (on_aws.instance_type, on_aws.accelerator_count, on_aws.on_demand_per_hour) == (
        "p5.48xlarge",
        8.0,
        55.04,
    )
    near = cheapest_instance_with_gpus("H100", 4, "aws", "eu-west-1")
    assert near is not None
    assert (near.region, near.basis) == ("eu-north-1", "same-jurisdiction")
    assert cheapest_instance_with_gpus("H100", 16, None, None) is None
    assert cheapest_instance_with_gpus("no-such-gpu", 1, None, None) is None
