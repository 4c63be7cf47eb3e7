"""A lean reference pipeline: the infrastructure work a linter like gpulint cannot avoid, done
the cheapest way Python offers, as the yardstick for gpulint's CPU per file (issue 31).

    python benchmarks/reference.py PATH [--jobs N] [--schema FILE]

For every ``*.yaml`` under PATH (or PATH itself): read it (at most 1 MiB), compose its documents
with libyaml's C composer (PyYAML ``CSafeLoader``: nodes with line and column marks), turn the
nodes into data while recording the line of every key and refusing duplicate keys and aliases,
validate each document against a JSON Schema (gpulint's own by default, with ``jsonschema``),
run a handful of trivial rules over the data, and print one JSON report with a finding per rule
hit at the line of the key it names. Files are spread over ``--jobs`` worker processes (default
2) in chunks, as gpulint does. No facts, no model, no CEL: what gpulint spends beyond this is
the price of what it computes.

It is a benchmark script, never imported by gpulint or its tests' dependencies; PyYAML and
jsonschema are in the environment gpulint is installed in.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import jsonschema
import yaml

HERE = Path(__file__).resolve().parent
SCHEMA = HERE.parent / "schemas" / "gpulint.schema.json"
MAX_BYTES = 1 << 20
CHUNK = 64
#: Trivial rules: (id, the key path that must hold the value, the value that is a finding).
RULES = (
    ("R1", ("spec", "resources", "capacity"), "spot"),
    ("R2", ("spec", "lifecycle", "scaleToZero"), False),
    ("R3", ("spec", "data", "personalData"), True),
    ("R4", ("spec", "acceptableUse", "reviewed"), False),
    ("R5", ("spec", "serving", "latencySensitive"), True),
)

_validator: Any = None


class DuplicateKey(ValueError):
    def __init__(self, line: int) -> None:
        super().__init__(f"duplicate key at line {line}")
        self.line = line


def _init(schema: str) -> None:
    """Build the schema validator once per worker."""
    global _validator
    document = json.loads(Path(schema).read_text(encoding="utf-8"))
    _validator = jsonschema.validators.validator_for(document)(document)


def to_data(node: yaml.Node, lines: dict[tuple[Any, ...], int], path: tuple[Any, ...]) -> Any:
    """A composed node as plain data; ``lines`` gets the 1-based line of every mapping key."""
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = key_node.value
            if key in out:
                raise DuplicateKey(key_node.start_mark.line + 1)
            where = (*path, key)
            lines[where] = key_node.start_mark.line + 1
            out[key] = to_data(value_node, lines, where)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [to_data(item, lines, (*path, i)) for i, item in enumerate(node.value)]
    return _scalar(node)


_BOOL = {"true": True, "false": False}


def _scalar(node: yaml.Node) -> Any:
    """A scalar by the tag libyaml's resolver gave it (YAML 1.1 core types only)."""
    tag, text = node.tag, node.value
    if tag.endswith(":bool"):
        return _BOOL.get(text.lower(), text)
    try:
        if tag.endswith(":int"):
            return int(text.replace("_", ""), 0 if text[:2] in ("0x", "0o") else 10)
        if tag.endswith(":float"):
            return float(text.replace("_", ""))
    except ValueError:  # YAML 1.1 sexagesimal and the like: left as text
        return text
    if tag.endswith(":null"):
        return None
    return text


def lint_file(path: str) -> list[dict[str, Any]]:
    findings: list[dict[str, Any]] = []
    with open(path, "rb") as stream:
        text = stream.read(MAX_BYTES)
    try:
        nodes = list(yaml.compose_all(text, Loader=yaml.CSafeLoader))
    except yaml.YAMLError as error:
        return [{"file": path, "rule": "syntax", "line": 1, "message": str(error)[:200]}]
    for node in nodes:
        if node is None:
            continue
        lines: dict[tuple[Any, ...], int] = {}
        try:
            data = to_data(node, lines, ())
        except DuplicateKey as error:
            findings.append(
                {"file": path, "rule": "duplicate", "line": error.line, "message": str(error)}
            )
            continue
        for error in _validator.iter_errors(data):
            # the deepest of the alternatives a oneOf tried: the value it names
            error = max([error, *error.context], key=lambda e: len(e.absolute_path))
            line = lines.get(tuple(error.absolute_path), node.start_mark.line + 1)
            findings.append(
                {"file": path, "rule": "schema", "line": line, "message": error.message[:200]}
            )
        for rule, keys, bad in RULES:
            value: Any = data
            for key in keys:
                value = value.get(key) if isinstance(value, dict) else None
            if type(value) is type(bad) and value == bad:
                findings.append(
                    {"file": path, "rule": rule, "line": lines[keys], "message": f"{keys[-1]}"}
                )
    return findings


def lint_chunk(paths: Sequence[str]) -> list[dict[str, Any]]:
    return [finding for path in paths for finding in lint_file(path)]


def _files(target: Path) -> list[str]:
    if target.is_file():
        return [str(target)]
    return sorted(str(path) for path in target.rglob("*.yaml"))


def _chunks(paths: Sequence[str]) -> Iterator[Sequence[str]]:
    for start in range(0, len(paths), CHUNK):
        yield paths[start : start + CHUNK]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--schema", default=str(SCHEMA))
    args = parser.parse_args(argv)
    paths = _files(args.path)
    if args.jobs <= 1 or len(paths) <= CHUNK:
        _init(args.schema)
        findings = lint_chunk(paths)
    else:
        with ProcessPoolExecutor(args.jobs, initializer=_init, initargs=(args.schema,)) as pool:
            findings = [f for part in pool.map(lint_chunk, _chunks(paths)) for f in part]
    json.dump({"files": len(paths), "findings": findings}, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
