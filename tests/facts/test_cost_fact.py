"""The cost fact with exact figures, and the cost rules on it (GL203 spot saving, GL209 managed
API alternative): hours and what they rest on, replicas, GPUs, prices from the catalogue."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import lint, run_cli

from linter.facts import Facts, records, spend
from linter.load.discovery import find_candidates
from linter.policy.loader import Rulebook
from linter.run.runner import collect

HEADER = "apiVersion: gpulint.dev/v1alpha1\nkind: Workload\n"


def workload(name: str, spec: str) -> str:
    return f"{HEADER}metadata:\n  name: {name}\nspec:\n{spec}"


def cost_of(tmp_path: Path, text: str) -> dict[str, Any]:
    path = tmp_path / "w.yaml"
    path.write_text(text, encoding="utf-8")
    result = run_cli("facts", str(path))
    assert result.code == 0, result.err
    (only,) = json.loads(result.out)
    cost: dict[str, Any] = only["facts"]["cost"]
    return cost


def messages(
    tmp_path: Path, rulebook: Rulebook, rule_id: str, text: str
) -> list[tuple[int, str, str | None]]:
    """Each finding's line, message (the verdict) and fix (the advice and the arithmetic)."""
    path = tmp_path / "w.yaml"
    path.write_text(text, encoding="utf-8")
    findings = lint([path], rulebook, [rule_id]).findings
    return [(f.location.span.line, f.message, f.fix) for f in findings]


SPOT_ADVICE = (
    "run on spot (spec.resources.capacity) with checkpointing and resume (GL202): a preemption "
    "then costs minutes, not the run; "
)
SELF_HOSTING_ADVICE = (
    "if self-hosting is needed, say why in spec.justification.selfHosting (data that cannot "
    "leave, a model not offered, high sustained volume, or latency); "
)

CHAT_8B = """\
  profile: inference
  model: {id: meta-llama/Llama-3.1-8B-Instruct}
  serving: {expectedTokensPerMinute: 10000%s}
  resources: {provider: aws, region: us-east-1, instanceType: g5.xlarge%s}
  lifecycle: {%s}
"""


def test_always_on_service_two_replicas(tmp_path: Path) -> None:
    cost = cost_of(tmp_path, workload("chat", CHAT_8B % (", replicas: 2, maxReplicas: 5", "", "")))
    # g5.xlarge in us-east-1: $1.006/h on-demand, $0.4591/h spot; 2 replicas for 730 h.
    assert {
        k: cost[k] for k in ("replicas", "maxReplicas", "pricedReplicas", "instances", "gpus")
    } == {
        "replicas": 2,
        "maxReplicas": 5,
        "pricedReplicas": 2,
        "instances": 2,
        "gpus": 2.0,
    }
    assert (cost["hoursPerMonth"], cost["hoursBasis"], cost["hoursUpperBound"]) == (
        730,
        "always-on",
        False,
    )
    assert cost["hoursText"] == (
        "730 hours a month: always on (no spec.lifecycle.hoursPerMonth, and it never stops)"
    )
    assert (cost["onDemandPerHour"], cost["spotPerHour"], cost["perHour"]) == (2.012, 0.9182, 2.012)
    assert (cost["monthly"], cost["onDemandMonthly"], cost["spotMonthly"]) == (
        1468.76,
        1468.76,
        670.29,
    )
    assert cost["maxMonthly"] == 3671.9  # 5 x 1.006 x 730
    assert cost["gpuHoursPerMonth"] == 1460
    assert (cost["priceRegion"], cost["unpriced"], cost["priceWarnings"]) == ("us-east-1", None, [])


def test_scale_to_zero_prices_one_replica_for_at_most_the_month(tmp_path: Path) -> None:
    cost = cost_of(tmp_path, workload("chat", CHAT_8B % (", replicas: 0", "", "scaleToZero: true")))
    assert (cost["replicas"], cost["pricedReplicas"], cost["gpus"]) == (0, 1, 1.0)
    assert (cost["hoursBasis"], cost["hoursUpperBound"], cost["monthly"]) == (
        "scale-to-zero",
        True,
        734.38,
    )
    assert cost["hoursText"] == (
        "at most 730 hours a month: it scales to zero, and no spec.lifecycle.hoursPerMonth says "
        "for how long it runs"
    )
    # The managed API is compared at the same replica and the same hours.
    assert cost["managedApi"]["comparison"]["selfHostedMonthly"] == 734.38


def test_zero_replicas_without_scale_to_zero_cost_nothing(tmp_path: Path) -> None:
    cost = cost_of(tmp_path, workload("chat", CHAT_8B % (", replicas: 0", "", "")))
    assert (cost["pricedReplicas"], cost["gpus"], cost["monthly"], cost["spotMonthly"]) == (
        0,
        0.0,
        0.0,
        0.0,
    )


def test_spot_with_an_on_demand_fallback(tmp_path: Path) -> None:
    spec = CHAT_8B % (", replicas: 3, onDemandFallbackReplicas: 1", ", capacity: spot", "")
    cost = cost_of(tmp_path, workload("chat", spec))
    # 1 x $1.006 + 2 x $0.4591 per hour; the spot column prices all three on spot.
    assert (cost["perHour"], cost["onDemandPerHour"], cost["spotPerHour"]) == (
        1.9242,
        3.018,
        1.3773,
    )
    assert cost["monthly"] == 1404.67


def test_reserved_capacity_is_priced_at_on_demand(tmp_path: Path) -> None:
    cost = cost_of(tmp_path, workload("chat", CHAT_8B % ("", ", capacity: reserved", "")))
    assert (cost["capacity"], cost["perHour"], cost["monthly"]) == ("reserved", 1.006, 734.38)


def test_declared_hours_and_nodes(tmp_path: Path) -> None:
    spec = """\
  profile: training
  resources: {provider: aws, region: us-east-1, instanceType: p4d.24xlarge, nodes: 2}
  lifecycle: {hoursPerMonth: 100, maxRuntimeHours: 48}
"""
    cost = cost_of(tmp_path, workload("train", spec))
    assert (cost["instances"], cost["gpus"], cost["hoursPerMonth"], cost["hoursBasis"]) == (
        2,
        16.0,
        100,
        "declared",
    )
    assert cost["hoursText"] == "100 hours a month, as spec.lifecycle.hoursPerMonth declares"
    assert cost["monthly"] == round(cost["onDemandPerHour"] * 100, 2)


def test_a_job_without_hours_has_prices_but_no_monthly_cost(tmp_path: Path) -> None:
    spec = "  profile: training\n  resources: {provider: aws, region: us-east-1, instanceType: g5.xlarge}\n"
    cost = cost_of(tmp_path, workload("train", spec))
    assert (cost["hoursPerMonth"], cost["hoursBasis"], cost["perHour"], cost["monthly"]) == (
        None,
        "unknown",
        1.006,
        None,
    )
    assert cost["hoursText"] == (
        "unknown: a job with neither spec.lifecycle.hoursPerMonth nor "
        "spec.lifecycle.maxRuntimeHours"
    )


@pytest.mark.parametrize(
    ("resources", "unpriced"),
    [
        (
            "{accelerator: {type: H100, count: 8}}",
            "no spec.resources.provider or spec.resources.instanceType declared: the catalogue "
            "prices instance types",
        ),
        (
            "{provider: aws, accelerator: {type: H100, count: 8}}",
            "no spec.resources.instanceType declared: the catalogue prices instance types",
        ),
        ("{provider: aws, instanceType: z9.huge}", "the catalogue has no price for z9.huge (aws)"),
        (
            "{provider: gcp, region: us-central1, instanceType: g2-standard-4}",
            "the catalogue has no price for g2-standard-4 (gcp)",
        ),
    ],
)
def test_why_there_is_no_price(tmp_path: Path, resources: str, unpriced: str) -> None:
    spec = f"  profile: training\n  resources: {resources}\n  lifecycle: {{maxRuntimeHours: 10}}\n"
    cost = cost_of(tmp_path, workload("train", spec))
    assert (cost["unpriced"], cost["perHour"], cost["monthly"]) == (unpriced, None, None)


# ------------------------------------------------------------------ GL203 from the catalogue


def test_gl203_gcp_workload_gets_a_saving_from_the_catalogue(
    tmp_path: Path, rulebook: Rulebook
) -> None:
    spec = """\
  profile: training
  resources:
    provider: gcp
    region: europe-west4
    instanceType: a2-highgpu-1g
"""
    assert messages(tmp_path, rulebook, "GL203", workload("train", spec)) == [
        (
            7,
            "training runs on on-demand capacity: spot would cost 38.7% less",
            SPOT_ADVICE + "spot would cost $1.4873/h instead of "
            "$2.4277/h (38.7% less, europe-west4 catalogue prices, source "
            "skypilot-catalog-v8-gcp; caveat: The GPU part of this type's on-demand price "
            "differs by a factor of 2 or more between regions in the same source snapshot (for "
            "GCP H100 $4.20 per GPU-hour in us-central1 against $9.80 in us-east4 with the same "
            "VM price): the source disagrees with itself, so compare regions with care.)",
        )
    ]


def test_gl203_azure_workload_gets_a_saving_from_the_catalogue(
    tmp_path: Path, rulebook: Rulebook
) -> None:
    spec = """\
  profile: fine-tuning
  resources:
    provider: azure
    region: eastus
    instanceType: Standard_NC4as_T4_v3
    capacity: on-demand
"""
    assert messages(tmp_path, rulebook, "GL203", workload("tune", spec)) == [
        (
            11,
            "fine-tuning runs on on-demand capacity: spot would cost 88.1% less",
            SPOT_ADVICE + "spot would cost $0.0627/h instead of "
            "$0.526/h (88.1% less, eastus catalogue prices, source skypilot-catalog-v6-azure; "
            "caveat: The row comes from an older SkyPilot catalogue schema than the current one, "
            "whose data date is unknown: treat the price as stale.)",
        )
    ]


def test_gl203_names_the_region_whose_price_it_used(tmp_path: Path, rulebook: Rulebook) -> None:
    spec = """\
  profile: training
  resources: {provider: azure, region: westeurope, instanceType: NC24ads_A100_v4}
"""
    ((_, message, fix),) = messages(tmp_path, rulebook, "GL203", workload("train", spec))
    assert message == "training runs on on-demand capacity: spot would cost 87.9% less"
    assert fix is not None
    assert fix.startswith(
        SPOT_ADVICE + "spot would cost $0.4444/h instead of $3.673/h "
        "(87.9% less, eastus catalogue prices (no price in westeurope or near it; eastus is the "
        "cheapest priced region of any), source skypilot-catalog-v6-azure; caveat: "
    )


# ------------------------------------------------------------- GL209 against the managed API


def test_gl209_llama_8b_on_aws_against_bedrock_in_the_same_region(
    tmp_path: Path, rulebook: Rulebook
) -> None:
    text = workload("chat", CHAT_8B % ("", "", ""))
    # $1.006/h x 730 h = $734.38; 10,000 tokens/min x 60 x 730 = 438M tokens at $0.22 per M.
    assert messages(tmp_path, rulebook, "GL209", text) == [
        (
            7,
            "self-hosts meta-llama/Llama-3.1-8B-Instruct, also a managed API: the API is cheaper "
            "by $638.02/month",
            SELF_HOSTING_ADVICE + "at 10,000 tokens/min over 730 hours a month, bedrock "
            "meta.llama3-1-8b-instruct-v1:0 in us-east-1 costs $96.36/month against "
            "$734.38/month self-hosted (offered by bedrock; every offering residency allows: bedrock meta.llama3-1-8b-instruct-v1:0 in us-east-1 $96.36/month "
            "and bedrock us.meta.llama3-1-8b-instruct-v1:0 in us $96.36/month)",
        )
    ]


def test_gl209_hours_per_month_change_both_sides(tmp_path: Path, rulebook: Rulebook) -> None:
    text = workload("chat", CHAT_8B % ("", "", "hoursPerMonth: 100"))
    ((_, message, fix),) = messages(tmp_path, rulebook, "GL209", text)
    # 100 h: $100.60 self-hosted and 60M tokens = $13.20: both sides x 100/730, same verdict.
    assert message.endswith("the API is cheaper by $87.40/month")
    assert (
        "at 10,000 tokens/min over 100 hours a month, bedrock meta.llama3-1-8b-instruct-v1:0 in "
        "us-east-1 costs $13.20/month against $100.60/month self-hosted" in (fix or "")
    )
    cost = cost_of(tmp_path, text)
    comparison = cost["managedApi"]["comparison"]
    assert (comparison["hoursPerMonth"], cost["hoursPerMonth"], cost["monthly"]) == (
        100,
        100,
        100.6,
    )
    assert comparison["selfHostedMonthly"] == cost["monthly"]
    assert comparison["breakEvenTokensPerMinute"] == 76_212  # the same at any hours


def test_gl209_on_the_reproduction_of_issue_10(tmp_path: Path, rulebook: Rulebook) -> None:
    """A p5.48xlarge inference workload in us-east-1 with 20,000 tokens a minute was told to
    declare the token volume it declared (the instance's missing price was the cause). The
    catalogue prices it ($55.04/h), and GL209 compares over the workload's hours."""
    spec = CHAT_8B.replace("10000", "20000").replace("g5.xlarge", "p5.48xlarge") % ("", "", "")
    assert messages(tmp_path, rulebook, "GL209", workload("chat", spec)) == [
        (
            7,
            "self-hosts meta-llama/Llama-3.1-8B-Instruct, also a managed API: the API is cheaper "
            "by $39,986.48/month",
            SELF_HOSTING_ADVICE + "at 20,000 tokens/min over 730 hours a month, bedrock "
            "meta.llama3-1-8b-instruct-v1:0 in us-east-1 costs $192.72/month against "
            "$40,179.20/month self-hosted (offered by bedrock; every offering residency allows: bedrock meta.llama3-1-8b-instruct-v1:0 in us-east-1 "
            "$192.72/month and bedrock us.meta.llama3-1-8b-instruct-v1:0 in us $192.72/month)",
        )
    ]


def test_gl209_names_the_one_field_missing_for_a_price(tmp_path: Path, rulebook: Rulebook) -> None:
    """A provider without an instance type is not 'no provider and instance type'."""
    spec = CHAT_8B.replace("instanceType: g5.xlarge", "accelerator: {type: H100, count: 8}")
    assert messages(tmp_path, rulebook, "GL209", workload("chat", spec % ("", "", ""))) == [
        (
            7,
            "self-hosts meta-llama/Llama-3.1-8B-Instruct, which a managed API also serves "
            "(bedrock)",
            SELF_HOSTING_ADVICE + "costs not compared: no instance type declared "
            "(spec.resources.instanceType)",
        )
    ]


def test_gl209_says_exactly_what_is_missing(tmp_path: Path, rulebook: Rulebook) -> None:
    text = workload(
        "chat", CHAT_8B.replace("expectedTokensPerMinute: 10000", "maxBatchSize: 8") % ("", "", "")
    )
    assert messages(tmp_path, rulebook, "GL209", text) == [
        (
            7,
            "self-hosts meta-llama/Llama-3.1-8B-Instruct, which a managed API also serves "
            "(bedrock)",
            SELF_HOSTING_ADVICE + "costs not compared: no token volume declared "
            "(spec.serving.expectedTokensPerMinute)",
        )
    ]


def test_the_budgets_record_reuses_the_cost_fact_the_rules_computed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(workload("chat", CHAT_8B % (", replicas: 2", "", "")), encoding="utf-8")
    (manifest,) = collect(find_candidates([str(path)], []).candidates).manifests
    # No rule has read the cost: the record computes the monthly figure itself.
    made = records(manifest)["spend"]
    # g5.xlarge in us-east-1 at $1.006/h, 2 replicas for 730 h
    assert (made["name"], made["monthly"]) == ("chat", 1468.76)
    facts = Facts(manifest)
    assert facts["cost"]["monthly"] == 1468.76

    def not_again(*_: Any, **__: Any) -> Any:
        raise AssertionError("the cost was computed again")

    monkeypatch.setattr(spend, "cost_of", not_again)
    assert records(manifest, facts.computed)["spend"] == made
