"""What ``gpulint memory`` computes and shows: reports (JSON-ready dicts) and their text view."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from linter.errors import UsageError
from linter.printable import printable

if TYPE_CHECKING:
    from linter.config import LoadedConfig

GIB = 1 << 30
BAR_WIDTH = 50
CHARS = ("█", "▓", "▒", "░")


def _gpu(args: argparse.Namespace) -> tuple[Any, int]:
    from linter.memory import resolve_gpu, resolve_instance

    if bool(args.gpu) == bool(args.instance_type):
        raise UsageError("give exactly one of --gpu or --instance-type")
    if args.instance_type:
        instance = resolve_instance(args.instance_type)
        if instance is None or not instance.gpu_count:
            raise UsageError(f"unknown GPU instance type {args.instance_type!r}")
        return instance.gpu, args.count or int(instance.gpu_count)
    gpu = resolve_gpu(args.gpu)
    if gpu is None:
        from linter.memory import all_gpus

        names = ", ".join(g.name for g in all_gpus())
        raise UsageError(f"unknown GPU {args.gpu!r}; known: {names}")
    return gpu, args.count or 1


def _architecture(args: argparse.Namespace) -> tuple[Any, str | None]:
    """(architecture or None, how ``--model`` was sized when not as a catalogued model's own
    weights)."""
    from linter.memory import ArchitectureError, architecture_from_hf_config
    from linter.memory.by_name import architecture_by_name, unknown_model_hint

    if args.model_config:
        from linter.facts.memory_sizing import CONFIG_MAX_BYTES
        from linter.load import Refusal, read_bounded

        content = read_bounded(Path(args.model_config), CONFIG_MAX_BYTES)
        if isinstance(content, Refusal):
            raise UsageError(f"{args.model_config}: {content.message()}")
        try:
            return architecture_from_hf_config(json.loads(content)), None
        except (ValueError, RecursionError) as err:
            raise UsageError(f"{args.model_config}: {err}") from None
    if args.model:
        try:
            named = architecture_by_name(args.model)
        except ArchitectureError as err:
            raise UsageError(f"model {args.model!r}: {err}") from None
        if named is not None:
            return named.arch, named.note
        if args.parameters is None:
            raise UsageError(
                f"model {args.model!r} is not in the catalogue ({unknown_model_hint(args.model)}); "
                "give --model-config or --parameters"
            )
        return None, None
    if args.parameters is None:
        raise UsageError("give --model, --model-config or --parameters")
    return None, None


def _precision(args: argparse.Namespace) -> str | None:
    """``--precision``, or the format ``--quantization`` stores weights in (checked)."""
    from linter.memory.quantization import precision_of_method
    from linter.memory.units import check_precision

    try:
        if args.precision:
            return check_precision(args.precision)
        if args.quantization:
            return precision_of_method(args.quantization)
    except ValueError as err:
        raise UsageError(str(err)) from None
    return None


def calibration_option(path: str | None) -> Any:
    """``--calibration FILE`` of ``memory`` and ``check``: the calibration, or None; a file
    that cannot be used is a one-line error (exit 2)."""
    if not path:
        return None
    from linter.memory.calibration import CalibrationError, load_calibration

    try:
        return load_calibration(Path(path))
    except CalibrationError as err:
        raise UsageError(str(err)) from None


def from_flags(args: argparse.Namespace) -> dict[str, Any]:
    """Size the model and hardware named by the flags."""
    from linter.memory import estimate_inference, estimate_training
    from linter.model.base import parse_count

    gpu, count = _gpu(args)
    arch, note = _architecture(args)
    precision = _precision(args)
    parameters = parse_count(args.parameters) if args.parameters else None
    if parameters is not None and not isinstance(parameters, float):
        raise UsageError(f"--parameters {args.parameters!r} is not a count like 70B or 7.2e9")
    estimate: Any
    if args.method and args.gradient_accumulation < 1:
        raise UsageError("--gradient-accumulation must be at least 1")
    try:
        if args.method:
            estimate = estimate_training(
                arch,
                parameters=parameters,
                precision=precision or "bf16",
                method=args.method,
                optimizer=args.optimizer.replace("-", "_"),
                micro_batch=args.batch,
                sequence_length=args.context or 2048,
                gradient_checkpointing=args.gradient_checkpointing,
                sharding=args.sharding,
                world_size=count,
                gpu=gpu,
                gpus_per_node=count,
                lora_rank=args.lora_rank,
                lora_targets=_lora_targets(args.lora_targets),
                lora_dropout=args.lora_dropout,
                logits_held=args.loop == "custom",
                gradients_persist=args.gradient_accumulation > 1,
            )
        else:
            context = args.context or (arch.max_position_embeddings if arch else None) or 4096
            estimate = estimate_inference(
                arch,
                parameters=parameters,
                precision=precision,
                kv_precision=args.kv_precision,
                batch=args.batch,
                context=context,
                gpu=gpu,
                gpus=args.tensor_parallel or count,
                gpu_memory_utilization=args.gpu_memory_utilization,
                max_num_batched_tokens=args.max_num_batched_tokens,
                max_num_seqs=args.max_num_seqs,
                enforce_eager=args.enforce_eager,
                engine_version=args.engine_version,
                calibration=calibration_option(args.calibration),
                pipeline_parallel=args.pipeline_parallel,
                expert_parallel=args.expert_parallel,
                kv_cache_memory_bytes=args.kv_cache_memory_bytes,
            )
    except (ValueError, OverflowError) as err:
        raise UsageError(str(err)) from None
    label = args.model or args.model_config or f"{args.parameters} parameters"
    out = report(estimate, label, gpu, "training" if args.method else "inference")
    return {**out, "assumed": [note, *out.get("assumed", [])]} if note else out


def _lora_targets(text: str) -> str | tuple[str, ...]:
    """``--lora-targets``: a shorthand, or comma-separated module names."""
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if not names:
        raise UsageError("--lora-targets names no module")
    return names[0] if len(names) == 1 else names


def from_log(args: argparse.Namespace) -> str:
    """The prediction for a vLLM start-up log beside what it logged, and the calibration entry
    that would correct future estimates for that GPU and engine version."""
    from dataclasses import replace

    from linter.load import Refusal, read_bounded
    from linter.memory import architecture_from_catalogue
    from linter.memory.replay import replay
    from linter.memory.vllm_log import MAX_LOG_BYTES, parse_log

    content = read_bounded(Path(args.from_log), MAX_LOG_BYTES)
    if isinstance(content, Refusal):
        raise UsageError(f"{args.from_log}: {content.message()}")
    log = parse_log(content.decode("utf-8", errors="replace"))
    model = args.model or log.model
    if args.model_config:
        arch, _ = _architecture(args)
    else:
        arch = architecture_from_catalogue(model) if model else None
    if arch is None:
        what = f"model {model!r} is not in the catalogue" if model else "the log names no model"
        raise UsageError(f"{args.from_log}: {what}; give --model or --model-config")
    if not (args.gpu or args.instance_type):
        if not log.gpu:
            raise UsageError(
                f"{args.from_log}: the log does not name its GPU (no 'GPU 0: ...' line); "
                "give --gpu or --instance-type"
            )
        args.gpu = log.gpu
    gpu, _ = _gpu(args)
    settings = replace(
        log.settings,
        precision=_precision(args),
        tensor_parallel=args.tensor_parallel or log.settings.tensor_parallel,
        engine_version=args.engine_version or log.settings.engine_version,
    )
    try:
        comparison = replay(arch, gpu, settings, log.logged, calibration_option(args.calibration))
    except ValueError as err:
        raise UsageError(str(err)) from None
    return render_replay(comparison, model or "model", args.from_log)


def _cell(value: float | None, unit: str) -> str:
    return "not logged" if value is None else f"{value:,.2f} {unit}".replace(".00 tok", " tok")


def render_replay(comparison: Any, label: str, source: str) -> str:
    estimate, logged = comparison.estimate, comparison.logged
    rows = [
        ("weights per GPU", logged.weights_gib, comparison.predicted_weights_gib, "GiB"),
        (
            "available KV cache",
            logged.available_kv_gib,
            comparison.predicted_available_gib,
            "GiB",
        ),
        ("GPU KV cache size", logged.kv_cache_tokens, estimate.kv_cache_tokens, "tok"),
        ("max concurrency", logged.max_concurrency, estimate.max_concurrency, "x"),
    ]
    # the label (the model the log names) and the source are text from the log and its name
    lines = [
        f"{printable(label, line_start=True)} on {estimate.gpus} x {estimate.gpu}, "
        f"max_model_len {estimate.context}",
        f"  {estimate.accounting}",
        "",
        f"  {'':<20}{'logged':>16}{'gpulint':>16}",
    ]
    for name, measured, predicted, unit in rows:
        lines.append(f"  {name:<20}{_cell(measured, unit):>16}{_cell(predicted, unit):>16}")
    verdict = {None: "not logged", True: "refused", False: "started"}
    predicted_verdict = "refuses" if estimate.starts is False else "starts"
    lines.append(f"  {'start-up':<20}{verdict[logged.refused]:>16}{predicted_verdict:>16}")
    entry = comparison.calibration_entry(f"start-up log {printable(source)}")
    if entry is not None:
        lines += ["", "  calibration entry (add under `calibrations:` in a calibration file):"]
        lines += [
            f"    - gpu: {entry.gpu}",
            f'      engine_version: "{entry.engine_version}"',
            *(
                [f"      torch_visible_bytes: {entry.torch_visible_bytes}"]
                if entry.torch_visible_bytes
                else []
            ),
            f"      non_kv_delta_bytes: {entry.non_kv_delta_bytes}",
            f'      source: "{entry.source}"',
        ]
    return "\n".join(lines)


def from_manifests(
    paths: list[str], config: LoadedConfig, calibration: Any = None
) -> list[dict[str, Any]]:
    """Size every workload in the manifests (the same estimate rules use, with the
    configuration's exclusions and ``assume:`` blocks, and ``calibration``)."""
    from linter.facts.memory_sizing import size
    from linter.load.discovery import discover
    from linter.run.runner import collect

    out: list[dict[str, Any]] = []
    for manifest in collect(discover(paths, config.config.exclude), config).manifests:
        if manifest.kind != "Workload":
            continue
        sizing = size(manifest, calibration)
        if sizing.status != "checked":
            out.append(
                {
                    "file": manifest.file,
                    "name": manifest.name,
                    "status": sizing.status,
                    "reason": sizing.reason,
                }
            )
            continue
        assert sizing.where is not None
        model = manifest.data["spec"].get("model", {})
        label = model.get("id") or model.get("config") or "model"
        served = manifest.data["spec"]["profile"] in _inference_profiles()
        mode = "inference" if served else "training"
        entry = report(sizing.estimate, label, sizing.where.gpu, mode)
        out.append(
            {
                "file": manifest.file,
                "name": manifest.name,
                "status": "checked",
                "assumed": list(sizing.assumed),
                **entry,
            }
        )
    return out


def report(estimate: Any, label: str, gpu: Any, mode: str) -> dict[str, Any]:
    return {
        "model": label,
        "mode": mode,
        "gpu_memory_bytes": gpu.memory_bytes,
        # what PyTorch can allocate: the total gpuMemoryUtilization multiplies, shown as the
        # GPU's memory here, in the memory fact and in rule messages alike (a calibration's
        # measured total where the estimate took one)
        "gpu_usable_bytes": getattr(estimate, "usable_bytes", 0) or gpu.usable_bytes,
        **estimate.as_dict(),
    }


def _segments(data: dict[str, Any]) -> list[tuple[str, str, int]]:
    """(label, bar character, bytes per GPU) of each part of the requirement."""
    if data["mode"] == "training":
        from linter.memory.training import term_groups

        parts = [(name, sum(v for _, v in items)) for name, items in term_groups(data["terms"])]
    else:
        per_gpu = data["per_gpu"]
        parts = [
            ("weights", per_gpu["weights_bytes"]),
            ("kv cache", per_gpu.get("kv_cache_bytes") or 0),
            ("activations", per_gpu.get("activation_bytes") or 0),
            ("overhead", per_gpu["overhead_bytes"]),
        ]
    return [(name, char, value) for (name, value), char in zip(parts, CHARS, strict=False)]


def _training_terms(data: dict[str, Any], group: str) -> list[str]:
    """The named terms of one group of a training peak, one line each."""
    from linter.memory.training import term_groups

    items = dict(term_groups(data["terms"]))[group]
    return [f"      {name.replace('_', ' '):<26}{value / GIB:>9.2f} GiB" for name, value in items]


def bar(segments: list[tuple[str, str, int]], available: int) -> str:
    """The breakdown as a bar; ``|`` marks the usable budget, anything after it does not fit."""
    required = sum(value for _, _, value in segments)
    scale = max(required, available) / BAR_WIDTH
    cells = "".join(char * round(value / scale) for _, char, value in segments)
    budget = min(BAR_WIDTH, round(available / scale))
    cells = cells.ljust(budget, " ")
    return "[" + cells[:budget] + "|" + cells[budget:] + "]"


def render_text(data: dict[str, Any]) -> str:
    if data.get("status", "checked") != "checked":
        where = f"{data['file']}: {data['name']}"
        return f"{where}: memory not checked ({data['status']}): {data['reason']}"
    gpus = data.get("gpus", data.get("world_size"))
    head = f"{data['model']}  {data['precision']} on {gpus} x {data['gpu']}"
    if "file" in data:
        head = f"{data['file']}: {data['name']}: {head}"
    if data["mode"] == "inference":
        shape = (
            f"serving: batch {data['batch']} x {data['context']} tokens, "
            f"gpuMemoryUtilization {data['gpu_memory_utilization']}"
        )
    else:
        shape = (
            f"{data['method']} training: micro-batch {data['micro_batch']} x "
            f"{data['sequence_length']} tokens, "
            f"sharding {data['sharding']} over {data['world_size']} GPUs"
        )
        if data.get("lora_rank"):
            targets = data["lora_targets"] or ["all-linear"]
            shape += f", LoRA r={data['lora_rank']} on {', '.join(targets)}"
    segments = _segments(data)
    lines = [head, shape]
    if data["mode"] == "training":
        lines.append(f"peak: {data['peak_phase']}")
    lines.append("")
    for name, char, value in segments:
        lines.append(f"  {char} {name:<12}{value / GIB:>9.2f} GiB per GPU")
        if data["mode"] == "training":
            lines += _training_terms(data, name)
    required, available = data["required_bytes"], data["available_bytes"]
    slack = data.get("fragmentation_bytes")
    kept = f"; allocator slack {slack / GIB:.2f} GiB kept free" if slack else ""
    lines += [
        f"    {'required':<12}{required / GIB:>9.2f} GiB per GPU",
        f"    {'usable':<12}{available / GIB:>9.2f} GiB per GPU "
        f"(of {data['gpu_usable_bytes'] / GIB:.2f} GiB{kept})",
        "",
        "  " + bar(segments, available) + f" {100 * required / available:.0f}% of usable",
        "",
        "  " + _verdict(data),
    ]
    if data["mode"] == "inference":
        lines += _vllm_lines(data)
    for item in data.get("assumed", []):
        lines.append(f"  assumed: {item}")
    return "\n".join(lines)


def _vllm_lines(data: dict[str, Any]) -> list[str]:
    """What vLLM would print at start-up, as it prints it."""
    lines = ["", f"  {data['accounting']}"]
    if data.get("kv_cache_tokens") is None:
        return lines
    lines += [
        f"  GPU KV cache size: {data['kv_cache_tokens']:,} tokens",
        f"  Maximum concurrency for {data['context']:,} tokens per request: "
        f"{data['max_concurrency']:.2f}x",
    ]
    if data["starts"]:
        lines.append("  vLLM starts")
    else:
        lines += [
            f"  vLLM would refuse to start: {data['refusal']}",
            f"  largest max_model_len that starts: {data['max_startable_model_len']}",
        ]
    return lines


def _verdict(data: dict[str, Any]) -> str:
    if data["mode"] == "training":
        alternatives = [
            f"{name} {data[key] / GIB:.2f} GiB"
            for name, key in (
                ("full", "full_required_bytes"),
                ("LoRA", "lora_required_bytes"),
                ("QLoRA", "qlora_required_bytes"),
            )
            if data.get(key) is not None
        ]
        return (
            ("FITS" if data["fits"] else "DOES NOT FIT")
            + " (per GPU: "
            + ", ".join(alternatives)
            + ")"
        )
    if data.get("kv_cache_bytes") is None:
        return (
            "weights FIT" if data["fits"] else "DOES NOT FIT"
        ) + "; KV cache unknown (no architecture)"
    limits = (
        f"largest batch at {data['context']} tokens: {data['max_batch_at_context']}; "
        f"longest context at batch {data['batch']}: {data['max_context_at_batch']}"
    )
    return ("FITS" if data["fits"] else "DOES NOT FIT") + f": {limits}"


def _inference_profiles() -> frozenset[str]:
    from linter.model.workload import INFERENCE_PROFILES  # the model is loaded by then

    return INFERENCE_PROFILES
