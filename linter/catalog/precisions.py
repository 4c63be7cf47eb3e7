"""Weight and KV-cache storage formats (precisions) and the quantisation methods that use them."""

import functools
from fractions import Fraction
from typing import Literal

from linter.catalog.base import Catalogue, Record, validated
from linter.catalog.spelling import name_key
from linter.declared import Field, empty_list

Scope = Literal["all", "decoder_matrices", "experts"]


class PrecisionSpec(Record):
    """A storage format: bits per value plus its group scales and zero points."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    aliases: list[str] = Field(default_factory=empty_list)
    value_bits: int = Field(ge=1, le=32)
    group_size: int | None = Field(None, ge=1, description="Values sharing one scale.")
    scale_bits: float = Field(0, ge=0, description="Bits of each group's scale.")
    zero_bits: float = Field(0, ge=0, description="Bits of each group's zero point.")
    scope: Scope = Field(description="Which tensors the format stores at these bits.")
    kv_bytes: int | None = Field(None, ge=1, description="Bytes per KV element, if a KV dtype.")
    pad_intermediate_to: int | None = Field(
        None, ge=1, description="vLLM pads each rank's expert intermediate size to a multiple."
    )
    pad_hidden_to: int | None = Field(
        None, ge=1, description="vLLM pads the expert hidden size to a multiple."
    )
    source: str = Field(min_length=1)

    @property
    def bits_per_value(self) -> Fraction:
        """Exact bits per stored value, group scales and zero points included."""
        extra = Fraction(self.scale_bits) + Fraction(self.zero_bits)
        return Fraction(self.value_bits) + (extra / self.group_size if self.group_size else 0)


class QuantizationMethod(Record):
    """A vLLM ``--quantization`` name (config.json ``quant_method``) and its default precision."""

    name: str = Field(min_length=1)
    aliases: list[str] = Field(default_factory=empty_list)
    precision: str = Field(min_length=1, description="Default precisions.yaml name.")
    precision_from: str | None = Field(
        None, description="quantization_config field that can select another precision."
    )
    source: str = Field(min_length=1)


class PrecisionCatalogue(Catalogue):
    """gpulint precision and quantisation-method catalogue."""

    precisions: list[PrecisionSpec] = Field(min_length=1)
    quantization_methods: list[QuantizationMethod] = Field(min_length=1)


def catalogue() -> PrecisionCatalogue:
    return validated("precisions", PrecisionCatalogue)


def precision_names() -> tuple[str, ...]:
    """Canonical precision names in catalogue order (the Workload ``precision`` values)."""
    return tuple(p.name for p in catalogue().precisions)


def kv_precision_names() -> tuple[str, ...]:
    return tuple(p.name for p in catalogue().precisions if p.kv_bytes is not None)


@functools.cache
def _precision_index() -> dict[str, PrecisionSpec]:
    return {name_key(n): p for p in catalogue().precisions for n in (p.name, *p.aliases)}


@functools.cache
def _method_index() -> dict[str, QuantizationMethod]:
    return {name_key(n): m for m in catalogue().quantization_methods for n in (m.name, *m.aliases)}


def find_precision(name: str) -> PrecisionSpec | None:
    return _precision_index().get(name_key(name))


def find_quantization_method(name: str) -> QuantizationMethod | None:
    return _method_index().get(name_key(name))
