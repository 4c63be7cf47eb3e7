"""GPU capacity declared in Terraform: node pools, node groups, autoscaling groups and GPU
virtual machines, each read as a ``Workload`` (what quota, cost, idle and spot rules judge) and,
for a Kubernetes node pool, a ``CapacityLimit`` of scope ``nodePool`` (what the Kubernetes
workloads of the run that select the pool may hold at once: GL307).

Why a Workload: the rules about capacity (GL201 idle, GL202-GL204 spot, GL301-GL304 quota,
GL212 budgets, ``gpulint cost`` and ``--diff``) read a workload's resources, lifecycle and
profile, and work unchanged on one. What a pool is for is not in the file: a ``# gpulint.dev/
profile:`` comment above the resource (or an ``assume:`` block) says it. Without one, a pool or
group is read as serving capacity (it runs all month at its minimum: ``serving.replicas`` is the
autoscaler's minimum, ``maxReplicas`` its maximum, and a minimum of 0 scales to zero) and a
single VM as a development machine; every message relying on that says so.

Declared training, fine-tuning or dev capacity is sized at its largest (``resources.nodes`` is
the maximum: what a run on it may hold); an autoscaled pool whose minimum is 0 gives an idle node
back after the cluster autoscaler's scale-down delay (``data/terraform.yaml``). Its pool
(``resources.pool``, spelt as Kubernetes workloads select it: ``cloud.google.com/gke-nodepool=
<name>``) is set only when its profile is declared, so that training and serving on one pool
(GL205) is never inferred from a guess.

A regional GKE pool's ``node_count`` and ``min_node_count``/``max_node_count`` are per zone: they
are multiplied by the number of ``node_locations``, and named "per zone" when those are not
declared. Capacity whose GPU type, instance type or number of instances is not known before
planning is not read (a count behind an unset variable is the caller's, not a guess).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from typing import get_args

from linter.catalog.gpus import resolve_gpu
from linter.catalog.instances import resolve_instance
from linter.catalog.regions import region
from linter.formats.base import Adapted
from linter.formats.builder import WorkloadBuilder
from linter.formats.terraform.reading import Resource, TerraformValue, region_code, set_found
from linter.formats.terraform_vocabulary import vocabulary
from linter.load.terraform import ANNOTATIONS
from linter.model.assumptions import read_annotation
from linter.model.fields import FIELDS
from linter.model.provenance import Origin
from linter.model.values import ValueProblem
from linter.model.workload import Profile
from linter.records import datarecord

_SERVING_NOTE = (
    "read as serving capacity, which runs all month at its minimum: no # gpulint.dev/profile "
    "comment above the resource says what runs on it"
)
_DEV_NOTE = (
    "read as a development machine: no # gpulint.dev/profile comment above the resource says "
    "what runs on it"
)


@datarecord(frozen=False)
class Capacity:
    """What one capacity resource declares, in the file's words."""

    provider: str
    what: str  # "node pool", "VM", ...
    default_profile: Profile
    instance_type: TerraformValue | None = None
    gpu_type: TerraformValue | None = None
    gpu_count: TerraformValue | None = None
    spot: TerraformValue | None = None
    region: TerraformValue | None = None
    #: Instances running normally (a fixed count, else the autoscaler's minimum), and the most.
    nodes: TerraformValue | None = None
    max_nodes: TerraformValue | None = None
    autoscaled: bool = False
    pool: TerraformValue | None = (
        None  # the pool's name, when Kubernetes workloads select it by label
    )
    max_runtime_hours: TerraformValue | None = None
    names: dict[str, str] = field(default_factory=dict)


def adapt_capacity(resource: Resource, read: Callable[[Resource], Capacity | None]) -> Adapted:
    """The workload (and node-pool limit) of one capacity resource; nothing when it declares
    no GPUs or leaves its size to the module's caller."""
    if resource.document.instances_unknown is not None:
        return Adapted()
    capacity = read(resource)
    if capacity is None or capacity.nodes is None:
        return Adapted()
    gpus = _gpus_per_node(capacity)
    if not gpus:
        return Adapted()
    builder = resource.builder()
    profile, declared = _profile(resource, builder, capacity)
    if not _counts(builder, capacity, profile):
        return Adapted()
    _resources(resource, builder, capacity, declared)
    _lifecycle(resource, builder, capacity, profile)
    for name, entry in FIELDS.items():
        if entry.annotation is not None and builder.name_of(entry.path) is None:
            builder.call(entry.path, f"the comment # gpulint.dev/{entry.annotation} above it")
        elif name in capacity.names and builder.name_of(entry.path) is None:
            builder.call(entry.path, capacity.names[name])
    adapted = builder.build(resource.annotated(), ANNOTATIONS)
    if adapted.manifests:
        limit = _node_pool_limit(resource, capacity, gpus)
        adapted.manifests.extend(limit.manifests)
        adapted.findings.extend(limit.findings)
    return adapted


def _gpus_per_node(capacity: Capacity) -> tuple[str, float] | None:
    """The vendor and number of GPUs on each instance, from the accelerator or the catalogue."""
    if capacity.gpu_type is not None and capacity.gpu_count is not None:
        gpu = resolve_gpu(str(capacity.gpu_type.value))
        return (gpu.vendor, float(capacity.gpu_count.value)) if gpu is not None else None
    if capacity.instance_type is None:
        return None
    instance = resolve_instance(str(capacity.instance_type.value), capacity.provider)
    if instance is None or not instance.gpu_count:
        return None
    return instance.gpu.vendor, instance.gpu_count


def _profile(
    resource: Resource, builder: WorkloadBuilder, capacity: Capacity
) -> tuple[Profile, bool]:
    """The profile in effect and whether the file or the configuration declares it; an
    undeclared one is set as an assumption that messages name."""
    written = resource.document.annotations.get("profile")
    if written is not None:
        try:
            _, value = read_annotation("profile", written)
        except ValueProblem:
            value = None  # the builder reports the annotation at its line
        if value in get_args(Profile):
            return value, True
    path = FIELDS["profile"].path
    for assumption in resource.file.assumptions:
        if assumption.path == path and assumption.value in get_args(Profile):
            return assumption.value, True
    profile = capacity.default_profile
    note = _DEV_NOTE if profile == "dev" else _SERVING_NOTE
    builder.set(path, profile, Origin(resource.root, kind="assumed", note=note))
    return profile, False


def _counts(builder: WorkloadBuilder, capacity: Capacity, profile: Profile) -> bool:
    """Nodes and replicas: a serving pool's instances are its replicas (one node each); other
    capacity is sized at its largest. False when there is nothing to size."""
    nodes, most = capacity.nodes, capacity.max_nodes
    assert nodes is not None
    if profile == "inference":
        if not nodes.value and not capacity.autoscaled:
            return False
        set_found(builder, "spec.serving.replicas", nodes)
        builder.place("spec.serving", nodes.origin)
        if capacity.autoscaled and most is not None:
            set_found(builder, "spec.serving.maxReplicas", most)
        return True
    largest = most if capacity.autoscaled and most is not None else nodes
    if not largest.value:
        return False
    set_found(builder, "spec.resources.nodes", largest)
    return True


def _resources(
    resource: Resource, builder: WorkloadBuilder, capacity: Capacity, declared: bool
) -> None:
    builder.set(
        "spec.resources.provider",
        capacity.provider,
        resource.at(),
        name=f"the provider of {resource.address}",
    )
    set_found(builder, "spec.resources.region", capacity.region)
    set_found(builder, "spec.resources.instanceType", capacity.instance_type)
    if capacity.gpu_type is not None and capacity.gpu_count is not None:
        builder.place("spec.resources.accelerator", capacity.gpu_type.origin)
        set_found(builder, "spec.resources.accelerator.type", capacity.gpu_type)
        set_found(builder, "spec.resources.accelerator.count", capacity.gpu_count)
    if capacity.spot is not None:
        builder.set(
            "spec.resources.capacity", "spot", capacity.spot.origin, name=capacity.spot.name
        )
    label = vocabulary().pool_label(capacity.provider)
    if declared and capacity.pool is not None and label is not None:
        value = f"{label}={capacity.pool.value}"
        builder.set("spec.resources.pool", value, capacity.pool.origin, name=capacity.pool.name)


def _lifecycle(
    resource: Resource, builder: WorkloadBuilder, capacity: Capacity, profile: Profile
) -> None:
    """Whether the capacity gives idle instances back: an autoscaled pool whose minimum is 0
    does (the cluster autoscaler removes unneeded nodes); anything else keeps its instances."""
    nodes = capacity.nodes
    assert nodes is not None
    builder.place("spec.lifecycle", nodes.origin)
    set_found(builder, "spec.lifecycle.maxRuntimeHours", capacity.max_runtime_hours)
    released = capacity.autoscaled and nodes.value == 0
    if capacity.autoscaled:
        builder.set("spec.lifecycle.scaleToZero", released, nodes.origin, name=nodes.name)
    if profile == "inference":
        return
    if released:
        scale_down = vocabulary().scale_down_minutes.minutes
        note = (
            f"the cluster autoscaler gives an unneeded node back after {scale_down} minutes "
            "(its default --scale-down-unneeded-time)"
        )
        builder.default("spec.lifecycle.idleShutdownMinutes", scale_down, note, name=nodes.name)
    builder.call(
        "spec.lifecycle.idleShutdownMinutes",
        f"a minimum of 0 in {nodes.label} (the autoscaler then gives idle nodes back)"
        if capacity.autoscaled and nodes.label
        else f"idle shutdown ({resource.address} keeps its {capacity.what} running until it is "
        "stopped; the comment # gpulint.dev/idle-shutdown-minutes declares one)",
    )


def _node_pool_limit(resource: Resource, capacity: Capacity, gpus: tuple[str, float]) -> Adapted:
    """A Kubernetes node pool as the limit on what the workloads selecting it may hold."""
    label = vocabulary().pool_label(capacity.provider)
    most = capacity.max_nodes if capacity.autoscaled else capacity.nodes
    if capacity.pool is None or label is None or most is None:
        return Adapted()
    vendor, per_node = gpus
    builder = resource.manifest_builder(1)
    pool = capacity.pool
    builder.set("spec.scope", "nodePool", pool.origin)
    builder.set("spec.matchPools", [f"{label}={pool.value}"], pool.origin, name=pool.name)
    if capacity.gpu_type is not None:
        found = capacity.gpu_type
        builder.set("spec.accelerators", [found.value], found.origin, name=found.name)
    spot = capacity.spot
    builder.set(
        "spec.capacity",
        ["spot" if spot else "on-demand"],
        spot.origin if spot else resource.at(),
        name=spot.name if spot else None,
    )
    limit = [{"vendor": vendor, "gpus": most.value * per_node}]
    builder.set("spec.limits", limit, most.origin, name=most.name)
    builder.set(("spec", "limits", 0, "gpus"), most.value * per_node, most.origin, name=most.name)
    return builder.build_kind("CapacityLimit")


# -- the readers --------------------------------------------------------------------------------


def _times(
    found: TerraformValue | None, zones: int | None, per_zone_note: str
) -> TerraformValue | None:
    """A per-zone count for the whole pool: times the zones, named so."""
    if found is None:
        return None
    if zones is None:
        return found.named(found.value, f"{found.name} ({per_zone_note})")
    if zones == 1:
        return found
    return found.named(found.value * zones, f"{found.name} x {zones} zones")


def _accelerator_type(found: TerraformValue | None) -> TerraformValue | None:
    """``nvidia-l4`` or a full accelerator-type URL (``projects/p/zones/z/acceleratorTypes/
    nvidia-l4``): the type is the last path segment."""
    if found is None or not isinstance(found.value, str):
        return None
    return found.named(found.value.rstrip("/").rpartition("/")[2], found.name)


def _spot_when(found: TerraformValue | None, *spot_values: str) -> TerraformValue | None:
    """``found`` when it says spot: true, or one of ``spot_values`` (compared case-folded)."""
    if found is None:
        return None
    value = found.value
    if value is True or (isinstance(value, str) and value.casefold() in spot_values):
        return found
    return None


def gke_node_pool(resource: Resource) -> Capacity:
    capacity = Capacity("gcp", "node pool", "inference")
    config = resource.block("node_config") or ()
    capacity.instance_type = resource.text(*config, "machine_type")
    accelerator = resource.block(*config, "guest_accelerator") if config else None
    if accelerator is not None:
        capacity.gpu_type = _accelerator_type(resource.text(*accelerator, "type"))
        capacity.gpu_count = resource.number(*accelerator, "count")
    capacity.spot = resource.flag(*config, "spot") if config else None
    if capacity.spot is None or capacity.spot.value is not True:
        capacity.spot = _spot_when(resource.flag(*config, "preemptible") if config else None)
    location = resource.text("location")
    capacity.region = region_code("gcp", location) or resource.provider_region("google")
    zones = _gke_zones(resource, location)
    per_zone = "per zone: node_locations is not declared, so the pool's zones are not known"
    scaling = resource.block("autoscaling")
    if scaling is not None:
        capacity.autoscaled = True
        total_min = resource.number(*scaling, "total_min_node_count")
        total_max = resource.number(*scaling, "total_max_node_count")
        low = _times(resource.number(*scaling, "min_node_count"), zones, per_zone)
        high = _times(resource.number(*scaling, "max_node_count"), zones, per_zone)
        capacity.nodes = (
            total_min or low or TerraformValue(0, resource.at(*scaling), "the autoscaler")
        )
        capacity.max_nodes = total_max or high
    else:
        count = resource.number("node_count") or resource.number("initial_node_count")
        capacity.nodes = _times(count, zones, per_zone)
    capacity.pool = resource.text("name")
    capacity.names = {"scaleToZero": "autoscaling.min_node_count (0 scales the pool to zero)"}
    return capacity


def _gke_zones(resource: Resource, location: TerraformValue | None) -> int | None:
    """How many zones a GKE pool's per-zone counts apply to: its ``node_locations``, else one
    for a zonal location, else unknown (a regional pool in the cluster's zones)."""
    listed = resource.raw("node_locations")
    if isinstance(listed, list) and listed and all(isinstance(z, str) for z in listed):
        return len(set(listed))
    if location is not None and isinstance(location.value, str):
        known = region("gcp", location.value)
        if known is not None and known.region != location.value:
            return 1  # a zone
    return None


def gce_instance(resource: Resource) -> Capacity:
    capacity = Capacity("gcp", "VM", "dev")
    capacity.instance_type = resource.text("machine_type")
    accelerator = resource.block("guest_accelerator")
    if accelerator is not None:
        capacity.gpu_type = _accelerator_type(resource.text(*accelerator, "type"))
        capacity.gpu_count = resource.number(*accelerator, "count")
    scheduling = resource.block("scheduling")
    if scheduling is not None:
        capacity.spot = _spot_when(resource.flag(*scheduling, "preemptible")) or _spot_when(
            resource.text(*scheduling, "provisioning_model"), "spot"
        )
        duration = resource.block(*scheduling, "max_run_duration")
        seconds = resource.number(*duration, "seconds") if duration else None
        if seconds is not None and seconds.value > 0:
            capacity.max_runtime_hours = seconds.named(seconds.value / 3600, seconds.name)
    zone = resource.text("zone")
    capacity.region = region_code("gcp", zone) or resource.provider_region("google")
    capacity.nodes = TerraformValue(1, resource.at(), resource.address)
    return capacity


def ec2_instance(resource: Resource) -> Capacity:
    capacity = Capacity("aws", "instance", "dev")
    capacity.instance_type = resource.text("instance_type")
    market = resource.block("instance_market_options")
    if market is not None:
        capacity.spot = _spot_when(resource.text(*market, "market_type"), "spot")
    capacity.region = _aws_region(resource, resource.text("availability_zone"))
    capacity.nodes = TerraformValue(1, resource.at(), resource.address)
    return capacity


def _aws_region(resource: Resource, zone: TerraformValue | None) -> TerraformValue | None:
    return (
        region_code("aws", resource.text("region"))
        or region_code("aws", zone)
        or resource.provider_region("aws")
    )


def eks_node_group(resource: Resource) -> Capacity:
    capacity = Capacity("aws", "node group", "inference")
    types = resource.get("instance_types")
    if types is not None and isinstance(types.value, list) and types.value:
        first = types.value[0]
        if isinstance(first, str):
            capacity.instance_type = types.named(first, types.name)
    template = resource.block("launch_template")
    if capacity.instance_type is None and template is not None:
        capacity.instance_type = _template_type(resource, template)
    capacity.spot = _spot_when(resource.text("capacity_type"), "spot")
    capacity.region = _aws_region(resource, None)
    scaling = resource.block("scaling_config")
    if scaling is not None:
        capacity.autoscaled = True
        desired = resource.number(*scaling, "desired_size")
        capacity.nodes = resource.number(*scaling, "min_size") or desired
        capacity.max_nodes = resource.number(*scaling, "max_size")
    capacity.pool = resource.text("node_group_name")
    capacity.names = {"scaleToZero": "scaling_config.min_size (0 scales the group to zero)"}
    return capacity


def _template_type(resource: Resource, template: tuple[str | int, ...]) -> TerraformValue | None:
    """The instance type of the ``aws_launch_template`` a ``launch_template { id = ... }``
    block refers to."""
    for key in ("id", "name"):
        found = resource.argument_of((*template, key), "instance_type")
        if found is not None:
            return found
    return None


def ec2_autoscaling_group(resource: Resource) -> Capacity:
    capacity = Capacity("aws", "autoscaling group", "inference")
    template = resource.block("launch_template")
    if template is not None:
        capacity.instance_type = _template_type(resource, template)
    mixed = resource.block("mixed_instances_policy")
    if mixed is not None:
        policy = resource.block(*mixed, "launch_template")
        override = resource.block(*policy, "override") if policy else None
        if override is not None:
            capacity.instance_type = resource.text(*override, "instance_type")
        elif policy is not None and capacity.instance_type is None:
            specification = resource.block(*policy, "launch_template_specification")
            if specification is not None:
                capacity.instance_type = _template_type(resource, specification)
        distribution = resource.block(*mixed, "instances_distribution")
        above = "on_demand_percentage_above_base_capacity"
        share = resource.number(*distribution, above) if distribution else None
        if share is not None and share.value == 0:
            capacity.spot = share
    capacity.region = _aws_region(resource, None)
    capacity.autoscaled = True
    desired = resource.number("desired_capacity")
    capacity.nodes = resource.number("min_size") or desired
    capacity.max_nodes = resource.number("max_size")
    capacity.names = {"scaleToZero": "min_size (0 scales the group to zero)"}
    return capacity


def aks_node_pool(resource: Resource) -> Capacity:
    capacity = Capacity("azure", "node pool", "inference")
    capacity.instance_type = resource.text("vm_size")
    capacity.spot = _spot_when(resource.text("priority"), "spot")
    location = resource.argument_of(("kubernetes_cluster_id",), "location")
    capacity.region = region_code("azure", location)
    enabled = resource.flag("auto_scaling_enabled") or resource.flag("enable_auto_scaling")
    if enabled is not None and enabled.value:
        capacity.autoscaled = True
        capacity.nodes = resource.number("min_count")
        capacity.max_nodes = resource.number("max_count")
    else:
        capacity.nodes = resource.number("node_count")
    capacity.pool = resource.text("name")
    capacity.names = {"scaleToZero": "min_count (0 scales the pool to zero)"}
    return capacity


def azure_vm(resource: Resource) -> Capacity:
    capacity = Capacity("azure", "VM", "dev")
    capacity.instance_type = resource.text("size")
    capacity.spot = _spot_when(resource.text("priority"), "spot")
    capacity.region = region_code("azure", resource.text("location"))
    capacity.nodes = TerraformValue(1, resource.at(), resource.address)
    return capacity


def azure_scale_set(resource: Resource) -> Capacity:
    capacity = Capacity("azure", "scale set", "inference")
    capacity.instance_type = resource.text("sku")
    capacity.spot = _spot_when(resource.text("priority"), "spot")
    capacity.region = region_code("azure", resource.text("location"))
    capacity.nodes = resource.number("instances")
    return capacity
