"""Generate the published JSON Schemas in schemas/ from the pydantic models: the manifest kinds,
the configuration and rule files, the facts rules read, and the catalogues.

Run ``python -m linter.schemas`` after changing a model; a test fails while the files in schemas/
differ from what this produces, so the published contract cannot drift.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, Field, TypeAdapter

from linter.model import KINDS, Autoscaler, CapacityLimit, QuotaLedger, Workload

DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE_ID = "https://gpulint.dev/schemas/v1alpha1/"


def _finish(schema: dict[str, Any], file: str, title: str) -> dict[str, Any]:
    return {"$schema": DRAFT, "$id": BASE_ID + file, **schema, "title": title}


def _model_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(by_alias=True, mode="validation")


def generate() -> dict[str, dict[str, Any]]:
    """File name -> schema, for every schema gpulint publishes."""
    from linter.config import Config
    from linter.facts.entry import FactsEntry
    from linter.policy.rule_file import RuleFile

    manifest = TypeAdapter(
        Annotated[Workload | QuotaLedger | CapacityLimit | Autoscaler, Field(discriminator="kind")]
    ).json_schema(by_alias=True, mode="validation")
    out = {
        "gpulint.schema.json": _finish(
            manifest, "gpulint.schema.json", "gpulint manifest (any kind)"
        ),
        "config.schema.json": _finish(
            _model_schema(Config), "config.schema.json", "gpulint configuration"
        ),
        "rule.schema.json": _finish(
            _model_schema(RuleFile), "rule.schema.json", "gpulint rule file"
        ),
        "facts.schema.json": _finish(
            TypeAdapter(list[FactsEntry]).json_schema(by_alias=True, mode="serialization"),
            "facts.schema.json",
            "gpulint facts output (per workload; rules read each entry's facts)",
        ),
    }
    for kind, model in KINDS.items():
        file = f"{kind.lower()}.schema.json"
        out[file] = _finish(_model_schema(model), file, f"gpulint {kind}")
    return out


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=False) + "\n"


def main(argv: list[str]) -> int:
    from linter.catalog import schemas as catalogue_schemas

    target = Path(argv[0]) if argv else Path(__file__).resolve().parents[1] / "schemas"
    for name, schema in generate().items():
        (target / name).write_text(render(schema), encoding="utf-8")
        print(f"wrote {target / name}")
    return catalogue_schemas.main([str(target / "catalog")])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
