"""What the Terraform reader knows of the providers it reads (``data/terraform.yaml``, with
sources): the resource types and their readers, the node label of each platform's pools, and the
cluster autoscaler's scale-down delay."""

from __future__ import annotations

import functools
from typing import Literal

from linter.catalog.base import Catalogue, Record, SourceRef
from linter.declared import Field
from linter.formats.vocabulary import read_vocabulary

Reader = Literal[
    "gke-node-pool",
    "gce-instance",
    "ec2-instance",
    "ec2-autoscaling-group",
    "eks-node-group",
    "aks-node-pool",
    "azure-vm",
    "azure-scale-set",
    "bedrock-throughput",
    "bedrock-agent",
    "sagemaker-endpoint",
    "vertex-deployment",
    "azure-openai-deployment",
    "aws-quota",
    "gcp-quota",
    "kubernetes-manifest",
]


class ResourceType(Record):
    type: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    reader: Reader
    source: SourceRef


class PoolLabel(Record):
    provider: str
    label: str
    source: SourceRef


class ScaleDown(Record):
    minutes: int = Field(ge=0)
    source: SourceRef


class TerraformVocabulary(Catalogue):
    resources: list[ResourceType] = Field(min_length=1)
    pool_labels: list[PoolLabel]
    scale_down_minutes: ScaleDown

    def reader(self, type_: str) -> Reader | None:
        return next((r.reader for r in self.resources if r.type == type_), None)

    def pool_label(self, provider: str) -> str | None:
        return next((p.label for p in self.pool_labels if p.provider == provider), None)


@functools.cache
def vocabulary() -> TerraformVocabulary:
    """The data file, read once (packaged and validated by the tests)."""
    return read_vocabulary("terraform.yaml", TerraformVocabulary)
