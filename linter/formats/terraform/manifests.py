"""``kubernetes_manifest``: a Kubernetes object that Terraform applies. Its ``manifest`` is
usually rendered by Terraform itself (``yamldecode(templatefile("vllm.tftpl", {model_id =
var.model_id, ...}))``, ``yamldecode(file(...))``), which gpulint does not compute: such a
resource is a template (GL010, one note a file, at its ``manifest`` argument) rather than a file
gpulint silently reads nothing from, and the fix says how to lint what it renders."""

from __future__ import annotations

import re

from linter.formats.base import Adapted
from linter.formats.builder import Unrendered
from linter.formats.terraform.reading import Resource

#: The objects a plan renders, as one Kubernetes List gpulint reads from standard input.
_RENDERER = (
    'terraform show -json PLAN | jq \'{apiVersion: "v1", kind: "List", items: '
    '[.planned_values.root_module.resources[] | select(.type == "kubernetes_manifest") '
    "| .values.manifest]}'"
)
_CALLS = re.compile(
    r'(?P<calls>(?:[a-z_]+\()*)(?P<argument>"[^"]*"|[A-Za-z0-9_.\[\]]+)(?P<more>\s*,)?'
)


def kubernetes_manifest(resource: Resource) -> Adapted:
    if resource.unknown("manifest") is None:
        return Adapted()  # a known object: read as a Kubernetes document of its own
    builder = resource.builder()
    what = f"manifest of {resource.address}"
    builder.problem(resource.at("manifest"), Unrendered(what, _written(resource), _RENDERER))
    return Adapted(findings=builder.findings)


def _written(resource: Resource) -> str:
    """The ``manifest`` expression's calls and first argument as the file writes them
    (``yamldecode(templatefile("${path.module}/vllm.tftpl", …))``); the argument alone when it
    is no call."""
    span = resource.document.source_map.locate((*resource.root, "manifest"))
    lines = resource.file.text.splitlines()
    line = lines[span.line - 1] if 0 < span.line <= len(lines) else ""
    match = _CALLS.match(line.partition("=")[2].strip())
    if match is None:
        return "an expression"
    calls, argument, more = match.group("calls"), match.group("argument"), match.group("more")
    return f"{calls}{argument}{', …' if more else ''}{')' * calls.count('(')}"
