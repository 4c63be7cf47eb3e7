"""Managed inference declared in Terraform, read as inference ``Workload``s.

- Bedrock ``aws_bedrock_provisioned_model_throughput``: an endpoint (provider ``bedrock``) of the
  model its ``model_arn`` names, in the ARN's region, of deployment type ``provisioned``: it is
  served from the model units bought, not from the on-demand requests and tokens quotas.
- Bedrock ``aws_bedrockagent_agent``: an endpoint of its ``foundation_model`` (a model ID, a
  cross-region inference profile ID such as ``eu.anthropic...``, or an ARN of either) in the
  provider's region, with the profile as ``inferenceProfile`` (where requests may be processed).
- ``aws_sagemaker_endpoint_configuration``: a self-hosted service on SageMaker ``ml.*``
  instances (the first production variant with an instance type; serverless variants have no
  GPU), ``initial_instance_count`` replicas.
- ``google_vertex_ai_endpoint_with_model_garden_deployment``: a self-hosted service on Vertex AI
  (``machine_spec``, ``min_replica_count`` / ``max_replica_count``, ``spot``) of its Hugging
  Face model.
- ``azurerm_cognitive_deployment``: an Azure OpenAI endpoint of its model, in the region of the
  account it refers to, of its SKU's deployment type. Its ``sku.capacity`` (thousands of tokens
  per minute) is the quota the deployment takes: a ``QuotaLedger`` entry, requested (the apply
  fails if the region's quota cannot give it).

Data classification, residency and acceptable-use review come from ``# gpulint.dev/`` comments
above the resource, as for capacity.
"""

from __future__ import annotations

import re

from linter.formats.base import Adapted
from linter.formats.builder import WorkloadBuilder
from linter.formats.terraform.reading import Resource, TerraformValue, region_code, set_found
from linter.load.terraform import ANNOTATIONS
from linter.quota import endpoint_quota

#: arn:aws:bedrock:<region>:<account>:<resource type>/<id>
_ARN = re.compile(
    r"arn:aws[a-z-]*:bedrock:(?P<region>[a-z0-9-]*):[0-9]*:(?P<kind>[a-z-]+)/(?P<id>.+)"
)
_PROVISIONED = "provisioned"


def _endpoint(
    resource: Resource,
    builder: WorkloadBuilder,
    provider: str,
    model: TerraformValue | None,
    where: TerraformValue | None,
) -> None:
    builder.set("spec.profile", "inference", resource.at(), name=f"the kind of {resource.address}")
    at = ("spec", "endpoints", 0)
    builder.set(
        (*at, "provider"), provider, resource.at(), name=f"the service of {resource.address}"
    )
    if model is not None:
        builder.place(at, model.origin)
        set_found(builder, (*at, "model"), model)
    set_found(builder, (*at, "region"), where)


def _build(resource: Resource, builder: WorkloadBuilder) -> Adapted:
    return builder.build(resource.annotated(), ANNOTATIONS)


def bedrock_throughput(resource: Resource) -> Adapted:
    arn = resource.text("model_arn")
    match = _ARN.fullmatch(arn.value) if arn is not None else None
    if arn is None or match is None or match.group("kind") != "foundation-model":
        return Adapted()  # a custom model's ARN names no model the catalogues know
    model = TerraformValue(match.group("id"), arn.origin, arn.name)
    written = (
        TerraformValue(match.group("region"), arn.origin, arn.name)
        if match.group("region")
        else None
    )
    where = region_code("aws", written) or region_code("aws", resource.text("region"))
    where = where or resource.provider_region("aws")
    builder = resource.builder()
    _endpoint(resource, builder, "bedrock", model, where)
    builder.set(
        ("spec", "endpoints", 0, "deploymentType"),
        _PROVISIONED,
        resource.at(),
        name=f"{resource.type} (Provisioned Throughput)",
    )
    return _build(resource, builder)


def bedrock_agent(resource: Resource) -> Adapted:
    from linter.catalog.endpoints import bedrock_profile

    written = resource.text("foundation_model")
    if written is None:
        return Adapted()
    text = written.value
    match = _ARN.fullmatch(text)
    if match is not None and match.group("kind") not in ("foundation-model", "inference-profile"):
        return Adapted()  # a provisioned or application profile ARN: routing not known here
    profile, model_id = bedrock_profile(text)
    builder = resource.builder()
    where = region_code("aws", resource.text("region")) or resource.provider_region("aws")
    _endpoint(
        resource, builder, "bedrock", TerraformValue(model_id, written.origin, written.name), where
    )
    if profile is not None:
        at = ("spec", "endpoints", 0, "inferenceProfile")
        builder.set(at, profile.prefix, written.origin, name=written.name)
    return _build(resource, builder)


def sagemaker_endpoint(resource: Resource) -> Adapted:
    variants = resource.raw("production_variants")
    index = next(
        (
            number
            for number, variant in enumerate(variants if isinstance(variants, list) else [])
            if resource.text("production_variants", number, "instance_type") is not None
        ),
        None,
    )
    if index is None:
        return Adapted()
    builder = resource.builder()
    variant = ("production_variants", index)
    builder.set("spec.profile", "inference", resource.at(), name=f"the kind of {resource.address}")
    builder.set("spec.resources.provider", "aws", resource.at(), name=resource.address)
    set_found(builder, "spec.resources.instanceType", resource.text(*variant, "instance_type"))
    where = region_code("aws", resource.text("region")) or resource.provider_region("aws")
    set_found(builder, "spec.resources.region", where)
    scaling = resource.block(*variant, "managed_instance_scaling")
    replicas = resource.number(*variant, "initial_instance_count")
    if scaling is not None:
        replicas = resource.number(*scaling, "min_instance_count") or replicas
        set_found(
            builder, "spec.serving.maxReplicas", resource.number(*scaling, "max_instance_count")
        )
    set_found(builder, "spec.serving.replicas", replicas)
    if replicas is not None:
        builder.place("spec.serving", replicas.origin)
    return _build(resource, builder)


def vertex_deployment(resource: Resource) -> Adapted:
    config = resource.block("deploy_config")
    dedicated = resource.block(*config, "dedicated_resources") if config else None
    machine = resource.block(*dedicated, "machine_spec") if dedicated else None
    if dedicated is None or machine is None:
        return Adapted()
    builder = resource.builder()
    builder.set("spec.profile", "inference", resource.at(), name=f"the kind of {resource.address}")
    builder.set("spec.resources.provider", "gcp", resource.at(), name=resource.address)
    set_found(builder, "spec.resources.region", region_code("gcp", resource.text("location")))
    set_found(builder, "spec.model.id", resource.text("hugging_face_model_id"))
    set_found(builder, "spec.resources.instanceType", resource.text(*machine, "machine_type"))
    kind = resource.text(*machine, "accelerator_type")
    count = resource.number(*machine, "accelerator_count")
    if kind is not None and count is not None and count.value > 0:
        builder.place("spec.resources.accelerator", kind.origin)
        set_found(builder, "spec.resources.accelerator.type", kind)
        set_found(builder, "spec.resources.accelerator.count", count)
    set_found(builder, "spec.serving.replicas", resource.number(*dedicated, "min_replica_count"))
    set_found(builder, "spec.serving.maxReplicas", resource.number(*dedicated, "max_replica_count"))
    spot = resource.flag(*dedicated, "spot")
    if spot is not None and spot.value:
        builder.set("spec.resources.capacity", "spot", spot.origin, name=spot.name)
    return _build(resource, builder)


def azure_openai_deployment(resource: Resource) -> Adapted:
    model_block = resource.block("model")
    model = resource.text(*model_block, "name") if model_block else None
    sku = resource.block("sku") or resource.block("scale")
    kind = resource.text(*sku, "name") or resource.text(*sku, "type") if sku else None
    location = resource.argument_of(("cognitive_account_id",), "location")
    where = region_code("azure", location)
    builder = resource.builder()
    _endpoint(resource, builder, "azure-openai", model, where)
    set_found(builder, ("spec", "endpoints", 0, "deploymentType"), kind)
    adapted = _build(resource, builder)
    capacity = resource.number(*sku, "capacity") if sku else None
    if adapted.manifests and model and where and kind and capacity is not None:
        ledger = _deployment_quota(resource, model, where, kind, capacity)
        adapted.manifests.extend(ledger.manifests)
        adapted.findings.extend(ledger.findings)
    return adapted


def _deployment_quota(
    resource: Resource,
    model: TerraformValue,
    where: TerraformValue,
    kind: TerraformValue,
    capacity: TerraformValue,
) -> Adapted:
    keys = endpoint_quota(
        "azure-openai", str(model.value), str(where.value), None, deployment_type=str(kind.value)
    )
    if not keys:
        return Adapted()
    builder = resource.manifest_builder(1)
    entry = {
        "provider": "azure",
        "region": where.value,
        "quota": keys[0].name,
        "model": model.value,
        "tokensPerMinute": capacity.value * 1000,
        "status": "requested",
    }
    builder.set("spec.entries", [entry], capacity.origin, name=capacity.name)
    return builder.build_kind("QuotaLedger")
