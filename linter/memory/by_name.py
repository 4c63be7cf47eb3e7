"""The architecture a model name stands for, and what to say when it stands for none.

In order: the catalogue's record of the same weights (an id, alias, variant or mirror of it);
else the ``config.json`` the local Hugging Face cache holds for that exact id (what was actually
downloaded beats what the catalogue derives); else the catalogue's base model of a quantised
release or distill (:mod:`linter.catalog.models`). Never the network.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from linter.catalog.models import nearest_models, resolve_model
from linter.memory.architecture import (
    Architecture,
    ArchitectureError,
    architecture_from_catalogue,
    architecture_from_hf_config,
)
from linter.records import datarecord


@datarecord
class NamedArchitecture:
    arch: Architecture
    source: Literal["catalogue", "hf-cache"]
    #: How the name was sized when not as the catalogued weights themselves (a sentence).
    note: str | None = None


def architecture_by_name(
    model_id: str, env: Mapping[str, str] | None = None
) -> NamedArchitecture | None:
    """The architecture ``model_id`` names; None when neither the catalogue nor the local
    cache knows it. Raises ArchitectureError for a config that cannot be sized."""
    resolution = resolve_model(model_id)
    if resolution is not None and resolution.same_weights:
        arch = architecture_from_catalogue(model_id)
        assert arch is not None
        return NamedArchitecture(arch, "catalogue")
    from linter.catalog.hf_cache import cached_config

    cached = cached_config(model_id, env)
    if cached is not None and cached.config is not None:
        try:
            arch = architecture_from_hf_config(cached.config)
        except ArchitectureError as err:
            raise ArchitectureError(f"{cached.path} (local Hugging Face cache): {err}") from None
        note = f"config.json of {model_id!r} from {cached.path}"
        return NamedArchitecture(arch, "hf-cache", note)
    if resolution is not None:
        arch = architecture_from_catalogue(model_id)
        assert arch is not None
        return NamedArchitecture(arch, "catalogue", resolution.note(model_id))
    if cached is not None:
        raise ArchitectureError(f"{cached.path} (local Hugging Face cache): {cached.problem}")
    return None


def unknown_model_hint(model_id: str) -> str:
    """What follows "not in gpulint's catalogue" for a name that resolves to nothing: the
    nearest catalogued ids, and where to see them all."""
    nearest = nearest_models(model_id)
    closest = f"nearest catalogued: {', '.join(nearest)}; " if nearest else ""
    return f"{closest}`gpulint models` lists them all"
