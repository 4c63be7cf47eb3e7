"""One Terraform resource instance as its readers see it: its known values with where the file
writes them and what the file calls them, the region it is created in, and its comment
annotations.

A value is *known* when Terraform would know it before planning (``linter.load.terraform``);
an unknown one is never guessed: the reader leaves the field unset. Names for messages are the
file's own: ``autoscaling.min_node_count of google_container_node_pool.train``, with the place
a value came through when it is not the argument itself (``from the default of variable
"min_nodes", variables.tf:3``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.catalog.regions import region
from linter.formats.base import InputFile
from linter.formats.builder import ManifestBuilder, WorkloadBuilder
from linter.formats.platforms.shared import workload_name
from linter.load.positions import Path, format_path
from linter.load.terraform import ANNOTATIONS, TerraformDocument
from linter.load.terraform_values import Unknown, to_number
from linter.model.assumptions import ANNOTATION_PREFIX
from linter.model.provenance import Origin
from linter.records import datarecord

FORMAT = "terraform"


@datarecord
class TerraformValue:
    """A known value, where the file writes it, and what the file calls it."""

    value: Any
    origin: Origin
    name: str  # with where the value came from: for messages about the value
    label: str = ""  # the argument alone: for messages about what to change

    def named(self, value: Any, name: str) -> TerraformValue:
        """The same place with another value and name."""
        return TerraformValue(value, self.origin, name, self.label)


class Resource:
    """One instance of a resource, read through its document."""

    def __init__(self, document: TerraformDocument, file: InputFile) -> None:
        self.document = document
        self.file = file
        self.root = document.root

    @property
    def type(self) -> str:
        return self.document.type

    @property
    def address(self) -> str:
        return self.document.address

    def raw(self, *path: str | int) -> Any:
        """The value at ``path`` of the body (None when absent; an ``Unknown`` as it is)."""
        node: Any = self.document.body()
        for part in path:
            if isinstance(part, int) and isinstance(node, list) and 0 <= part < len(node):
                node = node[part]
            elif isinstance(part, str) and isinstance(node, Mapping):
                node = node.get(part)
            else:
                return None
        return node

    def block(self, *path: str | int) -> tuple[str | int, ...] | None:
        """The path of the first block ``path`` names (``node_config`` -> ``node_config[0]``)."""
        value = self.raw(*path)
        if isinstance(value, list) and value and isinstance(value[0], Mapping):
            return (*path, 0)
        return None

    def get(self, *path: str | int) -> TerraformValue | None:
        """The known value at ``path``, or None (absent, unknown, or null)."""
        value = self.raw(*path)
        if value is None or isinstance(value, Unknown):
            return None
        return TerraformValue(value, self.at(*path), self.name(*path), self.label(*path))

    def text(self, *path: str | int) -> TerraformValue | None:
        found = self.get(*path)
        return found if found is not None and isinstance(found.value, str) and found.value else None

    def number(self, *path: str | int) -> TerraformValue | None:
        """A known whole number at ``path`` (``"3"`` is 3, as Terraform converts it)."""
        found = self.get(*path)
        if found is None:
            return None
        number = to_number(found.value)
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            return None
        return found.named(number, found.name)

    def flag(self, *path: str | int) -> TerraformValue | None:
        """A known bool at ``path`` (``"true"`` is true, as Terraform converts it)."""
        found = self.get(*path)
        if found is None:
            return None
        value = found.value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            value = value.lower() == "true"
        return found.named(value, found.name) if isinstance(value, bool) else None

    def unknown(self, *path: str | int) -> str | None:
        """Why the value at ``path`` is not known, when it is not."""
        value = self.raw(*path)
        return value.reason if isinstance(value, Unknown) else None

    def at(self, *path: str | int) -> Origin:
        return Origin((*self.root, *path))

    def label(self, *path: str | int) -> str:
        """``autoscaling.min_node_count of google_container_node_pool.train`` (the indexes of
        single blocks left out)."""
        written = format_path(tuple(p for p in path if not isinstance(p, int) or p > 0))
        return f"{written} of {self.address}"

    def name(self, *path: str | int) -> str:
        """The argument's label and, when the value came through another place, that place:
        ``(from the default of variable "min_nodes", variables.tf:3)``."""
        text = self.label(*path)
        via = self.document.origins.get(tuple(path))
        if via:
            first = via[0]
            text += f" (from the {first.what}, {first.file}:{first.span.line})"
        return text

    def workload_name(self) -> str:
        key = self.document.key
        written = self.document.name if key is None else f"{self.document.name}-{key}"
        return workload_name(written, self.file.fs_path, "terraform-resource")

    def manifest_builder(self, part: int) -> ManifestBuilder:
        """A builder of another kind (a node pool's limit, a ledger) read from the resource."""
        return ManifestBuilder(self.document, self.file, **self._naming(part))

    def builder(self) -> WorkloadBuilder:
        return WorkloadBuilder(self.document, self.file, **self._naming(0))

    def _naming(self, part: int) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "source_kind": self.type,
            "name": self.workload_name(),
            "object_path": self.root,
            "part": part,
        }

    def annotated(self) -> dict[str, Any]:
        """The comment annotations as the builder reads them (``metadata.annotations``)."""
        annotations = {ANNOTATION_PREFIX + k: v for k, v in self.document.annotations.items()}
        return {"metadata": {"annotations": annotations}}

    def provider_region(self, provider: str) -> TerraformValue | None:
        """The region of the provider configuration the resource uses (``provider = aws.eu``
        picks the one with that alias), pointing at the resource."""
        module = self.document.module
        if module is None:
            return None
        named = self.document.provider
        config = module.provider(*named) if named is not None else module.provider(provider)
        if config is None:
            return None
        values, where = config
        given = values.get("region")
        if given is None or not isinstance(given.value, str):
            return None
        written = f"{where.what} ({where.file}:{where.span.line})"
        return TerraformValue(
            given.value, Origin(self.root), f"region of {written}, used by {self.address}"
        )

    def argument_of(self, path: tuple[str | int, ...], attribute: str) -> TerraformValue | None:
        """``attribute`` of the resource the argument at ``path`` refers to
        (``kubernetes_cluster_id = azurerm_kubernetes_cluster.main.id`` -> its ``location``),
        pointing at that argument."""
        referred = self.document.references.get(path)
        module = self.document.module
        if referred is None or module is None:
            return None
        value = module.argument(*referred, attribute)
        if value is None or not isinstance(value.value, str):
            return None
        origin = value.via[0]
        name = f"{attribute} of {referred[0]}.{referred[1]} ({origin.file}:{origin.span.line})"
        return TerraformValue(value.value, self.at(*path), name)


def region_code(provider: str, found: TerraformValue | None) -> TerraformValue | None:
    """A region, zone or Azure display name (``West Europe``) as the catalogue's region code;
    as written when the catalogue does not know it."""
    if found is None or not isinstance(found.value, str):
        return None
    known = region(provider, found.value)
    return found.named(known.region if known else found.value, found.name)


def set_found(builder: ManifestBuilder, path: str | Path, found: TerraformValue | None) -> None:
    if found is not None:
        builder.set(path, found.value, found.origin, name=found.name)


def annotation_path(suffix: str) -> Path:
    """Where a comment annotation is recorded in the document's source map."""
    return (*ANNOTATIONS, ANNOTATION_PREFIX + suffix)
