"""GPU and instance catalogue lookups."""

from __future__ import annotations

import pytest

from linter.catalog.instances import service_of
from linter.memory import resolve_gpu, resolve_instance, smallest_fitting_gpu
from linter.memory.right_sizing import gpu_with_memory
from linter.memory.units import GIB, MIB


@pytest.mark.parametrize(
    ("spelling", "name"),
    [
        ("L4", "L4"),
        ("A10G", "A10G"),
        ("L40S", "L40S"),
        ("A100-40GB", "A100-40GB"),
        ("A100-80GB", "A100-80GB"),
        ("H100", "H100-80GB"),
        ("H100-80GB", "H100-80GB"),
        ("H200", "H200-141GB"),
        ("H200-141GB", "H200-141GB"),
        ("T4", "T4"),
        ("h100_sxm", "H100-80GB"),
        ("h100 80gb", "H100-80GB"),
        ("nvidia-tesla-t4", "T4"),
        ("NVIDIA H100 80GB HBM3", "H100-80GB"),
        ("nvidia-l4", "L4"),
        ("rtx 4090", "RTX-4090"),
        ("MI300X", "MI300X"),
        ("v5e", "TPU-v5e"),
    ],
)
def test_alias_resolution(spelling: str, name: str) -> None:
    gpu = resolve_gpu(spelling)
    assert gpu is not None and gpu.name == name


def test_unknown_gpu_is_none() -> None:
    assert resolve_gpu("H300") is None
    assert resolve_gpu("H100\u200b") is None  # invisible characters are not dropped silently
    assert resolve_instance("p5.48xlarge\u200b") is None


def test_memory_is_nvidia_smi_total_not_marketing() -> None:
    h100 = resolve_gpu("H100")
    assert h100 is not None
    assert h100.memory_bytes == 81_559 * MIB and h100.marketed_gb == 80
    assert h100.usable_bytes == pytest.approx(79.11 * GIB, abs=1)
    l4 = resolve_gpu("L4")
    assert l4 is not None and l4.usable_bytes == int(23_034 * MIB * 0.98)


def test_instance_resolution() -> None:
    p5 = resolve_instance("p5.48xlarge")
    assert p5 is not None
    assert (p5.provider, p5.family, p5.gpu.name, p5.gpu_count, p5.vcpus) == (
        "aws",
        "p5",
        "H100-80GB",
        8,
        192,
    )
    assert p5.interconnect is not None and p5.interconnect.gbps == 3200
    a3 = resolve_instance("A3-HIGHGPU-8G", provider="gcp")
    assert a3 is not None and (a3.gpu.name, a3.gpu_count, a3.vcpus) == ("H100-80GB", 8, 208)
    nc = resolve_instance("NC40ads_H100_v5")
    assert nc is not None and nc.gpu.name == "H100-NVL" and nc.provider == "azure"
    nv = resolve_instance("Standard_NV6ads_A10_v5")
    assert nv is not None and nv.gpu_count == pytest.approx(1 / 6, abs=1e-3)


def test_sagemaker_instance_is_its_ec2_hardware() -> None:
    """``ml.g5.8xlarge`` (SageMaker, HyperPod node labels) is the g5.8xlarge's GPU, from the
    catalogue's service prefixes; the prefix alone names no hardware."""
    sagemaker = resolve_instance("ml.g5.8xlarge")
    assert sagemaker is not None
    assert (sagemaker.provider, sagemaker.family, sagemaker.gpu.name, sagemaker.gpu_count) == (
        "aws",
        "g5",
        "A10G",
        1,
    )
    assert sagemaker == resolve_instance("g5.8xlarge")
    assert resolve_instance("ml.g5.8xlarge", provider="gcp") is None
    assert resolve_instance("ml.p6e-gb200.36xlarge") is None
    assert service_of("ml.g5.8xlarge") is not None
    assert service_of("g5.8xlarge") is None


def test_instance_unknown_or_wrong_provider() -> None:
    assert resolve_instance("p5.48xlarge", provider="gcp") is None
    assert resolve_instance("m5.large") is None


def test_smallest_fitting_gpu() -> None:
    gpu = smallest_fitting_gpu(20 * GIB, headroom=0.1)
    # consumer cards (RTX 4090, 24,564 MiB) are not suggested: A30 24,576 MiB x 0.98 x 0.9
    assert gpu is not None and gpu.name == "A30"
    gpu = smallest_fitting_gpu(70 * GIB, headroom=0.1)
    assert gpu is not None and gpu.name == "H100-80GB"
    assert smallest_fitting_gpu(500 * GIB, headroom=0.1) is None
    l4 = resolve_gpu("L4")
    assert l4 is not None and smallest_fitting_gpu(10 * GIB, 0.0, [l4]) == l4


def test_vllm_unsupported_gpus_are_never_suggested() -> None:
    gpu = smallest_fitting_gpu(2 * GIB, headroom=0.1)
    assert gpu is not None and gpu.name == "T4"  # not a K80, M60 or P100 (compute < 7.0)


@pytest.mark.parametrize(
    ("gib", "name"), [(40, "A100-40GB"), (24, "A10"), (48, "A40"), (80, "H100-PCIe"), (1, "T4")]
)
def test_gpu_known_only_by_memory_is_the_smallest_with_that_much(gib: float, name: str) -> None:
    gpu = gpu_with_memory(gib)
    assert gpu is not None and gpu.name == name


def test_no_gpu_has_that_much_memory() -> None:
    assert gpu_with_memory(4096) is None


@pytest.mark.parametrize(
    "name",
    ["T4", "T4g", "K80", "M60", "Radeon MI25", "H100-MEGA", "A100", "V100", "H200", "B200", "A10"],
)
def test_price_catalogue_accelerator_names_resolve(name: str) -> None:
    assert resolve_gpu(name) is not None


@pytest.mark.parametrize(
    ("spelling", "name"),
    [
        ("NVIDIA GeForce RTX 5090", "RTX-5090"),
        ("NVIDIA RTX 6000 Ada Generation", "RTX-6000-Ada"),
        ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "RTX-PRO-6000"),
        ("NVIDIA H20", "H20"),
        ("NVIDIA L20", "L20"),
        ("A800-SXM4-80GB", "A800-80GB"),
        ("H800", "H800"),
        ("GB200", "GB200"),
        ("AMD Instinct MI325X", "MI325X"),
        ("RTX 4060", "RTX-4060"),
        ("RTX 4070", "RTX-4070"),
        ("RTX 4080", "RTX-4080"),
    ],
)
def test_issue_13_gpus_resolve(spelling: str, name: str) -> None:
    gpu = resolve_gpu(spelling)
    assert gpu is not None and gpu.name == name
