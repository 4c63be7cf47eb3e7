"""Throughput quotas of managed inference APIs (Bedrock, Vertex AI, Azure OpenAI)."""

from __future__ import annotations

from linter.catalog import endpoints
from linter.catalog.memo import memoize_list
from linter.catalog.spelling import name_key
from linter.quota.keys import ManagedQuotaKey

_PROVISIONED = "provisioned"


@memoize_list
def endpoint_quota(
    provider: str,
    model: str | None,
    region: str | None,
    inference_profile: str | None,
    *,
    deployment_type: str | None = None,
) -> list[ManagedQuotaKey]:
    """The requests- and tokens-per-minute quotas a call to a managed model draws on.

    - Bedrock: per source region and model; the on-demand, cross-region (geographic profile) or
      global counter, chosen by the profile (from ``inference_profile``, else a prefix on
      ``model``). Model IDs the catalogue knows are turned into the quota's model name. A
      Provisioned Throughput (``deployment_type`` provisioned) draws on none of them: it serves
      from the model units bought, whose quotas the catalogue does not hold.
    - Vertex AI: per project, region and base model; [] for Gemini 2.0 and later, which use
      Dynamic Shared Quota (see :func:`dynamic_shared_quota`).
    - Azure OpenAI: tokens per minute per model, deployment type and region.

    Returns [] when the provider, model, region, profile or deployment type is unknown or unset.
    """
    if not model or not region:
        return []
    cloud = endpoints.cloud_of(provider)
    if cloud == "aws":
        if deployment_type is not None and name_key(deployment_type) == _PROVISIONED:
            return []  # Provisioned Throughput serves from the model units bought
        return _bedrock(model, region, inference_profile)
    if cloud == "gcp" and not dynamic_shared_quota(provider, model):
        return [
            ManagedQuotaKey("gcp", region, model, model, "regional", quota.name, quota.unit)
            for quota in endpoints.vertex_quotas()
        ]
    if cloud == "azure":
        return _azure_openai(model, region, deployment_type)
    return []


def dynamic_shared_quota(provider: str, model: str) -> bool:
    """True when the model has no per-project quota to check: Vertex AI Gemini 2.0+ on
    pay-as-you-go shares capacity per model and region, returning 429 under load; only
    Provisioned Throughput guarantees it."""
    return endpoints.cloud_of(provider) == "gcp" and endpoints.vertex_dynamic_shared_quota(model)


def _bedrock(model: str, region: str, inference_profile: str | None) -> list[ManagedQuotaKey]:
    # The model may carry the profile prefix itself; the base model ID is what the quota names.
    profile, model_id = endpoints.bedrock_profile(model)
    if inference_profile:
        profile, _ = endpoints.bedrock_profile(inference_profile)
        if profile is None:
            return []
    route = profile.quota if profile else "on-demand"
    known = endpoints.bedrock_model(model_id)
    name = known.name if known else model_id
    codes = known.codes if known else {}
    return [
        ManagedQuotaKey(
            "aws",
            region,
            name,
            model_id,
            route,
            quota.name.format(model=name),
            quota.unit,
            codes.get(f"{route} {quota.unit}"),
            tuple(alias.format(model=name) for alias in quota.aliases),
        )
        for quota in endpoints.bedrock_quotas(route)
    ]


def _azure_openai(model: str, region: str, deployment_type: str | None) -> list[ManagedQuotaKey]:
    kind = endpoints.azure_deployment_type(deployment_type or "")
    if kind is None:
        return []
    quota = endpoints.azure_openai_quota()
    name = quota.name.format(usage=kind.usage, model=model)
    return [ManagedQuotaKey("azure", region, model, model, kind.usage, name, quota.unit)]
