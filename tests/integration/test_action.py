"""action.yml: a composite action whose inputs are the ones the README's workflow passes, and
whose steps, run by bash as the runner runs them with a fake ``GITHUB_*`` environment and a fake
GitHub API on 127.0.0.1 (never the network), print annotations and a summary, ask whether code
scanning is on, and keep one pull-request comment with the cost change."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import REPO
from fake_github import REPOSITORY, FakeGitHub, fake_github
from ruamel.yaml import YAML

ACTION: dict[str, Any] = YAML(typ="safe").load((REPO / "action.yml").read_text())
README = (REPO / "README.md").read_text()


def _readme_workflows() -> list[dict[str, Any]]:
    blocks = re.findall(r"```yaml\n(.*?)```", README, re.DOTALL)
    return [
        YAML(typ="safe").load(block)
        for block in blocks
        if "gpulint/gpulint@" in block and "jobs:" in block
    ]


def _steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for job in workflow["jobs"].values() for step in job["steps"]]


def test_action_is_a_composite_action() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["inputs"]) == {
        "paths",
        "version",
        "args",
        "sarif-file",
        "category",
        "fail-on-findings",
        "upload-sarif",
        "comment",
        "token",
        "cost-diff",
    }
    assert all("description" in spec for spec in ACTION["inputs"].values())
    for step in ACTION["runs"]["steps"]:
        assert step.get("shell") == "bash" or step["uses"] == "github/codeql-action/upload-sarif@v3"


def test_every_input_the_action_reads_is_declared() -> None:
    used = set(re.findall(r"\binputs\.([\w-]+)", (REPO / "action.yml").read_text()))
    assert used == set(ACTION["inputs"])


def test_install_is_from_the_actions_own_checkout() -> None:
    install = ACTION["runs"]["steps"][0]
    assert install["env"]["GPULINT_SOURCE"] == "${{ github.action_path }}"
    assert '"$GPULINT_SOURCE"' in install["run"]


def test_readme_workflow_uses_the_action_from_a_commit() -> None:
    """The README's workflow pins the action to a commit of this repository (no release is
    tagged yet) whose action.yml takes every input the workflow passes, and grants what the
    action's steps need."""
    (workflow,) = _readme_workflows()
    steps = _steps(workflow)
    (action,) = [s for s in steps if s.get("uses", "").startswith("gpulint/gpulint@")]
    commit = action["uses"].removeprefix("gpulint/gpulint@")
    assert re.fullmatch(r"[0-9a-f]{40}", commit)
    assert set(action["with"]) == {"paths", "cost-diff"}
    assert not [s for s in steps if "upload-sarif" in s.get("uses", "")]  # the action uploads
    assert workflow["permissions"] == {
        "contents": "read",
        "security-events": "write",
        "pull-requests": "write",
    }
    (checkout,) = [s for s in steps if s.get("uses") == "actions/checkout@v4"]
    assert checkout["with"] == {"fetch-depth": 0}
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("the commit is checked in a git checkout")
    pinned = subprocess.run(
        ["git", "show", f"{commit}:action.yml"], cwd=REPO, capture_output=True, text=True
    )
    assert pinned.returncode == 0, f"{commit} is not a commit of this repository with an action"
    assert set(action["with"]) <= set(YAML(typ="safe").load(pinned.stdout)["inputs"])


def test_sdist_ships_the_action() -> None:
    text = Path(REPO / "pyproject.toml").read_text()
    assert '"action.yml"' in text
    assert '"action"' in text


# ----------------------------------------------------------------- the steps, run as the runner does


def _step(name: str) -> dict[str, Any]:
    (step,) = [s for s in ACTION["runs"]["steps"] if s.get("name") == name]
    return step


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def _repository(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    _git(root, "add", "-A")
    _git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "base")
    return root


class Runner:
    """What the runner gives a composite action's steps: RUNNER_TEMP with the venv the install
    step makes (here: links to this interpreter and its gpulint), GITHUB_OUTPUT and
    GITHUB_STEP_SUMMARY files, the event, and the action's inputs in each step's env."""

    def __init__(self, tmp_path: Path, api: FakeGitHub | None = None, **inputs: str) -> None:
        self.temp = tmp_path / "runner"
        venv = self.temp / "gpulint-venv/bin"
        venv.mkdir(parents=True)
        os.symlink(Path(sys.executable).parent / "gpulint", venv / "gpulint")
        os.symlink(sys.executable, venv / "python")
        self.output = tmp_path / "github_output"
        self.summary = tmp_path / "step_summary"
        self.event = tmp_path / "event.json"
        self.event.write_text(json.dumps({"pull_request": {"number": 7}}))
        defaults = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
        self.inputs = {**defaults, "token": "t0ken", **inputs}
        # no proxy: the fake API is on 127.0.0.1, and nothing else may be reached
        self.base = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
        self.base.update(
            RUNNER_TEMP=str(self.temp),
            GITHUB_OUTPUT=str(self.output),
            GITHUB_STEP_SUMMARY=str(self.summary),
            GITHUB_ACTION_PATH=str(REPO),
            GITHUB_REPOSITORY=REPOSITORY,
            GITHUB_EVENT_NAME="pull_request",
            GITHUB_EVENT_PATH=str(self.event),
            GITHUB_API_URL=api.url if api else "http://127.0.0.1:9",
        )

    def _value(self, text: str) -> str:
        inputs = re.fullmatch(r"\$\{\{ inputs\.([\w-]+) \}\}", text)
        if inputs:
            return self.inputs[inputs.group(1)]
        assert text == "${{ github.action_path }}", text
        return str(REPO)

    def run(self, name: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        """The step's script as the runner runs a ``shell: bash`` step: from a file, with
        ``bash --noprofile --norc -eo pipefail``."""
        step = _step(name)
        env = {**self.base, **{k: self._value(v) for k, v in step.get("env", {}).items()}}
        script = self.temp / "step.sh"
        script.write_text(step["run"])
        command = ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)]
        return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)


QUOTA = (REPO / "examples/quota-repo/train-a.yaml").read_text()
SARIF_SCHEMA = json.loads((REPO / "tests/data/sarif-schema-2.1.0.json").read_text())


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_check_step_prints_annotations_and_a_summary_then_writes_sarif(
    tmp_path: Path,
) -> None:
    repo = _repository(tmp_path / "repo", {"jobs/train-a.yaml": QUOTA})
    runner = Runner(tmp_path, paths="jobs")
    done = runner.run("gpulint check", repo)
    assert done.returncode == 0  # findings do not fail the step: fail-on-findings decides later
    lines = done.stdout.splitlines()
    assert [line.split(" ", 1)[0] for line in lines[:3]] == ["::warning", "::warning", "::notice"]
    assert lines[0].startswith(
        "::warning file=jobs/train-a.yaml,line=19,col=5,endLine=19,endColumn=16,"
        "title=GL301 missing-accelerator-quota::needs 8 GPU of gcp quota GPUS_ALL_REGIONS"
    )
    assert lines[3:] == ["Found 0 errors, 2 warnings and 1 note in 1 file."]
    shown = re.search(r"  ```text\n  (::warning .*?) \.\.\.\n  (Found .*?)\n  ```", README)
    assert shown is not None  # the README shows this output
    assert lines[0].startswith(shown.group(1)) and lines[3] == shown.group(2)
    assert runner.output.read_text() == "exit-code=0\n"  # warnings: no QuotaLedger in the run
    assert runner.summary.read_text() == (
        "### gpulint check\n\nFound 0 errors, 2 warnings and 1 note in 1 file.\n\n"
    )
    sarif = json.loads((repo / "gpulint.sarif").read_text())
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(sarif)
    (run,) = sarif["runs"]
    assert [r["ruleId"] for r in run["results"]] == ["GL301", "GL301", "GL203"]
    assert run["automationDetails"]["id"] == "gpulint/"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_usage_error_fails_the_check_step(tmp_path: Path) -> None:
    repo = _repository(tmp_path / "repo", {"jobs/train-a.yaml": QUOTA})
    runner = Runner(tmp_path, paths="jobs", args="--select NOPE999")
    done = runner.run("gpulint check", repo)
    assert done.returncode == 2
    assert runner.output.read_text() == "exit-code=2\n"
    assert not (repo / "gpulint.sarif").exists()


@pytest.mark.parametrize(
    ("answer", "enabled"),
    [
        ((200, ""), "true"),
        ((404, "no analysis found"), "true"),
        (
            (403, "Advanced Security must be enabled for this repository to use code scanning."),
            "false",
        ),
        ((404, "Not Found"), "false"),
    ],
)
def test_code_scanning_is_asked_of_the_api(
    tmp_path: Path, answer: tuple[int, str], enabled: str
) -> None:
    with fake_github() as api:
        api.scanning = answer
        runner = Runner(tmp_path, api)
        done = runner.run("Is code scanning on", tmp_path)
    assert done.returncode == 0, done.stderr
    assert runner.output.read_text() == f"enabled={enabled}\n"
    (request,) = api.requests
    assert (request.method, request.path) == (
        "GET",
        f"/repos/{REPOSITORY}/code-scanning/analyses?per_page=1",
    )
    assert request.headers["Authorization"] == "Bearer t0ken"


def test_the_sarif_is_uploaded_only_where_code_scanning_takes_it() -> None:
    upload = _step("Upload SARIF to code scanning")
    assert upload["uses"] == "github/codeql-action/upload-sarif@v3"
    assert upload["if"] == (
        "${{ !cancelled() && steps.check.outputs.exit-code != '' && (inputs.upload-sarif == "
        "'true' || steps.scanning.outputs.enabled == 'true') }}"
    )
    assert upload["with"] == {
        "sarif_file": "${{ inputs.sarif-file }}",
        "category": "${{ inputs.category }}",
        "token": "${{ inputs.token }}",
    }
    asked = _step("Is code scanning on")
    assert "inputs.upload-sarif == 'auto'" in asked["if"]
    assert asked["id"] == "scanning"


def test_findings_fail_the_job_last_and_only_when_asked() -> None:
    steps = [s["name"] for s in ACTION["runs"]["steps"]]
    assert steps[-1] == "Fail on findings"
    assert _step("Fail on findings")["if"] == (
        "${{ !cancelled() && inputs.fail-on-findings == 'true' && "
        "steps.check.outputs.exit-code == '1' }}"
    )


GOOD = (REPO / "tests/rules/GL212/good/within-budget.yaml").read_text()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_one_cost_comment_created_edited_then_deleted(tmp_path: Path) -> None:
    """The cost step on a pull request: the job summary gains the Markdown diff, and the fake
    API receives exactly one comment, edited when the diff changes, left alone when it does
    not, deleted when the change no longer touches a cost; others' comments are not touched."""
    repo = _repository(tmp_path / "repo", {"deploy/chat.yaml": GOOD})
    head = _git(repo, "rev-parse", "HEAD")[:12]
    chat = repo / "deploy/chat.yaml"
    chat.write_text(GOOD.replace("name: chat", "name: chat2", 1))
    with fake_github() as api:
        theirs = api.add_comment("LGTM")
        runner = Runner(tmp_path, api, paths="deploy", **{"cost-diff": "HEAD"})
        runner.summary.write_text("earlier step\n")
        done = runner.run("gpulint cost", repo)
        assert done.returncode == 0, done.stderr
        created = api.next_id
        assert done.stdout == f"created comment {created}\n"
        summary = runner.summary.read_text().splitlines()
        assert summary[:2] == ["earlier step", f"### gpulint cost change against HEAD ({head})"]
        row = "| chat2 | deploy/chat.yaml | renamed from chat | \\$734.38 | \\$734.38 | \\$0.00 |"
        assert row in summary
        (post,) = [r for r in api.requests if r.method == "POST"]
        assert post.path == f"/repos/{REPOSITORY}/issues/7/comments"
        markdown = "\n".join(summary[1:]) + "\n"
        assert post.body == {"body": f"<!-- gpulint cost diff -->\n{markdown}"}
        assert post.headers["Authorization"] == "Bearer t0ken"

        api.requests.clear()
        assert runner.run("gpulint cost", repo).stdout == f"comment {created} unchanged\n"
        assert api.calls() == [
            ("GET", f"/repos/{REPOSITORY}/issues/7/comments?per_page=100&page=1")
        ]

        chat.write_text(
            GOOD.replace("name: chat", "name: chat2", 1).replace(
                "instanceType: g5.xlarge}", "instanceType: g5.2xlarge}", 1
            )
        )
        api.requests.clear()
        assert runner.run("gpulint cost", repo).stdout == f"updated comment {created}\n"
        (patch,) = [r for r in api.requests if r.method == "PATCH"]
        assert patch.path == f"/repos/{REPOSITORY}/issues/comments/{created}"
        assert (
            "| chat2 | deploy/chat.yaml | renamed from chat; instance type g5.xlarge → g5.2xlarge |"
            in patch.body["body"]
        )

        chat.write_text(GOOD)
        api.requests.clear()
        assert runner.run("gpulint cost", repo).stdout == f"deleted comment {created}\n"
        assert api.calls()[-1] == ("DELETE", f"/repos/{REPOSITORY}/issues/comments/{created}")
        assert list(api.comments) == [theirs]

        api.requests.clear()
        assert runner.run("gpulint cost", repo).stdout == "nothing to say\n"
        assert [method for method, _ in api.calls()] == ["GET"]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_no_comment_outside_a_pull_request_or_when_turned_off(tmp_path: Path) -> None:
    repo = _repository(tmp_path / "repo", {"deploy/chat.yaml": GOOD})
    (repo / "deploy/chat.yaml").write_text(GOOD.replace("name: chat", "name: chat2", 1))
    with fake_github() as api:
        runner = Runner(tmp_path, api, paths="deploy", comment="false", **{"cost-diff": "HEAD"})
        assert runner.run("gpulint cost", repo).returncode == 0
        runner.inputs["comment"] = "true"
        runner.base["GITHUB_EVENT_NAME"] = "push"
        assert runner.run("gpulint cost", repo).returncode == 0
    assert api.requests == []
    assert runner.summary.read_text().count("### gpulint cost change against HEAD") == 2


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_token_that_may_not_comment_is_a_warning(tmp_path: Path) -> None:
    """A pull request from a fork gets a read-only token: the job goes on."""
    repo = _repository(tmp_path / "repo", {"deploy/chat.yaml": GOOD})
    (repo / "deploy/chat.yaml").write_text(GOOD.replace("name: chat", "name: chat2", 1))
    runner = Runner(tmp_path, None, paths="deploy", **{"cost-diff": "HEAD"})  # nothing listens
    done = runner.run("gpulint cost", repo)
    assert done.returncode == 0
    assert done.stdout.startswith("::warning title=gpulint cost comment::not posted: HTTP 0: ")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_revision_that_is_an_option_is_refused(tmp_path: Path) -> None:
    repo = _repository(tmp_path / "repo", {"deploy/chat.yaml": GOOD})
    runner = Runner(tmp_path, None, paths="deploy", **{"cost-diff": "--output=owned"})
    failed = runner.run("gpulint cost", repo)
    assert (failed.returncode, failed.stderr) == (
        2,
        "gpulint: error: '--output=owned' is not a git revision\n",
    )
    assert not (repo / "owned").exists()


def test_a_long_diff_is_cut_to_fit_a_comment() -> None:
    sys.path.insert(0, str(REPO / "action"))
    try:
        import ci_steps
    finally:
        sys.path.remove(str(REPO / "action"))
    long = "".join(f"| row {n} |\n" for n in range(20_000))
    body = ci_steps.body(long)
    assert len(body) <= ci_steps.MAX_BODY
    assert body.startswith("<!-- gpulint cost diff -->\n| row 0 |\n")
    assert body.endswith("\n\n… cut to fit a comment: the job summary has the whole table\n")
