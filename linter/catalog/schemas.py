"""Generate ``schemas/catalog/*.schema.json`` from the catalogue models.

Run ``python -m linter.catalog.schemas`` after changing a catalogue model; a test fails while a
published schema differs from what this produces.
"""

import json
import sys
from pathlib import Path
from typing import Any

from linter.catalog.base import Catalogue

DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE_ID = "https://gpulint.dev/schemas/catalog/"


def registry() -> dict[str, type[Catalogue]]:
    """Catalogue file name (``data/<name>.yaml``) -> its model. The one list of catalogues."""
    from linter.catalog import (
        availability,
        endpoints,
        engines,
        gpus,
        instances,
        jurisdictions,
        model_names,
        models,
        precisions,
        prices,
        quotas,
        regions,
        spot,
    )

    return {
        "availability": availability.AvailabilityCatalogue,
        "engines": engines.EngineReleaseCatalogue,
        "gpus": gpus.GpuCatalogue,
        "instance_types": instances.InstanceCatalogue,
        "jurisdictions": jurisdictions.JurisdictionCatalogue,
        "managed_endpoints": endpoints.EndpointCatalogue,
        "model_names": model_names.ModelNamesCatalogue,
        "models": models.ModelCatalogue,
        "precisions": precisions.PrecisionCatalogue,
        "prices": prices.Prices,
        "quotas": quotas.QuotaCatalogue,
        "regions": regions.RegionCatalogue,
        "spot": spot.SpotCatalogue,
    }


def generate() -> dict[str, dict[str, Any]]:
    out = {}
    for name, model in registry().items():
        file = f"{name}.schema.json"
        schema = model.model_json_schema(mode="validation")
        out[file] = {"$schema": DRAFT, "$id": BASE_ID + file, **schema}
    return out


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2) + "\n"


def main(argv: list[str]) -> int:
    target = Path(argv[0]) if argv else Path(__file__).resolve().parents[2] / "schemas" / "catalog"
    for name, schema in generate().items():
        (target / name).write_text(render(schema), encoding="utf-8")
        print(f"wrote {target / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
