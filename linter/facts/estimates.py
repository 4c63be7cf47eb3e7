"""The estimates facts compute, remembered under their inputs: the memory estimates of
:mod:`linter.memory` and the managed API comparison of :mod:`linter.pricing`.

A repository of thousands of workloads asks for the same few estimates over and over (one
model on one GPU at one batch and context; one model self-hosted on one instance type against
the same managed offerings); each costs a fraction of a millisecond or more. The estimates
are pure functions of their arguments and their results are frozen, so equal inputs share one
result. Inputs are compared by their ``repr``: a catalogue GPU (a record holding lists)
is not hashable, and ``repr`` tells 1 from 1.0 and True where equality does not; the GPU itself
by identity, which is as exact and cheaper (:class:`_Keyed`).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from linter.declared import Record
from linter.records import is_frozen

if TYPE_CHECKING:
    from linter.catalog.gpus import GpuSpec
    from linter.memory.inference import InferenceEstimate
    from linter.memory.training import TrainingEstimate
    from linter.pricing import SelfHosted, SelfHostingComparison, TokenVolume

#: Most results of each kind remembered (least recently used forgotten first).
REMEMBERED = 4096


class _Keyed:
    """An argument that hashes and compares by its ``repr``; in a dict of settings, a declared
    record (the catalogue GPU every workload on it shares, whose ``repr`` was most of the cost of
    the key) by its identity instead: the key holds the record, so no other object takes its id
    while the key is remembered, and an equal record elsewhere is only a miss. A frozen
    record (a model's architecture) by its ``repr`` made once per object."""

    __slots__ = ("key", "value")

    def __init__(self, value: Any) -> None:
        self.value = value
        self.key: Any
        if isinstance(value, dict):
            records = {name: id(v) for name, v in value.items() if isinstance(v, Record)}
            plain = {name: v for name, v in value.items() if name not in records}
            self.key = (repr(plain), tuple(records.items()))
        elif is_frozen(type(value)):
            self.key = _frozen_repr(value)
        else:
            self.key = repr(value)

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Keyed) and self.key == other.key


#: The ``repr`` of frozen records seen lately, by identity, each kept with its record so that
#: no other object takes its id while it is here.
_REPRS: dict[int, tuple[Any, str]] = {}


def _frozen_repr(record: Any) -> str:
    """``repr(record)`` of a frozen record (linter/records.py), made once per object: a
    catalogue model's architecture is one object shared by every workload that names the model,
    and its ``repr`` (every size and layer of it) was most of the cost of a memory estimate's
    key."""
    found = _REPRS.get(id(record))
    if found is not None:  # its record is held here, so the id is still that record's
        return found[1]
    text = repr(record)
    if len(_REPRS) >= REMEMBERED:
        del _REPRS[next(iter(_REPRS))]
    _REPRS[id(record)] = (record, text)
    return text


def inference(arch: Any, **settings: Any) -> InferenceEstimate:
    """``linter.memory.estimate_inference(arch, **settings)``, remembered."""
    return _inference(_Keyed(arch), _Keyed(settings))


def training(arch: Any, **settings: Any) -> TrainingEstimate:
    """``linter.memory.estimate_training(arch, **settings)``, remembered."""
    return _training(_Keyed(arch), _Keyed(settings))


def managed_comparison(
    model_id: str, hosted: SelfHosted, hours: float, tokens: float | None, allowed: list[str]
) -> tuple[SelfHostingComparison, TokenVolume | None]:
    """``linter.pricing.compare_self_hosting`` of the model self-hosted as ``hosted`` for
    ``hours`` a month at ``tokens`` a minute (None: not declared), with the token volume it
    assumed; remembered."""
    return _managed(_Keyed((model_id, hosted, hours, tokens, allowed)))


@functools.lru_cache(maxsize=REMEMBERED)
def smallest_fitting_gpu(required: int, headroom: float) -> GpuSpec | None:
    """``linter.memory.smallest_fitting_gpu``, remembered."""
    from linter.memory import smallest_fitting_gpu as find

    return find(required, headroom)


@functools.lru_cache(maxsize=REMEMBERED)
def _inference(arch: _Keyed, settings: _Keyed) -> InferenceEstimate:
    from linter.memory import estimate_inference

    return estimate_inference(arch.value, **settings.value)


@functools.lru_cache(maxsize=REMEMBERED)
def _training(arch: _Keyed, settings: _Keyed) -> TrainingEstimate:
    from linter.memory import estimate_training

    return estimate_training(arch.value, **settings.value)


@functools.lru_cache(maxsize=REMEMBERED)
def _managed(arguments: _Keyed) -> tuple[SelfHostingComparison, TokenVolume | None]:
    from linter.pricing import compare_self_hosting, token_volume

    model_id, hosted, hours, tokens, allowed = arguments.value
    volume = None if tokens is None else token_volume(tokens_per_minute=tokens)
    result = compare_self_hosting(
        model_id, hosted, hours_per_month=hours, volume=volume, allowed=allowed
    )
    return result, volume
