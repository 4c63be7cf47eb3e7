"""Terraform through the whole pipeline (the module fixtures run in test_fixture_folders.py):
what each resource is read as, capacity and managed inference across files, the module read as a whole while findings stay in their files,
and hostile input."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import lint, run_cli

from linter.findings import Severity
from linter.formats.base import InputFile
from linter.formats.markers import TERRAFORM
from linter.formats.terraform import adapt, recognises
from linter.load import load_source
from linter.load.discovery import PathCandidate
from linter.load.positions import parse_path
from linter.load.sources import read_source
from linter.load.terraform import load_file
from linter.model.manifest import Manifest
from linter.policy.loader import Rulebook

HERE = Path(__file__).parent / "terraform"
MODULES = sorted(path for kind in ("good", "bad") for path in (HERE / kind).iterdir())


def _shown(paths: list[Path], rulebook: Rulebook) -> set[tuple[str, str, int]]:
    return {
        (Path(f.location.file).name, f.rule_id, f.location.span.line)
        for f in lint(paths, rulebook).findings
        if f.level in (Severity.ERROR, Severity.WARNING)
    }


def _manifests(tmp_path: Path, files: dict[str, str], name: str = "main.tf") -> list[Manifest]:
    """The normalised manifests of module file ``name``, read with the module's other files."""
    for file, text in files.items():
        (tmp_path / file).write_text(text, encoding="utf-8")
    path = tmp_path / name
    source = read_source(PathCandidate(str(path), name, True, tmp_path))
    markers = tuple(m for m in _TYPES)
    loaded = load_source(
        source.content, markers=markers, syntax="hcl", name=name, companions=source.companions
    )
    assert loaded.problems == []
    file = InputFile(name, path, loaded.text)
    out: list[Manifest] = []
    for document in loaded.documents:
        assert recognises(document.data, file)
        adapted = adapt(document, file)
        assert [f.message for f in adapted.findings] == []
        out.extend(adapted.manifests)
    return out


_TYPES = tuple(
    t.encode()
    for t in (
        "google_container_node_pool",
        "google_compute_instance",
        "aws_autoscaling_group",
        "azurerm_kubernetes_cluster_node_pool",
        "azurerm_linux_virtual_machine",
        "google_vertex_ai_endpoint_with_model_garden_deployment",
        "aws_bedrock_provisioned_model_throughput",
        "azurerm_cognitive_deployment",
        "google_cloud_quotas_quota_preference",
        "aws_servicequotas_service_quota",
    )
)


def _line(manifest: Manifest, path: str) -> int:
    span, _ = manifest.provenance.locate(parse_path(path), manifest.source_map)
    return span.line


def test_a_regional_pool_counts_its_nodes_in_every_zone_and_points_at_its_arguments(
    tmp_path: Path,
) -> None:
    pool = """resource "google_container_node_pool" "serve" {
  name           = "serve"
  location       = "europe-west4"
  node_locations = ["europe-west4-a", "europe-west4-b", "europe-west4-c"]
  node_count     = var.per_zone
  node_config {
    machine_type = "n1-standard-8"
    guest_accelerator {
      type  = "projects/p/zones/europe-west4-a/acceleratorTypes/nvidia-tesla-t4"
      count = 2
    }
  }
}
"""
    variables = 'variable "per_zone" {\n  default = "2"\n}\n'
    workload, limit = _manifests(tmp_path, {"main.tf": pool, "variables.tf": variables})
    spec = workload.data["spec"]
    assert spec["resources"] == {
        "provider": "gcp",
        "region": "europe-west4",
        "instanceType": "n1-standard-8",
        "accelerator": {"type": "nvidia-tesla-t4", "count": 2},
    }
    assert spec["serving"] == {"replicas": 6}  # "2" per zone, 3 zones
    assert workload.provenance.name(parse_path("spec.serving.replicas")) == (
        "node_count of google_container_node_pool.serve (from the default of variable "
        '"per_zone", variables.tf:2) x 3 zones'
    )
    assert _line(workload, "spec.serving.replicas") == 5
    assert _line(workload, "spec.resources.accelerator") == 9
    assert workload.provenance.origin(parse_path("spec.profile")).kind == "assumed"
    assert limit.kind == "CapacityLimit"
    assert limit.data["spec"] == {
        "scope": "nodePool",
        "matchPools": ["cloud.google.com/gke-nodepool=serve"],
        "accelerators": ["nvidia-tesla-t4"],
        "capacity": ["on-demand"],
        "limits": [{"vendor": "nvidia", "gpus": 12}],
    }


def test_a_declared_training_pool_is_sized_at_its_maximum_and_idles_to_zero(
    tmp_path: Path,
) -> None:
    text = """provider "google" {
  region = "us-east1"
}

# gpulint.dev/profile: training
resource "google_container_node_pool" "train" {
  name     = "train"
  location = "us-east1-b"
  autoscaling {
    total_min_node_count = 0
    total_max_node_count = 4
  }
  node_config {
    machine_type = "a2-highgpu-1g"
    preemptible  = true
  }
}
"""
    workload, _ = _manifests(tmp_path, {"main.tf": text})
    spec = workload.data["spec"]
    assert spec["profile"] == "training"
    assert spec["resources"]["nodes"] == 4
    assert spec["resources"]["capacity"] == "spot"
    assert spec["resources"]["pool"] == "cloud.google.com/gke-nodepool=train"
    assert spec["resources"]["region"] == "us-east1"
    assert spec["lifecycle"] == {"scaleToZero": True, "idleShutdownMinutes": 10}
    origin = workload.provenance.origin(parse_path("spec.lifecycle.idleShutdownMinutes"))
    assert (origin.kind, origin.note) == (
        "default",
        "the cluster autoscaler gives an unneeded node back after 10 minutes (its default "
        "--scale-down-unneeded-time)",
    )


def test_other_capacity_resources(tmp_path: Path) -> None:
    text = """provider "aws" {
  region = "eu-west-1"
}

provider "aws" {
  alias  = "us"
  region = "us-west-2"
}

resource "aws_launch_template" "gpu" {
  instance_type = "g6.xlarge"
}

resource "aws_autoscaling_group" "workers" {
  provider         = aws.us
  min_size         = 0
  max_size         = 5
  desired_capacity = 1
  launch_template {
    id      = aws_launch_template.gpu.id
    version = "$Latest"
  }
}

resource "azurerm_linux_virtual_machine" "box" {
  size     = "Standard_NC4as_T4_v3"
  location = "West Europe"
  priority = "Spot"
}
"""
    asg, vm = _manifests(tmp_path, {"main.tf": text})
    assert asg.data["spec"]["resources"] == {
        "provider": "aws",
        "region": "us-west-2",
        "instanceType": "g6.xlarge",
    }
    assert asg.data["spec"]["serving"] == {"replicas": 0, "maxReplicas": 5}
    assert asg.provenance.name(parse_path("spec.resources.instanceType")) == (
        "instance_type of aws_launch_template.gpu (main.tf:11)"
    )
    assert vm.data["spec"]["profile"] == "dev"
    assert vm.data["spec"]["resources"] == {
        "provider": "azure",
        "region": "westeurope",
        "instanceType": "Standard_NC4as_T4_v3",
        "capacity": "spot",
        "nodes": 1,
    }


def test_managed_inference_and_quota_resources(tmp_path: Path) -> None:
    text = """resource "google_vertex_ai_endpoint_with_model_garden_deployment" "qwen" {
  hugging_face_model_id = "Qwen/Qwen2.5-7B-Instruct"
  location              = "us-east1"
  deploy_config {
    dedicated_resources {
      machine_spec {
        machine_type      = "g2-standard-12"
        accelerator_type  = "NVIDIA_L4"
        accelerator_count = 1
      }
      min_replica_count = 1
      max_replica_count = 2
      spot              = true
    }
  }
}

resource "aws_bedrock_provisioned_model_throughput" "pt" {
  provisioned_model_name = "pt"
  model_arn              = "arn:aws:bedrock:eu-west-3::foundation-model/amazon.nova-micro-v1:0"
  model_units            = 1
}

resource "azurerm_cognitive_account" "openai" {
  location = "swedencentral"
}

resource "azurerm_cognitive_deployment" "chat" {
  cognitive_account_id = azurerm_cognitive_account.openai.id
  model {
    format = "OpenAI"
    name   = "gpt-4o-mini"
  }
  sku {
    name     = "GlobalStandard"
    capacity = 20
  }
}

resource "google_cloud_quotas_quota_preference" "l4" {
  parent     = "projects/p"
  service    = "compute.googleapis.com"
  quota_id   = "PREEMPTIBLE-GPUS-PER-GPU-FAMILY-per-project-region"
  dimensions = { region = "us-east1", gpu_family = "NVIDIA_L4" }
  quota_config {
    preferred_value = 8
  }
}

resource "aws_servicequotas_service_quota" "g" {
  service_code = "ec2"
  quota_code   = "L-DB2E81BA"
  region       = "us-east-2"
  value        = 64
}
"""
    vertex, bedrock, azure, azure_quota, gcp_quota, aws_quota = _manifests(
        tmp_path, {"main.tf": text}
    )
    assert vertex.data["spec"] == {
        "profile": "inference",
        "model": {"id": "Qwen/Qwen2.5-7B-Instruct"},
        "resources": {
            "provider": "gcp",
            "region": "us-east1",
            "instanceType": "g2-standard-12",
            "accelerator": {"type": "NVIDIA_L4", "count": 1},
            "capacity": "spot",
        },
        "serving": {"replicas": 1, "maxReplicas": 2},
    }
    assert bedrock.data["spec"]["endpoints"] == [
        {
            "provider": "bedrock",
            "model": "amazon.nova-micro-v1:0",
            "region": "eu-west-3",
            "deploymentType": "provisioned",
        }
    ]
    assert azure.data["spec"]["endpoints"] == [
        {
            "provider": "azure-openai",
            "model": "gpt-4o-mini",
            "region": "swedencentral",
            "deploymentType": "GlobalStandard",
        }
    ]
    assert azure_quota.data["spec"]["entries"] == [
        {
            "provider": "azure",
            "region": "swedencentral",
            "quota": "OpenAI.GlobalStandard.gpt-4o-mini",
            "model": "gpt-4o-mini",
            "tokensPerMinute": 20000,
            "status": "requested",
        }
    ]
    assert gcp_quota.data["spec"]["entries"] == [
        {
            "provider": "gcp",
            "region": "us-east1",
            "quota": "PREEMPTIBLE_NVIDIA_L4_GPUS",
            "approved": 8,
            "status": "requested",
        }
    ]
    assert aws_quota.data["spec"]["entries"] == [
        {
            "provider": "aws",
            "region": "us-east-2",
            "quota": "L-DB2E81BA",
            "approved": 64,
            "status": "requested",
        }
    ]


def test_capacity_left_to_the_modules_caller_is_not_guessed(tmp_path: Path) -> None:
    text = """resource "azurerm_kubernetes_cluster_node_pool" "gpu" {
  count      = var.enable_gpu ? 1 : 0
  vm_size    = "Standard_NC4as_T4_v3"
  node_count = 1
}

resource "google_container_node_pool" "gpu" {
  node_count = 1
  node_config {
    machine_type = var.machine_type
  }
}
"""
    assert _manifests(tmp_path, {"main.tf": text}) == []


# -- across files and formats ---------------------------------------------------------------------

POOL = """# gpulint.dev/profile: training
resource "google_container_node_pool" "train" {
  name     = "a100-pool"
  location = "us-central1-a"
  autoscaling {
    min_node_count = 0
    max_node_count = 2
  }
  node_config {
    machine_type = "a2-highgpu-1g"
  }
}
"""
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: chat}
spec:
  replicas: 3
  template:
    spec:
      nodeSelector:
        cloud.google.com/gke-nodepool: a100-pool
        cloud.google.com/gke-accelerator: nvidia-tesla-a100
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: ["--model", "Qwen/Qwen2.5-1.5B-Instruct", "--max-model-len", "4096"]
          resources: {limits: {nvidia.com/gpu: 1}}
"""


def test_kubernetes_serving_on_a_terraform_training_pool(
    tmp_path: Path, rulebook: Rulebook
) -> None:
    """The pool's limit (2 nodes x 1 A100) holds 2 of the Deployment's 3 GPUs (GL307, the pool
    not counted as drawing on itself), and serving shares the declared training pool (GL205)."""
    (tmp_path / "infra").mkdir()
    (tmp_path / "infra" / "main.tf").write_text(POOL, encoding="utf-8")
    (tmp_path / "chat.yaml").write_text(DEPLOYMENT, encoding="utf-8")
    findings = lint([tmp_path], rulebook, select=("GL205", "GL307")).findings
    assert sorted(
        (Path(f.location.file).name, f.rule_id, f.location.span.line) for f in findings
    ) == [
        ("chat.yaml", "GL205", 9),
        ("chat.yaml", "GL307", 9),
        ("main.tf", "GL205", 3),
        ("main.tf", "GL307", 7),
    ]
    (limit,) = [f for f in findings if f.rule_id == "GL307" and f.location.file.endswith(".tf")]
    assert limit.message == (
        "google_container_node_pool train allows 2 nvidia GPUs at once, but the workloads of this "
        "run drawing on it need 3 nvidia GPUs"
    )
    assert (limit.fix or "").endswith("; the workloads: chat with 3)")


def test_the_issue_32_module_gives_quota_cost_and_residency(
    tmp_path: Path, rulebook: Rulebook
) -> None:
    """A module with an EKS node group and a Bedrock Provisioned Throughput: the node group's
    quota and cost, and the throughput's residency, as a reviewer expects them."""
    module = tmp_path / "module"
    module.mkdir()
    (module / "variables.tf").write_text(
        'variable "region" {\n  default = "us-east-1"\n}\n', encoding="utf-8"
    )
    (module / "main.tf").write_text(
        """provider "aws" {
  region = var.region
}

resource "aws_eks_node_group" "serve" {
  cluster_name    = "prod"
  node_group_name = "serve"
  instance_types  = ["g5.xlarge"]
  scaling_config {
    desired_size = 2
    min_size     = 2
    max_size     = 4
  }
}

# gpulint.dev/personal-data: "true"
# gpulint.dev/residency: EU
# gpulint.dev/lawful-basis: contract
# gpulint.dev/transparency-notice: https://example.org/privacy
# gpulint.dev/processor-agreement: AWS GDPR DPA
# gpulint.dev/acceptable-use-reviewed: "true"
resource "aws_bedrock_provisioned_model_throughput" "assistant" {
  provisioned_model_name = "assistant"
  model_arn              = "arn:aws:bedrock:${var.region}::foundation-model/amazon.nova-micro-v1:0"
  commitment_duration    = "OneMonth"
  model_units            = 1
}
""",
        encoding="utf-8",
    )
    findings = lint([module], rulebook).findings
    shown = sorted(
        (f.rule_id, f.location.span.line)
        for f in findings
        if f.level in (Severity.ERROR, Severity.WARNING)
    )
    # A production serving node group that keeps two nodes is no GL201: serving runs continuously.
    assert shown == [("GL301", 8), ("GL401", 24)]
    quota = next(f for f in findings if f.rule_id == "GL301")
    # quota at the group's peak: max_size 4 x g5.xlarge's 4 vCPU (cost below is at its desired 2)
    assert quota.message == (
        "needs 16 vCPU of aws quota Running On-Demand G and VT instances in us-east-1; no "
        "QuotaLedger says it is approved"
    )
    assert (quota.fix or "").startswith("check the quota (L-DB2E81BA, for on-demand capacity; ")
    residency = next(f for f in findings if f.rule_id == "GL401")
    assert "personal data may be processed in us-east-1 (N. Virginia, US)" in residency.message
    cost = run_cli("cost", "--format", "json", str(module))
    report = json.loads(cost.out)
    (serve,) = [w["cost"] for w in report["workloads"] if w["name"] == "serve"]
    assert (serve["instances"], serve["perHour"], serve["monthly"]) == (2, 2.012, 1468.76)


# -- reading the module, and hostile input ------------------------------------------------------


def test_a_tf_file_named_on_the_command_line_is_read_not_a_yaml_error(
    tmp_path: Path, rulebook: Rulebook
) -> None:
    path = tmp_path / "main.tf"
    path.write_text('resource "aws_instance" "a" {\n  instance_type = "t3.micro"\n}\n')
    result = lint([path], rulebook)
    assert (result.findings, result.files_checked) == ([], 1)
    tfvars = tmp_path / "terraform.tfvars"
    tfvars.write_text('region = "us-east-1"\n')
    assert lint([tfvars], rulebook).findings == []


def test_the_cache_key_of_a_module_file_covers_its_other_files(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text('resource "aws_instance" "a" {\n}\n')
    (tmp_path / "variables.tf").write_text('variable "x" {\n  default = 1\n}\n')
    (tmp_path / "notes.md").write_text("not part of the module\n")
    candidate = PathCandidate(str(tmp_path / "main.tf"), "main.tf", False, tmp_path)
    before = read_source(candidate)
    assert [name for name, _ in before.companions] == ["variables.tf"]
    (tmp_path / "notes.md").write_text("edited\n")
    assert read_source(candidate).digest == before.digest
    (tmp_path / "variables.tf").write_text('variable "x" {\n  default = 2\n}\n')
    assert read_source(candidate).digest != before.digest


def test_suppressions_are_hcl_comments(tmp_path: Path, rulebook: Rulebook) -> None:
    path = tmp_path / "main.tf"
    path.write_text(
        "# gpulint: ignore[GL201] stopped every night by a scheduled job\n"
        'resource "aws_instance" "box" {\n'
        '  tags = { note = "# gpulint: ignore[GL301] inside a string is not a comment" }\n'
        '  instance_type = "g5.xlarge"\n'
        '  availability_zone = "us-east-1a"\n'
        "}\n"
    )
    findings = lint([path], rulebook, select=("GL201", "GL301")).findings
    assert sorted((f.rule_id, f.location.span.line, f.suppressed_reason) for f in findings) == [
        ("GL201", 2, "stopped every night by a scheduled job"),
        ("GL301", 4, None),
    ]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            'resource "aws_instance" "a" {\n  x = ' + "[" * 5000 + "]" * 5000 + "\n}\n",
            2,
            "HCL syntax error: nested more than 64 levels deep: not read",
        ),
        (
            'resource "aws_instance" "a" {\n  x = "' + "y" * 300_000 + "\n}\n",
            2,
            "HCL syntax error: unterminated string (a quoted string ends on its line)",
        ),
    ],
)
def test_hostile_terraform_is_a_finding_with_a_position(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    path = tmp_path / "main.tf"
    path.write_text(text)
    result = run_cli("check", "--format", "json", "--select", "GL002", str(path))
    assert result.code == 1 and "Traceback" not in result.err
    (finding,) = json.loads(result.out)["findings"]
    assert (finding["ruleId"], finding["line"], finding["message"]) == ("GL002", line, message)


def test_a_thousand_node_pools_are_a_thousand_workloads(tmp_path: Path) -> None:
    pool = """resource "google_container_node_pool" "p{n}" {{
  location   = "us-central1-a"
  node_count = 1
  node_config {{
    machine_type = "a2-highgpu-1g"
  }}
}}
"""
    path = tmp_path / "main.tf"
    path.write_text("".join(pool.format(n=n) for n in range(1000)))
    result = run_cli("facts", str(path))
    assert len(json.loads(result.out)) == 1000


_ODD_VALUES: tuple[Any, ...] = (None, 7, -1, "", "x", True, [1, "a"], {"k": []}, 1e300)


def _nodes(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    children = (
        node.items()
        if isinstance(node, dict)
        else enumerate(node)
        if isinstance(node, list)
        else ()
    )
    for key, child in children:
        yield from _nodes(child, (*prefix, key))


@pytest.mark.parametrize("module", MODULES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_any_value_anywhere_in_a_resource_is_no_traceback(module: Path) -> None:
    """Every value of every fixture resource replaced by one of another type (what a variable
    of the wrong type gives): adapting never raises."""
    for path in sorted(module.glob("*.tf")):
        companions = {p.name: p.read_text() for p in module.glob("*.tf") if p != path}
        loaded = load_file(path.name, path.read_text(), companions, {m.decode() for m in TERRAFORM})
        file = InputFile(path.name, path, path.read_text())
        for document in loaded.documents:
            body = document.body()
            for where in list(_nodes(body))[1:]:
                for value in _ODD_VALUES:
                    changed = copy.deepcopy(document)
                    node: Any = changed.body()
                    for part in where[:-1]:
                        node = node[part]
                    node[where[-1]] = value
                    adapt(changed, file)


def test_a_rendered_kubernetes_manifest_is_a_template_note_not_silence(tmp_path: Path) -> None:
    """``kubernetes_manifest`` whose manifest Terraform renders (templatefile, file): one GL010
    note for the file, at the first such ``manifest`` argument, naming the expression."""
    (tmp_path / "main.tf").write_text(
        'resource "kubernetes_manifest" "a" {\n'
        "  for_each = toset(local.templates)\n"
        "  manifest = yamldecode(templatefile(each.value, { model = var.model }))\n"
        "}\n"
        'resource "kubernetes_manifest" "b" {\n'
        '  manifest = yamldecode(file("b.yaml"))\n'
        "}\n",
        encoding="utf-8",
    )
    result = run_cli("check", "--no-cache", "--format", "json", str(tmp_path))
    report = json.loads(result.out)
    found = [(f["ruleId"], f["line"], f["severity"], f["message"]) for f in report["findings"]]
    assert found == [
        (
            "GL010",
            3,
            "note",
            "this file is a template (yamldecode(templatefile(each.value, …))): gpulint lints "
            "what renders it",
        )
    ]
    assert report["findings"][0]["fix"].endswith(
        "; yamldecode(templatefile(each.value, …)) in manifest of kubernetes_manifest.a is filled "
        "in only when rendered"
    )
    assert "terraform show -json PLAN" in report["findings"][0]["fix"]
    assert "assume:" not in report["findings"][0]["fix"]
