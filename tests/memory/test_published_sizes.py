"""Every catalogued model's computed parameter count matches its published size.

Generated from the catalogue: each id and alias that names a size (``Llama-3.1-8B``,
``Qwen3-30B-A3B``, ``granite-3.0-3b-a800m``, Meta's ``17B-16E`` for 17B active) is checked, and
a model whose names carry no size must have one in data/published_sizes.json (from its model
card). A wrong entry is off by a whole size step (7B and 14B, 32B and 72B: 2x or more); the
tolerance allows what names leave out: they round to a marketing size (facebook/opt-350m is
331M) and count without the embedding or vision tower (google/gemma-2b is 2.51B with its
256k-token embedding, meta-llama/Llama-3.2-1B 1.24B, Qwen/Qwen2.5-VL-3B-Instruct 3.75B with its
vision tower), and active counts ("A3B") leave out embeddings (Qwen3-Next-80B-A3B: 3.87B with 0.6B of them).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from linter.catalog.models import ModelRecord, catalogue
from linter.memory import architecture_from_catalogue
from linter.memory.architecture import Architecture

PUBLISHED = json.loads(
    (Path(__file__).parent / "data" / "published_sizes.json").read_text("utf-8")
)["models"]
#: computed / published
TOLERANCE = (0.94, 1.30)
SIZE = re.compile(r"^(\d+(?:\.\d+)?)([bm])$")
ACTIVE = re.compile(r"^a(\d+(?:\.\d+)?)([bm])$")
EXPERTS = re.compile(r"^\d+e$")
UNIT = {"b": 1e9, "m": 1e6}
RECORDS = catalogue().models


def name_sizes(name: str) -> tuple[float | None, float | None]:
    """(total, active) parameters a model name states, each None when it states none."""
    tokens = re.split(r"[-_]", name.rpartition("/")[2].lower())
    total = active = None
    for index, token in enumerate(tokens):
        if match := SIZE.match(token):
            value = float(match[1]) * UNIT[match[2]]
            following = tokens[index + 1] if index + 1 < len(tokens) else ""
            if EXPERTS.match(following):  # Meta's 17B-16E: 17B active, 16 experts
                active = value
            else:
                total = value
        elif match := ACTIVE.match(token):
            active = float(match[1]) * UNIT[match[2]]
    return total, active


def active_parameters(arch: Architecture) -> int:
    """Parameters one token passes through: all but the routed experts it is not sent to."""
    if not arch.is_moe:
        return arch.parameters
    idle = arch.num_experts - arch.experts_per_token
    return arch.parameters - arch.expert_parameters * idle // arch.num_experts


def published(model_id: str, names: tuple[str, ...]) -> list[tuple[str, float, float | None]]:
    """(where, total or 0, active or None) for each statement of the model's size."""
    found: list[tuple[str, float, float | None]] = []
    for name in names:
        total, active = name_sizes(name)
        if total or active:
            found.append((name, total or 0.0, active))
    if model_id in PUBLISHED:
        entry = PUBLISHED[model_id]
        active = entry.get("active")
        found.append(("published_sizes.json", entry["total"] * 1e9, active and active * 1e9))
    return found


def within(computed: int, stated: float) -> bool:
    return TOLERANCE[0] <= computed / stated <= TOLERANCE[1]


@pytest.mark.parametrize("record", RECORDS, ids=[r.id for r in RECORDS])
def test_parameters_match_the_published_size(record: ModelRecord) -> None:
    model_id = record.id
    names = (model_id, *record.aliases)
    arch = architecture_from_catalogue(model_id)
    assert arch is not None
    statements = published(model_id, names)
    assert statements, f"{model_id}: no size in its names; add it to published_sizes.json"
    for where, total, active in statements:
        if total:
            assert within(arch.parameters, total), (where, arch.parameters, total)
        if active:
            assert within(active_parameters(arch), active), (where, active_parameters(arch))


def test_published_table_names_catalogued_models_only() -> None:
    ids = {record.id for record in RECORDS}
    assert set(PUBLISHED) <= ids


@pytest.mark.parametrize(
    ("name", "sizes"),
    [
        ("meta-llama/Llama-3.1-8B-Instruct", (8e9, None)),
        ("Qwen/Qwen3-30B-A3B", (30e9, 3e9)),
        ("ibm-granite/granite-3.0-3b-a800m-instruct", (3e9, 800e6)),
        ("meta-llama/Llama-4-Scout-17B-16E-Instruct", (None, 17e9)),
        ("HuggingFaceTB/SmolLM2-135M", (135e6, None)),
        ("mistralai/Mixtral-8x7B-v0.1", (None, None)),
        ("databricks/dbrx-instruct", (None, None)),
    ],
)
def test_name_sizes(name: str, sizes: tuple[float | None, float | None]) -> None:
    assert name_sizes(name) == sizes


def test_a_wrong_size_is_caught() -> None:
    llama_8b = architecture_from_catalogue("meta-llama/Llama-3.1-8B")
    assert llama_8b is not None
    assert not within(llama_8b.parameters, 70e9) and not within(llama_8b.parameters, 3e9)
