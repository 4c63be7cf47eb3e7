"""scripts/refresh_prices.py on small upstream-shaped files: exact rows, flags and sources."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from linter.load import load_text

SCRIPT = REPO / "scripts" / "refresh_prices.py"
FIXTURES = Path(__file__).resolve().parent / "refresh"
AWS_COMMIT = "a" * 40
GCP_COMMIT = "b" * 40
AZURE_COMMIT = "c" * 40


def refresh(out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable,
        str(SCRIPT),
        "--as-of", "2026-12-02",
        "--aws", str(FIXTURES / "aws_vms.csv"), "--aws-commit", AWS_COMMIT, "--aws-schema", "v8",
        "--gcp", str(FIXTURES / "gcp_vms.csv"), "--gcp-commit", GCP_COMMIT, "--gcp-schema", "v8",
        "--azure", str(FIXTURES / "azure_vms.csv"), "--azure-commit", AZURE_COMMIT,
        "--azure-schema", "v6",
        "--litellm", str(FIXTURES / "litellm.json"), "--litellm-version", "9.9.9",
        "--out", str(out),
        *extra,
    ]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("prices")
    result = refresh(out)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "prices_instances.csv: 16 rows; prices_managed.csv: 8 rows\n"
    return out


def test_instance_rows_collapse_compose_and_flag(output: Path) -> None:
    assert (output / "prices_instances.csv").read_text(encoding="utf-8").splitlines() == [
        "provider,instance_type,accelerator,accelerator_count,region,on_demand_per_hour,spot_per_hour,flags,source",
        # AWS: zones collapse to the lowest spot; an empty spot cell is ignored.
        "aws,g5.2xlarge,A10G,1,me-central-1,1.48669,1.4867,spot-above-on-demand,skypilot-catalog-v8-aws",
        "aws,g5.xlarge,A10G,1,ap-southeast-3,1.69632,0.1696,spot-placeholder,skypilot-catalog-v8-aws",
        "aws,g5.xlarge,A10G,1,us-east-1,1.006,0.3987,,skypilot-catalog-v8-aws",
        "aws,g7.48xlarge,RTXPRO6000,8,us-west-2,40,,,skypilot-catalog-v8-aws",
        "aws,p5.48xlarge,H100,8,ca-central-1,55.04,55.04,spot-equals-on-demand,skypilot-catalog-v8-aws",
        "aws,p5e.48xlarge,H200,8,us-east-2,,24.12,,skypilot-catalog-v8-aws",
        # Azure v6 is an older schema: every row is stale. 12 and 3 GPUs are not real shapes;
        # NV4as_v4's 1 GPU is the documented 1/8 (refresh_prices.json count_corrections).
        "azure,Standard_NC24ads_A100_v4,A100-80GB,1,eastus,3.673,0.4624,stale-source,skypilot-catalog-v6-azure",
        "azure,Standard_NC6s_v3,V100,1,eastus,3.06,0.3,stale-source,skypilot-catalog-v6-azure",
        "azure,Standard_NC6s_v3,V100,3,westus,3.06,0.3,accelerator-count-suspicious stale-source,skypilot-catalog-v6-azure",
        "azure,Standard_ND96isr_H100_v5,H100,12,eastus,98.32,98.32,spot-equals-on-demand accelerator-count-suspicious stale-source,skypilot-catalog-v6-azure",
        "azure,Standard_NV4as_v4,Radeon MI25,1,westus2,0.17,,accelerator-count-suspicious stale-source,skypilot-catalog-v6-azure",
        # GCP: VM + GPU per zone, then the region minimum; the H100 GPU part is 4.2 in one
        # region and 9.8 in the other (x2.33). L4 lists every g2 host present; T4 x1 takes the
        # cheapest n1 with >= 4 vCPUs and >= 16 GiB (n1-standard-4 has 15 GiB). T4 x8 has no
        # host rule, a4's 0.0 host is unpriced and TPUs are not composed.
        "gcp,a3-highgpu-1g,H100,1,us-central1,8.2,3.4,regional-price-spread,skypilot-catalog-v8-gcp",
        "gcp,a3-highgpu-1g,H100,1,us-east4,13.8,,regional-price-spread,skypilot-catalog-v8-gcp",
        "gcp,g2-standard-4,L4,1,europe-west4,0.8,0.28,,skypilot-catalog-v8-gcp",
        "gcp,g2-standard-8,L4,1,europe-west4,0.9,0.32,,skypilot-catalog-v8-gcp",
        "gcp,n1-highmem-4,T4,1,us-central1,0.59,0.12,,skypilot-catalog-v8-gcp",
    ]


def test_managed_rows_regions_and_hf_ids(output: Path) -> None:
    assert (output / "prices_managed.csv").read_text(encoding="utf-8").splitlines() == [
        "provider,model,region,input_per_million_tokens,output_per_million_tokens,hf_id,source,source_key",
        "azure-ai,Phi-4,,0.125,0.5,microsoft/phi-4,litellm-9.9.9,azure_ai/Phi-4",
        "azure-openai,gpt-4o-2024-08-06,eu,2.75,11,,litellm-9.9.9,azure/eu/gpt-4o-2024-08-06",
        "bedrock,meta.llama3-1-8b-instruct-v1:0,,0.22,0.22,meta-llama/Llama-3.1-8B-Instruct,litellm-9.9.9,meta.llama3-1-8b-instruct-v1:0",
        "bedrock,meta.llama3-8b-instruct-v1:0,eu-west-2,0.39,0.78,meta-llama/Meta-Llama-3-8B-Instruct,litellm-9.9.9,bedrock/eu-west-2/meta.llama3-8b-instruct-v1:0",
        "bedrock,openai.gpt-oss-120b,,0.15,0.6,openai/gpt-oss-120b,litellm-9.9.9,bedrock_mantle/openai.gpt-oss-120b",
        "bedrock,openai.gpt-oss-120b-1:0,,0.15,0.6,openai/gpt-oss-120b,litellm-9.9.9,openai.gpt-oss-120b-1:0",
        "bedrock,us.meta.llama3-1-8b-instruct-v1:0,us,0.22,0.22,meta-llama/Llama-3.1-8B-Instruct,litellm-9.9.9,us.meta.llama3-1-8b-instruct-v1:0",
        "vertex-ai,openai/gpt-oss-20b-maas,,0.075,0.3,openai/gpt-oss-20b,litellm-9.9.9,vertex_ai/openai/gpt-oss-20b-maas",
    ]


def test_metadata_names_every_source_with_its_commit(output: Path) -> None:
    loaded = load_text((output / "prices.yaml").read_text(encoding="utf-8"))
    assert loaded.problems == []
    data = loaded.documents[0].data
    assert (data["as_of"], data["currency"], data["hours_per_month"]) == ("2026-12-02", "USD", 730)
    assert [(s["id"], s.get("commit"), s.get("version")) for s in data["sources"]] == [
        ("skypilot-catalog-v8-aws", AWS_COMMIT, None),
        ("skypilot-catalog-v8-gcp", GCP_COMMIT, None),
        ("skypilot-catalog-v6-azure", AZURE_COMMIT, None),
        ("litellm-9.9.9", None, "9.9.9"),
    ]
    assert data["sources"][2]["path"] == "catalogs/v6/azure/vms.csv"
    litellm_sha = data["sources"][3]["sha256"]
    assert len(litellm_sha) == 64
    assert [flag["id"] for flag in data["flags"]] == [
        "spot-placeholder",
        "spot-above-on-demand",
        "spot-equals-on-demand",
        "regional-price-spread",
        "accelerator-count-suspicious",
        "stale-source",
    ]


def test_rerun_is_byte_identical(output: Path, tmp_path: Path) -> None:
    assert refresh(tmp_path).returncode == 0
    for name in ("prices.yaml", "prices_instances.csv", "prices_managed.csv"):
        assert (tmp_path / name).read_bytes() == (output / name).read_bytes(), name


def test_a_file_that_is_not_a_skypilot_catalogue_is_refused(tmp_path: Path) -> None:
    wrong = tmp_path / "vms.csv"
    wrong.write_text("name,price\ng5.xlarge,1.0\n", encoding="utf-8")
    result = refresh(tmp_path, "--aws", str(wrong))
    assert result.returncode == 1
    assert result.stderr == (
        f"refresh_prices: {wrong}: not a SkyPilot vms.csv (no AcceleratorCount, AcceleratorName,"
        " InstanceType, Price, Region, SpotPrice)\n"
    )


def test_a_bad_price_cell_names_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "vms.csv"
    lines = (FIXTURES / "aws_vms.csv").read_text(encoding="utf-8").splitlines()
    bad.write_text("\n".join([*lines[:3], lines[3].replace("1.006", "1.0O6")]) + "\n", "utf-8")
    result = refresh(tmp_path, "--aws", str(bad))
    assert result.returncode == 1
    assert result.stderr == f"refresh_prices: {bad}:4: Price: not a number: '1.0O6'\n"


def test_a_cloud_file_needs_its_commit_and_schema(tmp_path: Path) -> None:
    command = [sys.executable, str(SCRIPT), "--as-of", "2026-12-02", "--litellm",
               str(FIXTURES / "litellm.json"), "--litellm-version", "1", "--aws",
               str(FIXTURES / "aws_vms.csv"), "--out", str(tmp_path)]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1].endswith(
        "error: --aws needs --aws-commit and --aws-schema"
    )
