"""Corrections measured on one's own hardware: a calibration file read from a vLLM start-up log.

A calibration file (YAML or JSON) lists, per GPU and engine version, what a real start-up showed
that the estimate did not: the torch-visible total of that GPU and how much more (or less) memory
than predicted vLLM kept outside the KV cache (non-torch buffers, activation peak, CUDA graphs)::

    calibrations:
      - gpu: H100-80GB            # a catalogue name or alias
        engine_version: "0.11"    # applies to 0.11 and 0.11.x
        torch_visible_bytes: 84943715697
        non_kv_delta_bytes: 268435456
        source: "our start-up log of 2026-11-30"

``gpulint memory --from-log`` prints such an entry for a log; the estimate applies the entries that
match its GPU and engine version.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from linter.catalog.gpus import resolve_gpu
from linter.catalog.spelling import name_key
from linter.load import Refusal, load_text, read_bounded
from linter.records import datarecord

#: A calibration file holds a few entries per GPU and engine version.
MAX_CALIBRATION_BYTES = 1024 * 1024


class CalibrationError(ValueError):
    """A calibration file that cannot be used; the message names the file and position."""


class CalibrationEntry(BaseModel):
    # defer_build: the validator is built when a calibration file is first read, not at import
    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid", strict=True)

    gpu: str = Field(min_length=1)
    engine_version: str = Field(pattern=r"^v?\d+(\.\d+){0,2}$")
    torch_visible_bytes: int | None = Field(None, gt=0)
    non_kv_delta_bytes: int = Field(0, ge=-(1 << 40), le=1 << 40)
    source: str = Field(min_length=1)


class CalibrationFile(BaseModel):
    # defer_build: the validator is built when a calibration file is first read, not at import
    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid", strict=True)

    calibrations: list[CalibrationEntry]


def _same_release(entry: str, version: str) -> bool:
    """``0.11`` matches 0.11 and 0.11.x; ``0.11.2`` only itself."""
    want = entry.removeprefix("v").split(".")
    return version.removeprefix("v").split(".")[: len(want)] == want


@datarecord
class Calibration:
    entries: tuple[CalibrationEntry, ...]

    def _matching(self, gpu: str, version: str) -> list[CalibrationEntry]:
        return [
            e
            for e in self.entries
            if name_key(e.gpu) == name_key(gpu) and _same_release(e.engine_version, version)
        ]

    def non_kv_delta_bytes(self, gpu: str, version: str) -> int:
        return sum(e.non_kv_delta_bytes for e in self._matching(gpu, version))

    def usable_bytes(self, gpu: str, version: str) -> int | None:
        totals = [e.torch_visible_bytes for e in self._matching(gpu, version)]
        return next((t for t in totals if t is not None), None)

    def describe(self, gpu: str, version: str) -> list[str]:
        return [f"calibrated from {e.source}" for e in self._matching(gpu, version)]


def parse_calibration(text: str, name: str) -> Calibration:
    """A calibration from file text; CalibrationError with ``name:line:column`` when invalid."""
    loaded = load_text(text)
    if loaded.problems:
        problem = loaded.problems[0]
        span = problem.span
        raise CalibrationError(f"{name}:{span.line}:{span.column}: {problem.message}")
    if len(loaded.documents) != 1:
        raise CalibrationError(f"{name}: expected one YAML or JSON document")
    document = loaded.documents[0]
    try:
        parsed = CalibrationFile.model_validate(document.data)
    except ValidationError as err:
        first = err.errors()[0]
        span = document.source_map.locate(tuple(first["loc"]))
        where = ".".join(str(part) for part in first["loc"]) or "file"
        raise CalibrationError(
            f"{name}:{span.line}:{span.column}: {where}: {first['msg']}"
        ) from None
    for index, entry in enumerate(parsed.calibrations):
        if resolve_gpu(entry.gpu) is None:
            span = document.source_map.locate(("calibrations", index, "gpu"))
            raise CalibrationError(f"{name}:{span.line}:{span.column}: unknown GPU {entry.gpu!r}")
    return Calibration(tuple(parsed.calibrations))


def load_calibration(path: Path) -> Calibration:
    """Read a calibration file (bounded: a FIFO, a device or a file over 1 MiB is refused);
    CalibrationError (never a traceback) for unreadable input."""
    content = read_bounded(path, MAX_CALIBRATION_BYTES)
    if isinstance(content, Refusal):
        raise CalibrationError(f"{path}: cannot be read: {content.message()}")
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as err:
        raise CalibrationError(f"{path}: cannot be read: {err}") from None
    return parse_calibration(text, str(path))
