"""What gpulint understood of a file, written as ``gpulint.dev/v1alpha1`` YAML: every value with a
comment naming where it came from (``deploy/chat.yaml:21``, ``vLLM default: ...``, ``assumed from
.gpulint.yaml:12``). Linted as a gpulint manifest, the output gives the same rule ids as the
original file (tests/commands/test_convert.py keeps it so)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from linter.load.positions import Path
from linter.load.scalars import resolve_plain
from linter.model.manifest import Manifest
from linter.printable import printable

_PLAIN = re.compile(r"[A-Za-z_/][A-Za-z0-9_./:@+-]*\Z")
_UNPRINTABLE = re.compile("[\x7f-\x9f\u2028\u2029]")


def convert(manifest: Manifest) -> str:
    """One manifest as a YAML document (without the ``---`` separator)."""
    header = f"{manifest.file}, document {manifest.index + 1}"
    if manifest.format != "gpulint":
        header += f": {manifest.format} {manifest.source_kind or ''} {manifest.name}".rstrip()
    lines = [f"# {printable(header)}", *_mapping(manifest, manifest.data, (), 0)]
    return "\n".join(lines) + "\n"


def _origin(manifest: Manifest, path: Path) -> str:
    """Where a value came from, for a comment: one line, whatever the file's name or a note
    holds (a line break there would end the comment and start YAML, or a workflow command)."""
    origin = manifest.provenance.origin(path)
    if origin.kind != "file" and origin.note:
        return printable(origin.note)
    span, _ = manifest.provenance.locate(path, manifest.source_map)
    return printable(f"{manifest.file}:{span.line}")


def _mapping(manifest: Manifest, data: dict[str, Any], path: Path, depth: int) -> Iterator[str]:
    indent = "  " * depth
    for key, value in data.items():
        here = (*path, key)
        if isinstance(value, dict) and value:
            yield f"{indent}{_scalar(key)}:"
            yield from _mapping(manifest, value, here, depth + 1)
        elif isinstance(value, list) and any(isinstance(item, dict) for item in value):
            yield f"{indent}{_scalar(key)}:"
            for number, item in enumerate(value):
                yield from _item(manifest, item, (*here, number), depth + 1)
        else:
            comment = "" if path == () else f"  # {_origin(manifest, here)}"
            yield f"{indent}{_scalar(key)}: {_flow(value)}{comment}"


def _item(manifest: Manifest, item: Any, path: Path, depth: int) -> Iterator[str]:
    indent = "  " * depth
    if not isinstance(item, dict) or not item:
        yield f"{indent}- {_flow(item)}  # {_origin(manifest, path)}"
        return
    lines = list(_mapping(manifest, item, path, depth + 1))
    yield f"{indent}- {lines[0].lstrip()}"
    yield from lines[1:]


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_scalar(k)}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(item) for item in value) + "]"
    return _scalar(value)


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    text = str(value)
    if _PLAIN.match(text) and resolve_plain(text) == text:
        return text
    # JSON escapes C0 controls; DEL, C1 (a terminal's CSI among them) and the Unicode line
    # separators are escaped too, as YAML double-quoted strings allow
    return _UNPRINTABLE.sub(_escaped, json.dumps(text, ensure_ascii=False))


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"
