"""Where a pod may run, from its node selection: ``nodeSelector``, required node affinity and
tolerations, read against the cloud label tables (``labels.py``).

A node selector names one value; a required node-affinity term lists the values a key may take
(``In``), and the pod may land on a node with any of them: the first is the placement, the others
are alternatives (each is checked like the main one). Terms are alternatives too, so values from
every term count. Preferred affinity does not bind the scheduler and is not read.

What the pod is pinned to:

- GPU type: an accelerator label (GKE, GPU feature discovery, Karpenter, EKS), else the GPU of
  the instance type the pod selects (instance catalogue), else its memory label's size.
- Provider: the cloud of the labels used, else the instance type's, else the region's (when only
  one cloud has a region of that name).
- Capacity: a capacity-type label, else a toleration of a taint the cloud puts on spot nodes only
  (the pod may then be placed on spot capacity, and must survive its preemption).
- Pool: the Kueue queue the object is submitted to, else the node pool it selects, else its GPU
  selector (pods selecting the same GPU label share those nodes); written ``key=value``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import field
from typing import Any

from linter.catalog import regions
from linter.catalog.instances import resolve_instance
from linter.formats.builder import unrendered
from linter.formats.kubernetes.labels import Label, catalogue
from linter.formats.kubernetes.pods import PodSpec, Report, mapping, sequence
from linter.load.positions import Path
from linter.model.provenance import Origin
from linter.records import datarecord

_MIB_PER_GIB = 1024
_REQUIRED = ("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")


@datarecord
class LabelChoice:
    """One value a label may take, where it is written, and how the file names it."""

    key: str
    value: str
    path: Path
    where: str  # "nodeSelector", "node affinity"
    operator: str = "In"

    @property
    def name(self) -> str:
        return f"{self.where} {self.key}"


@datarecord
class StatedValue:
    """A normalised value an object states, where it is written and what the file calls it."""

    value: Any
    origin: Origin
    name: str

    @classmethod
    def at(cls, value: Any, path: Path, name: str) -> StatedValue:
        return cls(value, Origin(path), name)

    @property
    def path(self) -> Path:
        return self.origin.path


@datarecord(frozen=False)
class Placement:
    accelerator: StatedValue | None = (
        None  # the GPU type as written (a label value or instance GPU)
    )
    alternatives: list[StatedValue] = field(default_factory=list)  # other GPU types allowed
    memory_gib: StatedValue | None = None
    instance_type: StatedValue | None = None
    region: StatedValue | None = None
    capacity: StatedValue | None = None
    pool: StatedValue | None = None
    provider: StatedValue | None = None


@datarecord
class NodeSelection:
    """What a pod's placement is read from, each with where it is written: a node selector,
    required node-affinity terms, toleration lists, and the label sets that may name a queue
    (the object's, then its pod template's)."""

    selector: Mapping[str, Any] = field(default_factory=dict)
    selector_path: Path = ()
    terms: list[Any] = field(default_factory=list)
    terms_path: Path = ()
    tolerations: tuple[tuple[list[Any], Path], ...] = ()
    labels: tuple[tuple[Mapping[str, Any], Path], ...] = ()

    @classmethod
    def of(cls, pod: PodSpec, object_labels: Mapping[str, Any] | None = None) -> NodeSelection:
        required: Mapping[str, Any] = pod.data
        for part in _REQUIRED:
            required = mapping(required.get(part))
        return cls(
            mapping(pod.data.get("nodeSelector")),
            pod.at("nodeSelector"),
            sequence(required.get("nodeSelectorTerms")),
            pod.at(*_REQUIRED, "nodeSelectorTerms"),
            ((sequence(pod.data.get("tolerations")), pod.at("tolerations")),),
            ((object_labels or {}, ("metadata", "labels")), (pod.labels, pod.labels_path)),
        )


def choices(selection: NodeSelection, report: Report) -> list[LabelChoice]:
    """Every label value the node selector and required node affinity allow."""
    out = []
    for key, value in selection.selector.items():
        path = (*selection.selector_path, key)
        text = _label_value(value, f"nodeSelector {key}", path, report)
        if text is not None:
            out.append(LabelChoice(key, text, path, "nodeSelector"))
    for t, term in enumerate(selection.terms):
        for e, expression in enumerate(sequence(mapping(term).get("matchExpressions"))):
            out.extend(_expression((*selection.terms_path, t), e, expression, report))
    return out


def _expression(term: Path, index: int, expression: Any, report: Report) -> Iterator[LabelChoice]:
    expression = mapping(expression)
    key, operator = expression.get("key"), expression.get("operator")
    if not isinstance(key, str) or operator not in ("In", "NotIn", "Gt"):
        return
    base = (*term, "matchExpressions", index, "values")
    for v, value in enumerate(sequence(expression.get("values"))):
        text = _label_value(value, f"node affinity {key}", (*base, v), report)
        if text is not None:
            yield LabelChoice(key, text, (*base, v), "node affinity", operator)


def _label_value(value: Any, what: str, path: Path, report: Report) -> str | None:
    """A label value as the scheduler compares it: a string (Kubernetes rejects other types,
    which are reported and read as YAML wrote them, so a spot selector still counts)."""
    if isinstance(value, str):
        message = unrendered(what, value)
        if message is None:
            return value
        report(Origin(path), message)
        return None
    if isinstance(value, bool | int | float):
        text = str(value).lower() if isinstance(value, bool) else str(value)
        report(
            Origin(path),
            f'{what}: {text} must be a string; Kubernetes rejects the manifest (write "{text}")',
        )
        return text
    report(Origin(path), f"{what}: {value!r} must be a string")
    return None


def tolerations(selection: NodeSelection) -> Iterator[tuple[str, str | None, Path]]:
    """(key, value or None for ``Exists``, path) of each toleration."""
    for items, base in selection.tolerations:
        for index, item in enumerate(items):
            yield from _toleration(mapping(item), (*base, index))


def _toleration(item: Mapping[str, Any], path: Path) -> Iterator[tuple[str, str | None, Path]]:
    key, value = item.get("key"), item.get("value")
    if isinstance(key, str):
        exists = item.get("operator") == "Exists"
        yield key, None if exists else (value if isinstance(value, str) else None), path


_Used = list[tuple[Label, StatedValue]]
"""The labels a placement was read from, each with the value it gave (for the provider)."""


def place(selection: NodeSelection, report: Report) -> Placement:
    """What a pod's node selection and labels say about where it runs."""
    table = catalogue()
    allowed = choices(selection, report)
    out = Placement()
    used: _Used = []
    gpu = _first(allowed, table.accelerator_labels, used)
    if gpu:
        out.accelerator = _found(gpu[0])
        out.alternatives = [_found(choice) for choice in gpu[1:]]
    instance = _first(allowed, table.instance_type_labels, used)
    if instance:
        out.instance_type = _found(instance[0])
        spec = resolve_instance(instance[0].value)
        if spec is not None and out.accelerator is None and spec.gpu_count:
            out.accelerator = StatedValue.at(spec.gpu.name, instance[0].path, instance[0].name)
    if out.accelerator is None:
        out.memory_gib = _memory(allowed, table.memory_labels, used)
    region = _first(allowed, table.region_labels, used)
    if region:
        out.region = _found(region[0])
    out.capacity = _capacity(selection, allowed, used)
    out.pool = _pool(selection, allowed, used, out.accelerator, gpu)
    out.provider = _provider(used, out)
    return out


def _first(allowed: list[LabelChoice], labels: list[Label], used: _Used) -> list[LabelChoice]:
    """The values allowed for the first of ``labels`` the pod selects (``In`` only)."""
    for label in labels:
        found = [c for c in allowed if c.key == label.key and c.operator == "In"]
        if found:
            used.append((label, _found(found[0])))
            return found
    return []


def _found(choice: LabelChoice) -> StatedValue:
    return StatedValue.at(choice.value, choice.path, choice.name)


def _memory(allowed: list[LabelChoice], labels: list[Label], used: _Used) -> StatedValue | None:
    """The least GPU memory a memory label allows (``In`` its smallest value, ``Gt`` above it)."""
    for label in labels:
        sizes = [
            (int(c.value) + (c.operator == "Gt"), c)
            for c in allowed
            if c.key == label.key and c.operator in ("In", "Gt") and c.value.isdigit()
        ]
        if sizes:
            mib, choice = min(sizes, key=lambda pair: pair[0])
            found = StatedValue.at(round(mib / _MIB_PER_GIB, 2), choice.path, choice.name)
            used.append((label, found))
            return found
    return None


def _capacity(
    selection: NodeSelection, allowed: list[LabelChoice], used: _Used
) -> StatedValue | None:
    found = _capacity_label(allowed) or _capacity_toleration(selection)
    if found is not None:
        used.append(found)
        return found[1]
    return None


def _capacity_label(allowed: list[LabelChoice]) -> tuple[Label, StatedValue] | None:
    """A capacity-type label: spot when it allows spot (Karpenter prefers spot when a NodePool
    allows both), on-demand when it refuses spot (``NotIn``)."""
    for label in catalogue().capacity_labels:
        values = [c for c in allowed if c.key == label.key and c.operator in ("In", "NotIn")]
        allowed_here = [c for c in values if c.operator == "In"]
        if allowed_here:
            spot = next((c for c in allowed_here if label.values.get(c.value) == "spot"), None)
            chosen = spot or allowed_here[0]
            capacity = label.values.get(chosen.value)
            if capacity is not None:
                return label, StatedValue.at(capacity, chosen.path, chosen.name)
        refused = [c for c in values if label.values.get(c.value) == "spot"]
        if refused and not allowed_here:
            return label, StatedValue.at("on-demand", refused[0].path, refused[0].name)
    return None


def _capacity_toleration(selection: NodeSelection) -> tuple[Label, StatedValue] | None:
    """A toleration of a taint the cloud puts on spot nodes only."""
    for key, value, path in tolerations(selection):
        for label in catalogue().capacity_labels:
            if (
                label.key == key
                and label.taint
                and (value is None or label.values.get(value) == "spot")
            ):
                return label, StatedValue.at("spot", path, f"toleration {key}")
    return None


def _pool(
    selection: NodeSelection,
    allowed: list[LabelChoice],
    used: _Used,
    accelerator: StatedValue | None,
    gpu: list[LabelChoice],
) -> StatedValue | None:
    for label in catalogue().queue_labels:
        for labels, base in selection.labels:
            queue = labels.get(label.key)
            if isinstance(queue, str) and queue:
                return StatedValue.at(
                    f"{label.key}={queue}", (*base, label.key), f"label {label.key}"
                )
    pool = _first(allowed, catalogue().node_pool_labels, used)
    if pool:
        return StatedValue.at(f"{pool[0].key}={pool[0].value}", pool[0].path, pool[0].name)
    if gpu and accelerator is not None:
        return StatedValue.at(f"{gpu[0].key}={gpu[0].value}", gpu[0].path, gpu[0].name)
    return None


def _provider(used: _Used, out: Placement) -> StatedValue | None:
    for label, where in used:
        if label.provider is not None:
            return StatedValue(label.provider, where.origin, where.name)
    if out.instance_type is not None:
        spec = resolve_instance(out.instance_type.value)
        if spec is not None:
            return StatedValue(spec.provider, out.instance_type.origin, out.instance_type.name)
    if out.region is not None:
        code = out.region.value
        clouds = [cloud for cloud in regions.clouds() if regions.region(cloud, code) is not None]
        if len(clouds) == 1:
            return StatedValue(clouds[0], out.region.origin, out.region.name)
    return None
