"""The packaged price catalogue: every sourced row, its caveat flags, and what it must agree with."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from conftest import REPO
from jsonschema import Draft202012Validator

from linter import catalog
from linter.catalog import CatalogueError
from linter.catalog import prices as price_catalogue
from linter.catalog.prices import Prices, prices
from linter.catalog.spelling import name_key


def test_every_sourced_row_is_in_the_catalogue() -> None:
    data = prices()
    by_provider = Counter(row.provider for row in data.instances)
    types = {(row.provider, row.instance_type) for row in data.instances}
    assert (len(data.instances), dict(by_provider)) == (888, {"aws": 558, "azure": 183, "gcp": 147})
    assert Counter(provider for provider, _ in types) == {"aws": 48, "azure": 41, "gcp": 15}
    assert len(data.managed) == 1006
    assert len({row.hf_id for row in data.managed if row.hf_id}) == 49
    assert (data.as_of, data.currency, data.hours_per_month) == ("2026-12-02", "USD", 730)


def test_lookups_build_the_rows_of_the_whole_catalogue() -> None:
    """A run reads the tables row by row as lookups need them (linter/catalog/prices.py): the
    same rows, in the same order, as the whole catalogue the tests validate; a row found twice
    is one object."""
    data = prices()
    aws = price_catalogue.instance_rows("aws", "p5.48xlarge")
    assert len(aws) == 11
    assert [(row.region, row.on_demand_per_hour, row.accelerator) for row in aws[:2]] == [
        ("ap-northeast-1", 68.8, "H100"),
        ("ap-south-1", 66.048, "H100"),
    ]
    llama = price_catalogue.managed_rows("meta-llama/Llama-3.1-70B-Instruct")
    assert [(row.provider, row.model, row.region) for row in llama[:2]] == [
        ("bedrock", "meta.llama3-1-70b-instruct-v1:0", None),
        ("bedrock", "us.meta.llama3-1-70b-instruct-v1:0", "us"),
    ]
    assert price_catalogue.instance_table() == tuple(data.instances)
    assert all(any(row is one for one in price_catalogue.instance_table()) for row in aws)
    for row in data.instances:
        assert row in price_catalogue.instance_rows(row.provider, row.instance_type)
    for row in data.managed:
        assert row.hf_id is None or row in price_catalogue.managed_rows(row.hf_id)
    mapped = tuple(dict.fromkeys(row.hf_id for row in data.managed if row.hf_id))
    assert price_catalogue.mapped_models() == mapped
    book = price_catalogue.price_book()
    assert (book.as_of, book.flags, book.sources) == (data.as_of, data.flags, data.sources)


def test_sources_carry_commit_licence_and_processing() -> None:
    sources = {source.id: source for source in prices().sources}
    assert sorted(sources) == [
        "litellm-1.110.2",
        "skypilot-catalog-v6-azure",
        "skypilot-catalog-v8-aws",
        "skypilot-catalog-v8-gcp",
    ]
    aws = sources["skypilot-catalog-v8-aws"]
    assert (aws.repository, aws.path, aws.commit, aws.licence) == (
        "skypilot-org/skypilot-catalog",
        "catalogs/v8/aws/vms.csv",
        "e385a0d348eda9cefd9806423e7725944dc249e4",
        "Apache-2.0",
    )
    litellm = sources["litellm-1.110.2"]
    assert (litellm.version, litellm.sha256) == (
        "1.110.2",
        "8943af58bf9f979c6a4bef815687117ffa341e462a41faed9be17b5c33d3dcc2",
    )
    assert all(source.processing for source in sources.values())


def flagged(flag_id: str) -> list[tuple[str, str]]:
    return sorted(
        (row.instance_type, row.region) for row in prices().instances if flag_id in row.flags
    )


def test_caveats_of_sources_md_are_flags_on_the_rows() -> None:
    counts = Counter(flag for row in prices().instances for flag in row.flags)
    assert counts == {
        "stale-source": 183,  # all of Azure v6
        "regional-price-spread": 144,  # every GCP GPU: its per-GPU price varies 2x or more
        "spot-placeholder": 30,
        "accelerator-count-suspicious": 21,
        "spot-equals-on-demand": 14,
        "spot-above-on-demand": 2,
    }
    assert flagged("spot-above-on-demand") == [
        ("g5.24xlarge", "me-central-1"),
        ("g5.2xlarge", "me-central-1"),
    ]
    assert ("g4dn.12xlarge", "af-south-1") in flagged("spot-placeholder")
    assert ("p3.8xlarge", "ap-northeast-2") in flagged("spot-placeholder")
    assert sorted({t for t, _ in flagged("accelerator-count-suspicious")}) == [
        "Standard_ND96isr_H100_v5",  # listed with 12 H100; the SKU has 8
        "Standard_NV16as_v4",  # 1/2, 1/4 and 1/8 of an MI25, listed as 1
        "Standard_NV4as_v4",
        "Standard_NV8as_v4",
    ]
    assert sorted({t for t, _ in flagged("spot-equals-on-demand") if t.startswith("Standard")}) == [
        "Standard_NC40ads_H100_v5",
        "Standard_NC80adis_H100_v5",
        "Standard_ND96isr_H100_v5",
    ]
    assert {r.provider for r in prices().instances if "regional-price-spread" in r.flags} == {"gcp"}


def test_every_priced_instance_type_is_catalogued_with_its_gpu_count() -> None:
    catalogued = {
        (entry["provider"], name_key(entry["name"])): entry
        for entry in catalog.load("instance_types")["instance_types"]
    }
    for row in prices().instances:
        entry = catalogued.get((row.provider, name_key(row.instance_type)))
        assert entry is not None, (
            f"{row.provider} {row.instance_type} is not in instance_types.yaml"
        )
        if "accelerator-count-suspicious" not in row.flags:
            assert entry["gpu_count"] == row.accelerator_count, row


def test_published_schema_validates_the_catalogue() -> None:
    schema = json.loads((REPO / "schemas/catalog/prices.schema.json").read_text("utf-8"))
    Draft202012Validator.check_schema(schema)
    document = prices().model_dump(mode="json", exclude_none=True)
    assert list(Draft202012Validator(schema).iter_errors(document)) == []
    del document["instances"][0]["source"]
    assert not Draft202012Validator(schema).is_valid(document)


def test_a_row_naming_an_undeclared_flag_or_source_is_refused() -> None:
    document = prices().model_dump()
    document["instances"][0]["flags"] = ("spot-is-free",)
    document["managed"][0]["source"] = "hearsay"
    with pytest.raises(ValueError) as caught:
        Prices.model_validate(document)
    assert "instance row g4dn.12xlarge af-south-1: undeclared flag 'spot-is-free'" in str(
        caught.value
    )
    assert "managed row azure_ai/Codestral-2501: undeclared source 'hearsay'" in str(caught.value)


def test_a_broken_csv_cell_is_reported_with_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in (price_catalogue.INSTANCES_FILE, price_catalogue.MANAGED_FILE):
        text = (price_catalogue.DATA / name).read_text(encoding="utf-8")
        (tmp_path / name).write_text(text, encoding="utf-8")
    lines = (tmp_path / price_catalogue.INSTANCES_FILE).read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2].replace("6.024", "six")
    (tmp_path / price_catalogue.INSTANCES_FILE).write_text("\n".join(lines) + "\n", "utf-8")
    monkeypatch.setattr(price_catalogue, "DATA", tmp_path)
    with pytest.raises(CatalogueError) as caught:
        Prices.assemble({"as_of": "2026-12-02"})
    assert str(caught.value) == (
        "catalogue prices_instances.csv:3: could not convert string to float: 'six'"
    )
