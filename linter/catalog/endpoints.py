"""Managed inference APIs (``data/managed_endpoints.yaml``): which cloud a provider or service name
means, Bedrock inference profiles, models and quota names, Vertex AI locations and quotas, Azure
OpenAI deployment types, data zones and quota.

Lookups only: where a request may be processed (residency) and which quota it draws on (quota)
are decided in :mod:`linter.residency` and :mod:`linter.quota` over these records.
"""

import functools
import re
from typing import Annotated, Literal

from linter.catalog.base import Catalogue, Record, Regex, SourceRef, Text, validated
from linter.catalog.spelling import name_key
from linter.declared import Field, StringConstraints, empty_list, model_validator

Cloud = Literal["aws", "gcp", "azure"]
"""The clouds whose regions, quotas and managed services the catalogue describes."""

Unit = Literal["RPM", "TPM"]
BedrockRoute = Literal["on-demand", "cross-region", "global"]
AzureScope = Literal["regional", "data-zone", "global"]

QuotaCode = Annotated[str, Field(pattern=r"^L-[0-9A-F]{8}$")]
CodeKey = Annotated[str, StringConstraints(pattern=r"^(on-demand|cross-region|global) (RPM|TPM)$")]


class QuotaName(Record):
    """A throughput quota's name (``{model}`` and ``{usage}`` are filled in per call)."""

    unit: Unit = Field(description="RPM: requests per minute; TPM: tokens per minute.")
    name: Text
    aliases: list[Text] = Field(
        default_factory=empty_list, description="Older spellings of the name."
    )
    note: Text | None = None
    source: SourceRef


class BedrockProfile(Record):
    """A Bedrock inference-profile prefix (profile id = ``{prefix}.{modelId}``)."""

    prefix: str = Field(pattern=r"^[a-z-]+$")
    quota: Literal["cross-region", "global"] = Field(description="The quota family it draws on.")
    regions: Literal["any"] | list[Text] = Field(
        description="Where it may route: these AWS regions, or any commercial region."
    )
    note: Text | None = None
    source: SourceRef


class BedrockQuotas(Record):
    on_demand: list[QuotaName] = Field(alias="on-demand")
    cross_region: list[QuotaName] = Field(alias="cross-region")
    global_: list[QuotaName] = Field(alias="global")


class BedrockModel(Record):
    """A Bedrock model id, its Service Quotas model name and the quota codes seen for it."""

    id: Text
    name: Text = Field(description="The model as quota names spell it.")
    codes: dict[CodeKey, QuotaCode] = Field(
        default_factory=dict,
        description="Quota code per '<quota family> <unit>'.",
        json_schema_extra={"additionalProperties": False},
    )
    codes_source: SourceRef | None = None
    source: SourceRef


class Bedrock(Record):
    profiles: list[BedrockProfile]
    quotas: BedrockQuotas
    models: list[BedrockModel]


class VertexLocation(Record):
    """A Vertex AI multi-region or global location: where its ML processing may happen."""

    location: Text
    regions: Literal["any"] | None = Field(None, description="'any': no geographic bound.")
    jurisdiction: Text | None = Field(
        None, description="Every GCP region of regions.yaml carrying this tag."
    )
    note: Text | None = None
    source: SourceRef

    @model_validator(mode="after")
    def _one_bound(self) -> "VertexLocation":
        if (self.regions is None) == (self.jurisdiction is None):
            raise ValueError(f"location {self.location}: give either regions: any or jurisdiction")
        return self


class Vertex(Record):
    locations: list[VertexLocation]
    dynamic_shared_quota: list[Regex] = Field(
        description="Model names (lower case, no path) with Dynamic Shared Quota: no per-project"
        " quota exists."
    )
    quotas: list[QuotaName]


class AzureDeploymentType(Record):
    """Azure OpenAI deployment types that route alike, and the quota usage name they count in."""

    scope: AzureScope
    usage: Text = Field(description="The usage name's deployment part (GlobalStandard).")
    names: list[Annotated[str, Field(pattern=r"^[a-z0-9]+$")]] = Field(
        description="Product spellings, lower case with letters and digits only."
    )
    source: SourceRef


class DataZone(Record):
    zone: Text
    jurisdiction: Text = Field(description="Every Azure region carrying this tag is in the zone.")
    source: SourceRef


class AzureOpenAI(Record):
    deployment_types: list[AzureDeploymentType]
    data_zones: list[DataZone]
    quota: QuotaName


class EndpointCatalogue(Catalogue):
    """gpulint managed inference endpoints: routing geography and throughput quotas."""

    services: dict[str, Cloud] = Field(
        description="Provider or managed-service name, as a manifest writes it -> its cloud."
    )
    bedrock: Bedrock
    vertex: Vertex
    azure_openai: AzureOpenAI


def catalogue() -> EndpointCatalogue:
    return validated("managed_endpoints", EndpointCatalogue)


@functools.cache
def _services() -> dict[str, Cloud]:
    return {name_key(name): cloud for name, cloud in catalogue().services.items()}


def cloud_of(provider: str) -> Cloud | None:
    """The cloud (``aws``, ``gcp``, ``azure``) behind a provider or managed-service name such as
    ``bedrock`` or ``vertex-ai``; None when the catalogue does not know it (on-prem, others)."""
    return _services().get(name_key(provider))


@functools.cache
def _profiles() -> dict[str, BedrockProfile]:
    return {name_key(profile.prefix): profile for profile in catalogue().bedrock.profiles}


def bedrock_profile(text: str | None) -> tuple[BedrockProfile | None, str]:
    """Split a Bedrock inference profile ID, ARN or bare prefix (``eu``, ``eu.``,
    ``eu.anthropic.claude-...``, ``arn:...:inference-profile/eu.anthropic...``) into the
    catalogued profile (None when its prefix is not catalogued) and the base model ID."""
    if not text:
        return None, ""
    profile_id = text.strip().rsplit("/", 1)[-1]
    prefix, _, model_id = profile_id.partition(".")
    profile = _profiles().get(name_key(prefix))
    return (profile, model_id) if profile is not None else (None, profile_id)


@functools.cache
def _models() -> dict[str, BedrockModel]:
    return {name_key(model.id): model for model in catalogue().bedrock.models}


def bedrock_model(model_id: str) -> BedrockModel | None:
    """The catalogued Bedrock model with this ID (without a profile prefix)."""
    return _models().get(name_key(model_id))


def bedrock_quotas(route: BedrockRoute) -> tuple[QuotaName, ...]:
    """The quota names of one Bedrock quota family, ``{model}`` still to be filled in."""
    quotas = catalogue().bedrock.quotas
    by_route = {
        "on-demand": quotas.on_demand,
        "cross-region": quotas.cross_region,
        "global": quotas.global_,
    }
    return tuple(by_route[route])


@functools.cache
def _locations() -> dict[str, VertexLocation]:
    return {name_key(spec.location): spec for spec in catalogue().vertex.locations}


def vertex_location(name: str) -> VertexLocation | None:
    """A catalogued Vertex AI multi-region or global location (``eu``, ``global``); None for a
    regional location, which processes in its own region."""
    return _locations().get(name_key(name))


def vertex_quotas() -> tuple[QuotaName, ...]:
    """The per-project, per-region, per-base-model quotas of Vertex AI models without Dynamic
    Shared Quota."""
    return tuple(catalogue().vertex.quotas)


@functools.cache
def _dynamic_shared_quota() -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(pattern) for pattern in catalogue().vertex.dynamic_shared_quota)


def vertex_dynamic_shared_quota(model: str) -> bool:
    """Whether the catalogue lists a Vertex AI model (``gemini-2.5-pro``, also as a resource path
    ``publishers/google/models/gemini-2.5-pro``) as served under Dynamic Shared Quota."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    return any(pattern.match(name) for pattern in _dynamic_shared_quota())


@functools.cache
def _deployment_types() -> dict[str, AzureDeploymentType]:
    return {
        name_key(n): kind for kind in catalogue().azure_openai.deployment_types for n in kind.names
    }


def azure_deployment_type(name: str) -> AzureDeploymentType | None:
    """An Azure OpenAI deployment type by any of its spellings (``GlobalStandard``,
    ``global-standard``, ``data-zone``)."""
    return _deployment_types().get(name_key(name))


def azure_data_zones() -> tuple[DataZone, ...]:
    return tuple(catalogue().azure_openai.data_zones)


def azure_data_zone(name: str) -> DataZone | None:
    """An Azure OpenAI data zone by name (``EU``, ``us``)."""
    wanted = name_key(name)
    return next((zone for zone in azure_data_zones() if name_key(zone.zone) == wanted), None)


def azure_openai_quota() -> QuotaName:
    """The Azure OpenAI tokens-per-minute quota name (``{usage}`` and ``{model}`` to fill in)."""
    return catalogue().azure_openai.quota
