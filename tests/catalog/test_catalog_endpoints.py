"""The managed-endpoint catalogue: clouds of service names, Bedrock, Vertex AI, Azure OpenAI."""

from __future__ import annotations

import copy

import pytest
from pydantic import ValidationError

from linter import catalog
from linter.catalog.endpoints import (
    AzureDeploymentType,
    BedrockModel,
    BedrockProfile,
    DataZone,
    EndpointCatalogue,
    QuotaName,
    VertexLocation,
    azure_data_zone,
    azure_data_zones,
    azure_deployment_type,
    azure_openai_quota,
    bedrock_model,
    bedrock_profile,
    bedrock_quotas,
    cloud_of,
    vertex_dynamic_shared_quota,
    vertex_location,
    vertex_quotas,
)

JP = BedrockProfile(
    prefix="jp",
    quota="cross-region",
    regions=["ap-northeast-1", "ap-northeast-3"],
    source="bedrock-geo-cri",
)


@pytest.mark.parametrize(
    ("provider", "cloud"),
    [("bedrock", "aws"), ("Vertex-AI", "gcp"), ("vertex", "gcp"), ("azure_openai", "azure")],
)
def test_cloud_of_a_service_name(provider: str, cloud: str) -> None:
    assert cloud_of(provider) == cloud


@pytest.mark.parametrize("provider", ["on-prem", "lambda", ""])
def test_cloud_of_an_unknown_provider_is_none(provider: str) -> None:
    assert cloud_of(provider) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("jp.anthropic.claude-x", (JP, "anthropic.claude-x")),
        ("arn:aws:bedrock:ap-northeast-1:1:inference-profile/JP.anthropic.x", (JP, "anthropic.x")),
        ("jp", (JP, "")),
        ("amazon.nova-micro-v1:0", (None, "amazon.nova-micro-v1:0")),
        ("", (None, "")),
        (None, (None, "")),
    ],
)
def test_bedrock_profile_splits_prefix_and_model(
    text: str | None, expected: tuple[BedrockProfile | None, str]
) -> None:
    assert bedrock_profile(text) == expected


def test_bedrock_global_profile_routes_anywhere() -> None:
    profile, _ = bedrock_profile("global.anthropic.claude-sonnet-4-20250514-v1:0")
    assert profile is not None and (profile.quota, profile.regions) == ("global", "any")


def test_bedrock_models_and_quota_names() -> None:
    assert bedrock_model("amazon.nova-micro-v1:0") == BedrockModel(
        id="amazon.nova-micro-v1:0",
        name="Amazon Nova Micro",
        codes={"on-demand TPM": "L-CFA4FA0D"},
        codes_source="bedrock-quota-codes",
        source="bedrock-model-ids",
    )
    assert bedrock_model("anthropic.claude-unknown") is None
    assert bedrock_quotas("global") == (
        QuotaName(
            unit="RPM",
            name="Global cross-region model inference requests per minute for {model}",
            source="bedrock-quota-names",
        ),
        QuotaName(
            unit="TPM",
            name="Global cross-region model inference tokens per minute for {model}",
            source="bedrock-quota-names",
        ),
    )
    assert [q.aliases for q in bedrock_quotas("on-demand")] == [
        ["On-demand InvokeModel requests per minute for {model}"],
        ["On-demand InvokeModel tokens per minute for {model}"],
    ]


def test_vertex_locations_and_quotas() -> None:
    assert vertex_location("EU") == VertexLocation(
        location="eu",
        jurisdiction="EU",
        note="multi-region endpoint aiplatform.eu.rep.googleapis.com; the ML processing"
        " guarantee is per model",
        source="vertex-locations",
    )
    found = vertex_location("global")
    assert found is not None and (found.regions, found.jurisdiction) == ("any", None)
    assert vertex_location("europe-west4") is None  # a regional location
    assert [(q.unit, q.name) for q in vertex_quotas()] == [
        ("RPM", "online_prediction_requests_per_base_model"),
        ("TPM", "generate_content_input_tokens_per_minute_per_base_model"),
    ]


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gemini-2.5-pro", True),
        ("publishers/google/models/Gemini-2.0-flash", True),
        ("gemini-10-ultra", True),
        ("gemini-1.5-pro", False),
        ("claude-3-5-sonnet", False),
    ],
)
def test_vertex_dynamic_shared_quota(model: str, expected: bool) -> None:
    assert vertex_dynamic_shared_quota(model) is expected


def test_a_vertex_location_needs_one_bound() -> None:
    document = copy.deepcopy(catalog.load("managed_endpoints"))
    del document["vertex"]["locations"][1]["jurisdiction"]
    with pytest.raises(ValidationError, match="location eu: give either regions: any or"):
        EndpointCatalogue.model_validate(document)


@pytest.mark.parametrize(
    ("name", "scope", "usage"),
    [
        ("GlobalStandard", "global", "GlobalStandard"),
        ("global-standard", "global", "GlobalStandard"),
        ("DataZoneStandard", "data-zone", "DataZoneStandard"),
        ("data-zone", "data-zone", "DataZoneStandard"),
        ("Provisioned-Managed", "regional", "Standard"),
    ],
)
def test_azure_deployment_types_by_any_spelling(name: str, scope: str, usage: str) -> None:
    found = azure_deployment_type(name)
    assert found is not None and (found.scope, found.usage) == (scope, usage)


def test_azure_deployment_type_record_and_unknown_names() -> None:
    assert azure_deployment_type("global") == AzureDeploymentType(
        scope="global",
        usage="GlobalStandard",
        names=[
            "global",
            "globalstandard",
            "globalprovisioned",
            "globalprovisionedmanaged",
            "globalbatch",
        ],
        source="azure-openai-deployment-types",
    )
    assert azure_deployment_type("") is None
    assert azure_deployment_type("developer") is None


def test_azure_data_zones_and_quota() -> None:
    eu = DataZone(zone="EU", jurisdiction="EU", source="azure-openai-deployment-types")
    assert azure_data_zones() == (
        eu,
        DataZone(zone="US", jurisdiction="US", source="azure-openai-deployment-types"),
    )
    assert azure_data_zone("eu") == eu
    assert azure_data_zone("apac") is None
    assert azure_openai_quota() == QuotaName(
        unit="TPM", name="OpenAI.{usage}.{model}", source="azure-openai-usages"
    )
