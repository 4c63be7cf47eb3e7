"""Managed APIs that serve an open-weight model, with their per-token prices."""

from typing import NamedTuple

from linter.catalog.memo import memoize_list
from linter.catalog.models import catalogue_key, find_model
from linter.catalog.prices import ManagedPriceRow, managed_rows, mapped_models
from linter.catalog.spelling import name_key


class ManagedOffering(NamedTuple):
    """One priced way to call a model: a provider's model id, where, at what per-token price."""

    provider: str
    model: str
    #: An AWS region, a Bedrock inference-profile geography (``us``, ``eu``, ``global``), an
    #: Azure OpenAI deployment segment (``eu``, ``global``), or None: the same price wherever
    #: the provider serves the model.
    region: str | None
    input_per_million_tokens: float
    output_per_million_tokens: float
    hf_id: str
    source: str
    source_key: str


def _offering(row: ManagedPriceRow, hf_id: str) -> ManagedOffering:
    return ManagedOffering(
        provider=row.provider,
        model=row.model,
        region=row.region,
        input_per_million_tokens=row.input_per_million_tokens,
        output_per_million_tokens=row.output_per_million_tokens,
        hf_id=hf_id,
        source=row.source,
        source_key=row.source_key,
    )


def _same_model(hf_id: str, other: str) -> bool:
    """The same weights up to an ``-Instruct``/``-Chat``/``-it`` suffix or a models.yaml alias,
    the way the memory catalogue matches ids."""
    if catalogue_key(hf_id) == catalogue_key(other):
        return True
    mine, theirs = find_model(hf_id), find_model(other)
    return mine is not None and theirs is not None and mine.id == theirs.id


@memoize_list
def managed_offerings(hf_id: str) -> list[ManagedOffering]:
    """Every priced managed offering of the open-weight model ``hf_id``, in catalogue order.

    The id matches the catalogue's Hugging Face ids by name key, else through the model
    catalogue (with or without an instruct suffix, or an alias). Offerings of the same provider
    model id in several regions are listed once per region.
    """
    exact = managed_rows(hf_id)
    if exact:
        return [_offering(row, row.hf_id or hf_id) for row in exact]
    return [
        _offering(row, mapped)
        for mapped in mapped_models()
        if name_key(mapped) != name_key(hf_id) and _same_model(hf_id, mapped)
        for row in managed_rows(mapped)
    ]
