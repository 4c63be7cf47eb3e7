"""Self-hosting against every managed offering residency allows, with exact figures, and what is
missing when no comparison can be made."""

from __future__ import annotations

import pytest

from linter.pricing import (
    Missing,
    SelfHosted,
    allowed_offerings,
    compare_self_hosting,
    managed_offerings,
    token_volume,
)

LLAMA_8B = "meta-llama/Llama-3.1-8B-Instruct"
G5_US_EAST = SelfHosted("aws", "us-east-1", "g5.xlarge", "on-demand")


def test_llama_8b_on_g5_against_bedrock_in_the_same_region() -> None:
    # g5.xlarge in us-east-1: $1.006/h -> $734.38 for 730 h. 10,000 tokens/min split 3:1 is
    # 328.5M input and 109.5M output tokens; Bedrock charges $0.22 per M for both: $96.36.
    result = compare_self_hosting(
        LLAMA_8B,
        G5_US_EAST,
        hours_per_month=730,
        volume=token_volume(tokens_per_minute=10_000),
        allowed=["US"],
    )
    assert result.missing == ()
    assert result.self_hosted_per_hour == 1.006
    first = result.comparisons[0]
    assert (first.verdict.offering.model, first.verdict.region) == (
        "meta.llama3-1-8b-instruct-v1:0",
        "us-east-1",
    )
    assert (first.verdict.same_region, first.verdict.allowed) == (True, True)
    assert first.result.self_hosted_monthly == pytest.approx(734.38, abs=1e-9)
    assert first.result.api_monthly == pytest.approx(96.36, abs=1e-9)
    assert (first.result.cheaper, round(first.result.monthly_saving, 2)) == ("api", 638.02)
    # $1.006/h / (60 min x $0.22 per M) = 76,212 tokens/min before self-hosting pays.
    assert round(first.result.break_even_tokens_per_minute or 0) == 76_212
    # The us. inference profile costs the same and stays in the US.
    assert [(c.verdict.offering.model, c.verdict.region) for c in result.comparisons[1:]] == [
        ("us.meta.llama3-1-8b-instruct-v1:0", "us")
    ]


def test_hours_per_month_change_both_sides_consistently() -> None:
    volume = token_volume(tokens_per_minute=10_000)
    full = compare_self_hosting(LLAMA_8B, G5_US_EAST, hours_per_month=730, volume=volume)
    part = compare_self_hosting(LLAMA_8B, G5_US_EAST, hours_per_month=100, volume=volume)
    full_result, part_result = full.comparisons[0].result, part.comparisons[0].result
    assert part_result.self_hosted_monthly == pytest.approx(100.6, abs=1e-9)  # 1.006 x 100
    assert part_result.api_monthly == pytest.approx(13.2, abs=1e-9)  # 60M tokens x $0.22 per M
    assert part_result.self_hosted_monthly / full_result.self_hosted_monthly == pytest.approx(
        100 / 730
    )
    assert part_result.api_monthly / full_result.api_monthly == pytest.approx(100 / 730)
    assert part_result.break_even_tokens_per_minute == full_result.break_even_tokens_per_minute


def test_replicas_and_nodes_multiply_the_self_hosted_side() -> None:
    hosted = SelfHosted("aws", "us-east-1", "g5.xlarge", "on-demand", nodes=2, replicas=3)
    result = compare_self_hosting(
        LLAMA_8B, hosted, hours_per_month=730, volume=token_volume(tokens_per_minute=10_000)
    )
    assert result.self_hosted_per_hour == pytest.approx(6.036, abs=1e-12)
    assert result.comparisons[0].result.self_hosted_monthly == pytest.approx(4406.28, abs=1e-9)


def test_spot_capacity_uses_the_market_spot_price() -> None:
    hosted = SelfHosted("aws", "us-east-1", "g5.xlarge", "spot")
    result = compare_self_hosting(
        LLAMA_8B, hosted, hours_per_month=730, volume=token_volume(tokens_per_minute=10_000)
    )
    assert result.self_hosted_per_hour == 0.4591


def test_residency_decides_which_offerings_count() -> None:
    offerings = managed_offerings("meta-llama/Meta-Llama-3-8B-Instruct")
    verdicts = allowed_offerings(offerings, ["EU"], provider="aws", region="eu-west-1")
    allowed = [
        (v.offering.model, v.region, v.offering.input_per_million_tokens)
        for v in verdicts
        if v.allowed
    ]
    # The eu-west-1 price of its own replaces the uniform one there; London is not in the EU.
    assert allowed == [("meta.llama3-8b-instruct-v1:0", "eu-west-1", 0.32)]
    london = next(v for v in verdicts if v.region == "eu-west-2")
    assert (london.allowed, london.reason) == (
        False,
        "outside EU: an in-region call (no inference profile) is processed in eu-west-2 (London, GB)",
    )


def test_an_inference_profile_counts_only_if_every_region_it_routes_to_is_allowed() -> None:
    offerings = [
        o for o in managed_offerings("meta-llama/Llama-3.2-1B-Instruct") if o.region == "eu"
    ]
    eu_only = allowed_offerings(offerings, ["EU"], provider="aws", region="eu-west-1")
    assert (eu_only[0].allowed, eu_only[0].reason) == (
        False,
        "outside EU: the eu. inference profile routes to eu-west-2 (London, GB)",
    )
    wider = allowed_offerings(offerings, ["EU", "UK", "CH"], provider="aws", region="eu-west-1")
    assert wider[0].allowed is True


def test_a_price_that_is_not_regional_is_judged_in_the_workloads_region() -> None:
    offerings = managed_offerings("openai/gpt-oss-20b")
    verdicts = allowed_offerings(offerings, ["EU"], provider="gcp", region="europe-west4")
    assert [(v.offering.provider, v.offering.model, v.region) for v in verdicts if v.allowed] == [
        ("vertex-ai", "openai/gpt-oss-20b-maas", "europe-west4")
    ]
    bedrock = next(v for v in verdicts if v.offering.provider == "bedrock" and v.region is None)
    assert (bedrock.allowed, bedrock.reason) == (
        None,
        "cannot tell: the price is not regional and the workload has no aws region",
    )


def test_no_offering_in_an_allowed_region() -> None:
    result = compare_self_hosting(
        LLAMA_8B,
        G5_US_EAST,
        hours_per_month=730,
        volume=token_volume(tokens_per_minute=1),
        allowed=["EU"],
    )
    assert result.comparisons == ()
    assert [m.code for m in result.missing] == ["no-offering-allowed"]
    assert result.missing[0].detail == (
        "no offering of meta-llama/Llama-3.1-8B-Instruct is allowed: "
        "bedrock meta.llama3-1-8b-instruct-v1:0 (us-east-1): outside EU: called in us-east-1 (N. Virginia, US); "
        "bedrock us.meta.llama3-1-8b-instruct-v1:0 (us): outside EU: the us. inference profile routes to us-east-1 (N. Virginia, US)"
    )


@pytest.mark.parametrize(
    ("hosted", "volume", "missing"),
    [
        (
            G5_US_EAST,
            None,
            [Missing("no-volume", "no token volume declared")],
        ),
        (
            SelfHosted("aws", "af-south-1", "g5.xlarge", "on-demand"),
            1000,
            [
                Missing(
                    "no-instance-price",
                    "the catalogue has no price for g5.xlarge (aws) in af-south-1 (no price in "
                    "af-south-1 or near it; us-east-1 is the cheapest priced region of any)",
                )
            ],
        ),
        (
            SelfHosted("aws", "af-south-1", "g4dn.12xlarge", "spot"),
            1000,
            [
                Missing(
                    "no-spot-price",
                    "no market spot price for g4dn.12xlarge (aws) in af-south-1: The spot price is "
                    "exactly 10% of on-demand at the source's 4-decimal precision: a placeholder "
                    "of SkyPilot's fetcher, not a market price.",
                )
            ],
        ),
        (
            SelfHosted("aws", None, "g5.xlarge", "on-demand"),
            1000,
            [Missing("no-region", "no region declared for g5.xlarge (aws)")],
        ),
        (
            SelfHosted("on-prem", "dc1", None, "on-demand"),
            1000,
            [Missing("no-instance-type", "no instance type declared")],
        ),
        (
            SelfHosted(None, "us-east-1", "g5.xlarge", "on-demand"),
            1000,
            [Missing("no-provider", "no cloud provider declared")],
        ),
        (
            SelfHosted("aws", "us-east-1", "z9.huge", "on-demand"),
            1000,
            [Missing("no-instance-price", "the catalogue has no price for z9.huge (aws)")],
        ),
    ],
)
def test_what_is_missing_is_said_exactly(
    hosted: SelfHosted, volume: float | None, missing: list[Missing]
) -> None:
    result = compare_self_hosting(
        LLAMA_8B,
        hosted,
        hours_per_month=730,
        volume=None if volume is None else token_volume(tokens_per_minute=volume),
    )
    assert list(result.missing) == missing
    assert result.comparisons == ()


def test_a_model_nobody_offers() -> None:
    result = compare_self_hosting(
        "Qwen/Qwen2.5-3B", G5_US_EAST, hours_per_month=730, volume=token_volume(tokens_per_minute=1)
    )
    assert result.verdicts == ()
    assert result.missing == (
        Missing("no-offering", "no managed offering of Qwen/Qwen2.5-3B is catalogued"),
    )


def test_offerings_match_instruct_variants_and_aliases() -> None:
    exact = managed_offerings("meta-llama/Llama-3.1-70B-Instruct")
    assert [(o.model, o.region, o.input_per_million_tokens) for o in exact] == [
        ("meta.llama3-1-70b-instruct-v1:0", None, 0.72),
        ("us.meta.llama3-1-70b-instruct-v1:0", "us", 0.72),
    ]
    assert managed_offerings("META-LLAMA/llama-3.1-70b-instruct") == exact
    assert [o.model for o in managed_offerings("meta-llama/Llama-3.1-70B")] == [
        o.model for o in exact
    ]
