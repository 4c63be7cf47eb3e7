"""A Terraform file read with its module: values as Terraform knows them before planning, the
span each argument is written at, where values came from, and bounded evaluation."""

from __future__ import annotations

import pytest

from linter.load.positions import Span
from linter.load.terraform import TerraformDocument, load_file
from linter.load.terraform_values import Unknown

POOL = "google_container_node_pool"
WANTED = {POOL, "aws_instance", "google_compute_instance"}


def _documents(
    text: str, companions: dict[str, str] | None = None, name: str = "main.tf"
) -> dict[str, TerraformDocument]:
    loaded = load_file(name, text, companions or {}, WANTED)
    assert loaded.problems == []
    return {document.address: document for document in loaded.documents}


def test_values_spans_and_a_variable_default_in_another_file() -> None:
    main = (
        'resource "google_container_node_pool" "train" {\n'
        "  autoscaling {\n"
        "    min_node_count = var.min_nodes\n"
        '    max_node_count = "3"\n'
        "  }\n"
        "  node_config {\n"
        '    machine_type = "g2-standard-24"\n'
        "  }\n"
        "}\n"
    )
    variables = 'variable "min_nodes" {\n  type    = number\n  default = 2\n}\n'
    pool = _documents(main, {"variables.tf": variables})["google_container_node_pool.train"]
    assert pool.body() == {
        "autoscaling": [{"min_node_count": 2, "max_node_count": "3"}],
        "node_config": [{"machine_type": "g2-standard-24"}],
    }
    at = (*pool.root, "autoscaling", 0, "min_node_count")
    assert pool.source_map.exact(at) == Span(3, 5, 3, 19)
    (origin,) = pool.origins[("autoscaling", 0, "min_node_count")]
    assert (origin.file, origin.span.line, origin.what) == (
        "variables.tf",
        3,
        'default of variable "min_nodes"',
    )


def test_tfvars_win_over_defaults_and_unknowns_say_why() -> None:
    documents = _documents(
        'resource "google_compute_instance" "vm" {\n  machine_type = var.machine\n'
        "  zone = var.zone\n  labels = { for k in var.x : k => k }\n"
        "  network = google_compute_network.main.id\n}\n",
        {
            "variables.tf": 'variable "machine" {\n  default = "g2-standard-4"\n}\n'
            'variable "zone" {}\n',
            "terraform.tfvars": 'machine = "a2-highgpu-1g"\n',
        },
    )
    vm = documents["google_compute_instance.vm"].body()
    assert vm["machine_type"] == "a2-highgpu-1g"
    assert vm["zone"] == Unknown("var.zone has no default: it is set where the module is used")
    assert vm["labels"] == Unknown("a for expression")
    assert vm["network"] == Unknown("google_compute_network.main.id is known only after apply")
    assert documents["google_compute_instance.vm"].references == {
        ("network",): ("google_compute_network", "main")
    }


def test_for_each_count_and_dynamic_blocks_are_expanded() -> None:
    text = """locals {
  pools = {
    train = { type = "nvidia-l4", count = 2 }
    serve = { type = "nvidia-tesla-t4", count = 1 }
  }
}
resource "google_container_node_pool" "p" {
  for_each = local.pools
  name     = each.key
  node_config {
    dynamic "guest_accelerator" {
      for_each = [each.value]
      iterator = acc
      content {
        type  = acc.value.type
        count = acc.value.count
      }
    }
  }
}
resource "aws_instance" "box" {
  count         = var.enabled ? 2 : 0
  instance_type = "g5.xlarge"
}
variable "enabled" {
  default = true
}
"""
    documents = _documents(text)
    assert sorted(documents) == [
        "aws_instance.box[0]",
        "aws_instance.box[1]",
        'google_container_node_pool.p["serve"]',
        'google_container_node_pool.p["train"]',
    ]
    train = documents['google_container_node_pool.p["train"]']
    assert train.body()["node_config"] == [
        {"guest_accelerator": [{"type": "nvidia-l4", "count": 2}]}
    ]
    at = (*train.root, "node_config", 0, "guest_accelerator", 0, "type")
    assert train.source_map.exact(at) == Span(15, 9, 15, 13)
    assert [d.index for d in documents.values()] == [0, 1, 2, 3]


def test_an_unknown_count_is_one_instance_that_says_so() -> None:
    text = 'resource "aws_instance" "gpu" {\n  count = var.on ? 1 : 0\n}\nvariable "on" {}\n'
    (document,) = _documents(text).values()
    assert document.instances_unknown == (
        "count: var.on has no default: it is set where the module is used"
    )


def test_comment_annotations_right_above_a_resource() -> None:
    text = (
        "# gpulint.dev/profile: inference\n"
        "# unrelated words\n"
        '# gpulint.dev/latency-sensitive: "true"\n'
        'resource "aws_instance" "a" {\n}\n'
        "\n"
        "# gpulint.dev/profile: dev\n"
        "\n"
        'resource "aws_instance" "b" {\n}\n'
    )
    documents = _documents(text)
    a = documents["aws_instance.a"]
    assert a.annotations == {"latency-sensitive": "true", "profile": "inference"}
    assert a.source_map.exact(("#", "gpulint.dev/profile")) == Span(1, 1, 1, 33)
    assert documents["aws_instance.b"].annotations == {}  # a blank line separates it


def test_provider_configuration_and_another_blocks_argument() -> None:
    text = (
        'provider "aws" {\n  region = "eu-central-1"\n}\n'
        'provider "aws" {\n  alias = "us"\n  region = "us-east-1"\n}\n'
        'resource "aws_instance" "a" {\n  provider = aws.us\n'
        "  instance_type = aws_launch_template.t.instance_type\n}\n"
        'resource "aws_launch_template" "t" {\n  instance_type = "g6.xlarge"\n}\n'
    )
    document = _documents(text)["aws_instance.a"]
    assert document.provider == ("aws", "us")
    assert document.body() == {"instance_type": "g6.xlarge"}
    assert document.module is not None
    found = document.module.provider("aws", "us")
    assert found is not None and found[0]["region"].value == "us-east-1"
    default = document.module.provider("aws")
    assert default is not None and default[0]["region"].value == "eu-central-1"


def test_a_companion_that_does_not_parse_leaves_its_values_unknown() -> None:
    documents = _documents(
        'resource "aws_instance" "a" {\n  instance_type = var.type\n}\n',
        {"variables.tf": 'variable "type" {\n  default = "g5.xlarge\n}\n'},
    )
    assert documents["aws_instance.a"].body() == {
        "instance_type": Unknown("var.type is not declared")
    }


def test_the_files_own_syntax_error_is_its_problem() -> None:
    loaded = load_file("main.tf", 'resource "aws_instance" "a" {\n  x = "\n}\n', {}, WANTED)
    assert [(p.span.line, p.message) for p in loaded.problems] == [
        (2, "HCL syntax error: unterminated string (a quoted string ends on its line)")
    ]


@pytest.mark.parametrize(
    ("locals_text", "reason"),
    [
        ("a = local.a", "local.a refers to itself"),
        ("a = local.b\n  b = local.a", "local.a refers to itself"),
        (
            "\n".join(f'  l{i} = "${{local.l{i + 1}}}${{local.l{i + 1}}}"' for i in range(40))
            + '\n  l40 = "xxxxxxxxxxxxxxxx"\n  a = local.l0',
            "value too large",
        ),
        ("a = " + " * ".join("1000" for _ in range(50)), "a number too large"),
    ],
)
def test_hostile_locals_are_bounded(locals_text: str, reason: str) -> None:
    text = f'locals {{\n  {locals_text}\n}}\nresource "aws_instance" "x" {{\n  v = local.a\n}}\n'
    (document,) = _documents(text).values()
    assert document.body()["v"] == Unknown(reason)


def test_a_thousand_instances_are_not_expanded() -> None:
    text = 'resource "aws_instance" "x" {\n  count = 1000\n}\n'
    (document,) = _documents(text).values()
    assert document.instances_unknown == "count: not a small whole number"
