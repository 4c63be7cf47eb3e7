"""dstack's ``resources.gpu`` in all its forms (dstack ``GPUSpec.parse``, the ``.dstack.yml``
reference):

- a count, ``2``: any GPU (not sized: nothing says which);
- a shorthand of ``:``-separated tokens in any order: a vendor (``nvidia``, ``amd``, ``tpu``...),
  names (``A100`` or ``A100,H100``: any of them), a memory with a unit (``80GB``, ``24GB..``,
  ``40GB..80GB``) and a count (``2``, ``1..2``, ``2..``): ``A100:80GB:2``, ``24GB..:2``;
- a mapping ``{vendor, name, memory, count, total_memory, compute_capability}``, ``name`` a name
  or a list, ``count`` and ``memory`` a value, a range string or ``{min, max}``.

A range is sized at its low end, the least the launcher may give: a count of ``1..2`` is one
GPU, and a GPU given only by memory (``24GB..``) is sized as the smallest GPU with that much
(``accelerator.memoryGiB``). A name with a memory picks that variant (``A100:80GB`` is an
A100-80GB). Several names are candidates, the first one first.
"""

from __future__ import annotations

from collections.abc import Mapping

from linter.catalog.gpus import all_gpus, resolve_gpu
from linter.catalog.spelling import name_key
from linter.declared import fields_of
from linter.load.positions import Path
from linter.model.workload import Accelerator
from linter.records import datarecord

_RANGE = ".."
#: The normalised key of a GPU given only by its memory (``accelerator.memoryGiB``).
MEMORY_KEY = next(f.keys[0] for f in fields_of(Accelerator) if f.name == "memory_gib")
_MEMORY_UNITS = {"tb": 1024.0, "gb": 1.0, "mb": 1 / 1024}


class GpuProblem(ValueError):
    def __init__(self, path: Path, message: str) -> None:
        super().__init__(message)
        self.path = path


@datarecord
class GpuWanted:
    """What ``gpu`` asks for: names (empty: any), the least memory per GPU, the least count (0:
    no GPU needed)."""

    names: tuple[str, ...]
    memory_gib: float | None
    count: int


def read_gpu(value: object, path: Path, vendors: frozenset[str]) -> GpuWanted:
    """Raises GpuProblem at ``path`` for a spec dstack would refuse."""
    if isinstance(value, bool):
        raise GpuProblem(
            path, f"gpu is a count, a name:memory:count shorthand or a mapping, got {value!r}"
        )
    if isinstance(value, int):
        return GpuWanted((), None, _low_count(value, path))
    if isinstance(value, str):
        return _shorthand(value, path, vendors)
    if isinstance(value, Mapping):
        return _mapping(value, path)
    raise GpuProblem(
        path, f"gpu is a count, a name:memory:count shorthand or a mapping, got {value!r}"
    )


def _shorthand(text: str, path: Path, vendors: frozenset[str]) -> GpuWanted:
    names: tuple[str, ...] = ()
    memory: float | None = None
    count = 1
    seen: set[str] = set()
    for token in text.replace(" ", "").split(":"):
        if not token:
            raise GpuProblem(path, f"gpu {text!r} has an empty part")
        if token.lower() in vendors:
            kind = "vendor"
        elif token[0].isalpha():
            kind = "name"
            names = tuple(token.split(","))
            if not all(names):
                raise GpuProblem(path, f"gpu {text!r} has an empty name")
        elif any(ch.isalpha() for ch in token):
            kind = "memory"
            memory = _low_memory(token, path)
        else:
            kind = "count"
            count = _low_count(token, path)
        if kind in seen:
            raise GpuProblem(path, f"gpu {text!r} gives its {kind} twice")
        seen.add(kind)
    return GpuWanted(names, memory, count)


def _mapping(value: Mapping[str, object], path: Path) -> GpuWanted:
    name = value.get("name")
    if name is None:
        names: tuple[str, ...] = ()
    elif isinstance(name, str):
        names = (name,)
    elif isinstance(name, list) and name and all(isinstance(n, str) and n for n in name):
        names = tuple(str(n) for n in name)
    else:
        raise GpuProblem((*path, "name"), f"gpu name is a name or a list of names, got {name!r}")
    memory = value.get("memory")
    low_memory = None if memory is None else _low_memory(memory, (*path, "memory"))
    count = value.get("count", 1)
    return GpuWanted(names, low_memory, _low_count(count, (*path, "count")))


def _low(value: object, path: Path) -> object:
    """The low end of a range: ``a..b`` / ``a..`` / ``..b`` / ``{min, max}`` / a value."""
    if isinstance(value, Mapping):
        return value.get("min")
    if isinstance(value, str) and _RANGE in value:
        low = value.replace(" ", "").split(_RANGE, 1)[0]
        return low or None
    return value


def _low_count(value: object, path: Path) -> int:
    low = _low(value, path)
    if low is None:
        return 1
    if isinstance(low, str) and low.isdigit():
        low = int(low)
    if isinstance(low, bool) or not isinstance(low, int) or low < 0:
        raise GpuProblem(
            path, f"gpu count is a whole number or a range such as 1..2, got {value!r}"
        )
    return low


def _low_memory(value: object, path: Path) -> float | None:
    low = _low(value, path)
    if low is None:
        return None
    if isinstance(low, (int, float)) and not isinstance(low, bool):
        return float(low)
    if isinstance(low, str):
        text = low.lower()
        for unit, factor in _MEMORY_UNITS.items():
            if text.endswith(unit):
                try:
                    return float(text[: -len(unit)]) * factor
                except ValueError:
                    break
    raise GpuProblem(
        path, f"gpu memory is a size such as 24GB or a range such as 24GB.., got {value!r}"
    )


def accelerators(wanted: GpuWanted) -> list[dict[str, object]]:
    """The accelerators to size, one per candidate name (or one by memory when no name); empty
    when no GPU is needed or nothing says which."""
    if wanted.count < 1:
        return []
    if not wanted.names:
        if wanted.memory_gib is None:
            return []
        return [{MEMORY_KEY: wanted.memory_gib, "count": wanted.count}]
    return [
        {"type": _variant(name, wanted.memory_gib), "count": wanted.count} for name in wanted.names
    ]


def _variant(name: str, memory_gib: float | None) -> str:
    """The catalogue GPU a name with a least memory stands for: the GPU the name resolves to when
    it has that much (``A100`` with 40GB.. is the A100-40GB), else the smallest catalogued variant
    of that name that has it (``A100`` with 80GB is the A100-80GB); the name as written when
    neither exists."""
    base = resolve_gpu(name)
    if memory_gib is None or (base is not None and base.marketed_gb >= memory_gib):
        return base.name if base is not None else name
    prefix = name_key(name)
    variants = [
        gpu
        for gpu in all_gpus()
        if name_key(gpu.name).startswith(prefix) and gpu.marketed_gb >= memory_gib
    ]
    best = min(variants, key=lambda gpu: (gpu.marketed_gb, gpu.name), default=None)
    return best.name if best is not None else name
