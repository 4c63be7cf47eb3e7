"""The ``storage`` fact: the model's cache volume against the checkpoint it must hold."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from linter.facts import Facts, run_index
from linter.load.discovery import find_candidates
from linter.run.runner import collect

WORKLOAD = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata: {{name: chat}}
spec:
  profile: inference
  model: {{{model}}}
  serving: {{engine: vllm}}
  resources: {{accelerator: {{type: H100-80GB, count: 4}}}}
"""


def _storage(tmp_path: Path, model: str) -> dict[str, Any]:
    (tmp_path / "chat.yaml").write_text(WORKLOAD.format(model=model))
    manifests = collect(find_candidates([str(tmp_path)], []).candidates).manifests
    found: dict[str, Any] = Facts(manifests[0], run_index(manifests))["storage"]
    return found


def test_a_catalogued_checkpoint_larger_than_its_cache(tmp_path: Path) -> None:
    """Llama-3.1-70B-Instruct's published bf16 safetensors: 141,107,412,992 bytes."""
    found = _storage(tmp_path, "id: meta-llama/Llama-3.1-70B-Instruct, cacheGib: 100")
    assert found == {"cacheGib": 100.0, "checkpointGib": 131.42, "shortfallGib": 31.42}


def test_a_parameter_count_is_sized_at_16_bit(tmp_path: Path) -> None:
    found = _storage(tmp_path, "parameters: 30B, cacheGib: 60")
    assert found == {"cacheGib": 60.0, "checkpointGib": 55.88, "shortfallGib": None}


def test_nothing_is_sized_without_a_cache(tmp_path: Path) -> None:
    found = _storage(tmp_path, "id: meta-llama/Llama-3.1-70B-Instruct")
    assert found == {"cacheGib": None, "checkpointGib": None, "shortfallGib": None}
