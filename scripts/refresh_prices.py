#!/usr/bin/env python3
"""Rebuild gpulint's price catalogue from the upstream files (standard library only).

Upstream files:
  --aws, --gcp, --azure PATH   SkyPilot's catalogue, skypilot-org/skypilot-catalog
                               catalogs/<schema>/<cloud>/vms.csv; give each one's --<cloud>-commit
                               and --<cloud>-schema (v8 today; an older schema flags its rows stale)
  --litellm PATH               LiteLLM's price map, model_prices_and_context_window.json (the
                               PyPI wheel ships it as
                               litellm/model_prices_and_context_window_backup.json);
                               give --litellm-version
  --as-of DATE                 when the files were retrieved (YYYY-MM-DD)

Writes prices.yaml (as_of, conventions, flag definitions, sources), prices_instances.csv and
prices_managed.csv into --out (default: the packaged catalogue, linter/catalog/data). How rows are
flagged, how GCP GPU prices are composed and which Hugging Face id an offering serves are data in
refresh_prices.json beside this script. Nothing is estimated: a price is either in an upstream
file or absent. The output depends only on the inputs, so a rerun on the same files is a no-op.

Example:
  python3 scripts/refresh_prices.py --as-of 2026-12-02 \\
      --aws aws/vms.csv --aws-commit e385a0d3... --aws-schema v8 \\
      --gcp gcp/vms.csv --gcp-commit 8427bbff... --gcp-schema v8 \\
      --azure azure/vms.csv --azure-commit 098741e7... --azure-schema v6 \\
      --litellm model_prices_and_context_window.json --litellm-version 1.110.2
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import re
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "refresh_prices.json"
DEFAULT_OUT = HERE.parent / "linter" / "catalog" / "data"
CLOUDS = ("aws", "gcp", "azure")

INSTANCE_COLUMNS = (
    "provider",
    "instance_type",
    "accelerator",
    "accelerator_count",
    "region",
    "on_demand_per_hour",
    "spot_per_hour",
    "flags",
    "source",
)
MANAGED_COLUMNS = (
    "provider",
    "model",
    "region",
    "input_per_million_tokens",
    "output_per_million_tokens",
    "hf_id",
    "source",
    "source_key",
)


class RefreshError(Exception):
    """An input that cannot be read as the upstream format it claims to be."""


@dataclass
class InstanceRow:
    """One priced (instance type, accelerator, region); prices are USD per hour."""

    provider: str
    instance_type: str
    accelerator: str
    accelerator_count: float
    region: str
    on_demand: float | None
    spot: float | None
    #: The on-demand price of the GPUs alone (GCP prices them apart from the VM), else the whole.
    gpu_part: float | None
    source: str
    flags: list[str] = field(default_factory=list)


# ------------------------------------------------------------------------------ reading


def number(text: str | None) -> float | None:
    """A price or count cell as a float; None for an empty or NA cell."""
    text = (text or "").strip()
    if text in ("", "NA", "nan", "None"):
        return None
    try:
        return float(text)
    except ValueError:
        raise RefreshError(f"not a number: {text!r}") from None


def read_vms(path: Path) -> Iterator[dict[str, str]]:
    """The rows of a SkyPilot vms.csv, each with the file's line number under ``_line``."""
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = {
            "InstanceType",
            "AcceleratorName",
            "AcceleratorCount",
            "Price",
            "SpotPrice",
            "Region",
        } - set(reader.fieldnames or ())
        if missing:
            raise RefreshError(f"{path}: not a SkyPilot vms.csv (no {', '.join(sorted(missing))})")
        for row in reader:
            yield {**row, "_line": str(reader.line_num)}


def cell(row: dict[str, str], name: str) -> str:
    return (row.get(name) or "").strip()


def row_number(row: dict[str, str], name: str, path: Path) -> float | None:
    try:
        return number(row.get(name))
    except RefreshError as err:
        raise RefreshError(f"{path}:{row['_line']}: {name}: {err}") from None


def lowest(values: Iterable[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return min(present) if present else None


# --------------------------------------------------------------------- AWS and Azure rows


def collapse_zones(path: Path, provider: str, source: str) -> list[InstanceRow]:
    """Rows that carry their accelerator (AWS, Azure), one per (type, accelerator, region)."""
    groups: dict[tuple[str, str, float, str], list[tuple[float | None, float | None]]] = {}
    for row in read_vms(path):
        accelerator = cell(row, "AcceleratorName")
        if not accelerator:
            continue
        count = row_number(row, "AcceleratorCount", path)
        if count is None:
            raise RefreshError(f"{path}:{row['_line']}: AcceleratorCount is empty")
        key = (cell(row, "InstanceType"), accelerator, count, cell(row, "Region"))
        zone = (row_number(row, "Price", path), row_number(row, "SpotPrice", path))
        groups.setdefault(key, []).append(zone)
    out = []
    for (instance_type, accelerator, count, region), prices in groups.items():
        on_demand = lowest(price for price, _ in prices)
        spot = lowest(spot for _, spot in prices)
        if on_demand is None and spot is None:
            continue
        out.append(
            InstanceRow(
                provider,
                instance_type,
                accelerator,
                count,
                region,
                on_demand,
                spot,
                on_demand,
                source,
            )
        )
    return out


# ------------------------------------------------------------------------------- GCP rows


@dataclass(frozen=True)
class HostVm:
    instance_type: str
    vcpus: float
    memory_gib: float
    price: float | None
    spot: float | None


def gcp_hosts(
    accelerator: str, count: int, zone_vms: dict[str, HostVm], rules: dict[str, Any]
) -> list[HostVm]:
    """The VMs an accelerator row is priced with in one zone (SkyPilot's composition rules)."""
    listed = rules["host_types"].get(accelerator)
    if listed is not None:
        names = listed.get(str(count), [])
        return [zone_vms[name] for name in names if name in zone_vms]
    table = rules["host_vcpus"].get(accelerator, rules["host_vcpus"]["DEFAULT"])
    vcpus = table.get(str(count))
    if vcpus is None:
        return []
    fitting = [
        vm
        for vm in zone_vms.values()
        if vm.instance_type.startswith(rules["host_family_prefix"])
        and vm.price is not None
        and vm.vcpus >= vcpus
        and vm.memory_gib >= vcpus * rules["host_memory_gib_per_vcpu"]
    ]
    cheapest = min(fitting, key=lambda vm: (vm.price or 0.0, vm.instance_type), default=None)
    return [] if cheapest is None else [cheapest]


def compose_gcp(path: Path, source: str, rules: dict[str, Any]) -> list[InstanceRow]:
    """GCP GPU machine prices: host VM plus accelerator, per zone, then the region minimum."""
    vms: dict[str, dict[str, HostVm]] = defaultdict(dict)
    accelerators: list[dict[str, str]] = []
    for row in read_vms(path):
        instance_type, accelerator = cell(row, "InstanceType"), cell(row, "AcceleratorName")
        if instance_type and not accelerator:
            vms[cell(row, "AvailabilityZone")][instance_type] = HostVm(
                instance_type,
                row_number(row, "vCPUs", path) or 0.0,
                row_number(row, "MemoryGiB", path) or 0.0,
                row_number(row, "Price", path),
                row_number(row, "SpotPrice", path),
            )
        elif accelerator and not instance_type and not accelerator.startswith(rules["tpu_prefix"]):
            accelerators.append(row)
    composed: dict[tuple[str, str, float, str], list[tuple[float, float | None, float]]] = {}
    for row in accelerators:
        count = row_number(row, "AcceleratorCount", path)
        gpu_price = row_number(row, "Price", path)
        if count is None or gpu_price is None:
            continue
        gpu_spot = row_number(row, "SpotPrice", path)
        zone = cell(row, "AvailabilityZone")
        for host in gcp_hosts(cell(row, "AcceleratorName"), int(count), vms[zone], rules):
            if not host.price:  # None, or 0.0 for a machine type not priced yet
                continue
            spot = None if gpu_spot is None or host.spot is None else host.spot + gpu_spot
            key = (host.instance_type, cell(row, "AcceleratorName"), count, cell(row, "Region"))
            composed.setdefault(key, []).append((host.price + gpu_price, spot, gpu_price))
    return [
        InstanceRow(
            "gcp",
            instance_type,
            accelerator,
            count,
            region,
            lowest(on_demand for on_demand, _, _ in prices),
            lowest(spot for _, spot, _ in prices),
            lowest(gpu for _, _, gpu in prices),
            source,
        )
        for (instance_type, accelerator, count, region), prices in composed.items()
    ]


# ---------------------------------------------------------------------------------- flags


def flag_rows(rows: Sequence[InstanceRow], rules: dict[str, Any], stale: set[str]) -> None:
    """Add the caveat flags (refresh_prices.json ``flags``) each row's numbers call for."""
    decimals = rules["spot_decimals"]
    corrections = {
        (fix["provider"], fix["instance_type"]): fix["source_count"]
        for fix in rules["count_corrections"]
    }
    spread: dict[tuple[str, str, str, float], list[float]] = defaultdict(list)
    for row in rows:
        if row.gpu_part is not None:
            spread[
                (row.provider, row.instance_type, row.accelerator, row.accelerator_count)
            ].append(row.gpu_part)
    for row in rows:
        if row.on_demand is not None and row.spot is not None:
            placeholder = round(row.on_demand * rules["spot_placeholder_fraction"], decimals)
            if round(row.spot, decimals) == placeholder:
                row.flags.append("spot-placeholder")
            elif row.spot > row.on_demand:
                row.flags.append("spot-above-on-demand")
            elif row.spot == row.on_demand:
                row.flags.append("spot-equals-on-demand")
        parts = spread[(row.provider, row.instance_type, row.accelerator, row.accelerator_count)]
        if parts and max(parts) >= rules["regional_spread_factor"] * min(parts):
            row.flags.append("regional-price-spread")
        count = row.accelerator_count
        whole = count >= 1 and count.is_integer()
        odd = whole and int(count) & (int(count) - 1) != 0  # 3, 6, 12 GPUs: not a real shape
        if odd or corrections.get((row.provider, row.instance_type)) == count:
            row.flags.append("accelerator-count-suspicious")
        if row.source in stale:
            row.flags.append("stale-source")


# -------------------------------------------------------------------------------- LiteLLM


def managed_provider(entry: dict[str, Any], rules: dict[str, Any]) -> str | None:
    provider = str(entry.get("litellm_provider") or "")
    if provider.startswith(rules["vertex_provider_prefix"]):
        provider = "vertex_ai"
    found = rules["providers"].get(provider)
    return None if found is None else str(found)


def split_key(provider: str, key: str, rules: dict[str, Any]) -> tuple[str, str, str]:
    """(provider model id, region, id to look up in ``hf_ids``) from a LiteLLM key."""
    parts = key.split("/")
    if parts[0] in rules["key_prefixes"][provider] and len(parts) > 1:
        parts = parts[1:]
    region = ""
    if provider == "bedrock":
        if len(parts) > 1 and re.match(rules["aws_region_pattern"], parts[0]):
            region, parts = parts[0], parts[1:]
        model = "/".join(parts)
        for geo in rules["bedrock_geo_prefixes"]:
            if model.startswith(geo + "."):
                return model, region or geo, model[len(geo) + 1 :]
        return model, region, model
    if provider in rules["regional_key_segment"] and len(parts) > 1:
        region, parts = parts[0], parts[1:]
    model = "/".join(parts)
    return model, region, model


def managed_rows(path: Path, source: str, rules: dict[str, Any]) -> list[dict[str, str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise RefreshError(f"{path}: not a LiteLLM price map: {err}") from None
    if not isinstance(data, dict):
        raise RefreshError(f"{path}: not a LiteLLM price map (not a JSON object)")
    rows: dict[tuple[str, str, str, str], dict[str, str]] = {}
    for key, entry in data.items():
        if not isinstance(entry, dict) or entry.get("mode") not in rules["modes"]:
            continue
        provider = managed_provider(entry, rules)
        per_input, per_output = (
            entry.get("input_cost_per_token"),
            entry.get("output_cost_per_token"),
        )
        if provider is None or not isinstance(per_input, (int, float)):
            continue
        if not isinstance(per_output, (int, float)) or per_input == per_output == 0:
            continue
        model, region, base = split_key(provider, key, rules)
        ident = (provider, model, region, str(entry["litellm_provider"]))
        rows.setdefault(
            ident,
            {
                "provider": provider,
                "model": model,
                "region": region,
                "input_per_million_tokens": decimal(per_input * 1_000_000),
                "output_per_million_tokens": decimal(per_output * 1_000_000),
                "hf_id": rules["hf_ids"].get(base, ""),
                "source": source,
                "source_key": key,
            },
        )
    return sorted(
        rows.values(), key=lambda r: (r["provider"], r["model"], r["region"], r["source_key"])
    )


# -------------------------------------------------------------------------------- writing


def decimal(value: float | None) -> str:
    """Fixed-point text with at most 6 decimals (a rounding artefact of a sum disappears)."""
    if value is None:
        return ""
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def instance_record(row: InstanceRow) -> dict[str, str]:
    return {
        "provider": row.provider,
        "instance_type": row.instance_type,
        "accelerator": row.accelerator,
        "accelerator_count": decimal(row.accelerator_count),
        "region": row.region,
        "on_demand_per_hour": decimal(row.on_demand),
        "spot_per_hour": decimal(row.spot),
        "flags": " ".join(row.flags),
        "source": row.source,
    }


def write_csv(path: Path, columns: Sequence[str], rows: Iterable[dict[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def yaml_lines(value: Any, indent: int = 0) -> list[str]:
    """Block-style YAML for the JSON-like values prices.yaml holds (JSON strings are YAML)."""
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (dict, list)) and item:
                lines.append(f"{pad}{key}:")
                lines.extend(yaml_lines(item, indent + 2))
            else:
                lines.append(f"{pad}{key}: {json.dumps(item, ensure_ascii=False)}")
    else:
        for item in value:
            nested = yaml_lines(item, indent + 2)
            lines.append(f"{pad}- {nested[0].lstrip()}")
            lines.extend(nested[1:])
    return lines


def metadata(as_of: str, config: dict[str, Any], sources: list[dict[str, Any]]) -> str:
    conventions = config["conventions"]
    header = [
        "# Prices of GPU instances and managed model APIs, in USD, with their sources.",
        "# Generated by scripts/refresh_prices.py from the upstream files named in `sources` and",
        "# scripts/refresh_prices.json: edit those and rerun it, never this file. The rows are in",
        "# prices_instances.csv and prices_managed.csv beside it; a row's `flags` name entries of",
        "# `flags` below. Spot prices are one snapshot of a market that moves hourly.",
        f"# hours_per_month: {conventions['hours_per_month_why']}.",
        f"# assumed_input_share: {conventions['assumed_input_share_why']}.",
    ]
    body = {
        "as_of": as_of,
        "currency": config["currency"],
        "hours_per_month": conventions["hours_per_month"],
        "assumed_input_share": conventions["assumed_input_share"],
        "flags": config["flags"],
        "sources": sources,
    }
    return "\n".join([*header, *yaml_lines(body)]) + "\n"


# ----------------------------------------------------------------------------------- main


def skypilot_source(
    cloud: str, commit: str, schema: str, as_of: str, config: dict[str, Any]
) -> dict[str, Any]:
    spec = config["sources"]["skypilot"]
    path = spec["path"].format(schema=schema, cloud=cloud)
    return {
        "id": spec["id"].format(schema=schema, cloud=cloud),
        "title": f"{spec['repository']} {path} @ {commit}",
        "retrieved": as_of,
        "repository": spec["repository"],
        "path": path,
        "commit": commit,
        "licence": spec["licence"],
        "processing": spec["processing"][cloud],
    }


def litellm_source(path: Path, version: str, as_of: str, config: dict[str, Any]) -> dict[str, Any]:
    spec = config["sources"]["litellm"]
    return {
        "id": spec["id"].format(version=version),
        "title": f"{spec['repository']} {spec['path']} (PyPI litellm {version})",
        "retrieved": as_of,
        "repository": spec["repository"],
        "path": spec["path"],
        "version": version,
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "licence": spec["licence"],
        "processing": spec["processing"],
    }


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    for cloud in CLOUDS:
        parser.add_argument(f"--{cloud}", type=Path, help=f"SkyPilot {cloud}/vms.csv")
        parser.add_argument(f"--{cloud}-commit", help="its skypilot-catalog commit")
        parser.add_argument(f"--{cloud}-schema", help="its catalogue schema (v8)")
    parser.add_argument("--litellm", type=Path, required=True)
    parser.add_argument("--litellm-version", required=True)
    parser.add_argument("--as-of", required=True, help="YYYY-MM-DD")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--config", type=Path, default=CONFIG)
    args = parser.parse_args(argv)
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", args.as_of):
        parser.error("--as-of must be YYYY-MM-DD")
    for cloud in CLOUDS:
        given = getattr(args, cloud) is not None
        described = getattr(args, f"{cloud}_commit") and getattr(args, f"{cloud}_schema")
        if given and not described:
            parser.error(f"--{cloud} needs --{cloud}-commit and --{cloud}-schema")
    return args


def refresh(args: argparse.Namespace) -> tuple[int, int]:
    """Write the three catalogue files; returns the instance and managed row counts."""
    config = json.loads(args.config.read_text(encoding="utf-8"))
    sources, rows, stale = [], [], set()
    for cloud in CLOUDS:
        path = getattr(args, cloud)
        if path is None:
            continue
        schema = getattr(args, f"{cloud}_schema")
        source = skypilot_source(
            cloud, getattr(args, f"{cloud}_commit"), schema, args.as_of, config
        )
        sources.append(source)
        if schema != config["sources"]["skypilot"]["current_schema"]:
            stale.add(source["id"])
        if cloud == "gcp":
            rows += compose_gcp(path, source["id"], config["gcp"])
        else:
            rows += collapse_zones(path, cloud, source["id"])
    flag_rows(rows, config["flag_rules"], stale)
    rows.sort(
        key=lambda r: (r.provider, r.instance_type, r.accelerator, r.accelerator_count, r.region)
    )
    litellm = litellm_source(args.litellm, args.litellm_version, args.as_of, config)
    sources.append(litellm)
    managed = managed_rows(args.litellm, litellm["id"], config["litellm"])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "prices.yaml").write_text(metadata(args.as_of, config, sources), encoding="utf-8")
    write_csv(args.out / "prices_instances.csv", INSTANCE_COLUMNS, map(instance_record, rows))
    write_csv(args.out / "prices_managed.csv", MANAGED_COLUMNS, managed)
    return len(rows), len(managed)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        instances, managed = refresh(args)
    except (OSError, RefreshError) as err:
        print(f"refresh_prices: {err}", file=sys.stderr)
        return 1
    print(
        f"prices_instances.csv: {instances} rows; prices_managed.csv: {managed} rows",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
