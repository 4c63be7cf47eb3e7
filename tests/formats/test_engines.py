"""Serving engines recognised in commands, their flags mapped to normalised settings."""

from __future__ import annotations

import pytest

from linter.formats.cmdline.arguments import ArgProblem, Setting
from linter.formats.cmdline.engines import (
    EngineCommand,
    catalogue,
    engine_arguments,
    engine_for_env,
    engine_for_image,
    engine_table,
    recognise_engine,
    release_of_image,
)
from linter.formats.cmdline.shell import Variable, Word, argv_commands, script_commands
from linter.load import load_text
from linter.load.positions import Span
from linter.load.scalar_offsets import locate
from linter.model.workload import Workload


def _engine(script: str, env: dict[str, str | None] | None = None) -> EngineCommand:
    (command,) = script_commands([script], env)
    engine = recognise_engine(command)
    assert engine is not None
    return engine


def _values(engine: EngineCommand) -> dict[str, object]:
    return {field: setting.value for field, setting in engine.settings.items()}


# -- vLLM ------------------------------------------------------------------------------------------


def test_vllm_serve_flags_map_to_normalised_fields() -> None:
    script = (
        "vllm serve Qwen/Qwen2.5-32B-Instruct --tensor-parallel-size 2 -pp 2 -dp 2 "
        "--max-model-len 32768 --max-num-seqs 48 --max-num-batched-tokens 8192 "
        "--gpu-memory-utilization 0.92 --dtype bfloat16 --quantization AWQ "
        "--kv-cache-dtype fp8_e4m3 --enforce-eager --kv-cache-memory-bytes 20G "
        "--served-model-name chat --port 8000"
    )
    engine = _engine(script)
    assert engine.engine == "vllm"
    assert _values(engine) == {
        "model.id": "Qwen/Qwen2.5-32B-Instruct",
        "serving.engine": "vllm",
        "serving.tensorParallel": 2,
        "serving.pipelineParallel": 2,
        "serving.dataParallel": 2,
        "serving.maxContextTokens": 32768,
        "serving.maxBatchSize": 48,
        "serving.maxNumBatchedTokens": 8192,
        "serving.gpuMemoryUtilization": 0.92,
        "model.precision": "bf16",
        "model.quantization": "awq",
        "serving.kvCachePrecision": "fp8",
        "serving.enforceEager": True,
        "serving.kvCacheMemoryBytes": 20 * 1024**3,
    }
    assert engine.problems == () and engine.unresolved == {}


def test_settings_carry_the_flag_as_written_and_their_words() -> None:
    script = "vllm serve m --max_model_len=8192 -tp 4 --enforce-eager"
    engine = _engine(script)
    assert engine.settings["serving.maxContextTokens"] == Setting(
        "serving.maxContextTokens",
        8192,
        "--max_model_len",
        Word("--max_model_len=8192", 0, 13, 33),
        Word("--max_model_len=8192", 0, 13, 33),
    )
    assert engine.settings["serving.tensorParallel"] == Setting(
        "serving.tensorParallel", 4, "-tp", Word("-tp", 0, 34, 37), Word("4", 0, 38, 39)
    )
    assert engine.settings["serving.enforceEager"].value_word == Word("--enforce-eager", 0, 40, 55)
    assert engine.settings["model.id"] == Setting(
        "model.id", "m", "model_tag", None, Word("m", 0, 11, 12)
    )
    assert engine.settings["serving.engine"] == Setting(
        "serving.engine", "vllm", "vllm serve", Word("vllm", 0, 0, 4), Word("vllm", 0, 0, 4)
    )


def test_the_api_server_module_and_the_positional_model() -> None:
    engine = _engine("python3 -u -m vllm.entrypoints.openai.api_server --model a/b --port 8000")
    assert engine.settings["model.id"].value == "a/b"
    assert (
        engine.settings["serving.engine"].flag == "python3 -u -m vllm.entrypoints.openai.api_server"
    )
    assert _engine("vllm serve --model a/b c/d").settings["model.id"].value == "c/d"
    assert _engine("vllm serve c/d --model a/b").settings["model.id"].flag == "model_tag"


def test_switches_do_not_take_the_model_but_unknown_flags_take_a_value() -> None:
    assert _engine("vllm serve --trust-remote-code Qwen/X").settings["model.id"].value == "Qwen/X"
    assert (
        _engine("vllm serve --no-enable-prefix-caching Qwen/X").settings["model.id"].value
        == "Qwen/X"
    )
    assert "model.id" not in _engine("vllm serve --host 0.0.0.0").settings
    assert "model.id" not in _engine("vllm serve --served-model-name a b").settings


@pytest.mark.parametrize(
    ("value", "expected"),
    [("131072", 131072), ("32k", 32000), ("32K", 32768), ("1.5k", 1500), ("1m", 1000000)],
)
def test_max_model_len_accepts_size_suffixes(value: str, expected: int) -> None:
    engine = _engine(f"vllm serve m --max-model-len {value}")
    assert engine.settings["serving.maxContextTokens"].value == expected


@pytest.mark.parametrize("value", ["auto", "-1"])
def test_max_model_len_auto_leaves_the_choice_to_the_engine(value: str) -> None:
    setting = _engine(f"vllm serve m --max-model-len {value}").settings["serving.maxContextTokens"]
    assert setting.value is None
    assert setting.value_word is not None and setting.value_word.text == value


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        (
            "--max-model-len abc",
            "vLLM --max-model-len: 'abc' is not a whole number (or a suffix k/m/g/t/K/M/G/T, auto, -1)",
        ),
        (
            "--max-model-len 1.5K",
            "vLLM --max-model-len: '1.5K' is not a whole number (or a suffix k/m/g/t/K/M/G/T, auto, -1)",
        ),
        ("--max-model-len 0", "vLLM --max-model-len: '0' is below 1"),
        ("--gpu-memory-utilization 1.5", "vLLM --gpu-memory-utilization: '1.5' is above 1"),
        ("--gpu-memory-utilization 0", "vLLM --gpu-memory-utilization: '0' must be above 0"),
        ("--gpu-memory-utilization nan", "vLLM --gpu-memory-utilization: 'nan' is not a number"),
        ("-tp two", "vLLM -tp: 'two' is not a whole number"),
        (
            "--dtype fp16",
            "vLLM --dtype: 'fp16' is not one of auto, bfloat16, float, float16, float32, half",
        ),
        ("--enforce-eager=true", "vLLM --enforce-eager takes no value"),
    ],
)
def test_values_the_engine_refuses_are_problems_and_the_setting_is_absent(
    argument: str, message: str
) -> None:
    engine = _engine(f"vllm serve m {argument}")
    (problem,) = engine.problems
    assert problem.message == message
    assert set(engine.settings) == {"model.id", "serving.engine"}


def test_a_flag_without_its_value_is_a_problem() -> None:
    engine = _engine("vllm serve m --max-model-len --enforce-eager")
    assert engine.problems == (
        ArgProblem(
            "vLLM --max-model-len expects a value",
            "--max-model-len",
            Word("--max-model-len", 0, 13, 28),
        ),
    )
    assert engine.settings["serving.enforceEager"].value is True


def test_the_last_occurrence_wins() -> None:
    assert (
        _engine("vllm serve m -tp 2 --tensor-parallel-size 4")
        .settings["serving.tensorParallel"]
        .value
        == 4
    )
    assert (
        _engine("vllm serve m --enforce-eager --no-enforce-eager")
        .settings["serving.enforceEager"]
        .value
        is False
    )
    bad_last = _engine("vllm serve m -tp 2 -tp x")
    assert "serving.tensorParallel" not in bad_last.settings and len(bad_last.problems) == 1


@pytest.mark.parametrize(
    ("dtype", "precision"),
    [
        ("auto", None),
        ("half", "fp16"),
        ("float16", "fp16"),
        ("bfloat16", "bf16"),
        ("float", "fp32"),
        ("float32", "fp32"),
    ],
)
def test_dtype_maps_to_precision(dtype: str, precision: str | None) -> None:
    assert _engine(f"vllm serve m --dtype {dtype}").settings["model.precision"].value == precision


@pytest.mark.parametrize(
    ("dtype", "precision"),
    [
        ("auto", None),
        ("fp8", "fp8"),
        ("fp8_e4m3", "fp8"),
        ("fp8_e5m2", "fp8"),
        ("bfloat16", "bf16"),
    ],
)
def test_kv_cache_dtype_maps_to_kv_precision(dtype: str, precision: str | None) -> None:
    setting = _engine(f"vllm serve m --kv-cache-dtype {dtype}").settings["serving.kvCachePrecision"]
    assert setting.value == precision


def test_an_unresolved_model_is_reported_not_guessed() -> None:
    engine = _engine("vllm serve $MODEL --max-model-len ${LEN}")
    assert "model.id" not in engine.settings
    assert engine.unresolved["model.id"] == Setting(
        "model.id", None, "model_tag", None, Word("$MODEL", 0, 11, 17, ("MODEL",), ("MODEL",))
    )
    assert engine.unresolved["serving.maxContextTokens"].value_word == Word(
        "${LEN}", 0, 34, 40, ("LEN",), ("LEN",)
    )
    resolved = _engine("vllm serve $MODEL", {"MODEL": "meta/x"})
    assert resolved.settings["model.id"].value == "meta/x" and resolved.unresolved == {}


# -- SGLang and TGI --------------------------------------------------------------------------------


def test_sglang_launch_server() -> None:
    engine = _engine(
        "python3 -m sglang.launch_server --model-path meta/x --tp 4 --dp 2 --pp-size 2 "
        "--context-length 128Ki --mem-fraction-static 0.85 --max-running-requests 64 "
        "--kv-cache-dtype fp8_e4m3 --quantization FP8 --dtype half --disable-cuda-graph "
        "--context_length 5"
    )
    assert _values(engine) == {
        "model.id": "meta/x",
        "serving.engine": "sglang",
        "serving.tensorParallel": 4,
        "serving.dataParallel": 2,
        "serving.pipelineParallel": 2,
        "serving.maxContextTokens": 131072,
        "serving.gpuMemoryUtilization": 0.85,
        "serving.maxBatchSize": 64,
        "serving.kvCachePrecision": "fp8",
        "model.quantization": "fp8",
        "model.precision": "fp16",
        "serving.enforceEager": True,
    }
    assert _values(_engine("sglang serve --model m --context-length 1.5k")) == {
        "model.id": "m",
        "serving.engine": "sglang",
        "serving.maxContextTokens": 1500,
    }


def test_tgi_flags_override_its_environment_variables() -> None:
    (command,) = argv_commands(
        ["text-generation-launcher", "--num-shard", "2", "--quantize", "bitsandbytes-nf4"],
        {
            "MODEL_ID": "bigscience/bloom",
            "NUM_SHARD": "4",
            "MAX_TOTAL_TOKENS": "4096",
            "HF_TOKEN": None,
        },
    )
    engine = recognise_engine(command)
    assert engine is not None
    assert _values(engine) == {
        "model.id": "bigscience/bloom",
        "serving.engine": "tgi",
        "serving.tensorParallel": 2,
        "serving.maxContextTokens": 4096,
        "model.quantization": "bitsandbytes-nf4",
    }
    assert engine.settings["model.id"] == Setting(
        "model.id", "bigscience/bloom", "MODEL_ID", None, None
    )


def test_tgi_environment_problems_and_unknown_values() -> None:
    (command,) = script_commands(
        [
            "MAX_BATCH_SIZE=many MODEL_ID=$ID text-generation-launcher --dtype float16 --kv-cache-dtype fp8_e4m3fn"
        ]
    )
    engine = recognise_engine(command)
    assert engine is not None
    assert engine.problems == (
        ArgProblem(
            "TGI MAX_BATCH_SIZE: 'many' is not a whole number",
            "MAX_BATCH_SIZE",
            Word("many", 0, 15, 19),
        ),
    )
    assert engine.unresolved["model.id"].flag == "MODEL_ID"
    assert engine.unresolved["model.id"].value_word == Word("$ID", 0, 29, 32, ("ID",), ("ID",))
    assert _values(engine)["model.precision"] == "fp16"
    assert _values(engine)["serving.kvCachePrecision"] == "fp8"


def test_arguments_to_an_image_entrypoint() -> None:
    (command,) = argv_commands(
        ["--model-id", "$(MODEL)", "--max-total-tokens", "8192"], {"MODEL": "m/x"}
    )
    engine = engine_arguments("tgi", command.words, command.env)
    assert engine.program is None
    assert engine.settings["model.id"].value_word == Word("m/x", 1, 0, 8)
    assert engine.settings["serving.engine"] == Setting("serving.engine", "tgi", "TGI", None, None)
    assert _values(engine_arguments("vllm", argv_commands(["meta/x", "-tp", "2"])[0].words)) == {
        "model.id": "meta/x",
        "serving.engine": "vllm",
        "serving.tensorParallel": 2,
    }


@pytest.mark.parametrize(
    ("image", "engine"),
    [
        ("vllm/vllm-openai", "vllm"),
        ("vllm/vllm-openai:v0.11.0", "vllm"),
        ("docker.io/vllm/vllm-openai@sha256:abc", "vllm"),
        ("registry.example.com:5000/mirror/vllm/vllm-openai:latest", "vllm"),
        ("ghcr.io/huggingface/text-generation-inference:3.3.0", "tgi"),
        # cloud deep-learning containers built on TGI
        (
            "us-docker.pkg.dev/deeplearning-platform-release/gcr.io/"
            "huggingface-text-generation-inference-cu124.2-3.ubuntu2204.py311",
            "tgi",
        ),
        (
            "763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-tgi-inference:"
            "2.4.0-tgi3.0.1-gpu-py311-cu124-ubuntu22.04-v2.0",
            "tgi",
        ),
        ("ghcr.io/huggingface/text-embeddings-inference:1.5", None),
        ("lmsysorg/sglang:latest", None),
        ("myvllm/vllm-openai-fork", None),
        ("", None),
    ],
)
def test_engine_for_image(image: str, engine: str | None) -> None:
    assert engine_for_image(image) == engine


@pytest.mark.parametrize(
    ("env", "engine"),
    [
        ({"MODEL_ID": "google/gemma-7b-it", "NUM_SHARD": "2"}, "tgi"),
        ({"MODEL_ID": None, "MAX_TOTAL_TOKENS": "4096"}, "tgi"),
        # MODEL_ID alone is any server's; a TGI variable without the model says nothing
        ({"MODEL_ID": "google/gemma-7b-it", "PORT": "8080"}, None),
        ({"NUM_SHARD": "2"}, None),
        ({}, None),
    ],
)
def test_engine_for_env(env: dict[str, str | None], engine: str | None) -> None:
    assert engine_for_env(env) == engine


@pytest.mark.parametrize(
    ("image", "engine", "release"),
    [
        ("vllm/vllm-openai:v0.11.0", "vllm", "0.11.0"),
        ("docker.io/vllm/vllm-openai:0.9.2", "vllm", "0.9.2"),
        ("registry.example.com:5000/mirror/vllm/vllm-openai:v0.10.1.1", "vllm", "0.10.1"),
        ("vllm/vllm-openai:v0.8", "vllm", "0.8"),
        ("vllm/vllm-openai:latest", "vllm", None),
        ("vllm/vllm-openai:v0.11.0-cu130", "vllm", None),
        ("vllm/vllm-openai@sha256:abc", "vllm", None),
        ("vllm/vllm-openai", "vllm", None),
        # not the engine's own image, or an engine whose tags are not vLLM releases
        ("mycorp/vllm-server:v0.11.0", "vllm", None),
        ("ghcr.io/huggingface/text-generation-inference:3.3.0", "tgi", None),
    ],
)
def test_release_of_image(image: str, engine: str, release: str | None) -> None:
    assert release_of_image(image, engine) == release


@pytest.mark.parametrize(
    "script",
    [
        "python train.py --model m",
        "vllm bench serve --model m",
        "echo vllm serve m",
        "python -c 'import vllm'",
        "",
    ],
)
def test_other_commands_are_not_engines(script: str) -> None:
    assert all(recognise_engine(command) is None for command in script_commands([script]))


# -- the data file ---------------------------------------------------------------------------------

# Fields the Workload model gains on main (e0b9e16, "the engine and launcher settings adapters
# will map") and the ones engine_flags.yaml records for facts to come; the rest must be model paths.


def _model_fields() -> set[str]:
    schema = Workload.model_json_schema(by_alias=True)
    definitions = schema["$defs"]
    out: set[str] = set()

    def walk(name: str, prefix: str) -> None:
        for key, value in definitions[name]["properties"].items():
            refs = [value.get("$ref")] + [v.get("$ref") for v in value.get("anyOf", [])]
            ref = next((r for r in refs if r), None)
            if ref:
                walk(ref.rsplit("/", 1)[-1], f"{prefix}{key}.")
            else:
                out.add(prefix + key)

    walk("WorkloadSpec", "")
    return out


def test_every_field_is_a_workload_path_and_every_source_is_listed() -> None:
    allowed = _model_fields()
    sources = {source.id for source in catalogue().sources}
    for engine in catalogue().engines:
        assert engine.source in sources
        if engine.positional is not None:
            assert engine.positional.field in allowed
            assert engine.positional.source in sources | {None}
        for flag in engine.flags:
            assert flag.field is None or flag.field in allowed, flag.names
    assert engine_table("tgi").title == "TGI"
    with pytest.raises(KeyError):
        engine_table("triton")


def test_tgi_env_names_follow_clap_for_each_flag() -> None:
    for flag in engine_table("tgi").flags:
        assert flag.env == flag.names[0].removeprefix("--").replace("-", "_").upper()


# -- from the file to the argument -----------------------------------------------------------------


def test_a_finding_can_point_at_one_argument_inside_a_yaml_string() -> None:
    text = (
        "spec:\n"
        "  containers:\n"
        "    - name: vllm\n"
        '      command: ["/bin/sh", "-c"]\n'
        "      args:\n"
        "        - >-\n"
        "          vllm serve $(MODEL)\n"
        "          --max-model-len 131072\n"
        "          --gpu-memory-utilization 0.95\n"
        "      env: [{name: MODEL, value: meta-llama/Llama-3.1-70B-Instruct}]\n"
    )
    loaded = load_text(text)
    document = loaded.documents[0]
    container = document.data["spec"]["containers"][0]
    items = [*container["command"], *container["args"]]
    env = {e["name"]: e["value"] for e in container["env"]}
    (command,) = argv_commands(items, env)
    engine = recognise_engine(command)
    assert engine is not None
    setting = engine.settings["serving.maxContextTokens"]
    assert setting.value == 131072 and setting.value_word is not None
    assert setting.value_word.item == 2  # args[0]
    scalar = document.source_map.scalar(("spec", "containers", 0, "args", 0))
    assert scalar is not None
    word = setting.value_word
    assert locate(loaded.text, scalar, word.start, word.end) == Span(8, 27, 8, 33)
    model = engine.settings["model.id"]
    assert model.value == "meta-llama/Llama-3.1-70B-Instruct"
    assert model.value_word is not None
    assert locate(loaded.text, scalar, model.value_word.start, model.value_word.end) == Span(
        7, 22, 7, 30
    )


def test_variables_in_the_command_environment_are_public() -> None:
    (command,) = script_commands(["export HF_HOME=/cache\nvllm serve m"], {"HF_TOKEN": None})
    assert command.env == {
        "HF_TOKEN": Variable(None),
        "HF_HOME": Variable("/cache", Word("/cache", 0, 15, 21)),
    }


def test_argparse_engines_read_a_unique_prefix_as_the_whole_flag() -> None:
    vllm = _engine("vllm serve m --tensor-parallel 8 --max-model=4096 --gpu-memory 0.8")
    assert _values(vllm) == {
        "model.id": "m",
        "serving.engine": "vllm",
        "serving.tensorParallel": 8,
        "serving.maxContextTokens": 4096,
        "serving.gpuMemoryUtilization": 0.8,
    }
    assert vllm.settings["serving.tensorParallel"].flag == "--tensor-parallel"
    sglang = _engine("python -m sglang.launch_server --model-path m --tensor-parallel 2")
    assert _values(sglang)["serving.tensorParallel"] == 2


def test_an_ambiguous_prefix_is_a_problem_and_never_the_default() -> None:
    engine = _engine("vllm serve m --max-num 64 --pipeline 2")
    assert [problem.message for problem in engine.problems] == [
        "vLLM --max-num is ambiguous: it could be --max-num-batched-tokens, --max-num-seqs"
    ]
    assert _values(engine) == {
        "model.id": "m",
        "serving.engine": "vllm",
        "serving.pipelineParallel": 2,
    }


def test_tgi_reads_no_abbreviations() -> None:
    engine = _engine("text-generation-launcher --model-id m --num 4")
    assert _values(engine) == {"model.id": "m", "serving.engine": "tgi"}
    assert engine.problems == ()
