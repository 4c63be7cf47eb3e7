"""``gpulint memory``: the review-time GPU memory calculator, from flags or from a manifest."""

from __future__ import annotations

import argparse
import json
from typing import Any

from linter.commands.options import add_config_file_argument

HELP = "estimate GPU memory for a model on GPUs (from flags or a manifest)"


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "manifests",
        nargs="*",
        metavar="MANIFEST",
        help="size the workloads of these manifests instead of the flags",
    )
    model = parser.add_argument_group("model")
    model.add_argument(
        "--model",
        metavar="ID",
        help="Hugging Face id or alias from the catalogue (list them: gpulint models), a "
        "quantised release or mirror of one, or a model in the local Hugging Face cache",
    )
    model.add_argument("--model-config", metavar="PATH", help="a Hugging Face config.json")
    model.add_argument(
        "--parameters",
        metavar="N",
        help="parameter count (70B, 7.2e9) when the architecture is unknown",
    )
    model.add_argument(
        "--precision",
        metavar="P",
        help="weight precision (bf16, fp8, fp8-block, int8, int4, nf4, mxfp4, nvfp4, ...; "
        "default: the checkpoint's own)",
    )
    model.add_argument(
        "--quantization",
        metavar="METHOD",
        help="vLLM --quantization method (awq, gptq, fp8, mxfp4, bitsandbytes, modelopt_fp4, ...)",
    )
    gpus = parser.add_argument_group("hardware")
    gpus.add_argument(
        "--gpu", metavar="TYPE", help="GPU type (L4, A10G, L40S, A100-80GB, H100, H200, ...)"
    )
    gpus.add_argument(
        "--instance-type",
        metavar="TYPE",
        help="cloud instance type (p5.48xlarge, a3-highgpu-8g, ...)",
    )
    gpus.add_argument("--count", type=int, help="GPUs (default: 1, or the instance's GPUs)")
    serving = parser.add_argument_group("serving (default mode)")
    serving.add_argument(
        "--kv-precision", metavar="P", help="KV-cache dtype (vLLM --kv-cache-dtype: fp8, bf16)"
    )
    serving.add_argument(
        "--batch", type=int, default=1, help="concurrent sequences (training: micro-batch)"
    )
    serving.add_argument(
        "--context", type=int, help="tokens per sequence (training: sequence length)"
    )
    serving.add_argument(
        "--tensor-parallel", type=int, help="GPUs one replica spans (default: --count)"
    )
    serving.add_argument(
        "--pipeline-parallel", type=int, default=1, help="pipeline stages of one replica"
    )
    serving.add_argument(
        "--expert-parallel",
        type=int,
        default=1,
        metavar="N",
        help="GPUs the routed experts are sharded over (vLLM --enable-expert-parallel)",
    )
    serving.add_argument(
        "--gpu-memory-utilization", type=float, help="default: the engine version's default"
    )
    serving.add_argument(
        "--kv-cache-memory-bytes",
        type=int,
        metavar="N",
        help="KV-cache size per GPU instead of one from the utilisation (vLLM flag)",
    )
    serving.add_argument("--max-num-seqs", type=int, metavar="N", help="vLLM --max-num-seqs")
    serving.add_argument(
        "--max-num-batched-tokens", type=int, metavar="N", help="vLLM --max-num-batched-tokens"
    )
    serving.add_argument(
        "--enforce-eager", action="store_true", help="no CUDA graphs (vLLM --enforce-eager)"
    )
    serving.add_argument(
        "--engine-version", metavar="X.Y", help="vLLM release whose accounting applies"
    )
    serving.add_argument(
        "--from-log",
        metavar="FILE",
        help="a vLLM start-up log: print the prediction beside what it logged",
    )
    serving.add_argument(
        "--calibration", metavar="FILE", help="a calibration file (see --from-log) to apply"
    )
    training = parser.add_argument_group("training (with --method)")
    training.add_argument("--method", choices=("full", "lora", "qlora"))
    training.add_argument(
        "--optimizer",
        default="adamw",
        choices=("adamw", "adamw-fused", "adamw-8bit", "paged-adamw-8bit", "adamw-bf16", "sgd"),
        help="adamw: torch's default (foreach) AdamW; adamw-fused: Trainer's adamw_torch_fused; "
        "adamw-bf16: pure 16-bit training",
    )
    training.add_argument(
        "--sharding", default="none", choices=("none", "zero1", "zero2", "zero3", "fsdp")
    )
    training.add_argument("--gradient-checkpointing", action="store_true")
    training.add_argument("--lora-rank", type=int, default=16, metavar="R", help="peft r")
    training.add_argument(
        "--lora-targets",
        default="all-linear",
        metavar="MODULES",
        help="peft target_modules: all-linear, attention, mlp or names (q_proj,v_proj,...)",
    )
    training.add_argument("--lora-dropout", type=float, default=0.0, metavar="P")
    training.add_argument(
        "--gradient-accumulation",
        type=int,
        default=1,
        metavar="N",
        help="micro-batches per optimizer step (above 1 the gradients stay allocated)",
    )
    training.add_argument(
        "--loop",
        choices=("custom", "trainer"),
        default="custom",
        help="custom: the loop keeps the model output (its logits) through backward; "
        "trainer: Hugging Face Trainer, which drops them",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    add_config_file_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Exit 1 when a sized workload does not fit (DOES NOT FIT), as ``check`` does on an error;
    ``--from-log`` compares and exits 0."""
    from linter.commands import memory_view

    if args.from_log:
        print(memory_view.from_log(args))
        return 0
    if args.manifests:
        from linter.commands.setup import load_configuration

        calibration = memory_view.calibration_option(args.calibration)
        reports = memory_view.from_manifests(args.manifests, load_configuration(args), calibration)
    else:
        reports = [memory_view.from_flags(args)]
    if args.format == "json":
        out: Any = reports if args.manifests else reports[0]
        print(json.dumps(out, indent=2))
    else:
        from linter.printable import printable

        # values from manifests (names, model ids, reasons) made printable before layout
        shown = [
            {k: printable(v) if isinstance(v, str) else v for k, v in r.items()} for r in reports
        ]
        print("\n\n".join(memory_view.render_text(report) for report in shown))
    # as check does: a workload that does not fit is a failure a script can see
    return 1 if any(report.get("fits") is False for report in reports) else 0
