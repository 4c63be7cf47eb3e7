from __future__ import annotations

from linter.quota import dynamic_shared_quota, endpoint_quota, matches

SONNET_V2 = "anthropic.claude-3-5-sonnet-20241022-v2:0"


def test_bedrock_in_region_uses_on_demand_quotas_with_model_name() -> None:
    rpm, tpm = endpoint_quota("bedrock", SONNET_V2, "us-east-1", None)
    assert (rpm.name, rpm.unit, rpm.code, rpm.route, rpm.region) == (
        "On-demand model inference requests per minute for Anthropic Claude 3.5 Sonnet V2",
        "RPM",
        "L-79E773B3",
        "on-demand",
        "us-east-1",
    )
    assert (tpm.unit, tpm.code) == ("TPM", "L-AD41C330")
    assert (
        "On-demand InvokeModel tokens per minute for Anthropic Claude 3.5 Sonnet V2" in tpm.aliases
    )


def test_bedrock_geographic_profile_uses_cross_region_quotas() -> None:
    keys = endpoint_quota("bedrock", SONNET_V2, "eu-central-1", "eu")
    assert [(k.route, k.unit, k.region) for k in keys] == [
        ("cross-region", "RPM", "eu-central-1"),
        ("cross-region", "TPM", "eu-central-1"),
    ]
    assert (
        keys[0].name
        == "Cross-region model inference requests per minute for Anthropic Claude 3.5 Sonnet V2"
    )
    # The prefix may also be part of the model ID.
    assert endpoint_quota("bedrock", f"eu.{SONNET_V2}", "eu-central-1", None) == keys


def test_bedrock_global_profile_and_unknown_model() -> None:
    rpm, _ = endpoint_quota("aws", "Anthropic Claude Sonnet 4 V1", "us-east-1", "global")
    assert rpm.name == (
        "Global cross-region model inference requests per minute for Anthropic Claude Sonnet 4 V1"
    )
    (other, _) = endpoint_quota("bedrock", "meta.llama3-70b-instruct-v1:0", "us-west-2", None)
    assert other.model == "meta.llama3-70b-instruct-v1:0" and other.code is None


def test_bedrock_unknown_profile_or_missing_region_gives_nothing() -> None:
    assert endpoint_quota("bedrock", SONNET_V2, "us-east-1", "xx.something") == []
    assert endpoint_quota("bedrock", SONNET_V2, None, None) == []


def test_ledger_matching_for_managed_quotas() -> None:
    rpm, tpm = endpoint_quota("bedrock", SONNET_V2, "us-east-1", None)
    assert matches(tpm, "bedrock", "us-east-1", "L-AD41C330", None)
    assert matches(
        tpm,
        "bedrock",
        "us-east-1",
        "On-demand InvokeModel tokens per minute for Anthropic Claude 3.5 Sonnet V2",
        None,
    )
    assert not matches(tpm, "bedrock", "us-east-1", "L-79E773B3", None)
    assert matches(rpm, "bedrock", "us-east-1", None, None, entry_model=SONNET_V2)
    assert matches(
        rpm, "aws", "us-east-1", None, None, entry_model="Anthropic Claude 3.5 Sonnet V2"
    )
    assert not matches(rpm, "bedrock", "us-west-2", None, None, entry_model=SONNET_V2)


def test_vertex_dynamic_shared_quota_and_standard_quotas() -> None:
    assert dynamic_shared_quota("vertex-ai", "gemini-2.5-pro")
    assert dynamic_shared_quota("vertex-ai", "publishers/google/models/gemini-2.0-flash")
    assert not dynamic_shared_quota("vertex-ai", "gemini-1.5-pro")
    assert endpoint_quota("vertex-ai", "gemini-2.5-flash", "europe-west4", None) == []
    keys = endpoint_quota("vertex-ai", "claude-3-5-sonnet", "europe-west1", None)
    assert [(k.name, k.unit) for k in keys] == [
        ("online_prediction_requests_per_base_model", "RPM"),
        ("generate_content_input_tokens_per_minute_per_base_model", "TPM"),
    ]


def test_azure_openai_tpm_per_deployment_type() -> None:
    (key,) = endpoint_quota(
        "azure-openai", "gpt-4o", "swedencentral", None, deployment_type="global"
    )
    assert (key.name, key.unit, key.route) == (
        "OpenAI.GlobalStandard.gpt-4o",
        "TPM",
        "GlobalStandard",
    )
    (zone,) = endpoint_quota(
        "azure-openai", "gpt-4o", "swedencentral", None, deployment_type="DataZoneStandard"
    )
    assert zone.name == "OpenAI.DataZoneStandard.gpt-4o"
    assert endpoint_quota("azure-openai", "gpt-4o", "swedencentral", None) == []


def test_unknown_managed_provider() -> None:
    assert endpoint_quota("openai", "gpt-4o", "us", None) == []
