"""Exact lookups of sourced prices; unknown instances, regions and models give None."""

from __future__ import annotations

from linter.pricing import InstancePrice, Offering, api_price, instance_price, managed_offerings


def test_instance_price_exact_region() -> None:
    assert instance_price("aws", "g4dn.12xlarge", "us-east-1") == InstancePrice(
        provider="aws",
        instance_type="g4dn.12xlarge",
        region="us-east-1",
        on_demand_per_hour=3.912,
        spot_per_hour=1.2684,
        source="skypilot-aws-v7",
        region_matched=True,
    )


def test_instance_price_eu_region_and_case() -> None:
    price = instance_price("AWS", "G4DN.2XLARGE", "EU-Central-1")
    assert price is not None
    assert (price.region, price.on_demand_per_hour, price.spot_per_hour) == (
        "eu-central-1",
        0.94,
        0.2612,
    )


def test_spot_left_out_when_not_sourced() -> None:
    price = instance_price("aws", "g4dn.16xlarge", "eu-central-1")
    assert price is not None
    assert (price.on_demand_per_hour, price.spot_per_hour) == (5.44, None)


def test_no_region_falls_back_to_cheapest_and_says_so() -> None:
    price = instance_price("aws", "g4dn.12xlarge", None)
    assert price is not None
    assert (price.region, price.on_demand_per_hour, price.region_matched) == (
        "us-east-1",
        3.912,
        False,
    )


def test_unknown_region_is_none_not_another_region() -> None:
    assert instance_price("aws", "g4dn.12xlarge", "ap-south-1") is None


def test_unknown_instance_or_provider_is_none() -> None:
    assert instance_price("aws", "z9.huge", "us-east-1") is None
    assert instance_price("gcp", "g4dn.12xlarge", None) is None


def test_api_price_uniform_entry() -> None:
    price = api_price("bedrock", "deepseek.r1-v1:0", "us-east-1")
    assert price is not None
    assert (price.input_per_million_tokens, price.output_per_million_tokens) == (1.35, 5.4)
    assert (price.region, price.region_matched, price.source) == ("*", False, "cline-api-ts")
    assert price.hf_id == "deepseek-ai/DeepSeek-R1"


def test_api_price_without_region() -> None:
    price = api_price("vertex-ai", "LLAMA-4-SCOUT-17B-16E-INSTRUCT-MAAS", None)
    assert price is not None
    assert (price.input_per_million_tokens, price.output_per_million_tokens) == (0.25, 0.7)


def test_api_price_unknown_is_none() -> None:
    assert api_price("bedrock", "no.such-model-v1:0", None) is None
    assert api_price("azure-openai", "deepseek.r1-v1:0", None) is None


def test_offerings_match_instruct_variant_and_case() -> None:
    expected = [Offering("bedrock", "meta.llama3-1-70b-instruct-v1:0", has_price=False)]
    assert managed_offerings("meta-llama/Llama-3.1-70B-Instruct") == expected
    assert managed_offerings("META-LLAMA/llama-3.1-70b") == expected
    assert managed_offerings("meta-llama/Meta-Llama-3.1-70B") == expected  # models.yaml alias


def test_offerings_include_priced_apis() -> None:
    assert managed_offerings("deepseek-ai/DeepSeek-R1") == [
        Offering("bedrock", "deepseek.r1-v1:0", has_price=True)
    ]
    # DeepSeek-R1 is an alias of the DeepSeek-V3 entry in models.yaml (same architecture).
    assert managed_offerings("deepseek-ai/DeepSeek-V3") == [
        Offering("bedrock", "deepseek.r1-v1:0", has_price=True)
    ]


def test_offerings_unknown_model_is_empty() -> None:
    assert managed_offerings("nobody/NoSuchModel-1B") == []
