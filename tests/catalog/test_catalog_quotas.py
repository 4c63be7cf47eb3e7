"""The quota catalogue: capacity classes, AWS buckets, GCP GPU metrics, Azure VM families."""

from __future__ import annotations

import copy

import pytest
from pydantic import ValidationError

from linter import catalog
from linter.catalog.quotas import (
    AwsFamily,
    AwsQuota,
    GcpGpu,
    QuotaCatalogue,
    aws,
    aws_family,
    aws_quota,
    azure,
    azure_family,
    capacity_class,
    gcp,
    gcp_gpu,
)


@pytest.mark.parametrize(
    ("capacity", "expected"),
    [
        ("on-demand", "on-demand"),
        ("Reserved", "on-demand"),
        ("spot", "spot"),
        ("OnDemand", "on-demand"),
        ("preemptible", None),
        ("", None),
    ],
)
def test_capacity_class(capacity: str, expected: str | None) -> None:
    assert capacity_class(capacity) == expected


@pytest.mark.parametrize(
    ("family", "prefix", "bucket"),
    [
        ("p5en", "p5", "P"),
        ("p4d", "p", "P"),
        ("G6E", "g", "G and VT"),
        ("gr6", "gr6", "G and VT"),
        ("inf2", "inf", "Inf"),
        ("i4i", "", "Standard"),  # not Inf
        ("u-12tb1", "u-", "High Memory"),
    ],
)
def test_aws_family_is_the_longest_prefix(family: str, prefix: str, bucket: str) -> None:
    found = aws_family(family)
    assert found is not None and (found.prefix, found.bucket) == (prefix, bucket)


def test_aws_records() -> None:
    assert aws_family("p5") == AwsFamily(
        prefix="p5",
        bucket="P",
        on_demand="L-417A185B",
        spot="L-C4BD4855",
        source="aws-spot-p5-community",
    )
    assert aws_quota("L-C4BD4855") == AwsQuota(
        code="L-C4BD4855",
        name="All P5 Spot Instance Requests",
        capacity="spot",
        default=0,
        source="aws-ec2-quotas",
    )
    assert aws_quota("L-00000000") is None
    assert (aws().unit, len(aws().quotas), len(aws().families)) == ("vCPU", 19, 15)


def test_gcp_gpu_by_machine_type_then_name() -> None:
    mega = gcp_gpu(machine_type="a3-megagpu-8g", gpu_type="H100")
    assert mega is not None and mega.on_demand == "NVIDIA_H100_MEGA_GPUS"
    assert gcp_gpu(gpu_type="nvidia_tesla_t4") == GcpGpu(
        gpu="T4",
        aliases=["T4", "T4-16GB", "nvidia-tesla-t4"],
        on_demand="NVIDIA_T4_GPUS",
        spot="PREEMPTIBLE_NVIDIA_T4_GPUS",
        default=0,
        source="gcp-gpu-quota-metrics",
    )
    by_name = gcp_gpu(machine_type="n1-standard-8", gpu_type="V100")
    assert by_name is not None and by_name.gpu == "V100"
    assert gcp_gpu(machine_type="n1-standard-8") is None
    assert gcp_gpu() is None
    assert (gcp().unit, gcp().global_quota.code) == ("GPU", "GPUS_ALL_REGIONS")


def test_azure_family_by_size_or_name() -> None:
    a100 = azure_family(size="standard_nc24ads_a100_v4")
    assert a100 is not None
    assert (a100.code, a100.quota_name) == (
        "StandardNCADSA100v4Family",
        "Standard NCADSA100v4 Family vCPUs",
    )
    assert azure_family(family="Standard NCADS_A100_v4 Family vCPUs") == a100
    h200 = azure_family(family="NDisrH200_v5")
    assert h200 is not None and h200.quota_name == "standardNDISRH200V5Family"  # no name yet
    assert azure_family(size="Standard_D4s_v5") is None
    assert azure_family() is None
    assert (azure().unit, azure().spot_quota.code) == ("vCPU", "lowPriorityCores")


def test_a_family_naming_an_unlisted_quota_is_refused() -> None:
    document = copy.deepcopy(catalog.load("quotas"))
    document["aws"]["families"][0]["spot"] = "L-00000000"
    with pytest.raises(ValidationError, match="families name unlisted quotas: L-00000000"):
        QuotaCatalogue.model_validate(document)
