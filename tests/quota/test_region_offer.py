from __future__ import annotations

from linter.quota import offered_in_region


def test_instance_type_in_snapshot() -> None:
    assert offered_in_region("aws", "eu-north-1", instance_type="p5.48xlarge") is True
    assert offered_in_region("aws", "eu-central-1", instance_type="p5.48xlarge") is False
    assert offered_in_region("gcp", "europe-west4", instance_type="a3-ultragpu-8g") is True
    assert offered_in_region("gcp", "europe-west3", instance_type="a2-ultragpu-4g") is False


def test_absence_is_not_proof() -> None:
    # The snapshot's account had no rows at all for sa-east-1.
    assert offered_in_region("aws", "sa-east-1", instance_type="p5.48xlarge") is None
    # Truncated region lists cannot say no.
    assert offered_in_region("aws", "eu-west-3", instance_type="g6.12xlarge") is True
    assert offered_in_region("aws", "af-south-1", instance_type="g6.12xlarge") is None
    # Unknown type, region or provider.
    assert offered_in_region("aws", "us-east-1", instance_type="p6-b200.48xlarge") is None
    assert offered_in_region("aws", "xx-nowhere-1", instance_type="p5.48xlarge") is None
    assert offered_in_region("azure", "westeurope", gpu_type="H100") is None
    assert offered_in_region("aws", "us-east-1") is None


def test_gpu_type_across_instance_types() -> None:
    assert offered_in_region("gcp", "europe-west9", gpu_type="H100-80GB") is True  # a3-edgegpu
    assert offered_in_region("gcp", "europe-west6", gpu_type="A100") is False
    assert offered_in_region("aws", "us-east-1", gpu_type="h200") is True
