"""Generate the published JSON Schemas in schemas/ from the pydantic twins of the records
(linter/declared) and of the facts (linter/facts/entry.py): the manifest kinds, the configuration
and rule files, the facts rules read, and the catalogues.

Run ``python -m linter.schemas`` after changing a model; a test fails while the files in schemas/
differ from what this produces, so the published contract cannot drift.

Editors find them two ways (docs/editors.md): a ``yaml-language-server: $schema=URL`` modeline,
which ``gpulint init`` writes, and ``schemas/schema-catalog.json``, a catalog in SchemaStore's
format that maps file names to schema URLs. A schema's ``$id`` names it (``BASE_ID``, stable
across releases of one format version); ``FETCH_BASE`` is where an editor downloads it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Union

from pydantic import BaseModel, Field, TypeAdapter

from linter.declared import Record
from linter.declared.twins import twin
from linter.model import KINDS, Workload, kind_model
from linter.model.autoscaler import Autoscaler
from linter.model.capacity_limit import CapacityLimit
from linter.model.quota_ledger import QuotaLedger

DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE_ID = "https://gpulint.dev/schemas/v1alpha1/"
#: Where the published schemas can be downloaded: the repository's schemas/ folder on main.
FETCH_BASE = "https://raw.githubusercontent.com/gpulint/gpulint/main/schemas/"
CATALOG = "schema-catalog.json"
CATALOG_SCHEMA = "https://json.schemastore.org/schema-catalog.json"
#: Schema file -> the file names an editor applies it to without a modeline (none for the
#: manifests: their files have no fixed name, so they carry the modeline ``gpulint init`` writes).
FILE_MATCH = {"config.schema.json": [".gpulint.yaml", ".gpulint.yml"]}
#: The schemas an editor validates files against (the facts schema describes output).
EDITED = ("gpulint.schema.json", "config.schema.json", "rule.schema.json")


def _finish(schema: dict[str, Any], file: str, title: str) -> dict[str, Any]:
    return {"$schema": DRAFT, "$id": BASE_ID + file, **schema, "title": title}


def _model_schema(model: type[BaseModel] | type[Record]) -> dict[str, Any]:
    """A pydantic model's schema, or a declared record's (its twin's: linter/declared)."""
    return model.model_json_schema(by_alias=True, mode="validation")


def generate() -> dict[str, dict[str, Any]]:
    """File name -> schema, for every schema gpulint publishes."""
    from linter.config import Config
    from linter.facts.entry import FactsEntry
    from linter.policy.rule_file import RuleFile

    kinds = tuple(twin(kind) for kind in (Workload, QuotaLedger, CapacityLimit, Autoscaler))
    any_kind: Any = Annotated[Union[kinds], Field(discriminator="kind")]  # noqa: UP007 - a tuple
    manifest = TypeAdapter(any_kind).json_schema(by_alias=True, mode="validation")
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
    for kind in KINDS:
        file = f"{kind.lower()}.schema.json"
        out[file] = _finish(_model_schema(kind_model(kind)), file, f"gpulint {kind}")
    return out


def catalog(schemas: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The SchemaStore-style catalog of the schemas files are written against."""
    entries = []
    for file in EDITED:
        entry: dict[str, Any] = {
            "name": schemas[file]["title"],
            "description": f"{schemas[file]['title']} ({schemas[file]['$id']})",
            "url": FETCH_BASE + file,
        }
        if file in FILE_MATCH:
            entry["fileMatch"] = FILE_MATCH[file]
        entries.append(entry)
    return {"$schema": CATALOG_SCHEMA, "version": 1, "schemas": entries}


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=False) + "\n"


def main(argv: list[str]) -> int:
    from linter.catalog import schemas as catalogue_schemas

    target = Path(argv[0]) if argv else Path(__file__).resolve().parents[1] / "schemas"
    schemas = generate()
    for name, schema in {**schemas, CATALOG: catalog(schemas)}.items():
        (target / name).write_text(render(schema), encoding="utf-8")
        print(f"wrote {target / name}")
    return catalogue_schemas.main([str(target / "catalog")])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
