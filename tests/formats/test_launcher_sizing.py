"""Sharding and micro-batch read from training launchers reach the training memory estimate: a
full fine-tune under FSDP or ZeRO-3 on 8 GPUs is sized per shard (issue 27 item 4)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

HERE = Path(__file__).parent


def _training(tmp_path: Path, fixture: str) -> dict[str, Any]:
    (tmp_path / ".git").mkdir()
    copy = tmp_path / Path(fixture).name
    shutil.copy(HERE / fixture, copy)
    result = run_cli("facts", str(copy))
    assert result.code == 0, result.err
    (workload,) = json.loads(result.out)
    memory: dict[str, Any] = workload["facts"]["memory"]
    assert memory["status"] == "checked"
    training = memory["training"]
    return {
        "gpu": memory["gpu"],
        "requiredGiB": memory["requiredGiB"],
        "fits": memory["fits"],
        **{k: training[k] for k in ("microBatch", "sequenceLength", "sharding", "worldSize")},
    }


#: fixture -> GPU, GiB per GPU, fits, micro-batch, sequence, sharding, GPUs sharded over. --fsdp
#: no_shard holds the whole model state on each GPU; the SkyPilot run's
#: --gradient_accumulation_steps 8 keeps the gradient shard allocated between micro-batches
#: (19.74 GiB against 18.17 without it); the dstack task is sharded by the name of accelerate's
#: config file (fsdp1.yaml) over 2 nodes x 8 GPUs.
CASES = [
    ("kubernetes/good/fsdp-full-finetune-job.yaml", "A100-40GB", 18.17, True, 4, 2048, "fsdp", 8),
    ("kubernetes/bad/fsdp-no-shard.yaml", "A100-40GB", 126.77, False, 4, 2048, "none", 8),
    ("kubernetes/good/accelerate-zero3-job.yaml", "A100-80GB", 32.74, True, 2, 4096, "zero3", 8),
    ("skypilot/good/fsdp-full-finetune.yaml", "A100-40GB", 19.74, True, 4, 2048, "fsdp", 8),
    # torchtune's *_distributed recipe shards with FSDP over the node's GPUs
    (
        "kubernetes/good/torchtune-distributed-runtime.yaml",
        "A100-40GB",
        32.56,
        True,
        1,
        2048,
        "fsdp",
        2,
    ),
    (
        "dstack/good/task-fsdp-accelerate-config.dstack.yml",
        "H100-PCIe",
        16.98,
        True,
        1,
        1024,
        "fsdp",
        16,
    ),
]


@pytest.mark.parametrize(
    ("fixture", "gpu", "gib", "fits", "micro_batch", "sequence", "sharding", "world"), CASES
)
def test_multi_gpu_full_fine_tune_is_sized_per_shard(
    tmp_path: Path,
    fixture: str,
    gpu: str,
    gib: float,
    fits: bool,
    micro_batch: int,
    sequence: int,
    sharding: str,
    world: int,
) -> None:
    assert _training(tmp_path, fixture) == {
        "gpu": gpu,
        "requiredGiB": gib,
        "fits": fits,
        "microBatch": micro_batch,
        "sequenceLength": sequence,
        "sharding": sharding,
        "worldSize": world,
    }


def test_tgi_nf4_on_two_l4_is_sized_with_tgis_memory_cap(tmp_path: Path) -> None:
    """QUANTIZE=bitsandbytes-nf4 sizes the 70B weights at 4 bits, and TGI's default memory
    fraction (1.0) applies, not vLLM's 0.92 (which would leave no room for one sequence)."""
    (tmp_path / ".git").mkdir()
    copy = tmp_path / "tgi.yaml"
    shutil.copy(HERE / "kubernetes/good/tgi-70b-nf4-two-l4.yaml", copy)
    result = run_cli("facts", str(copy))
    (workload,) = json.loads(result.out)
    memory = workload["facts"]["memory"]
    inference = memory["inference"]
    assert (memory["status"], memory["precision"], memory["gpu"]) == ("checked", "nf4", "L4")
    assert (memory["requiredGiB"], memory["availableGiB"]) == (21.51, 22.04)
    assert (inference["starts"], inference["context"], inference["gpuMemoryUtilization"]) == (
        True,
        8192,
        1.0,
    )
