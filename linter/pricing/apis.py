"""Per-token prices of managed model APIs and which open-weight models they offer."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from linter import catalog
from linter.catalog.models import catalogue_entry, catalogue_key
from linter.memo import memoize_list

#: ``region`` value of a price that is the same in every region the provider offers the model.
ANY_REGION = "*"


@dataclass(frozen=True)
class ApiPrice:
    provider: str
    model: str
    region: str
    input_per_million_tokens: float
    output_per_million_tokens: float
    source: str
    hf_id: str | None = None
    #: False when the price is not specific to the region asked for (a ``*`` entry, or the
    #: cheapest listed region when no region was asked for).
    region_matched: bool = True


@dataclass(frozen=True)
class Offering:
    provider: str
    model: str
    has_price: bool


def _api(entry: Mapping[str, Any], region_matched: bool) -> ApiPrice:
    return ApiPrice(
        provider=entry["provider"],
        model=entry["model"],
        region=entry["region"],
        input_per_million_tokens=float(entry["input_per_million_tokens"]),
        output_per_million_tokens=float(entry["output_per_million_tokens"]),
        source=entry["source"],
        hf_id=entry.get("hf_id"),
        region_matched=region_matched,
    )


def _total(entry: Mapping[str, Any]) -> tuple[float, float, str]:
    return (
        float(entry["input_per_million_tokens"]),
        float(entry["output_per_million_tokens"]),
        entry["region"],
    )


@functools.lru_cache(maxsize=4096)
def api_price(provider: str, model: str, region: str | None) -> ApiPrice | None:
    """The catalogued per-token price of ``model`` (the provider's model id) on ``provider``.

    Provider, model and region compare case-insensitively. A price for the exact region wins;
    otherwise a ``*`` (uniform) price applies with ``region_matched=False``. With ``region=None``
    the ``*`` price is returned, or failing that the cheapest listed region (lowest input, then
    output price), also with ``region_matched=False``. None when nothing is catalogued.
    """
    wanted_provider = provider.strip().lower()
    wanted_model = model.strip().lower()
    entries = [
        entry
        for entry in catalog.load("prices")["managed_apis"]
        if entry["provider"] == wanted_provider and entry["model"].lower() == wanted_model
    ]
    if region is not None:
        wanted_region = region.strip().lower()
        for entry in entries:
            if entry["region"].lower() == wanted_region:
                return _api(entry, region_matched=True)
    uniform = [entry for entry in entries if entry["region"] == ANY_REGION]
    if uniform:
        return _api(uniform[0], region_matched=False)
    if region is None and entries:
        return _api(min(entries, key=_total), region_matched=False)
    return None


def _same_model(hf_id: str, other: str) -> bool:
    """Same model, the way ``linter.memory.architecture.catalogue_entry`` matches ids."""
    if catalogue_key(hf_id) == catalogue_key(other):
        return True
    mine, theirs = catalogue_entry(hf_id), catalogue_entry(other)
    return mine is not None and theirs is not None and mine["id"] == theirs["id"]


@memoize_list
def managed_offerings(hf_id: str) -> list[Offering]:
    """Managed APIs that serve the open-weight model ``hf_id`` (a Hugging Face id).

    The id matches case-insensitively and with or without an ``-Instruct``/``-Chat``/``-it``
    suffix, or through models.yaml aliases, as the memory catalogue lookup does. An offering is
    listed once per (provider, model), from ``managed_offerings`` or from a priced
    ``managed_apis`` entry; ``has_price`` says whether any price for it is catalogued.
    """
    data = catalog.load("prices")
    priced = {
        (entry["provider"], entry["model"].lower()): entry
        for entry in data["managed_apis"]
        if entry.get("hf_id")
    }
    priced_models = {(entry["provider"], entry["model"].lower()) for entry in data["managed_apis"]}
    found: dict[tuple[str, str], Offering] = {}
    candidates = [*data["managed_offerings"], *priced.values()]
    for entry in candidates:
        if not _same_model(hf_id, entry["hf_id"]):
            continue
        key = (entry["provider"], entry["model"].lower())
        if key not in found:
            found[key] = Offering(entry["provider"], entry["model"], key in priced_models)
    return list(found.values())
