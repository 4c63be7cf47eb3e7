"""Running hours per month and what they rest on, and the hourly price of a fleet at its
capacity."""

from __future__ import annotations

import pytest

from linter.model.workload import Lifecycle, Profile
from linter.pricing import RunningHours, fleet_per_hour, instance_price, running_hours


@pytest.mark.parametrize(
    ("profile", "lifecycle", "expected"),
    [
        ("inference", {"hoursPerMonth": 100}, RunningHours(100, "declared", False)),
        (
            "training",
            {"hoursPerMonth": 50, "maxRuntimeHours": 10},
            RunningHours(50, "declared", False),
        ),
        ("inference", {}, RunningHours(730, "always-on", False)),
        ("inference", {"alwaysOn": "customer chat"}, RunningHours(730, "always-on", False)),
        ("inference", {"scaleToZero": True}, RunningHours(730, "scale-to-zero", True)),
        ("inference", {"idleShutdownMinutes": 30}, RunningHours(730, "idle-shutdown", True)),
        ("dev", {}, RunningHours(730, "always-on", False)),
        ("dev", {"idleShutdownMinutes": 0}, RunningHours(730, "idle-shutdown", True)),
        ("training", {"maxRuntimeHours": 48}, RunningHours(48, "max-runtime", True)),
        ("fine-tuning", {"maxRuntimeHours": 2000}, RunningHours(730, "max-runtime", True)),
        ("training", {"idleShutdownMinutes": 30}, RunningHours(None, "unknown", False)),
        ("fine-tuning", {}, RunningHours(None, "unknown", False)),
    ],
)
def test_running_hours(
    profile: Profile, lifecycle: dict[str, object], expected: RunningHours
) -> None:
    assert running_hours(profile, Lifecycle.model_validate(lifecycle)) == expected


def test_fleet_price_at_each_capacity() -> None:
    price = instance_price("aws", "g5.xlarge", "us-east-1")  # $1.006 on-demand, $0.4591 spot
    assert price is not None
    assert fleet_per_hour(price, "on-demand", nodes=2, replicas=3) == pytest.approx(6.036)
    assert fleet_per_hour(price, "reserved", nodes=2, replicas=3) == pytest.approx(6.036)
    assert fleet_per_hour(price, "spot", nodes=2, replicas=3) == pytest.approx(2.7546)
    # One of three replicas kept on on-demand: 1.006 + 2 x 0.4591.
    assert fleet_per_hour(
        price, "spot", nodes=1, replicas=3, on_demand_replicas=1
    ) == pytest.approx(1.9242)
    # A fallback larger than the fleet is the whole fleet; it means nothing off spot.
    assert fleet_per_hour(
        price, "spot", nodes=1, replicas=2, on_demand_replicas=5
    ) == pytest.approx(2.012)
    assert fleet_per_hour(
        price, "on-demand", nodes=1, replicas=2, on_demand_replicas=1
    ) == pytest.approx(2.012)
    assert fleet_per_hour(price, "spot", nodes=1, replicas=0) == 0.0


def test_spot_fleet_without_a_market_spot_price_has_no_price() -> None:
    price = instance_price("aws", "g4dn.12xlarge", "af-south-1")  # placeholder spot price
    assert price is not None
    assert fleet_per_hour(price, "spot", nodes=1, replicas=1) is None
    assert fleet_per_hour(price, "spot", nodes=1, replicas=1, on_demand_replicas=1) == 5.19
    with pytest.raises(ValueError, match="must not be negative"):
        fleet_per_hour(price, "spot", nodes=-1, replicas=1)
