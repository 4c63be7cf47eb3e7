"""A model name's architecture (linter/memory/by_name.py): the catalogue's own weights, else the
local Hugging Face cache, else a catalogued quantised release or distill; and what manifests and
``gpulint memory`` say with each."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

from linter.memory import ArchitectureError, architecture_from_catalogue
from linter.memory.by_name import architecture_by_name, unknown_model_hint

COMMIT = "0123456789abcdef0123456789abcdef01234567"
#: A small Llama: 2 layers of 256, 4 heads of 64, 2 KV heads, vocabulary 1000.
TINY = {
    "model_type": "llama",
    "vocab_size": 1000,
    "hidden_size": 256,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "intermediate_size": 512,
    "max_position_embeddings": 2048,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}
#: embeddings 2 x 1000 x 256; per layer q, o 256x256, k, v 256x128, MLP 3 x 256x512, 2 norms;
#: the final norm.
TINY_PARAMETERS = 2 * 1000 * 256 + 2 * (2 * 65536 + 2 * 32768 + 3 * 131072 + 2 * 256) + 256


def cache(hub: Path, model_id: str, config: Any) -> Path:
    snapshot = hub / ("models--" + model_id.replace("/", "--")) / "snapshots" / COMMIT
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return snapshot / "config.json"


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "hf" / "hub"
    folder.mkdir(parents=True)
    monkeypatch.delenv("HF_HUB_CACHE")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    return folder


def test_the_catalogue_holds_a_models_own_weights(hub: Path) -> None:
    cache(hub, "meta-llama/Llama-3.1-8B-Instruct", TINY)
    named = architecture_by_name("meta-llama/Llama-3.1-8B-Instruct")
    assert named is not None and (named.source, named.note) == ("catalogue", None)
    assert named.arch.parameters == 8_030_261_248


def test_a_cached_config_sizes_an_uncatalogued_model(hub: Path) -> None:
    path = cache(hub, "acme/tiny-llm", TINY)
    named = architecture_by_name("acme/tiny-llm")
    assert named is not None and named.source == "hf-cache"
    assert named.arch.parameters == TINY_PARAMETERS == 1_692_928
    assert named.note == f"config.json of 'acme/tiny-llm' from {path}"


def test_a_cached_quantised_release_beats_the_derived_one(hub: Path) -> None:
    name = "RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic"
    cache(hub, name, TINY)
    named = architecture_by_name(name)
    assert named is not None and named.source == "hf-cache"
    assert named.arch.parameters == TINY_PARAMETERS


def test_without_the_cache_a_quantised_release_is_derived() -> None:
    name = "RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic"
    named = architecture_by_name(name)
    assert named is not None and named.source == "catalogue"
    assert named.arch.checkpoint_precision == "fp8"
    assert named.note is not None and named.note.startswith(
        f"model {name!r} sized as meta-llama/Llama-3.1-8B at fp8"
    )


def test_a_broken_cached_config_is_an_error_with_its_path(hub: Path) -> None:
    path = cache(hub, "acme/tiny-llm", {"model_type": "llama"})
    with pytest.raises(ArchitectureError) as raised:
        architecture_by_name("acme/tiny-llm")
    assert str(raised.value) == (f"{path} (local Hugging Face cache): config has no 'hidden_size'")
    path = cache(hub, "acme/list-llm", [1])
    with pytest.raises(ArchitectureError) as raised:
        architecture_by_name("acme/list-llm")
    assert str(raised.value) == f"{path} (local Hugging Face cache): is not a JSON object"


def test_a_broken_cached_config_does_not_hide_a_derived_one(hub: Path) -> None:
    cache(hub, "Qwen/Qwen2.5-7B-Instruct-AWQ", [1])
    named = architecture_by_name("Qwen/Qwen2.5-7B-Instruct-AWQ")
    assert named is not None and named.arch.checkpoint_precision == "int4"


def test_an_unknown_name_is_none_with_the_nearest_names() -> None:
    assert architecture_by_name("acme/Llama-3.1-8B") is None
    assert architecture_from_catalogue("acme/Llama-3.1-8B") is None
    assert unknown_model_hint("acme/Llama-3.1-8B") == (
        "nearest catalogued: meta-llama/Llama-3.1-8B, meta-llama/Meta-Llama-3-8B, "
        "meta-llama/Llama-3.1-70B; `gpulint models` lists them all"
    )
    assert unknown_model_hint("acme/in-house-llm-v3") == "`gpulint models` lists them all"


MANIFEST = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata: {{name: chat}}
spec:
  profile: inference
  model: {{id: {model}}}
  serving: {{maxContextTokens: 2048}}
  resources:
    accelerator: {{type: L4, count: 1}}
"""


def memory_fact(tmp_path: Path, model: str) -> dict[str, Any]:
    (tmp_path / ".git").mkdir(exist_ok=True)
    manifest = tmp_path / "chat.yaml"
    manifest.write_text(MANIFEST.format(model=model), encoding="utf-8")
    result = run_cli("facts", str(manifest))
    assert result.code == 0, result.err
    (workload,) = json.loads(result.out)
    fact: dict[str, Any] = workload["facts"]["memory"]
    return fact


def test_a_manifest_names_a_cached_model(tmp_path: Path, hub: Path) -> None:
    path = cache(hub, "acme/tiny-llm", TINY)
    fact = memory_fact(tmp_path, "acme/tiny-llm")
    assert (fact["status"], fact["modelSource"]) == ("checked", "config")
    assert fact["parameters"] == TINY_PARAMETERS
    assert f"config.json of 'acme/tiny-llm' from {path}" in " ".join(fact["assumed"])


def test_a_manifest_names_a_quantised_release(tmp_path: Path) -> None:
    fact = memory_fact(tmp_path, "Qwen/Qwen2.5-7B-Instruct-AWQ")
    assert (fact["status"], fact["modelSource"]) == ("checked", "catalogue")
    assert fact["precision"] == "int4"
    assert "model 'Qwen/Qwen2.5-7B-Instruct-AWQ' sized as Qwen/Qwen2.5-7B at int4" in " ".join(
        fact["assumed"]
    )


def test_an_unknown_model_names_the_nearest(tmp_path: Path) -> None:
    fact = memory_fact(tmp_path, "acme/Llama-3.1-8B")
    assert fact["status"] == "unknown-model"
    assert fact["reason"] == (
        "model 'acme/Llama-3.1-8B' is not in gpulint's catalogue and has no model.config or "
        "model.parameters (nearest catalogued: meta-llama/Llama-3.1-8B, "
        "meta-llama/Meta-Llama-3-8B, meta-llama/Llama-3.1-70B; `gpulint models` lists them all)"
    )


def test_a_result_that_depends_on_the_cache_is_not_reused(
    tmp_path: Path, hub: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GPULINT_NO_CACHE")
    monkeypatch.setenv("GPULINT_CACHE_DIR", str(tmp_path / "results"))
    before = memory_fact(tmp_path, "acme/tiny-llm")
    cache(hub, "acme/tiny-llm", TINY)
    after = memory_fact(tmp_path, "acme/tiny-llm")
    assert (before["status"], after["status"]) == ("unknown-model", "checked")


def test_memory_command_accepts_a_cached_model(hub: Path) -> None:
    path = cache(hub, "acme/tiny-llm", TINY)
    result = run_cli("memory", "--model", "acme/tiny-llm", "--gpu", "L4", "--format", "json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["parameters"] == TINY_PARAMETERS
    assert report["assumed"][0] == f"config.json of 'acme/tiny-llm' from {path}"


def test_memory_command_names_the_nearest_for_an_unknown_model() -> None:
    result = run_cli("memory", "--model", "acme/Llama-3.1-8B", "--gpu", "L4")
    assert result.code == 2
    assert result.err == (
        "gpulint: error: model 'acme/Llama-3.1-8B' is not in the catalogue (nearest catalogued: "
        "meta-llama/Llama-3.1-8B, meta-llama/Meta-Llama-3-8B, meta-llama/Llama-3.1-70B; "
        "`gpulint models` lists them all); give --model-config or --parameters\n"
    )
