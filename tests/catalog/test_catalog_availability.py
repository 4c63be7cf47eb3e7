"""The availability catalogue: snapshot entries by instance type or GPU, and coverage."""

from __future__ import annotations

from linter.catalog.availability import (
    Offering,
    offerings_of_gpu,
    offerings_of_instance,
    uncovered_regions,
)


def test_offerings_of_an_instance_type_match_its_globs() -> None:
    assert offerings_of_instance("aws", "G6.12xlarge") == (
        Offering(
            provider="aws",
            instance_types=["g6.*"],
            gpus=["L4", "L4-24GB"],
            regions=[
                "ap-northeast-1",
                "ap-northeast-2",
                "ap-south-1",
                "ap-southeast-2",
                "ca-central-1",
                "eu-central-1",
                "eu-north-1",
                "eu-west-2",
                "eu-west-3",
                "us-east-1",
                "us-east-2",
                "us-west-2",
            ],
            complete=False,
            note="from the 16xlarge and 24xlarge rows only",
            source="skypilot-aws-vms",
        ),
    )
    assert [o.source for o in offerings_of_instance("aws", "g5.2xlarge")] == [
        "skypilot-aws-vms",
        "rag-llm-gitops-pr52",
    ]
    assert offerings_of_instance("gcp", "g6.12xlarge") == ()  # another cloud's type


def test_offerings_of_a_gpu_by_any_spelling() -> None:
    assert [o.instance_types for o in offerings_of_gpu("gcp", "h100_80gb")] == [
        ["a3-highgpu-8g"],
        ["a3-highgpu-1g"],
        ["a3-edgegpu-8g"],
    ]
    assert offerings_of_gpu("azure", "H100") == ()


def test_uncovered_regions() -> None:
    assert uncovered_regions("gcp") == {"asia-southeast3", "europe-north2", "northamerica-south1"}
    assert uncovered_regions("azure") == frozenset()
    assert uncovered_regions("lambda") == frozenset()
