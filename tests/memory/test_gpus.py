"""GPU and instance catalogue lookups."""

from __future__ import annotations

import pytest

from linter.memory import resolve_gpu, resolve_instance, smallest_fitting_gpu
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


def test_instance_unknown_or_wrong_provider() -> None:
    assert resolve_instance("p5.48xlarge", provider="gcp") is None
    assert resolve_instance("m5.large") is None


def test_smallest_fitting_gpu() -> None:
    gpu = smallest_fitting_gpu(20 * GIB, headroom=0.1)
    assert gpu is not None and gpu.name == "RTX-4090"  # 24,564 MiB x 0.98 x 0.9 = 21.2 GiB
    gpu = smallest_fitting_gpu(70 * GIB, headroom=0.1)
    assert gpu is not None and gpu.name == "H100-80GB"
    assert smallest_fitting_gpu(500 * GIB, headroom=0.1) is None
    l4 = resolve_gpu("L4")
    assert l4 is not None and smallest_fitting_gpu(10 * GIB, 0.0, [l4]) == l4
