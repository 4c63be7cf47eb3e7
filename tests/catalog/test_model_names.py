"""Model names resolve the way people write them (linter/catalog/models.py with the rules of
data/model_names.yaml): ids and aliases, variant endings, mirror organisations, quantised-release
endings at their precision, distills onto their base; and a name that must not resolve does not."""

from __future__ import annotations

import pytest

from linter.catalog import model_names, models
from linter.catalog.models import (
    find_model,
    nearest_models,
    resolve_model,
)
from linter.catalog.precisions import find_precision
from linter.catalog.spelling import model_key
from linter.memory import architecture_from_catalogue


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Meta-Llama-3.1-8B_Instruct", "meta-llama-3-1-8b-instruct"),
        ("  Qwen/Qwen2.5--7B  ", "qwen-qwen2-5-7b"),
        ("Llama-3.1-8B", "llama-3-1-8b"),
        ("Llama-3-18B", "llama-3-18b"),  # one name_key ("llama318b"), two models
    ],
)
def test_model_key_keeps_number_boundaries(text: str, key: str) -> None:
    assert model_key(text) == key


@pytest.mark.parametrize(
    ("name", "model_id"),
    [
        ("meta-llama/Llama-3.1-8B", "meta-llama/Llama-3.1-8B"),  # id
        ("META-LLAMA/llama_3.1_8b", "meta-llama/Llama-3.1-8B"),  # case and separators
        ("Meta-Llama-3.1-8B", "meta-llama/Llama-3.1-8B"),  # alias
        ("meta-llama/Meta-Llama-3.1-70B", "meta-llama/Llama-3.1-70B"),  # alias with its org
        ("meta-llama/Llama-3.3-70B", "meta-llama/Llama-3.3-70B-Instruct"),  # own org, bare alias
    ],
)
def test_ids_and_aliases(name: str, model_id: str) -> None:
    resolution = resolve_model(name)
    assert resolution is not None and resolution.record.id == model_id
    assert (resolution.precision, resolution.same_weights, resolution.note(name)) == (
        None,
        True,
        None,
    )


@pytest.mark.parametrize(
    ("name", "model_id"),
    [
        ("meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B"),
        ("Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B"),
        ("google/gemma-2-27b-it", "google/gemma-2-27b"),
        ("Meta-Llama-3-8B-Instruct", "meta-llama/Meta-Llama-3-8B"),
        ("meta-llama/Llama-3.1-8B-Chat", "meta-llama/Llama-3.1-8B"),
    ],
)
def test_variant_endings_are_the_same_architecture(name: str, model_id: str) -> None:
    resolution = resolve_model(name)
    assert resolution is not None and resolution.record.id == model_id
    assert resolution.same_weights and find_model(name) is resolution.record


@pytest.mark.parametrize(
    ("name", "model_id"),
    [
        ("NousResearch/Llama-2-7b-chat-hf", "meta-llama/Llama-2-7b-hf"),
        ("NousResearch/Meta-Llama-3-8B-Instruct", "meta-llama/Meta-Llama-3-8B"),
        ("unsloth/Llama-3.2-1B-Instruct", "meta-llama/Llama-3.2-1B"),
        ("nvidia/Llama-3.3-70B-Instruct", "meta-llama/Llama-3.3-70B-Instruct"),
        ("CohereLabs/c4ai-command-r-v01", "CohereForAI/c4ai-command-r-v01"),
        ("mistral-community/Mixtral-8x22B-v0.1", "mistralai/Mixtral-8x22B-v0.1"),
    ],
)
def test_mirror_organisations(name: str, model_id: str) -> None:
    resolution = resolve_model(name)
    assert resolution is not None and resolution.record.id == model_id
    assert resolution.same_weights and resolution.note(name) is None
    record = find_model(name)
    assert record is not None and record.id == model_id


@pytest.mark.parametrize(
    ("name", "model_id", "precision"),
    [
        ("RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic", "meta-llama/Llama-3.1-8B", "fp8"),
        ("RedHatAI/Meta-Llama-3.1-8B-quantized.w8a8", "meta-llama/Llama-3.1-8B", "int8"),
        (
            "neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w4a16",
            "meta-llama/Llama-3.1-70B",
            "int4",
        ),
        ("nvidia/Llama-3.1-8B-Instruct-FP8", "meta-llama/Llama-3.1-8B", "fp8"),
        ("Qwen/Qwen2.5-7B-Instruct-AWQ", "Qwen/Qwen2.5-7B", "int4"),
        ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", "Qwen/Qwen2.5-7B", "int4"),
        ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8", "Qwen/Qwen2.5-7B", "int8"),
        ("hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", "meta-llama/Llama-3.1-70B", "int4"),
        ("unsloth/llama-3-8b-bnb-4bit", "meta-llama/Meta-Llama-3-8B", "nf4"),
    ],
)
def test_precision_endings_size_the_base_at_that_precision(
    name: str, model_id: str, precision: str
) -> None:
    resolution = resolve_model(name)
    assert resolution is not None and resolution.record.id == model_id
    assert resolution.precision == precision and not resolution.same_weights
    assert find_model(name) is None  # not the same weights
    arch = architecture_from_catalogue(name)
    base = architecture_from_catalogue(model_id)
    assert arch is not None and base is not None
    assert (arch.checkpoint_precision, arch.checkpoint_bytes) == (precision, None)
    assert arch.parameters == base.parameters


def test_a_precision_ending_says_how_it_was_sized() -> None:
    name = "RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic"
    resolution = resolve_model(name)
    assert resolution is not None
    assert resolution.note(name) == (
        "model 'RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic' sized as "
        "meta-llama/Llama-3.1-8B at fp8 (RedHatAI/ republishes other organisations' models; "
        "the ending -FP8-dynamic names a quantised release stored in fp8; the ending -Instruct "
        "names a tuned variant of the same architecture)"
    )


def test_a_catalogued_quantised_release_wins_over_its_ending() -> None:
    arch = architecture_from_catalogue("meta-llama/Llama-3.1-405B-Instruct-FP8")
    assert arch is not None and arch.unquantised_modules  # Meta's own exclusions, kept


@pytest.mark.parametrize(
    ("name", "precision"),
    [
        ("deepseek-ai/DeepSeek-R1-Distill-Llama-8B", None),
        ("DeepSeek-R1-Distill-Llama-8B", None),
        ("unsloth/DeepSeek-R1-Distill-Llama-8B", None),
        ("RedHatAI/DeepSeek-R1-Distill-Llama-8B-FP8-dynamic", "fp8"),
    ],
)
def test_distills_resolve_onto_their_base(name: str, precision: str | None) -> None:
    resolution = resolve_model(name)
    assert resolution is not None and resolution.record.id == "meta-llama/Llama-3.1-8B"
    assert resolution.distilled and resolution.precision == precision
    assert find_model(name) is None  # another model's weights: never priced as Llama's
    note = resolution.note(name)
    assert note is not None and note.endswith(
        "a distill with the architecture of meta-llama/Llama-3.1-8B)"
    )


@pytest.mark.parametrize(
    "name",
    [
        "acme/Llama-3.1-8B",  # an organisation that is neither the owner nor a mirror
        "Llama-3-18B",  # the name_key of Llama-3.1-8B
        "Qwen/Qwen2.5-7B-Instruct-1M",  # another model, not a variant ending
        "meta-llama/Llama-3.1-8B-Instruct-GGUF",  # a llama.cpp file, precision unknown
        "unsloth/Llama-3.2-1B-Instruct-unsloth-bnb-4bit",  # dynamic 4-bit keeps 16-bit layers
        "nvidia/Llama-3.3-70B-Instruct-NVFP4",  # ModelOpt NVFP4 mixes FP8 attention
        "meta-llama/Llama-3.1-8B-Instruct-abliterated",
        "deepseek-ai/DeepSeek-R1-Distill-Llama-80B",
        "CohereLabs/c4ai-command-r7b-12-2024",  # Cohere2: not modelled, not Command-R
        "a/b/c",
        "",
        "-FP8",
        "-Instruct",
    ],
)
def test_names_that_must_not_resolve(name: str) -> None:
    assert resolve_model(name) is None
    assert architecture_from_catalogue(name) is None


@pytest.mark.parametrize(
    ("location", "model_id", "precision"),
    [
        # a bucket folder named after the checkpoint (data-on-eks' Ray batch inference)
        ("s3://$S3_BUCKET/models/deepseek-r1-distill-llama-8b", "meta-llama/Llama-3.1-8B", None),
        # the path vLLM is given after an init container downloaded the weights (AIBrix)
        ("/models/deepseek-coder-6.7b-instruct", "deepseek-ai/deepseek-coder-6.7b-instruct", None),
        # the download source itself, ORG/NAME at its end, with a trailing slash
        (
            "tos://artifacts/models/deepseek-ai/deepseek-coder-6.7b-instruct/",
            "deepseek-ai/deepseek-coder-6.7b-instruct",
            None,
        ),
        ("gs://bucket/Qwen/Qwen2.5-7B-Instruct-AWQ", "Qwen/Qwen2.5-7B", "int4"),
    ],
)
def test_a_storage_location_resolves_as_the_name_it_ends_in(
    location: str, model_id: str, precision: str | None
) -> None:
    resolution = resolve_model(location)
    assert resolution is not None
    assert (resolution.record.id, resolution.precision) == (model_id, precision)


@pytest.mark.parametrize(
    "location", ["pvc://llm-test-pvc", "/mnt/models", "s3://bucket/", "/models/llama-3.1-80b"]
)
def test_a_location_not_named_after_a_checkpoint_stays_unknown(location: str) -> None:
    assert resolve_model(location) is None


def test_a_size_never_resolves_to_another_size() -> None:
    for size, other in (("8B", "70B"), ("70B", "8B"), ("70B", "405B")):
        resolution = resolve_model(f"meta-llama/Llama-3.1-{size}-Instruct")
        assert resolution is not None
        assert resolution.record.id == f"meta-llama/Llama-3.1-{size}"
        assert resolution.record.id != f"meta-llama/Llama-3.1-{other}"


@pytest.mark.parametrize(
    ("name", "first"),
    [
        ("acme/Llama-3.1-8B", "meta-llama/Llama-3.1-8B"),
        ("Qwen/Qwen2.5-7B-Instruct-1M", "Qwen/Qwen2.5-7B"),
        ("meta-llama/Llama-3.1-8B-Instruct-GGUF", "meta-llama/Llama-3.1-8B"),
    ],
)
def test_nearest_catalogued_names(name: str, first: str) -> None:
    nearest = nearest_models(name)
    assert nearest[0] == first and 1 <= len(nearest) <= models.NEAREST


def test_no_names_offered_for_nothing_alike() -> None:
    assert nearest_models("acme/in-house-llm-v3") == []
    assert nearest_models("a/b/c") == []


def test_every_id_and_alias_resolves_to_its_own_record() -> None:
    for record in models.catalogue().models:
        for name in (record.id, *record.aliases):
            resolution = resolve_model(name)
            assert resolution is not None and resolution.record.id == record.id, name
            assert resolution.same_weights, name


def test_naming_rules_point_at_catalogued_models_and_precisions() -> None:
    rules = model_names.catalogue()
    ids = {record.id for record in models.catalogue().models}
    for distill in rules.distills:
        assert distill.base in ids, distill.id
        assert find_model(distill.id) is None, f"{distill.id} is catalogued: not a distill rule"
    for suffix in rules.precision_suffixes:
        spec = find_precision(suffix.precision)
        assert spec is not None and spec.name == suffix.precision, suffix.suffix
    keys = [model_key(s.suffix) for s in (*rules.precision_suffixes, *rules.variant_suffixes)]
    assert len(keys) == len(set(keys))
    orgs = [model_key(m.org) for m in rules.mirrors]
    assert len(orgs) == len(set(orgs))


@pytest.mark.parametrize(
    ("name", "model_id", "precision", "distilled"),
    [  # the names of issue 27 that real files use
        ("Meta-Llama-3-70B-Instruct", "meta-llama/Meta-Llama-3-70B", None, False),
        ("gemma-7b-it", "google/gemma-7b", None, False),
        ("gemma-3-12b-it", "google/gemma-3-12b-it", None, False),
        ("dbrx-instruct", "databricks/dbrx-instruct", None, False),
        ("Qwen3-235B-A22B-FP8", "Qwen/Qwen3-235B-A22B", "fp8", False),
        ("DeepSeek-R1-Distill-Llama-8B", "meta-llama/Llama-3.1-8B", None, True),
        (
            "Llama-4-Maverick-17B-128E-Instruct-FP8",
            "meta-llama/Llama-4-Maverick-17B-128E-Instruct",
            "fp8",
            False,
        ),
        ("NousResearch/Llama-2-7b-chat-hf", "meta-llama/Llama-2-7b-hf", None, False),
        (
            "granite-3.0-3b-a800m-instruct",
            "ibm-granite/granite-3.0-3b-a800m-instruct",
            None,
            False,
        ),
        ("deepseek-coder-6.7b-instruct", "deepseek-ai/deepseek-coder-6.7b-instruct", None, False),
    ],
)
def test_the_names_real_files_use(
    name: str, model_id: str, precision: str | None, distilled: bool
) -> None:
    resolution = resolve_model(name)
    assert resolution is not None and resolution.record.id == model_id
    assert (resolution.precision, resolution.distilled) == (precision, distilled)
    assert architecture_from_catalogue(name) is not None
