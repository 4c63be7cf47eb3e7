"""Every AWS GPU instance type in the instance catalogue draws on a known quota bucket."""

from __future__ import annotations

import pytest

from linter import catalog
from linter.quota import quota_for

AWS_GPU_INSTANCES = sorted(
    (entry["name"], entry["family"])
    for entry in catalog.load("instance_types")["instance_types"]
    if entry["provider"] == "aws" and entry.get("gpu_count")
)


def test_the_catalogue_has_aws_gpu_instances() -> None:
    assert len(AWS_GPU_INSTANCES) > 20


@pytest.mark.parametrize(
    ("name", "family"), AWS_GPU_INSTANCES, ids=[n for n, _ in AWS_GPU_INSTANCES]
)
@pytest.mark.parametrize("capacity", ["on-demand", "spot"])
def test_instance_maps_to_a_vcpu_bucket(name: str, family: str, capacity: str) -> None:
    keys = quota_for(
        "aws", "us-east-1", instance_type=name, instance_family=family, capacity=capacity
    )
    assert len(keys) == 1, keys
    (key,) = keys
    assert key.code.startswith("L-") and key.unit == "vCPU" and key.capacity == capacity
