"""Quota requests declared in Terraform, read as ``QuotaLedger`` entries.

- ``aws_servicequotas_service_quota``: ``quota_code`` in the resource's region (else the
  provider's), ``value`` the amount asked for. Terraform submits an increase request when the
  value is above the current one and does not wait for it unless ``wait_for_fulfillment = true``
  (then the apply fails unless AWS grants it): the entry is ``requested``, or ``approved`` when
  the apply waits for it.
- ``google_cloud_quotas_quota_preference``: a Cloud Quotas ``quota_id``
  (``CPUS-per-project-region``: a metric, dashes for underscores, then its scope;
  ``GPUS-PER-GPU-FAMILY-per-project-region`` with a ``gpu_family`` dimension names one GPU's
  metric), the ``region`` dimension, and ``quota_config.preferred_value``; always ``requested``
  (the preference is reviewed).
"""

from __future__ import annotations

import re

from linter.formats.base import Adapted
from linter.formats.terraform.reading import Resource, TerraformValue, region_code

_SCOPE = re.compile(r"-per-(project|folder|organization)(-region|-zone)?\Z", re.IGNORECASE)
_PER_FAMILY = re.compile(r"(PREEMPTIBLE-)?GPUS-PER-GPU-FAMILY\Z", re.IGNORECASE)


def _ledger(resource: Resource, entry: dict[str, object], at: TerraformValue) -> Adapted:
    builder = resource.manifest_builder(0)
    builder.set("spec.entries", [entry], at.origin, name=at.name)
    builder.set(("spec", "entries", 0, "approved"), entry["approved"], at.origin, name=at.name)
    return builder.build_kind("QuotaLedger")


def aws_quota(resource: Resource) -> Adapted:
    code = resource.text("quota_code")
    value = resource.get("value")
    if code is None or value is None or not isinstance(value.value, (int, float)):
        return Adapted()
    where = region_code("aws", resource.text("region")) or resource.provider_region("aws")
    waits = resource.flag("wait_for_fulfillment")
    entry = {
        "provider": "aws",
        "region": where.value if where else None,
        "quota": code.value,
        "approved": value.value,
        "status": "approved" if waits is not None and waits.value else "requested",
    }
    return _ledger(resource, entry, value)


def gcp_quota(resource: Resource) -> Adapted:
    quota_id = resource.text("quota_id")
    config = resource.block("quota_config")
    value = resource.number(*config, "preferred_value") if config else None
    if quota_id is None or value is None:
        return Adapted()
    dimensions = resource.raw("dimensions")
    given = dimensions if isinstance(dimensions, dict) else {}
    metric = _metric(str(quota_id.value), given.get("gpu_family"))
    place = given.get("region")
    where = (
        region_code("gcp", TerraformValue(place, quota_id.origin, quota_id.name)) if place else None
    )
    entry = {
        "provider": "gcp",
        "region": where.value if where else None,
        "quota": metric,
        "approved": value.value,
        "status": "requested",
    }
    return _ledger(resource, entry, value)


def _metric(quota_id: str, gpu_family: object) -> str:
    """A Cloud Quotas quota ID as the Compute Engine metric name the quota catalogue uses."""
    base = _SCOPE.sub("", quota_id)
    family = _PER_FAMILY.fullmatch(base)
    if family is not None and isinstance(gpu_family, str) and gpu_family:
        return ("PREEMPTIBLE_" if family.group(1) else "") + f"{gpu_family.upper()}_GPUS"
    return base.replace("-", "_").upper()
