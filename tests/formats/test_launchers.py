"""Training launchers recognised in commands: processes, nodes, model, method, checkpoints."""

from __future__ import annotations

import pytest

from linter.formats.cmdline.arguments import ArgProblem, Setting
from linter.formats.cmdline.launchers import (
    LaunchCommand,
    catalogue,
    deciding_file,
    recognise_launch,
    trainer_table,
)
from linter.formats.cmdline.shell import Word, argv_commands, script_commands


def _launch(script: str, env: dict[str, str | None] | None = None) -> LaunchCommand:
    (command,) = script_commands([script], env)
    launch = recognise_launch(command)
    assert launch is not None
    return launch


def _values(launch: LaunchCommand) -> dict[str, object]:
    return {field: setting.value for field, setting in launch.settings.items()}


def test_torchrun_with_a_hugging_face_training_script() -> None:
    launch = _launch(
        "torchrun --nproc-per-node=8 --nnodes 1:4 --rdzv_endpoint host:29400 train.py "
        "--model_name_or_path meta-llama/Llama-3.1-8B --output_dir /ckpt --save_strategy no "
        "--use_peft --load_in_4bit --resume_from_checkpoint /ckpt/checkpoint-100"
    )
    assert (launch.launcher, launch.trainer) == ("torchrun", "hf")
    assert launch.script == Word("train.py", 0, 68, 76)
    assert _values(launch) == {
        "launcher.processesPerNode": 8,
        "resources.nodes": 4,
        "model.id": "meta-llama/Llama-3.1-8B",
        "checkpointing.uri": "/ckpt",
        "checkpointing.enabled": False,
        "fineTuning.method": "qlora",
        "fineTuning.loadIn4bit": True,
        "checkpointing.resumeFromLatest": True,
    }
    qlora = launch.settings["fineTuning.method"]
    assert (qlora.flag, qlora.value_word) == ("--load_in_4bit", Word("--load_in_4bit", 0, 171, 185))


def test_torchrun_runs_a_module_and_its_auto_process_count() -> None:
    launch = _launch(
        "python -m torch.distributed.run --standalone --nproc_per_node auto -m openrlhf.cli.train_sft --pretrain m"
    )
    assert (launch.launcher, launch.trainer, launch.script.text if launch.script else None) == (
        "torchrun",
        "openrlhf",
        "openrlhf.cli.train_sft",
    )
    assert _values(launch) == {"launcher.processesPerNode": None, "model.id": "m"}


def test_openrlhf_under_deepspeed() -> None:
    launch = _launch(
        "deepspeed --num_gpus 8 --num_nodes 2 --module openrlhf.cli.train_sft --pretrain Qwen/Q "
        "--save_path ./checkpoint/sft --ckpt_path /ckpt --save_steps -1 --load_checkpoint "
        "--lora_rank 16 --bf16 --max_len 4096"
    )
    assert (launch.launcher, launch.trainer) == ("deepspeed", "openrlhf")
    assert _values(launch) == {
        "launcher.processesPerNode": 8,
        "resources.nodes": 2,
        "model.id": "Qwen/Q",
        "training.outputDir": "./checkpoint/sft",
        "checkpointing.uri": "/ckpt",
        "checkpointing.enabled": False,
        "checkpointing.resumeFromLatest": True,
        "fineTuning.loraRank": 16,
        "fineTuning.method": "lora",
        "fineTuning.sequenceLength": 4096,
    }
    assert launch.settings["checkpointing.enabled"].value_word == Word("-1", 0, 147, 149)


def test_openrlhf_defaults_say_nothing() -> None:
    launch = _launch(
        "deepspeed --module openrlhf.cli.train_sft --pretrain m --lora_rank 0 --disable_ds_ckpt"
    )
    assert _values(launch) == {
        "model.id": "m",
        "fineTuning.loraRank": 0,
        "checkpointing.enabled": False,
    }


def test_a_script_path_names_its_trainer() -> None:
    launch = _launch("deepspeed /workspace/OpenRLHF/openrlhf/cli/train_sft.py --pretrain m")
    assert launch.trainer == "openrlhf"
    assert _launch("torchrun src/axolotl/cli/train.py cfg.yml").trainer == "axolotl"


def test_accelerate_launches_axolotl() -> None:
    launch = _launch(
        "accelerate launch --config_file fsdp.yaml --multi_gpu --num-processes 16 --num_machines 2 "
        "-m axolotl.cli.train examples/qlora.yml --base_model meta/y --adapter qlora --output_dir /out"
    )
    assert (launch.launcher, launch.trainer) == ("accelerate", "axolotl")
    assert _values(launch) == {
        "launcher.configFile": "fsdp.yaml",
        "fineTuning.sharding": "fsdp",
        "launcher.processes": 16,
        "resources.nodes": 2,
        "model.id": "meta/y",
        "fineTuning.method": "qlora",
        "checkpointing.uri": "/out",
        "training.configFile": "examples/qlora.yml",
    }


def test_axolotl_and_trl_start_training_directly() -> None:
    axolotl = _launch(
        "axolotl train config.yml --lora_r 32 --load_in_4bit --auto-resume-from-checkpoints"
    )
    assert (axolotl.launcher, axolotl.trainer, axolotl.script) == ("axolotl", "axolotl", None)
    assert _values(axolotl) == {
        "training.configFile": "config.yml",
        "fineTuning.loraRank": 32,
        "fineTuning.loadIn4bit": True,
        "fineTuning.method": "qlora",
        "checkpointing.resumeFromLatest": True,
    }
    trl = _launch(
        "trl sft --model_name_or_path Qwen/Q --use_peft true --lora_r 16 --save_steps 500 --output-dir out"
    )
    assert (trl.launcher, trl.trainer) == ("trl", "hf")
    assert _values(trl) == {
        "model.id": "Qwen/Q",
        "fineTuning.method": "lora",
        "fineTuning.loraRank": 16,
        "checkpointing.enabled": True,
        "checkpointing.uri": "out",
    }
    no_peft = _launch("trl dpo --model_name_or_path m --use_peft false").settings
    assert no_peft["fineTuning.method"].value is None  # said explicitly: the method stays unset


def test_torchtune_recipe_config_and_overrides() -> None:
    launch = _launch(
        "tune run --nproc_per_node 2 lora_finetune_distributed --config llama3/8B_qlora_single_device "
        "checkpointer.output_dir=/ckpt resume_from_checkpoint=True batch_size=2"
    )
    assert (launch.launcher, launch.trainer) == ("torchtune", "torchtune")
    assert launch.script is not None and launch.script.text == "lora_finetune_distributed"
    assert _values(launch) == {
        "launcher.processesPerNode": 2,
        "training.configFile": "llama3/8B_qlora_single_device",
        "checkpointing.uri": "/ckpt",
        "checkpointing.resumeFromLatest": True,
        "fineTuning.method": "qlora",
        "fineTuning.sharding": "fsdp",
    }
    assert launch.settings["fineTuning.method"].flag == "--config"


@pytest.mark.parametrize(
    ("script", "method", "flag"),
    [
        (
            "tune run full_finetune_single_device --config llama3/8B_full_single_device",
            "full",
            "recipe",
        ),
        ("tune run lora_finetune_single_device --config my.yaml", "lora", "recipe"),
        (
            "tune run lora_finetune_single_device --config my.yaml model._component_=torchtune.models.llama3.qlora_llama3_8b",
            "qlora",
            "model._component_",
        ),
        ("tune run eleuther_eval --config eval.yaml", None, None),
    ],
)
def test_torchtune_method_hints(script: str, method: str | None, flag: str | None) -> None:
    setting = _launch(script).settings.get("fineTuning.method")
    if method is None:
        assert setting is None
    else:
        assert setting is not None and (setting.value, setting.flag) == (method, flag)


def test_a_python_script_counts_only_when_it_says_something() -> None:
    launch = _launch("python3 -u train.py --model_name_or_path m --output_dir=/out")
    assert (launch.launcher, launch.trainer, launch.script) == (
        "python",
        "hf",
        Word("train.py", 0, 11, 19),
    )
    assert recognise_launch(script_commands(["python app.py --port 80"])[0]) is None
    assert recognise_launch(script_commands(["vllm serve m"])[0]) is None
    assert recognise_launch(script_commands(["python -c 'import torch'"])[0]) is None


def test_launcher_flags_do_not_eat_the_script() -> None:
    launch = _launch("torchrun --some-new-flag train.py --output_dir /o")
    assert launch.script is not None and launch.script.text == "train.py"
    assert _values(launch) == {"checkpointing.uri": "/o"}


def test_unresolved_values_and_problems() -> None:
    (command,) = argv_commands(
        [
            "torchrun",
            "--nproc_per_node",
            "$(GPUS)",
            "train.py",
            "--model_name_or_path",
            "$(MODEL)",
            "--save_steps",
            "often",
        ],
        {"GPUS": None},
    )
    launch = recognise_launch(command)
    assert launch is not None
    assert set(launch.unresolved) == {"launcher.processesPerNode", "model.id"}
    assert launch.unresolved["model.id"] == Setting(
        "model.id",
        None,
        "--model_name_or_path",
        Word("--model_name_or_path", 4, 0, 20),
        Word("$(MODEL)", 5, 0, 8, (), ("MODEL",)),
    )
    assert launch.problems == (
        ArgProblem(
            "the training script --save_steps: 'often' is not a number",
            "--save_steps",
            Word("often", 7, 0, 5),
        ),
    )


def test_a_launch_inside_a_sky_style_run_script() -> None:
    run = (
        "set -e\n"
        "cd /workspace\n"
        "torchrun --nnodes=$SKYPILOT_NUM_NODES --nproc_per_node=$SKYPILOT_NUM_GPUS_PER_NODE \\\n"
        "  train.py --output_dir /ckpt --save_strategy steps\n"
    )
    commands = script_commands(
        [run], {"SKYPILOT_NUM_NODES": "2", "SKYPILOT_NUM_GPUS_PER_NODE": "8"}
    )
    launches = [launch for c in commands if (launch := recognise_launch(c)) is not None]
    assert [_values(launch) for launch in launches] == [
        {
            "resources.nodes": 2,
            "launcher.processesPerNode": 8,
            "checkpointing.uri": "/ckpt",
            "checkpointing.enabled": True,
        }
    ]


# -- the data file ---------------------------------------------------------------------------------

_FIELDS = {
    "launcher.processesPerNode",
    "launcher.processes",
    "launcher.configFile",
    "resources.nodes",
    "model.id",
    "fineTuning.method",
    "fineTuning.loraRank",
    "fineTuning.loadIn4bit",
    "fineTuning.sharding",
    "fineTuning.microBatchSize",
    "fineTuning.sequenceLength",
    "fineTuning.gradientCheckpointing",
    "fineTuning.gradientAccumulationSteps",
    "training.deepspeedConfig",
    "checkpointing.uri",
    "checkpointing.enabled",
    "checkpointing.resumeFromLatest",
    "training.outputDir",
    "training.configFile",
}


def test_the_data_file_is_consistent() -> None:
    data = catalogue()
    sources = {source.id for source in data.sources}
    trainers = {trainer.name for trainer in data.trainers}
    assert data.default_trainer in trainers
    for table in [*data.launchers, *data.trainers]:
        assert table.source in sources
        for flag in table.flags:
            assert flag.field is None or flag.field in _FIELDS, flag.names
    for launcher in data.launchers:
        assert launcher.trainer is None or launcher.trainer in trainers
    assert trainer_table("torchtune").assignments
    with pytest.raises(KeyError):
        trainer_table("megatron")


def test_hugging_face_sharding_and_micro_batch() -> None:
    """HF Trainer's --fsdp is a string of options: full_shard shards everything (fsdp)."""
    launch = _launch(
        "torchrun --nproc_per_node 8 train.py --model_name meta-llama/Llama-2-7b-hf "
        '--fsdp "full_shard auto_wrap" --per-device-train-batch-size 4 --gradient_checkpointing '
        "--gradient_accumulation_steps 8 --model_max_length 2048"
    )
    assert _values(launch) == {
        "launcher.processesPerNode": 8,
        "model.id": "meta-llama/Llama-2-7b-hf",
        "fineTuning.sharding": "fsdp",
        "fineTuning.microBatchSize": 4,
        "fineTuning.gradientCheckpointing": True,
        "fineTuning.gradientAccumulationSteps": 8,
        "fineTuning.sequenceLength": 2048,
    }
    fsdp = launch.settings["fineTuning.sharding"]
    assert (fsdp.flag, fsdp.value_word) == ("--fsdp", Word("full_shard auto_wrap", 0, 82, 104))


@pytest.mark.parametrize(
    ("options", "sharding"),
    [
        ("shard_grad_op auto_wrap", "zero2"),
        ("full_shard offload auto_wrap", "fsdp"),
        ("no_shard", "none"),
        ("hybrid_shard auto_wrap", None),
    ],
)
def test_fsdp_options_and_the_one_not_read(options: str, sharding: str | None) -> None:
    """hybrid_shard shards within a node only: not read as sharded over every GPU."""
    launch = _launch(f'python train.py --model_name_or_path m --fsdp "{options}"')
    assert _values(launch).get("fineTuning.sharding") == sharding


def test_trl_max_length_and_its_older_spelling() -> None:
    older = _launch("trl sft --model_name_or_path m --max_seq_length 4096")
    newer = _launch("trl sft --model_name_or_path m --max_length 1024")
    assert _values(older)["fineTuning.sequenceLength"] == 4096
    assert _values(newer)["fineTuning.sequenceLength"] == 1024


def test_accelerate_fsdp_and_zero_stage_switches() -> None:
    fsdp = _launch("accelerate launch --use_fsdp --num_processes 8 train.py --model_name_or_path m")
    assert _values(fsdp) == {
        "fineTuning.sharding": "fsdp",
        "launcher.processes": 8,
        "model.id": "m",
    }
    zero = _launch(
        "accelerate launch --use_deepspeed --zero_stage 3 train.py --model_name_or_path m"
    )
    assert _values(zero)["fineTuning.sharding"] == "zero3"


def test_openrlhf_zero_stage_micro_batch_and_checkpointing() -> None:
    launch = _launch(
        "deepspeed --module openrlhf.cli.train_sft --pretrain m --zero_stage 3 "
        "--micro_train_batch_size 2 --gradient_checkpointing"
    )
    assert _values(launch) == {
        "model.id": "m",
        "fineTuning.sharding": "zero3",
        "fineTuning.microBatchSize": 2,
        "fineTuning.gradientCheckpointing": True,
    }


@pytest.mark.parametrize(
    ("command", "sharding"),
    [
        ("accelerate launch --config_file=examples/accelerate_configs/fsdp1.yaml sft.py", "fsdp"),
        ("accelerate launch --config_file configs/deepspeed_zero3.yaml sft.py", "zero3"),
        ("deepspeed train.py --deepspeed examples/deepspeed/ds_z3_config.json", "zero3"),
        ("torchrun train.py --deepspeed ds_z2_offload_config.json", "zero2"),
        ("torchrun train.py --deepspeed ds_z0_config.json", "none"),
        # a flag wins over the file's name; a name that says nothing sets nothing
        ("accelerate launch --config_file fsdp.yaml --zero_stage 2 sft.py", "zero2"),
        ("accelerate launch --config_file configs/multi_gpu.yaml sft.py", None),
    ],
)
def test_sharding_from_a_config_file_name(command: str, sharding: str | None) -> None:
    """The file is not read; its name says the sharding (TRL's accelerate_configs,
    LLaMA-Factory's ds_z3_config.json)."""
    launch = _launch(command + " --model_name_or_path m")
    assert _values(launch).get("fineTuning.sharding") == sharding


def test_sharding_from_a_name_points_at_the_config_file() -> None:
    launch = _launch("deepspeed train.py --model_name_or_path m --deepspeed ds_z3.json")
    sharding = launch.settings["fineTuning.sharding"]
    assert (sharding.flag, sharding.value_word) == ("--deepspeed", Word("ds_z3.json", 0, 54, 64))


def test_peft_sft_script_spellings() -> None:
    """huggingface/peft examples/sft/train.py: --max_seq_len, --use_peft_lora and
    --use_4bit_quantization (QLoRA)."""
    launch = _launch(
        'python train.py --model_name_or_path "deepseek-ai/DeepSeek-V2-Lite" --max_seq_len 512 '
        "--per_device_train_batch_size 8 --use_peft_lora True --use_4bit_quantization True"
    )
    assert _values(launch) == {
        "model.id": "deepseek-ai/DeepSeek-V2-Lite",
        "fineTuning.sequenceLength": 512,
        "fineTuning.microBatchSize": 8,
        "fineTuning.method": "qlora",
        "fineTuning.loadIn4bit": True,
    }


def test_llama_factory_config_and_its_overrides() -> None:
    """llamafactory-cli train CONFIG key=value...: the config's name hints the method; overrides
    are read; the config file is what decides the rest."""
    launch = _launch(
        "llamafactory-cli train examples/train_lora/llama3_lora_sft.yaml "
        "model_name_or_path=meta-llama/Meta-Llama-3-8B-Instruct output_dir=/ckpt/llama3 "
        "cutoff_len=2048 deepspeed=examples/deepspeed/ds_z3_config.json"
    )
    assert (launch.launcher, launch.trainer) == ("llamafactory", "llamafactory")
    assert _values(launch) == {
        "training.configFile": "examples/train_lora/llama3_lora_sft.yaml",
        "model.id": "meta-llama/Meta-Llama-3-8B-Instruct",
        "checkpointing.uri": "/ckpt/llama3",
        "fineTuning.sequenceLength": 2048,
        "training.deepspeedConfig": "examples/deepspeed/ds_z3_config.json",
        "fineTuning.method": "lora",
        "fineTuning.sharding": "zero3",
    }
    assert deciding_file(launch) == Word("examples/train_lora/llama3_lora_sft.yaml", 0, 23, 63)


@pytest.mark.parametrize(
    ("command", "sharding"),
    [
        ("tune run --nproc_per_node 2 full_finetune_distributed --config llama3_2/3B_full", "fsdp"),
        ("tune run lora_finetune_distributed --config llama3_1/8B_lora", "fsdp"),
        ("tune run full_finetune_single_device --config llama3_2/3B_full_single_device", None),
    ],
)
def test_torchtune_distributed_recipes_shard_with_fsdp(command: str, sharding: str | None) -> None:
    """torchtune's *_distributed recipes shard with FSDP (FULL_SHARD) by default; a
    single-device recipe does not shard."""
    launch = _launch(command)
    assert _values(launch).get("fineTuning.sharding") == sharding


def test_a_recipe_sharding_points_at_the_recipe() -> None:
    launch = _launch("tune run full_finetune_distributed --config llama3_2/3B_full")
    sharding = launch.settings["fineTuning.sharding"]
    assert (sharding.flag, sharding.value_word) == (
        "recipe",
        Word("full_finetune_distributed", 0, 9, 34),
    )
