"""``gpulint cost`` and ``gpulint cost --diff`` end to end, with exact figures, on a git
repository built in tmp_path; ``gpulint check --cost-base`` and budgets."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import run_cli
from costrepo import commit, git, service, working_repo, write

PRICES = (
    "Prices: gpulint's price catalogue as of 2026-12-02 (USD; sources skypilot-catalog-v8-aws), "
    "on-demand and one spot snapshot per region; monthly = $/hour at the declared capacity x "
    "hours a month."
)
FINETUNE = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata:
  name: finetune
  labels: {team: support}
spec:
  profile: fine-tuning
  resources: {provider: aws, region: us-east-1, instanceType: g5.12xlarge, capacity: spot}
  lifecycle: {maxRuntimeHours: 60}
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """chat (2 x g5.xlarge, always on) and finetune (g5.12xlarge on spot, 60 h) committed."""
    root = working_repo(tmp_path, monkeypatch)
    write(root / "deploy/chat.yaml", service("chat"))
    write(root / "deploy/train.yaml", FINETUNE)
    commit(root, "base")
    return root


def short(repo: Path, ref: str = "HEAD~1") -> str:
    return git(repo, "rev-parse", ref)[:12]


def test_cost_table(repo: Path) -> None:
    result = run_cli("cost", "deploy")
    # chat: 2 x $1.006/h x 730 h; finetune: $1.9046/h spot (on-demand $5.672) x at most 60 h.
    assert (result.code, result.err) == (0, "")
    assert result.out == (
        "gpulint cost: 2 workloads: $1,583.04 a month\n"
        "\n"
        "Workload  File                 Capacity   GPUs  Hours/month   $/hour    Monthly  On-demand/month  Spot/month  Managed API/month\n"
        "chat      deploy/chat.yaml:4   on-demand     2          730   $2.012  $1,468.76        $1,468.76     $670.29                  —\n"
        "finetune  deploy/train.yaml:4  spot          4          ≤60  $1.9046    $114.28          $340.32     $114.28                  —\n"
        "-------------------------------------------------------------------------------------------------------------------------------\n"
        "Total     2 workloads                        6                        $1,583.04        $1,809.08     $784.57\n"
        "\n"
        "  finetune (deploy/train.yaml:4): hours: at most 60 hours a month: one run of spec.lifecycle.maxRuntimeHours\n"
        f"  {PRICES}\n"
    )


def test_cost_json(repo: Path) -> None:
    result = run_cli("cost", "--format", "json", "deploy")
    data = json.loads(result.out)
    assert (data["asOf"], data["currency"]) == ("2026-12-02", "USD")
    assert data["totals"] == {
        "gpus": 6.0,
        "monthly": 1583.04,
        "onDemandMonthly": 1809.08,
        "spotMonthly": 784.57,
        "withoutMonthly": [],
    }
    chat = data["workloads"][0]
    assert (chat["file"], chat["line"], chat["name"], chat["format"]) == (
        "deploy/chat.yaml",
        4,
        "chat",
        "gpulint",
    )
    assert (chat["cost"]["perHour"], chat["cost"]["monthly"]) == (2.012, 1468.76)


def test_diff_when_replicas_change(repo: Path) -> None:
    write(repo / "deploy/chat.yaml", service("chat", replicas=3))
    commit(repo, "a third replica")
    result = run_cli("cost", "--diff", "HEAD~1", "--format", "markdown", "deploy")
    assert (result.code, result.err) == (0, "")
    escaped = PRICES.replace("$", "\\$")
    assert result.out == (
        f"### gpulint cost change against HEAD\\~1 ({short(repo)})\n"
        "\n"
        "**+\\$734.38 a month (\\$1,583.04 → \\$2,317.42) over 2 workloads compared**\n"
        "\n"
        "| Workload | File | Change | Before | After | Delta |\n"
        "|---|---|---|---:|---:|---:|\n"
        "| chat | deploy/chat.yaml | replicas 2 → 3 | \\$1,468.76 | \\$2,203.14 | +\\$734.38 |\n"
        "| **Total** | **2 workloads** |  | **\\$1,583.04** | **\\$2,317.42** | **+\\$734.38** |\n"
        "\n"
        "- 1 workload unchanged\n"
        f"- {escaped}\n"
    )


def test_diff_when_the_instance_type_changes(repo: Path) -> None:
    write(repo / "deploy/chat.yaml", service("chat", instance_type="g5.2xlarge"))
    commit(repo, "a bigger instance")
    result = run_cli("cost", "--diff", "HEAD~1", "deploy")
    # g5.2xlarge: $1.212/h; 2 x 1.212 x 730 = $1,769.52 against $1,468.76.
    assert result.out == (
        f"gpulint cost change against HEAD~1 ({short(repo)}): +$300.76 a month ($1,583.04 → "
        "$1,883.80) over 2 workloads compared\n"
        "\n"
        "Workload  File              Change                                   Before      After     Delta\n"
        "chat      deploy/chat.yaml  instance type g5.xlarge → g5.2xlarge  $1,468.76  $1,769.52  +$300.76\n"
        "------------------------------------------------------------------------------------------------\n"
        "Total     2 workloads                                             $1,583.04  $1,883.80  +$300.76\n"
        "\n"
        "  1 workload unchanged\n"
        f"  {PRICES}\n"
    )


def changes(
    repo: Path, *args: str
) -> list[tuple[str, str | None, str | None, float | None, str | None]]:
    result = run_cli("cost", "--diff", "HEAD~1", "--format", "json", *args)
    assert (result.code, result.err) == (0, "")
    return [
        (c["status"], c["baseFile"], c["file"], c["delta"], c["note"])
        for c in json.loads(result.out)["changes"]
    ]


def test_a_moved_file_and_a_renamed_workload_are_the_same_workloads(repo: Path) -> None:
    git(repo, "mv", "deploy/chat.yaml", "deploy/serving.yaml")
    write(repo / "deploy/train.yaml", FINETUNE.replace("name: finetune", "name: nightly-tune"))
    commit(repo, "reorganise")
    assert changes(repo, "deploy") == [
        ("moved", "deploy/chat.yaml", "deploy/serving.yaml", 0.0, "moved from deploy/chat.yaml"),
        ("renamed", "deploy/train.yaml", "deploy/train.yaml", 0.0, "renamed from finetune"),
    ]


def test_added_removed_and_a_deleted_folder(repo: Path) -> None:
    write(repo / "deploy/extra/new.yaml", service("new", replicas=1))
    (repo / "deploy/train.yaml").unlink()
    commit(repo, "add one, remove one")
    assert changes(repo, "deploy") == [
        ("same", "deploy/chat.yaml", "deploy/chat.yaml", 0.0, None),
        ("removed", "deploy/train.yaml", None, -114.28, None),
        ("added", None, "deploy/extra/new.yaml", 734.38, None),
    ]
    git(repo, "rm", "-q", "-r", "deploy/extra")
    commit(repo, "remove the folder")
    assert changes(repo, "deploy/extra") == [
        ("removed", "deploy/extra/new.yaml", None, -734.38, None)
    ]
    result = run_cli("cost", "--diff", "HEAD~1", "nowhere")
    assert (result.code, result.err) == (
        2,
        "gpulint: error: nowhere: no such file or directory, now or at HEAD~1\n",
    )


def test_a_file_that_is_broken_now_or_unreadable_then_is_not_compared(repo: Path) -> None:
    write(repo / "deploy/chat.yaml", service("chat") + "  oops: [\n")
    os.remove(repo / "deploy/train.yaml")
    os.symlink("chat.yaml", repo / "deploy/train.yaml")
    commit(repo, "break one file")
    git(repo, "rm", "-q", "--cached", "deploy/train.yaml")
    os.remove(repo / "deploy/train.yaml")
    write(repo / "deploy/train.yaml", FINETUNE)
    write(repo / "deploy/chat.yaml", service("chat", replicas=5))
    commit(repo, "fix it")
    assert changes(repo, "deploy") == [
        (
            "not-compared",
            None,
            "deploy/chat.yaml",
            None,
            "not compared: YAML syntax error: while parsing a flow node did not find expected "
            "node content",
        ),
        (
            "not-compared",
            None,
            "deploy/train.yaml",
            None,
            "not compared: a symbolic link at the revision (not followed); not read",
        ),
    ]
    result = run_cli("cost", "--diff", "HEAD~1", "deploy")
    assert result.out.splitlines()[0] == (
        f"gpulint cost change against HEAD~1 ({short(repo)}): cost change unknown: 2 workloads "
        "with an unknown cost, none compared"
    )


def test_markdown_escapes_what_the_repository_names(repo: Path) -> None:
    write(repo / "deploy/x|y<img src=x>@org [a](b) `c`.yaml", service("odd", replicas=1))
    result = run_cli("cost", "--format", "markdown", "deploy")
    (row,) = [line for line in result.out.splitlines() if line.startswith("| odd |")]
    assert row == (
        "| odd | deploy/x\\|y\\<img src=x\\>\\@org \\[a\\](b) \\`c\\`.yaml:4 | on-demand | 1 | 730 | "
        "\\$1.006 | \\$734.38 | \\$734.38 | \\$335.14 | — |"
    )
    text = run_cli("cost", "deploy/x|y<img src=x>@org [a](b) `c`.yaml").out
    assert "deploy/x|y<img src=x>@org [a](b) `c`.yaml:4" in text


def test_markdown_tables_are_bounded(repo: Path) -> None:
    many = "---\n".join(service(f"s{number:03}", replicas=1) for number in range(60))
    write(repo / "deploy/many.yaml", many)
    result = run_cli("cost", "--format", "markdown", "deploy/many.yaml")
    rows = [line for line in result.out.splitlines() if line.startswith("| s0")]
    assert (len(rows), rows[-1][:8]) == (50, "| s049 |")
    assert "| … 10 more rows, in the total |  |  |  |  |  |  |  |  |  |" in result.out
    assert "| **Total** | **60 workloads** |  | **60** |  |  | **\\$44,062.80** |" in result.out


def test_a_revision_that_is_not_a_commit_is_a_usage_error(repo: Path) -> None:
    for ref, message in (
        ("--upload-pack=touch /tmp/x", "'--upload-pack=touch /tmp/x' is not a git revision"),
        (
            "nope",
            f"'nope' is not a commit of the repository at {repo} (in CI, fetch it first: "
            "actions/checkout with fetch-depth: 0)",
        ),
    ):
        result = run_cli("cost", "--diff", ref, "deploy")
        assert (result.code, result.out, result.err) == (2, "", f"gpulint: error: {message}\n")


BUDGETS = """\
budgets:
  - name: support
    labels: {team: support}
    monthly: %s
    increase: %s
"""


def test_budgets_in_the_cost_report(repo: Path) -> None:
    write(repo / ".gpulint.yaml", BUDGETS % (1500, 500))
    result = run_cli("cost", "deploy")
    assert (
        "  budget support (label team=support): the 2 workloads it covers (chat and finetune) "
        "cost $1,583.04 a month together, $83.04 over its $1,500.00 limit\n"
    ) in result.out
    assert json.loads(run_cli("cost", "--format", "json", "deploy").out)["budgets"] == [
        {
            "name": "support",
            "workloads": ["chat", "finetune"],
            "monthly": 1583.04,
            "monthlyLimit": 1500.0,
            "overMonthly": True,
            "baseMonthly": None,
            "increase": None,
            "increaseLimit": 500.0,
            "overIncrease": False,
        }
    ]


def test_a_budget_breach_fails_check(repo: Path) -> None:
    write(repo / ".gpulint.yaml", BUDGETS % (5000, 500))
    commit(repo, "budgets")
    assert run_cli("check", "--select", "GL212", "deploy").code == 0
    write(repo / "deploy/chat.yaml", service("chat", replicas=3))
    commit(repo, "a third replica: +$734.38, over the $500 a change may add")
    assert run_cli("check", "--select", "GL212", "deploy").code == 0  # no base: no increase
    result = run_cli("check", "--select", "GL212", "--cost-base", "HEAD~1", "deploy")
    assert result.code == 1
    assert result.out.splitlines()[0] == (
        f"deploy/chat.yaml:4:3: GL212 [error] budget support: against HEAD~1 ({short(repo)}) the "
        "monthly cost of its workloads changes by +$734.38 ($1,583.04 → $2,317.42), $234.38 over "
        "the $500.00 one change may add; this workload adds $734.38 a month"
    )
    assert "deploy/train.yaml" not in result.out  # its cost did not go up
    sarif = run_cli(
        "check", "--select", "GL212", "--cost-base", "HEAD~1", "--format", "sarif", "deploy"
    )
    (found,) = json.loads(sarif.out)["runs"][0]["results"]
    assert (found["ruleId"], found["level"]) == ("GL212", "error")
    assert found["locations"][0]["physicalLocation"]["region"]["startLine"] == 4
    assert (
        found["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "deploy/chat.yaml"
    )


def test_a_monthly_breach_fails_check_without_a_base(repo: Path) -> None:
    write(repo / ".gpulint.yaml", BUDGETS % (1500, 500))
    result = run_cli("check", "--select", "GL212", "deploy")
    assert result.code == 1
    # one finding for the breach, on the budget's costliest workload (chat, $1,468.76 of
    # $1,583.04), not one per workload it covers (issue 30)
    (line,) = [line for line in result.out.splitlines() if "GL212" in line]
    assert line.split(" [error] ")[0] == "deploy/chat.yaml:4:3: GL212"


def test_what_cannot_be_costed_is_said(repo: Path) -> None:
    write(repo / "deploy/bad.yaml", service("bad").replace("replicas: 2", "replicas: two"))
    write(
        repo / "deploy/nothing.yaml",
        service("nothing").replace(
            "{provider: aws, region: us-east-1, instanceType: g5.xlarge}", "{region: us-east-1}"
        ),
    )
    lines = run_cli("cost", "deploy").out.splitlines()
    assert lines[0] == ("gpulint cost: 3 workloads: $1,583.04 a month for 2 of them, 1 unknown")
    assert lines[4].split() == (
        [
            "nothing",
            "deploy/nothing.yaml:4",
            "on-demand",
            "—",
            "730",
            "unknown",
            "unknown",
            "unknown",
            "unknown",
            "—",
        ]
    )
    assert lines[7].split() == (
        [
            "Total",
            "3",
            "workloads",
            "6",
            "$1,583.04",
            "+",
            "unknown",
            "$1,809.08",
            "+",
            "unknown",
            "$784.57",
            "+",
            "unknown",
        ]
    )
    assert lines[-5:-1] == [
        "  nothing (deploy/nothing.yaml:4): no price: no spec.resources.provider or "
        "spec.resources.instanceType declared: the catalogue prices instance types",
        "  finetune (deploy/train.yaml:4): hours: at most 60 hours a month: one run of "
        "spec.lifecycle.maxRuntimeHours",
        "  totals leave out nothing: monthly cost unknown (see above)",
        "  not costed: deploy/bad.yaml:8: spec.serving.replicas: Input should be a valid integer "
        "(got 'two') (gpulint check reports it)",
    ]
    data = json.loads(run_cli("cost", "--format", "json", "deploy/nothing.yaml").out)
    assert data["totals"] == {
        "gpus": None,
        "monthly": None,
        "onDemandMonthly": None,
        "spotMonthly": None,
        "withoutMonthly": ["nothing"],
    }
    only = run_cli("cost", "deploy/nothing.yaml").out.splitlines()
    assert only[0] == "gpulint cost: 1 workload: monthly cost unknown (1 without a price or hours)"


def test_a_workload_naming_its_gpus_but_no_instance_is_priced_at_the_cheapest_that_holds_them(
    repo: Path,
) -> None:
    """Issue 30: four H100s and no instance type were $0.00; they are the cheapest catalogued
    instance with four H100s (GCP a3-highgpu-4g, $21.53307/h in us-central1), and it says so."""
    write(
        repo / "deploy/h100.yaml",
        service("h100")
        .replace(
            "{provider: aws, region: us-east-1, instanceType: g5.xlarge}",
            "{accelerator: {type: H100, count: 4}}",
        )
        .replace("replicas: 2", "replicas: 1"),
    )
    lines = run_cli("cost", "deploy/h100.yaml").out.splitlines()
    assert lines[0] == "gpulint cost: 1 workload: $15,719.14 a month"
    assert lines[3].split() == (
        [
            "h100",
            "deploy/h100.yaml:4",
            "on-demand",
            "4",
            "730",
            "$21.5331",
            "$15,719.14",
            "$15,719.14",
            "$9,326.94",
            "—",
        ]
    )
    assert lines[7] == (
        "  h100 (deploy/h100.yaml:4): no instance type declared: priced as gcp a3-highgpu-4g, "
        "the cheapest catalogued instance that holds its GPUs (a lower bound); prices: "
        "us-central1 catalogue prices (no region given; us-central1 is the cheapest priced "
        "region), source skypilot-catalog-v8-gcp"
    )
    data = json.loads(run_cli("cost", "--format", "json", "deploy/h100.yaml").out)
    cost = data["workloads"][0]["cost"]
    assert (cost["assumedInstanceType"], cost["monthly"], cost["unpriced"]) == (
        "gcp a3-highgpu-4g",
        15719.14,
        None,
    )
    # a lint run speaks only of declared prices: no spot saving claimed for an assumed instance
    (facts,) = json.loads(run_cli("facts", "deploy/h100.yaml").out)
    assert (facts["facts"]["cost"]["assumedInstanceType"], facts["facts"]["cost"]["monthly"]) == (
        None,
        None,
    )


def test_a_diff_counts_only_known_costs_and_says_how_many_are_unknown(repo: Path) -> None:
    """Issue 30: a workload without a price was summed as $0.00 ("$0.00 → $0.00 over 0
    workloads compared"); it is unknown, shown as such and left out of the figures."""
    unpriced = service("nothing").replace(
        "{provider: aws, region: us-east-1, instanceType: g5.xlarge}", "{region: us-east-1}"
    )
    write(repo / "deploy/nothing.yaml", unpriced)
    commit(repo, "an unpriced service")
    write(repo / "deploy/nothing.yaml", unpriced.replace("replicas: 2", "replicas: 4"))
    write(repo / "deploy/chat.yaml", service("chat", replicas=3))
    result = run_cli("cost", "--diff", "HEAD", "deploy")
    head = short(repo, "HEAD")
    assert result.out.splitlines()[:6] == [
        f"gpulint cost change against HEAD ({head}): +$734.38 a month ($1,583.04 → $2,317.42) "
        "over 2 workloads compared; 1 workload with an unknown cost not counted",
        "",
        "Workload  File                 Change             Before      After     Delta",
        "chat      deploy/chat.yaml     replicas 2 → 3  $1,468.76  $2,203.14  +$734.38",
        "nothing   deploy/nothing.yaml  replicas 2 → 4    unknown    unknown   unknown",
        "-----------------------------------------------------------------------------",
    ]
    data = json.loads(run_cli("cost", "--diff", "HEAD", "--format", "json", "deploy").out)
    assert (data["before"], data["after"], data["delta"], data["compared"], data["unknown"]) == (
        1583.04,
        2317.42,
        734.38,
        2,
        1,
    )
    only = run_cli("cost", "--diff", "HEAD", "--format", "markdown", "deploy/nothing.yaml")
    assert only.out.splitlines()[2] == (
        "**cost change unknown: 1 workload with an unknown cost, none compared**"
    )
    data = json.loads(
        run_cli("cost", "--diff", "HEAD", "--format", "json", "deploy/nothing.yaml").out
    )
    assert (data["before"], data["after"], data["delta"], data["compared"], data["unknown"]) == (
        None,
        None,
        None,
        0,
        1,
    )
