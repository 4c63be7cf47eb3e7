"""SkyPilot's ``resources.accelerators`` in its three forms (the SkyPilot YAML reference):

- one accelerator, ``H100:8`` (or ``H100``, a count of 1);
- an ordered list, ``[L4:1, A100:1]``: tried in that order;
- an unordered set, ``{L4:1, A100:1}``: the optimizer tries the cheapest first. YAML reads a set
  written ``{L4:1, A100:1}`` as a mapping whose keys are ``L4:1`` and whose values are empty, and
  ``{L4: 1, A100: 1}`` as names mapped to counts; both are read here.

Every entry keeps the path it is written at, so a finding about one candidate points at it.
"""

from __future__ import annotations

from collections.abc import Mapping

from linter.load.positions import Path
from linter.records import datarecord


@datarecord
class AcceleratorRequest:
    name: str
    count: int
    path: Path


class AcceleratorProblem(ValueError):
    def __init__(self, path: Path, message: str) -> None:
        super().__init__(message)
        self.path = path


def read_accelerators(value: object, path: Path) -> list[AcceleratorRequest]:
    """Every accelerator candidate of the value at ``path``, in the order written; raises
    AcceleratorProblem (at the offending entry) for what SkyPilot would refuse or gpulint cannot
    size."""
    if isinstance(value, str):
        return [_entry(value, None, path)]
    if isinstance(value, list):
        out = []
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise AcceleratorProblem(
                    (*path, index), f"an accelerator is written <name>:<count>, got {item!r}"
                )
            out.append(_entry(item, None, (*path, index)))
        return out
    if isinstance(value, Mapping):
        return [_entry(str(key), count, (*path, str(key))) for key, count in value.items()]
    raise AcceleratorProblem(
        path,
        "accelerators is <name>:<count>, a list of them (tried in order) or a set {...} "
        f"(cheapest first), got {value!r}",
    )


def _entry(text: str, count: object, path: Path) -> AcceleratorRequest:
    name, colon, written = text.strip().partition(":")
    if not name:
        raise AcceleratorProblem(path, f"accelerator {text!r} has no name")
    if colon and count is not None:
        raise AcceleratorProblem(path, f"accelerator {text!r} gives its count twice")
    number: object = count if not colon else _number(written)
    if number is None:
        number = 1
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        raise AcceleratorProblem(path, f"accelerator count of {text!r} is not a number")
    if number != int(number) or number < 1:
        raise AcceleratorProblem(
            path,
            f"accelerator {name}:{_plain(number)} is a fraction of a GPU: gpulint sizes whole "
            "GPUs (a shared GPU's memory is not known here)",
        )
    return AcceleratorRequest(name, int(number), path)


def _number(text: str) -> object:
    try:
        return float(text) if "." in text else int(text)
    except ValueError:
        return text


def _plain(number: float) -> str:
    return str(int(number)) if number == int(number) else str(number)
