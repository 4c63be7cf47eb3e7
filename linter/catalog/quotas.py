"""Accelerator quotas a self-hosted workload draws on (``data/quotas.yaml``): AWS vCPU buckets per
instance family, GCP GPU metrics per GPU, Azure vCPU quotas per VM family, and which quota class
each capacity type draws on.

Lookups only: which quotas a workload draws on and how much of each is decided in
:mod:`linter.quota` over these records.
"""

import fnmatch
import functools
import re
from typing import Annotated, Literal

from linter.catalog.base import Catalogue, Record, Regex, SourceRef, Text, validated
from linter.catalog.spelling import name_key
from linter.declared import Field, empty_list, model_validator

QuotaClass = Literal["on-demand", "spot"]
AwsCode = Annotated[str, Field(pattern=r"^L-[0-9A-F]{8}$")]
Default = Annotated[float, Field(ge=0, description="The value for a new account, when known.")]


class CapacityClass(Record):
    """A workload capacity type (``reserved``) and the quota class it draws on."""

    capacity: Text
    quota: QuotaClass
    note: Text | None = None
    source: SourceRef


class AwsQuota(Record):
    code: AwsCode
    name: Text
    capacity: QuotaClass
    default: Default
    source: SourceRef


class AwsFamily(Record):
    """Instance families (text before the first ``.``) by prefix, and their vCPU buckets."""

    prefix: str = Field(pattern=r"^[a-z0-9-]*$", description="The longest matching prefix wins.")
    bucket: Text
    on_demand: AwsCode
    spot: AwsCode | None = Field(description="Null: no spot bucket is listed for the family.")
    source: SourceRef


class AwsQuotas(Record):
    unit: Literal["vCPU"]
    scope: Text
    quotas: list[AwsQuota]
    families: list[AwsFamily]

    @model_validator(mode="after")
    def _buckets_are_quotas(self) -> "AwsQuotas":
        listed = {quota.code for quota in self.quotas}
        named = {code for f in self.families for code in (f.on_demand, f.spot) if code is not None}
        if named - listed:
            raise ValueError(f"families name unlisted quotas: {', '.join(sorted(named - listed))}")
        return self


class GcpGlobalQuota(Record):
    code: Text
    default: Default
    source: SourceRef


class GcpGpu(Record):
    """A GPU's per-region quota metrics, identified by GPU name or by machine type."""

    gpu: Text
    aliases: list[Text]
    machine_types: list[Text] = Field(
        default_factory=empty_list, description="Globs over machine types carrying this GPU."
    )
    on_demand: str = Field(pattern=r"^[A-Z0-9_]+_GPUS$")
    spot: str = Field(pattern=r"^PREEMPTIBLE_[A-Z0-9_]+_GPUS$")
    default: Default
    note: Text | None = None
    source: SourceRef


class GcpQuotas(Record):
    unit: Literal["GPU"]
    scope: Text
    global_quota: GcpGlobalQuota
    gpus: list[GcpGpu]


class AzureSpotQuota(Record):
    code: Text
    name: Text
    source: SourceRef


class AzureFamily(Record):
    """A VM family's vCPU quota (``code`` is the usages ``name.value``)."""

    code: Text
    name: Text | None = Field(None, description="The usages localizedValue, when confirmed.")
    aliases: list[Text]
    sizes: list[Regex] = Field(min_length=1, description="Match VM size names, case-insensitively.")
    default: Default
    note: Text | None = None
    aliases_source: SourceRef | None = None
    source: SourceRef

    @property
    def quota_name(self) -> str:
        """The name a quota tool shows: the localized name, else the code."""
        return self.name if self.name is not None else self.code


class AzureQuotas(Record):
    unit: Literal["vCPU"]
    scope: Text
    spot_quota: AzureSpotQuota
    families: list[AzureFamily]


class QuotaCatalogue(Catalogue):
    """gpulint accelerator quota catalogue (AWS vCPU buckets, GCP GPU metrics, Azure family
    vCPUs)."""

    capacity_classes: list[CapacityClass] = Field(min_length=1)
    aws: AwsQuotas
    gcp: GcpQuotas
    azure: AzureQuotas


def catalogue() -> QuotaCatalogue:
    return validated("quotas", QuotaCatalogue)


def aws() -> AwsQuotas:
    return catalogue().aws


def gcp() -> GcpQuotas:
    return catalogue().gcp


def azure() -> AzureQuotas:
    return catalogue().azure


@functools.cache
def _capacity_classes() -> dict[str, QuotaClass]:
    return {name_key(entry.capacity): entry.quota for entry in catalogue().capacity_classes}


def capacity_class(capacity: str) -> QuotaClass | None:
    """``on-demand`` or ``spot``: the quota class a workload capacity value draws on (reserved
    capacity runs against the on-demand quotas); None for an unknown value."""
    return _capacity_classes().get(name_key(capacity))


def aws_family(family: str) -> AwsFamily | None:
    """The bucket rule of an AWS instance family (``p5``, ``g6e``): the longest catalogued
    prefix of it."""
    wanted = family.strip().lower()
    rules = [rule for rule in aws().families if wanted.startswith(rule.prefix)]
    return max(rules, key=lambda rule: len(rule.prefix)) if rules else None


@functools.cache
def _aws_quotas() -> dict[str, AwsQuota]:
    return {quota.code: quota for quota in aws().quotas}


def aws_quota(code: str) -> AwsQuota | None:
    return _aws_quotas().get(code)


def gcp_gpu(*, machine_type: str | None = None, gpu_type: str | None = None) -> GcpGpu | None:
    """The GPU quota metrics of a GCP machine type (more specific: ``a3-megagpu-8g`` and
    ``a3-highgpu-8g`` carry the same GPU but count in different metrics), else of a GPU name."""
    if machine_type:
        name = machine_type.strip().lower()
        for gpu in gcp().gpus:
            if any(fnmatch.fnmatchcase(name, glob) for glob in gpu.machine_types):
                return gpu
    if gpu_type:
        wanted = name_key(gpu_type)
        for gpu in gcp().gpus:
            if wanted in {name_key(alias) for alias in gpu.aliases}:
                return gpu
    return None


def azure_family(*, size: str | None = None, family: str | None = None) -> AzureFamily | None:
    """The first catalogued Azure VM family whose sizes match ``size`` or whose code, name or
    aliases name ``family`` (spelling does not matter)."""
    for entry in azure().families:
        by_size = size is not None and any(
            re.match(pattern, size.strip(), re.IGNORECASE) for pattern in entry.sizes
        )
        names = (entry.code, entry.quota_name, *entry.aliases)
        by_name = family is not None and name_key(family) in {name_key(n) for n in names}
        if by_size or by_name:
            return entry
    return None
