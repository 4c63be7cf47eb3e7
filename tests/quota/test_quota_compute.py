from __future__ import annotations

import pytest

from linter.quota import QuotaKey, quota_for, units_needed

P_OD, P_SPOT, P5_SPOT = "L-417A185B", "L-7212CCBC", "L-C4BD4855"
G_OD, G_SPOT = "L-DB2E81BA", "L-3819A6DF"
INF_OD, INF_SPOT = "L-1945791B", "L-B5D1601B"
TRN_OD, TRN_SPOT = "L-2C3B7624", "L-6B0D517C"
DL_OD, DL_SPOT = "L-6E869C2A", "L-85EED4F7"
STD_OD, STD_SPOT = "L-1216C47A", "L-34B43A08"


@pytest.mark.parametrize(
    ("instance_type", "on_demand", "spot"),
    [
        ("p3.2xlarge", P_OD, P_SPOT),
        ("p3dn.24xlarge", P_OD, P_SPOT),
        ("p4d.24xlarge", P_OD, P_SPOT),
        ("p4de.24xlarge", P_OD, P_SPOT),
        ("p5.48xlarge", P_OD, P5_SPOT),
        ("p5.4xlarge", P_OD, P5_SPOT),
        ("p5e.48xlarge", P_OD, P5_SPOT),
        ("p5en.48xlarge", P_OD, P5_SPOT),
        ("p6-b200.48xlarge", P_OD, P_SPOT),
        ("g4dn.xlarge", G_OD, G_SPOT),
        ("g4dn.metal", G_OD, G_SPOT),
        ("g5.48xlarge", G_OD, G_SPOT),
        ("g6.xlarge", G_OD, G_SPOT),
        ("gr6.4xlarge", G_OD, G_SPOT),
        ("g6e.12xlarge", G_OD, G_SPOT),
        ("vt1.3xlarge", G_OD, G_SPOT),
        ("inf1.xlarge", INF_OD, INF_SPOT),
        ("inf2.48xlarge", INF_OD, INF_SPOT),
        ("trn1.32xlarge", TRN_OD, TRN_SPOT),
        ("trn1n.32xlarge", TRN_OD, TRN_SPOT),
        ("trn2.48xlarge", TRN_OD, TRN_SPOT),
        ("dl1.24xlarge", DL_OD, DL_SPOT),
        # Prefix traps: these are Standard, not Inf / Trn / DL / HPC.
        ("i4i.large", STD_OD, STD_SPOT),
        ("t3.medium", STD_OD, STD_SPOT),
        ("d3.xlarge", STD_OD, STD_SPOT),
        ("h1.2xlarge", STD_OD, STD_SPOT),
        ("m7i.large", STD_OD, STD_SPOT),
    ],
)
def test_aws_instance_family_maps_to_its_bucket(
    instance_type: str, on_demand: str, spot: str
) -> None:
    (od,) = quota_for("aws", "us-east-1", instance_type=instance_type, capacity="on-demand")
    (sp,) = quota_for("aws", "us-east-1", instance_type=instance_type, capacity="spot")
    assert (od.code, od.capacity, od.unit, od.region) == (
        on_demand,
        "on-demand",
        "vCPU",
        "us-east-1",
    )
    assert (sp.code, sp.capacity, sp.unit) == (spot, "spot", "vCPU")


def test_aws_quota_names_and_new_account_defaults() -> None:
    (key,) = quota_for("aws", "eu-west-1", instance_type="p5.48xlarge", capacity="on-demand")
    assert key == QuotaKey(
        "aws", "eu-west-1", "L-417A185B", "Running On-Demand P instances", "vCPU", "on-demand", 0
    )
    (std,) = quota_for("aws", "eu-west-1", instance_type="m5.large", capacity="on-demand")
    assert std.default == 5


def test_aws_reserved_draws_on_the_on_demand_bucket() -> None:
    (key,) = quota_for("aws", "us-east-1", instance_type="g6.xlarge", capacity="reserved")
    assert (key.code, key.capacity) == (G_OD, "on-demand")


def test_aws_family_without_instance_type() -> None:
    (key,) = quota_for(
        "aws", "us-east-1", instance_type=None, instance_family="P4de", capacity="spot"
    )
    assert key.code == P_SPOT


def test_aws_hpc_has_no_spot_bucket() -> None:
    assert quota_for("aws", "us-east-1", instance_type="hpc7a.96xlarge", capacity="spot") == []
    (key,) = quota_for("aws", "us-east-1", instance_type="hpc7a.96xlarge", capacity="on-demand")
    assert key.code == "L-F7808C92"


def test_sagemaker_instance_draws_no_ec2_bucket() -> None:
    """SageMaker's ml.* types have the service's own quotas (ml.p4d.24xlarge for endpoint
    usage), not the EC2 vCPU buckets: the prefix 'ml' must not match the Standard bucket."""
    for capacity in ("on-demand", "spot"):
        assert (
            quota_for("aws", "us-east-1", instance_type="ml.p5.48xlarge", capacity=capacity) == []
        )
        assert quota_for("aws", "us-east-1", instance_type="ml.m5.large", capacity=capacity) == []


def test_aws_needs_region_and_family() -> None:
    assert quota_for("aws", None, instance_type="p5.48xlarge", capacity="on-demand") == []
    assert quota_for("aws", "us-east-1", capacity="on-demand") == []


def test_gcp_spot_a100_draws_preemptible_metric_and_global_gpus() -> None:
    keys = quota_for("gcp", "us-central1", instance_type="a2-highgpu-8g", capacity="spot")
    assert [(k.code, k.region, k.unit, k.capacity) for k in keys] == [
        ("PREEMPTIBLE_NVIDIA_A100_GPUS", "us-central1", "GPU", "spot"),
        ("GPUS_ALL_REGIONS", None, "GPU", "any"),
    ]


@pytest.mark.parametrize(
    ("instance_type", "gpu_type", "metric"),
    [
        (None, "A100-40GB", "NVIDIA_A100_GPUS"),
        (None, "nvidia-a100-80gb", "NVIDIA_A100_80GB_GPUS"),
        ("a2-ultragpu-1g", None, "NVIDIA_A100_80GB_GPUS"),
        ("a3-megagpu-8g", "H100-80GB", "NVIDIA_H100_MEGA_GPUS"),  # machine type wins
        ("a3-highgpu-8g", None, "NVIDIA_H100_GPUS"),
        ("a3-ultragpu-8g", None, "NVIDIA_H200_GPUS"),
        ("g2-standard-24", None, "NVIDIA_L4_GPUS"),
        ("n1-standard-8", "T4", "NVIDIA_T4_GPUS"),
    ],
)
def test_gcp_on_demand_metric(instance_type: str | None, gpu_type: str | None, metric: str) -> None:
    keys = quota_for(
        "gcp", "europe-west4", instance_type=instance_type, gpu_type=gpu_type, capacity="on-demand"
    )
    assert [k.code for k in keys] == [metric, "GPUS_ALL_REGIONS"]


def test_gcp_unknown_gpu_still_draws_global_gpus_and_cpu_only_draws_nothing() -> None:
    keys = quota_for("gcp", "us-central1", gpu_type="MI300X", capacity="on-demand")
    assert [k.code for k in keys] == ["GPUS_ALL_REGIONS"]
    assert (
        quota_for("gcp", "us-central1", instance_type="n2-standard-8", capacity="on-demand") == []
    )


def test_azure_spot_draws_the_shared_low_priority_quota() -> None:
    for size in ("Standard_ND96isr_H100_v5", "Standard_NC4as_T4_v3", "Standard_D4s_v5"):
        (key,) = quota_for("azure", "westeurope", instance_type=size, capacity="spot")
        assert (key.code, key.name, key.unit, key.capacity) == (
            "lowPriorityCores",
            "Total Regional Low-priority vCPUs",
            "vCPU",
            "spot",
        )


@pytest.mark.parametrize(
    ("size", "family", "code"),
    [
        ("Standard_ND96isr_H100_v5", None, "standardNDSH100v5Family"),
        ("standard_nc24ads_a100_v4", None, "StandardNCADSA100v4Family"),
        ("Standard_NC64as_T4_v3", None, "Standard NCASv3_T4 Family"),
        ("Standard_NC80adis_H100_v5", None, "StandardNCadsH100v5Family"),
        (None, "Standard NCADS_A100_v4 Family vCPUs", "StandardNCADSA100v4Family"),
        (None, "ND_H200_v5", "standardNDISRH200V5Family"),
    ],
)
def test_azure_on_demand_family_quota(size: str | None, family: str | None, code: str) -> None:
    (key,) = quota_for(
        "azure", "swedencentral", instance_type=size, instance_family=family, capacity="on-demand"
    )
    assert (key.code, key.unit, key.capacity, key.region) == (
        code,
        "vCPU",
        "on-demand",
        "swedencentral",
    )


def test_unknown_provider_capacity_or_instance_draws_nothing() -> None:
    assert quota_for("on-prem", "dc1", instance_type="dgx-h100", capacity="on-demand") == []
    assert quota_for("aws", "us-east-1", instance_type="p5.48xlarge", capacity="preemptible") == []
    assert quota_for("azure", "westeurope", instance_type="Standard_X1", capacity="on-demand") == []


def test_units_needed() -> None:
    (aws,) = quota_for("aws", "us-east-1", instance_type="p5.48xlarge", capacity="on-demand")
    assert units_needed(aws, vcpus_per_instance=192, gpus_per_instance=8, instances_total=2) == 384
    (g6,) = quota_for("aws", "us-east-1", instance_type="g6.xlarge", capacity="spot")
    assert units_needed(g6, vcpus_per_instance=4, gpus_per_instance=1, instances_total=3) == 12
    regional, total = quota_for(
        "gcp", "us-central1", instance_type="a3-highgpu-8g", capacity="on-demand"
    )
    assert (
        units_needed(regional, vcpus_per_instance=208, gpus_per_instance=8, instances_total=2) == 16
    )
    assert units_needed(total, vcpus_per_instance=208, gpus_per_instance=8, instances_total=2) == 16
