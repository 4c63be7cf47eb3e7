"""A Terraform file read into documents, one per instance of each resource it declares, with
the values Terraform knows before planning and the span each was written at.

A module is a folder: its ``.tf`` files and the ``.tfvars`` files Terraform loads without being
asked (``terraform.tfvars``, ``*.auto.tfvars``). A file is read with the rest of its module (the
*companions* its candidate carries, ``linter.load.sources``), because its values may come from a
variable declared in ``variables.tf`` or a local in ``locals.tf``; but only its own resources
become documents, so every finding is reported in the file that declares the resource, at the line
that sets the argument (``min_node_count = var.min_nodes``). Where a value came through another
place (a variable's default, a ``.tfvars`` entry, a local, another block's argument) the document
keeps that chain in ``origins`` for messages.

A document's data has the shape of Terraform's JSON syntax, ``{"resource": {TYPE: {NAME: {...}}}}``,
arguments as values (:class:`~linter.load.terraform_values.Unknown` where Terraform would not know
them before planning) and nested blocks as lists of objects. ``count`` and ``for_each`` are expanded
where they are known (at most ``MAX_INSTANCES`` instances), and so are ``dynamic`` blocks.

``# gpulint.dev/<field>: <value>`` comments on the lines right above a resource say what the file
cannot (a node pool's profile, personal data, residency): cloud labels cannot carry them (GCP
label keys allow no ``/`` or ``.``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import field
from typing import Any

from linter.load import hcl
from linter.load.composer import Document, LoadProblem
from linter.load.positions import Path, SourceMap, Span
from linter.load.terraform_values import Module, TerraformEvaluator, Unknown, Value, ValueOrigin
from linter.records import datarecord

#: Most instances of one resource (``count``, ``for_each``) or dynamic block expanded.
MAX_INSTANCES = 256
#: Texts at most this long keep their parsed form for the module's other files (a module of
#: N files is read N times, once per file).
_CACHED_CHARS = 256 * 1024
_META = frozenset(("count", "for_each", "provider", "depends_on"))
_ANNOTATION = re.compile(r"(?:#|//)\s*gpulint\.dev/([a-z0-9-]+)\s*:\s*(.*?)\s*\Z")
#: Where the source map records a comment annotation (``ANNOTATIONS + ("gpulint.dev/x",)``).
ANNOTATIONS: Path = ("#",)


def is_tfvars_loaded(name: str) -> bool:
    """A ``.tfvars`` file Terraform loads for the root module without being asked."""
    return name == "terraform.tfvars" or name.endswith(".auto.tfvars")


def is_module_file(name: str) -> bool:
    """A file that belongs to the module of its folder (``.tf`` or an auto-loaded ``.tfvars``)."""
    return name.endswith(".tf") or is_tfvars_loaded(name)


class ModuleView:
    """What an adapter may ask of the module a document belongs to: another block's argument
    (a node pool's cluster ``location``), and a provider configuration (a default region)."""

    def __init__(self, evaluator: TerraformEvaluator) -> None:
        self._evaluator = evaluator

    def argument(self, type_: str, name: str, attribute: str) -> Value | None:
        return self._evaluator.argument(type_, name, attribute)

    def provider(self, name: str, alias: str = "") -> tuple[dict[str, Value], ValueOrigin] | None:
        """The arguments of ``provider "name"`` (with that ``alias``) and where it is written."""
        found = self._evaluator.module.blocks.get(("provider", name, alias))
        if found is None:
            return None
        where, block = found
        self._evaluator.new_document()
        values = {
            attribute.name: self._evaluator.evaluate(attribute.expr, where, {})
            for attribute in block.body.attributes.values()
            if attribute.name != "alias"
        }
        return values, ValueOrigin(where, block.type_span, f'provider "{name}"')


@datarecord(frozen=False)
class TerraformDocument(Document):
    """One instance of a resource, as Terraform would create it."""

    type: str = ""
    name: str = ""
    key: str | int | None = None  # each.key or count.index; None when not expanded
    #: Why the number of instances is not known (``count`` or ``for_each`` that is not).
    instances_unknown: str | None = None
    #: ``provider = aws.eu`` -> ("aws", "eu"); None when the resource names none.
    provider: tuple[str, str] | None = None
    #: Path of an argument -> the places its value came through (besides the argument itself).
    origins: dict[Path, tuple[ValueOrigin, ...]] = field(default_factory=dict)
    #: Path of an argument that refers to another resource -> that resource's (type, name).
    references: dict[Path, tuple[str, str]] = field(default_factory=dict)
    #: ``gpulint.dev/`` comment annotations above the block: suffix -> value.
    annotations: dict[str, str] = field(default_factory=dict)
    module: ModuleView | None = None

    @property
    def root(self) -> Path:
        """The path of the resource's body in ``data``."""
        return ("resource", self.type, self.name)

    @property
    def address(self) -> str:
        base = f"{self.type}.{self.name}"
        if self.key is None:
            return base
        return f'{base}["{self.key}"]' if isinstance(self.key, str) else f"{base}[{self.key}]"

    def body(self) -> dict[str, Any]:
        found: dict[str, Any] = self.data["resource"][self.type][self.name]
        return found


@datarecord(frozen=False)
class LoadedModuleFile:
    documents: list[TerraformDocument]
    problems: list[LoadProblem]


def load_file(
    name: str, text: str, companions: Mapping[str, str], wanted: Collection[str]
) -> LoadedModuleFile:
    """The documents of the resources of types ``wanted`` that file ``name`` declares, read with
    the other files of its module (``companions``: name -> text). A companion that does not
    parse is left out (its variables and locals are then unknown); this file's own syntax errors
    are its problems."""
    try:
        parsed = _parse(text)
    except hcl.HclError as err:
        return LoadedModuleFile([], [LoadProblem(f"HCL syntax error: {err.message}", err.span)])
    problems = [LoadProblem(p.message, p.span) for p in parsed.problems]
    module = Module()
    files = {name: parsed}
    for other in sorted(companions):
        try:
            files[other] = _parse(companions[other])
        except hcl.HclError:
            continue
    for file, read in files.items():
        _index(module, file, read.body)
    evaluator = TerraformEvaluator(module)
    view = ModuleView(evaluator)
    annotations = _annotations(text, parsed)
    documents: list[TerraformDocument] = []
    if name.endswith(".tf"):
        for block in parsed.body.blocks:
            if block.type == "resource" and len(block.labels) == 2 and block.labels[0] in wanted:
                for document in _instances(evaluator, name, block, len(documents)):
                    document.module = view
                    _annotate(document, annotations.get(block.start, []))
                    documents.append(document)
    return LoadedModuleFile(documents, problems)


def _parse(text: str) -> hcl.File:
    return _parse_cached(text) if len(text) <= _CACHED_CHARS else hcl.parse(text)


@functools.lru_cache(maxsize=32)
def _parse_cached(text: str) -> hcl.File:
    return hcl.parse(text)


def _index(module: Module, file: str, body: hcl.Body) -> None:
    if file.endswith(".tfvars"):
        for attribute in body.attributes.values():
            module.tfvars[attribute.name] = (file, attribute)
        return
    for block in body.blocks:
        labels = block.labels
        if block.type == "variable" and len(labels) == 1:
            module.variables[labels[0]] = (file, block)
        elif block.type == "locals":
            for attribute in block.body.attributes.values():
                module.locals[attribute.name] = (file, attribute)
        elif block.type in ("resource", "data") and len(labels) == 2:
            module.blocks[(block.type, labels[0], labels[1])] = (file, block)
        elif block.type == "provider" and len(labels) == 1:
            alias = block.body.attributes.get("alias")
            named = alias.expr if alias is not None else None
            text = _literal_text(named) if named is not None else ""
            module.blocks[("provider", labels[0], text or "")] = (file, block)


def _literal_text(expr: hcl.Expr) -> str | None:
    if isinstance(expr, hcl.HclTemplate) and all(isinstance(p, str) for p in expr.parts):
        return "".join(p for p in expr.parts if isinstance(p, str))
    return None


# -- comment annotations ------------------------------------------------------------------------


def _annotations(text: str, parsed: hcl.File) -> dict[int, list[tuple[str, str, Span]]]:
    """Block start offset -> the ``gpulint.dev/`` comment annotations on the lines right above
    it (suffix, value, span), nearest first; only comment lines may stand between them."""
    alone: dict[int, hcl.Comment] = {}
    starts = parsed.lines.starts
    for comment in parsed.comments:
        line = parsed.lines.at(comment.start)[0]
        if not text[starts[line - 1] : comment.start].strip():
            alone[line] = comment
    out: dict[int, list[tuple[str, str, Span]]] = {}
    for block in parsed.body.blocks:
        line = block.type_span.line - 1
        while line in alone:
            comment = alone[line]
            match = _ANNOTATION.match(comment.text)
            if match:
                span = parsed.lines.span(comment.start, comment.end)
                found = (match.group(1), _unquoted(match.group(2)), span)
                out.setdefault(block.start, []).append(found)
            line -= 1
    return out


def _annotate(document: TerraformDocument, found: list[tuple[str, str, Span]]) -> None:
    for suffix, value, span in found:
        if suffix not in document.annotations:  # the nearest comment wins
            document.annotations[suffix] = value
            document.source_map.record((*ANNOTATIONS, f"gpulint.dev/{suffix}"), span)


def _unquoted(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


# -- instances ----------------------------------------------------------------------------------


def _instances(
    evaluator: TerraformEvaluator, file: str, block: hcl.Block, index: int
) -> Iterator[TerraformDocument]:
    evaluator.new_document()
    type_, name = block.labels
    attributes = block.body.attributes
    scopes, unknown = _scopes(evaluator, file, attributes)
    for number, (key, scope) in enumerate(scopes):
        source_map = SourceMap(block.span)
        body: dict[str, Any] = {}
        document = TerraformDocument(
            index + number,
            {"resource": {type_: {name: body}}},
            source_map,
            type=type_,
            name=name,
            key=key,
            instances_unknown=unknown,
            provider=_provider_of(attributes.get("provider")),
        )
        source_map.record(document.root, block.type_span)
        _ModuleReader(evaluator, file, document).body(block.body, scope, body, (), 0)
        yield document


_Scopes = list[tuple[str | int | None, dict[str, Any]]]


def _scopes(
    evaluator: TerraformEvaluator, file: str, attributes: Mapping[str, hcl.Attribute]
) -> tuple[_Scopes, str | None]:
    """The instances ``for_each`` or ``count`` give (key and iterator scope), or one instance
    and why the number is not known."""
    if "for_each" in attributes:
        each = evaluator.evaluate(attributes["for_each"].expr, file, {}).value
        if isinstance(each, dict) and len(each) <= MAX_INSTANCES:
            return [(k, {"each": {"key": k, "value": v}}) for k, v in each.items()], None
        strings = isinstance(each, list) and all(isinstance(x, str) for x in each)
        if strings and len(each) <= MAX_INSTANCES:
            return [(k, {"each": {"key": k, "value": k}}) for k in dict.fromkeys(each)], None
        why = each.reason if isinstance(each, Unknown) else "not a small map or set of strings"
        return [(None, {"each": Unknown(f"for_each: {why}")})], f"for_each: {why}"
    if "count" in attributes:
        count = evaluator.evaluate(attributes["count"].expr, file, {}).value
        if isinstance(count, str) and count.isdigit():
            count = int(count)
        if isinstance(count, int) and not isinstance(count, bool) and 0 <= count <= MAX_INSTANCES:
            return [(i, {"count": {"index": i}}) for i in range(count)], None
        why = count.reason if isinstance(count, Unknown) else "not a small whole number"
        return [(None, {"count": Unknown(f"count: {why}")})], f"count: {why}"
    return [(None, {})], None


def _provider_of(attribute: hcl.Attribute | None) -> tuple[str, str] | None:
    """``provider = aws.eu`` (a reference, not a value): the provider's name and alias."""
    if attribute is None or not isinstance(attribute.expr, hcl.Traversal):
        return None
    steps = attribute.expr.steps
    alias = steps[0] if len(steps) == 1 and isinstance(steps[0], str) else ""
    return attribute.expr.root, alias


class _ModuleReader:
    """A block's body into plain values, recording spans, origins and references."""

    def __init__(
        self, evaluator: TerraformEvaluator, file: str, document: TerraformDocument
    ) -> None:
        self.evaluator = evaluator
        self.file = file
        self.document = document
        self.root = document.root

    def body(
        self,
        body: hcl.Body,
        scope: Mapping[str, Any],
        target: dict[str, Any],
        path: Path,
        depth: int,
    ) -> None:
        record = self.document.source_map.record
        for attribute in body.attributes.values():
            if not path and attribute.name in _META:
                continue
            where = (*path, attribute.name)
            value = self.evaluator.evaluate(attribute.expr, self.file, scope)
            target[attribute.name] = value.value
            record((*self.root, *where), attribute.name_span)
            if value.via:
                self.document.origins[where] = value.via
            referred = _referred(attribute.expr)
            if referred is not None:
                self.document.references[where] = referred
        if depth >= hcl.MAX_DEPTH:
            return
        for block in body.blocks:
            if block.type == "dynamic" and len(block.labels) == 1:
                self.dynamic(block, scope, target, path, depth)
                continue
            if block.type == "lifecycle" and not path:
                continue
            items = target.setdefault(block.type, [])
            if not isinstance(items, list):
                continue  # an argument and a block of one name: Terraform rejects the file
            where, item = self.item(items, path, block.type, block.type_span)
            self.body(block.body, scope, item, where, depth + 1)

    def item(
        self, items: list[Any], path: Path, name: str, span: Span
    ) -> tuple[Path, dict[str, Any]]:
        """A new block ``name`` in ``items`` at ``path``: its path and its (empty) body."""
        where = (*path, name, len(items))
        items.append({})
        self.document.source_map.record((*self.root, *path, name), span)
        self.document.source_map.record((*self.root, *where), span)
        body: dict[str, Any] = items[-1]
        return where, body

    def dynamic(
        self,
        block: hcl.Block,
        scope: Mapping[str, Any],
        target: dict[str, Any],
        path: Path,
        depth: int,
    ) -> None:
        """``dynamic "x" { for_each = ...; iterator = it; content { ... } }``: one ``x`` block
        per element, or one whose values are unknown."""
        label = block.labels[0]
        attributes = block.body.attributes
        iterator = label
        named = attributes.get("iterator")
        if named is not None and isinstance(named.expr, hcl.Traversal):
            iterator = named.expr.root
        content = next((b for b in block.body.blocks if b.type == "content"), None)
        items = target.setdefault(label, [])
        if content is None or "for_each" not in attributes or not isinstance(items, list):
            return
        each = self.evaluator.evaluate(attributes["for_each"].expr, self.file, scope).value
        elements: list[tuple[Any, Any]]
        if isinstance(each, dict):
            elements = list(each.items())
        elif isinstance(each, list):
            elements = list(enumerate(each))
        else:
            why = each.reason if isinstance(each, Unknown) else "not a collection"
            elements = [(Unknown(why), Unknown(f"dynamic {label}: {why}"))]
        for key, value in elements[:MAX_INSTANCES]:
            where, item = self.item(items, path, label, block.type_span)
            inner = {**scope, iterator: {"key": key, "value": value}}
            self.body(content.body, inner, item, where, depth + 1)


def _referred(expr: hcl.Expr) -> tuple[str, str] | None:
    """``aws_x.y.id`` or ``aws_x.y[0].id``: the resource an argument refers to."""
    if not isinstance(expr, hcl.Traversal) or expr.root in ("var", "local", "data", "module"):
        return None
    steps = expr.steps
    if steps and isinstance(steps[0], str) and "_" in expr.root:
        return expr.root, steps[0]
    return None
