from __future__ import annotations

from linter.quota import QuotaKey, matches, quota_for

P5 = QuotaKey(
    "aws", "us-east-1", "L-417A185B", "Running On-Demand P instances", "vCPU", "on-demand"
)


def test_matches_by_code_or_name_case_insensitively() -> None:
    assert matches(P5, "aws", "us-east-1", "L-417A185B", "on-demand")
    assert matches(P5, "aws", "us-east-1", "l-417a185b", None)
    assert matches(P5, "AWS", "US-EAST-1", "running on-demand p instances", "on-demand")


def test_reserved_entry_covers_the_on_demand_quota() -> None:
    assert matches(P5, "aws", "us-east-1", "L-417A185B", "reserved")


def test_capacity_must_match() -> None:
    assert not matches(P5, "aws", "us-east-1", "L-417A185B", "spot")
    (spot,) = quota_for("aws", "us-east-1", instance_type="p5.48xlarge", capacity="spot")
    assert not matches(spot, "aws", "us-east-1", "L-C4BD4855", "on-demand")
    assert matches(spot, "aws", "us-east-1", "All P5 Spot Instance Requests", "spot")


def test_region_provider_and_quota_must_match() -> None:
    assert not matches(P5, "aws", "us-west-2", "L-417A185B", "on-demand")
    assert not matches(P5, "gcp", "us-east-1", "L-417A185B", "on-demand")
    assert not matches(P5, "aws", "us-east-1", "L-DB2E81BA", "on-demand")
    assert not matches(P5, "aws", "us-east-1", None, "on-demand")


def test_global_quota_wants_no_region_and_any_capacity() -> None:
    _, total = quota_for("gcp", "us-central1", gpu_type="A100", capacity="spot")
    assert matches(total, "gcp", None, "GPUS_ALL_REGIONS", "on-demand")
    assert matches(total, "gcp", "global", "gpus_all_regions", "spot")
    assert not matches(total, "gcp", "us-central1", "GPUS_ALL_REGIONS", None)


def test_azure_family_matches_code_or_localized_name_spelling() -> None:
    (key,) = quota_for(
        "azure", "eastus", instance_type="Standard_NC24ads_A100_v4", capacity="on-demand"
    )
    assert matches(key, "azure", "eastus", "StandardNCADSA100v4Family", None)
    assert matches(key, "azure", "eastus", "Standard NCADSA100v4 Family vCPUs", "on-demand")
    (spot,) = quota_for(
        "azure", "eastus", instance_type="Standard_NC24ads_A100_v4", capacity="spot"
    )
    assert matches(spot, "azure", "eastus", "lowPriorityCores", "spot")
    assert not matches(spot, "azure", "eastus", "StandardNCADSA100v4Family", "spot")
