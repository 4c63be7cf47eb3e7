"""Ray Data LLM processor configs read from a job's script (linter/formats/kubernetes/ray_data.py)."""

from __future__ import annotations

import textwrap

from linter.formats.kubernetes.ray_data import processor_configs

SCRIPT = textwrap.dedent(
    """\
    import os
    from ray.data.llm import vLLMEngineProcessorConfig

    MODEL = os.environ.get("MODEL_SOURCE", "unused/default")
    CONTEXT = compute()

    config = vLLMEngineProcessorConfig(
        model_source=MODEL,
        engine_kwargs=dict(max_model_len=8192, loader=dict(concurrency=32), dtype="bfloat16"),
        accelerator_type="L40S",
        batch_size=CONTEXT,
    )
    other = vLLMEngineProcessorConfig(model_source="Qwen/Qwen2.5-7B-Instruct", engine_kwargs={"tensor_parallel_size": 2})
    """
)


def test_literal_arguments_and_engine_kwargs_with_their_places() -> None:
    first, second = processor_configs(SCRIPT)
    assert (first.name, first.engine) == ("vLLMEngineProcessorConfig", "vllm")
    model = first.arguments["model_source"]
    assert (model.value, model.env) == (None, "MODEL_SOURCE")
    assert SCRIPT[model.start : model.end] == 'os.environ.get("MODEL_SOURCE", "unused/default")'
    assert {k: v.value for k, v in first.engine_kwargs.items()} == {
        "max_model_len": 8192,
        "dtype": "bfloat16",
    }
    assert SCRIPT[first.engine_kwargs["dtype"].start : first.engine_kwargs["dtype"].end] == (
        '"bfloat16"'
    )
    assert first.arguments["accelerator_type"].value == "L40S"
    assert "batch_size" not in first.arguments  # computed: not read
    assert second.arguments["model_source"].value == "Qwen/Qwen2.5-7B-Instruct"
    assert second.engine_kwargs["tensor_parallel_size"].value == 2


def test_a_script_without_a_processor_or_that_does_not_parse_gives_none() -> None:
    assert processor_configs("print('hello')") == []
    assert processor_configs("vLLMEngineProcessorConfig(model_source=f(") == []
