"""Which reader adapts a Terraform resource, by the reader its type names in
``data/terraform.yaml``."""

from __future__ import annotations

from collections.abc import Callable

from linter.formats.base import Adapted, InputFile
from linter.formats.terraform import capacity, managed, manifests, quotas
from linter.formats.terraform.reading import Resource
from linter.formats.terraform_vocabulary import Reader, vocabulary
from linter.load import Document
from linter.load.terraform import TerraformDocument

_CAPACITY: dict[Reader, Callable[[Resource], capacity.Capacity | None]] = {
    "gke-node-pool": capacity.gke_node_pool,
    "gce-instance": capacity.gce_instance,
    "ec2-instance": capacity.ec2_instance,
    "ec2-autoscaling-group": capacity.ec2_autoscaling_group,
    "eks-node-group": capacity.eks_node_group,
    "aks-node-pool": capacity.aks_node_pool,
    "azure-vm": capacity.azure_vm,
    "azure-scale-set": capacity.azure_scale_set,
}
_OTHERS: dict[Reader, Callable[[Resource], Adapted]] = {
    "bedrock-throughput": managed.bedrock_throughput,
    "bedrock-agent": managed.bedrock_agent,
    "sagemaker-endpoint": managed.sagemaker_endpoint,
    "vertex-deployment": managed.vertex_deployment,
    "azure-openai-deployment": managed.azure_openai_deployment,
    "aws-quota": quotas.aws_quota,
    "gcp-quota": quotas.gcp_quota,
    "kubernetes-manifest": manifests.kubernetes_manifest,
}


def adapt(document: Document, source: InputFile) -> Adapted:
    if not isinstance(document, TerraformDocument):
        return Adapted()
    reader = vocabulary().reader(document.type)
    resource = Resource(document, source)
    if reader in _CAPACITY:
        return capacity.adapt_capacity(resource, _CAPACITY[reader])
    if reader in _OTHERS:
        return _OTHERS[reader](resource)
    return Adapted()
