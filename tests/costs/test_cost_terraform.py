"""``gpulint cost --diff`` on a Terraform change: a node pool's count, changed in the file that
declares the pool or in the module's ``variables.tf``, both at the revision and in the working
tree (a file is read with its module's other files on both sides)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli
from costrepo import commit, git, working_repo, write

POOL = """provider "google" {
  region = "us-central1"
}

resource "google_container_node_pool" "serve" {
  name       = "serve"
  cluster    = "prod"
  location   = "us-central1-a"
  node_count = var.nodes

  node_config {
    machine_type = "a2-highgpu-1g"
  }
}
"""
PRICES = (
    "Prices: gpulint's price catalogue as of 2026-12-02 (USD; sources skypilot-catalog-v8-gcp), "
    "on-demand and one spot snapshot per region; monthly = $/hour at the declared capacity x "
    "hours a month."
)


def _variables(nodes: int) -> str:
    return f'variable "nodes" {{\n  type    = number\n  default = {nodes}\n}}\n'


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An A100 serving pool of 2 nodes (a2-highgpu-1g in us-central1: $3.67339/h, $2,681.57 a
    node a month) committed."""
    root = working_repo(tmp_path, monkeypatch)
    write(root / "infra/main.tf", POOL)
    write(root / "infra/variables.tf", _variables(2))
    commit(root, "base")
    return root


@pytest.mark.parametrize("named", ["infra", "infra/main.tf"])
def test_a_node_count_changed_in_variables_tf(repo: Path, named: str) -> None:
    write(repo / "infra/variables.tf", _variables(4))
    commit(repo, "two more nodes")
    result = run_cli("cost", "--diff", "HEAD~1", named)
    short = git(repo, "rev-parse", "HEAD~1")[:12]
    assert (result.code, result.err) == (0, "")
    assert result.out == (
        f"gpulint cost change against HEAD~1 ({short}): +$5,363.15 a month ($5,363.15 → "
        "$10,726.30) over 1 workload compared\n"
        "\n"
        "Workload  File           Change             Before       After       Delta\n"
        "serve     infra/main.tf  replicas 2 → 4  $5,363.15  $10,726.30  +$5,363.15\n"
        "--------------------------------------------------------------------------\n"
        "Total     1 workload                     $5,363.15  $10,726.30  +$5,363.15\n"
        "\n"
        f"  {PRICES}\n"
    )


def test_a_node_count_written_in_the_pool_in_the_working_tree(repo: Path) -> None:
    write(repo / "infra/main.tf", POOL.replace("var.nodes", "3"))
    result = run_cli("cost", "--diff", "HEAD", "--format", "json", "infra")
    assert (result.code, result.err) == (0, "")
    (change,) = json.loads(result.out)["changes"]
    assert (change["status"], change["file"], change["delta"], change["what"]) == (
        "same",
        "infra/main.tf",
        2681.57,
        ["replicas 2 → 3"],
    )
