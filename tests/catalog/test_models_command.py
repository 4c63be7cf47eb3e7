"""``gpulint models`` lists the catalogue with sizes, and ``gpulint memory --model`` accepts every
catalogued id and alias."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import run_cli

from linter.catalog import models
from linter.memory import architecture_from_catalogue

RECORDS = models.catalogue().models
NAMES = [(record.id, name) for record in RECORDS for name in (record.id, *record.aliases)]


def listing(*args: str) -> dict[str, Any]:
    result = run_cli("models", *args, "--format", "json")
    assert result.code == 0, result.err
    return json.loads(result.out)  # type: ignore[no-any-return]


def test_json_lists_every_model_with_its_size() -> None:
    rows = listing()["models"]
    assert [row["id"] for row in rows] == [record.id for record in RECORDS]
    for row, record in zip(rows, RECORDS, strict=True):
        arch = architecture_from_catalogue(record.id)
        assert arch is not None
        assert row["aliases"] == record.aliases
        assert row["parameters"] == arch.parameters
        assert row["checkpoint_bytes"] == record.checkpoint_bytes
        assert row["model_type"] == arch.model_type


def test_a_row_says_what_the_model_is() -> None:
    (llama,) = listing("Meta-Llama-3.1-8B")["models"]
    assert llama == {
        "id": "meta-llama/Llama-3.1-8B",
        "aliases": ["meta-llama/Meta-Llama-3.1-8B", "Llama-3.1-8B", "Meta-Llama-3.1-8B"],
        "model_type": "llama",
        "kind": "dense",
        "parameters": 8_030_261_248,
        "active_parameters": 8_030_261_248,
        "checkpoint_precision": "bf16",
        "checkpoint_bytes": 16_060_522_496,
        "weight_bytes": 16_060_522_496,
        "max_position_embeddings": 131072,
    }
    (v3,) = listing("deepseek-ai/DeepSeek-V3")["models"]
    assert (v3["kind"], v3["checkpoint_precision"]) == ("MoE MLA", "fp8")
    # 671B, of which one token passes through 8 of the 256 routed experts of 58 layers
    assert (v3["parameters"], v3["active_parameters"]) == (671_026_404_352, 37_552_282_624)


def test_filter_matches_ids_and_aliases_case_insensitively() -> None:
    ids = [row["id"] for row in listing("QWEN3-CODER")["models"]]
    assert ids == [
        r.id for r in RECORDS if any("qwen3-coder" in n.lower() for n in (r.id, *r.aliases))
    ]
    assert ids and listing("no-such-model")["models"] == []


def test_json_lists_the_naming_rules() -> None:
    naming = listing()["naming"]
    assert "NousResearch" in naming["mirrors"]
    assert naming["precision_suffixes"]["-AWQ"] == "int4"
    assert (
        naming["distills"]["deepseek-ai/DeepSeek-R1-Distill-Llama-8B"] == "meta-llama/Llama-3.1-8B"
    )


def test_text_shows_sizes_and_aliases() -> None:
    result = run_cli("models", "Meta-Llama-3.1-8B")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0].split() == [
        "ID",
        "PARAMS",
        "ACTIVE",
        "WEIGHTS",
        "STORED",
        "KIND",
        "/",
        "ALIASES",
    ]
    assert lines[1].split() == ["meta-llama/Llama-3.1-8B", "8.03B", "15.0", "GiB", "bf16", "dense"]
    assert lines[2].split() == [
        "also:",
        "meta-llama/Meta-Llama-3.1-8B,",
        "Llama-3.1-8B,",
        "Meta-Llama-3.1-8B",
    ]
    assert lines[4].startswith("1 models. Names also resolve with a mirror organisation")


@pytest.mark.parametrize(("model_id", "name"), NAMES)
def test_memory_accepts_every_id_and_alias(model_id: str, name: str) -> None:
    result = run_cli("memory", "--model", name, "--gpu", "H200", "--count", "8", "--format", "json")
    report = json.loads(result.out)
    # sized either way: exit 1 only says it does not fit (Kimi K2's 1T parameters on 8 x H200)
    assert result.code == (0 if report["fits"] else 1), result.err
    arch = architecture_from_catalogue(model_id)
    assert arch is not None
    assert (report["model"], report["parameters"]) == (name, arch.parameters)


def test_gl003_points_at_the_command_that_lists_the_models() -> None:
    """GL003's fix names a command, and that command prints every catalogued id."""
    import re

    from conftest import REPO

    fix = (REPO / "rules" / "GL003.yaml").read_text(encoding="utf-8")
    (command,) = re.findall(r"`gpulint ([a-z -]+)`", fix)
    assert command == "models"
    result = run_cli(*command.split())
    assert result.code == 0, result.err
    for record in RECORDS:
        assert record.id in result.out
