"""Terraform (HCL): GPU capacity, managed inference and quota requests where an organisation
declares them.

A ``.tf`` file is read with the rest of its module by ``linter.load.terraform`` (variables,
locals and auto-loaded ``.tfvars`` resolved where they are literal, unknown otherwise); each
instance of a resource of a type in ``data/terraform.yaml`` is one document, recognised here by
its shape (``{"resource": {TYPE: {NAME: ...}}}``, Terraform's JSON syntax) in a ``.tf`` file,
and adapted by the reader its type names: capacity (``capacity.py``), managed inference
(``managed.py``) or quota requests (``quotas.py``). Recognition and the byte markers import none
of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.formats.base import Adapted, InputFile
from linter.load import Document

name: str = "terraform"


def __getattr__(attribute: str) -> tuple[bytes, ...]:
    """``markers``, the resource types read, from the vocabulary's data file when first asked
    for: every YAML document a gpulint manifest's format does not take is offered to this
    module's ``recognises`` first, which needs none of them (issue 31)."""
    if attribute == "markers":
        from linter.formats.markers import TERRAFORM

        return TERRAFORM
    raise AttributeError(f"module {__name__!r} has no attribute {attribute!r}")


def recognises(data: Mapping[str, Any], source: InputFile) -> bool:
    if not source.fs_path.name.endswith(".tf") or list(data) != ["resource"]:
        return False
    types = data["resource"]
    return isinstance(types, Mapping) and len(types) == 1


def claims(text: str) -> bool:
    """A ``.tf`` file that does not parse is reported when it names a type gpulint reads."""
    from linter.formats.markers import TERRAFORM

    return any(marker.decode() in text for marker in TERRAFORM)


def adapt(document: Document, source: InputFile) -> Adapted:
    from linter.formats.terraform.readers import adapt as read

    return read(document, source)


__all__ = ["adapt", "claims", "markers", "name", "recognises"]
