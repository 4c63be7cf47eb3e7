"""``gpulint models``: the model catalogue, with each model's size and the names it answers to."""

from __future__ import annotations

import argparse
import json
from typing import Any

HELP = "list the catalogued models (ids, aliases, parameters, checkpoint size, architecture)"

GIB = 1 << 30


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "filter",
        nargs="?",
        metavar="TEXT",
        help="only models whose id or an alias contains TEXT (case-insensitive)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")


def _kind(arch: Any) -> str:
    """What sort of model it is, in a word or two."""
    parts = ["MoE" if arch.is_moe else "dense"]
    if arch.is_mla:
        parts.append("MLA")
    if arch.state_layers:
        parts.append("state-space" if arch.state_layers == arch.num_hidden_layers else "hybrid")
    if arch.vision is not None:
        parts.append("vision-language")
    return " ".join(parts)


def _row(record: Any) -> dict[str, Any]:
    from linter.memory.architecture import architecture_from_catalogue
    from linter.memory.weights import weight_bytes

    arch = architecture_from_catalogue(record.id)
    assert arch is not None
    stored = arch.checkpoint_precision or "bf16"
    return {
        "id": record.id,
        "aliases": list(record.aliases),
        "model_type": arch.model_type,
        "kind": _kind(arch),
        "parameters": arch.parameters,
        "active_parameters": _active(arch),
        "checkpoint_precision": stored,
        "checkpoint_bytes": record.checkpoint_bytes,
        "weight_bytes": weight_bytes(arch, None, stored),
        "max_position_embeddings": arch.max_position_embeddings,
    }


def _active(arch: Any) -> int:
    """Parameters one token passes through: the routed experts it is sent to, not all of them."""
    if not arch.is_moe:
        return int(arch.parameters)
    idle = arch.num_experts - arch.experts_per_token
    return int(arch.parameters - arch.expert_parameters * idle // arch.num_experts)


def _billions(count: int) -> str:
    return f"{count / 1e9:,.2f}B" if count >= 1e9 else f"{count / 1e6:,.0f}M"


def _matches(record: Any, text: str | None) -> bool:
    if not text:
        return True
    needle = text.casefold()
    return any(needle in name.casefold() for name in (record.id, *record.aliases))


def _naming() -> dict[str, Any]:
    from linter.catalog.model_names import catalogue

    rules = catalogue()
    return {
        "variant_suffixes": [v.suffix for v in rules.variant_suffixes],
        "mirrors": [m.org for m in rules.mirrors],
        "precision_suffixes": {p.suffix: p.precision for p in rules.precision_suffixes},
        "distills": {d.id: d.base for d in rules.distills},
    }


def render_text(rows: list[dict[str, Any]], naming: dict[str, Any]) -> str:
    lines = [
        f"{'ID':<48} {'PARAMS':>9} {'ACTIVE':>9} {'WEIGHTS':>10} {'STORED':<10} KIND / ALIASES"
    ]
    for row in rows:
        active = _billions(row["active_parameters"]) if row["kind"].startswith("MoE") else ""
        lines.append(
            f"{row['id']:<48} {_billions(row['parameters']):>9} {active:>9} "
            f"{row['weight_bytes'] / GIB:>6.1f} GiB {row['checkpoint_precision']:<10} "
            f"{row['kind']}"
        )
        if row["aliases"]:
            lines.append(f"{'':<48} also: {', '.join(row['aliases'])}")
    lines += [
        "",
        f"{len(rows)} models. Names also resolve with a mirror organisation "
        f"({', '.join(o + '/' for o in naming['mirrors'])}), a variant ending "
        f"({', '.join(naming['variant_suffixes'])}), a quantised-release ending sized at its "
        "precision ("
        + ", ".join(f"{s} {p}" for s, p in naming["precision_suffixes"].items())
        + f"), or as one of {len(naming['distills'])} distills of a catalogued model "
        "(--format json lists them).",
    ]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from linter.catalog.models import catalogue
    from linter.printable import printable

    rows = [_row(record) for record in catalogue().models if _matches(record, args.filter)]
    naming = _naming()
    if args.format == "json":
        print(json.dumps({"models": rows, "naming": naming}, indent=2))
        return 0
    for line in render_text(rows, naming).splitlines():
        print(printable(line))
    return 0
