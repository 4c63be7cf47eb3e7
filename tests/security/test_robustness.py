"""Property-based robustness: whatever manifest, configuration, rule file or baseline we write,
gpulint answers with findings or a one-line refusal, never a crash.

Hypothesis generates manifests from the schema's vocabulary (profiles, precisions, capacity, GPU
and instance names, model ids, regions, endpoints...), then mutates them (deleted keys, wrong types,
random unicode, deep nesting, extreme numbers, bytes spliced in, YAML special tokens). Each input is
linted through the real CLI entry point (``linter.cli.main``) with ``--format json`` and
``--format sarif``, and tests/security/fuzz_pipeline.check asserts the invariants:

* no exception escapes; the exit code is 0 or 1 (2 means an internal error on a file we wrote);
* every finding has a rule id ``^[A-Z]+[0-9]{3}$`` and a position inside the file;
* the SARIF validates against tests/data/sarif-schema-2.1.0.json (Draft 4);
* the same input gives byte-identical output twice, and with ``--jobs 1`` and ``--jobs 2``.

Configuration files, rule files and baselines are generated from their own vocabularies (ids and
prefixes, typos included, options, CEL expressions, message templates, entries with control
characters), mutated the same way, and given to ``gpulint check`` with a fixed manifest:
tests/security/fuzz_pipeline.check_refusable asserts that a refusal is one ``gpulint: error:`` line (exit
2), that a run that goes ahead keeps the invariants above, and that nothing printed holds a raw
control character.

Bounded for CI: the ``gpulint-robustness`` hypothesis profile is derandomized (the same examples on
every run) and small. ``GPULINT_HYPOTHESIS_PROFILE=gpulint-robustness-explore`` draws new random
examples, and ``GPULINT_ROBUSTNESS_SCALE=10`` runs ten times as many.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from conftest import document_paths, parent_of
from fuzz_pipeline import YAML_TOKENS, check, line_count, run_setup_case
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from linter.load import Limits, load_bytes

settings.register_profile(
    "gpulint-robustness",
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    # no shrinking in CI: one example costs ~0.2 s and shrinking a failure can take minutes; the
    # explore profile shrinks (reproduce a CI failure there with @reproduce_failure)
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
        HealthCheck.large_base_example,
    ],
)
settings.register_profile(
    "gpulint-robustness-explore",
    settings.get_profile("gpulint-robustness"),
    derandomize=False,
    phases=list(Phase),
)
PROFILE = settings.get_profile(os.environ.get("GPULINT_HYPOTHESIS_PROFILE", "gpulint-robustness"))
SCALE = float(os.environ.get("GPULINT_ROBUSTNESS_SCALE", "1"))


def bounded(examples: int) -> settings:
    return settings(PROFILE, max_examples=max(1, int(examples * SCALE)))


# -- the schema's vocabulary ------------------------------------------------------------------

API_VERSION = "gpulint.dev/v1alpha1"
PROFILES = ["inference", "fine-tuning", "training", "dev"]
PRECISIONS = ["fp32", "bf16", "fp16", "fp8", "int8", "int4"]
CAPACITY = ["on-demand", "spot", "reserved"]
GPUS = [
    "H100",
    "H100-80GB",
    "H200-141GB",
    "L4",
    "L40S",
    "A10G",
    "A100-40GB",
    "A100-80GB",
    "T4",
    "V100-16GB",
    "B200",
    "MI300X",
    "TPU-v5e",
    "Gaudi3",
    "Inferentia2",
    "RTX-4090",
    "K80",
]
INSTANCE_TYPES = [
    "p4d.24xlarge",
    "p4de.24xlarge",
    "p5.48xlarge",
    "g6e.xlarge",
    "g6.xlarge",
    "g5.2xlarge",
    "g4dn.xlarge",
    "trn1.32xlarge",
    "a2-highgpu-1g",
    "a3-highgpu-8g",
    "g2-standard-4",
    "Standard_NC24ads_A100_v4",
    "Standard_ND96isr_H100_v5",
    "m5.large",
    "x9.huge",
]
MODEL_IDS = [
    "meta-llama/Llama-3.1-8B-Instruct",
    "meta-llama/Llama-3.1-8B",
    "meta-llama/Llama-3.1-70B",
    "meta-llama/Llama-3.1-405B",
    "meta-llama/Llama-3.2-1B",
    "mistralai/Mixtral-8x7B-v0.1",
    "Qwen/Qwen2.5-7B",
    "Qwen/Qwen3-235B-A22B",
    "google/gemma-2-9b",
    "google/gemma-3-27b-it",
    "deepseek-ai/DeepSeek-V3",
    "openai/gpt-oss-20b",
    "microsoft/Phi-3-mini-4k-instruct",
    "acme/in-house-llm-v3",
]
PROVIDERS = ["aws", "gcp", "azure", "on-prem", "coreweave"]
REGIONS = [
    "us-east-1",
    "us-west-2",
    "eu-central-1",
    "eu-west-1",
    "ap-east-1",
    "us-central1",
    "europe-west4",
    "asia-northeast1",
    "westeurope",
    "eastus",
    "swedencentral",
    "mars-1",
]
ENDPOINT_PROVIDERS = ["bedrock", "vertex-ai", "azure-openai", "openai", "anthropic", "vertex"]
ENDPOINT_MODELS = [
    "anthropic.claude-3-5-sonnet-20240620-v1:0",
    "gemini-1.5-pro",
    "gpt-4o",
    "meta.llama3-1-70b-instruct-v1:0",
    "mistral-large",
]
RESIDENCY = ["EU", "EEA", "UK", "US", "DE", "FR", "CH", "JP", "XX"]
PARAMETERS = ["7B", "8B", "70B", "1.5T", "350M", "0.5B", "7.2e9", "13b", "70 B"]


def one_of_values(*values: Any) -> st.SearchStrategy[Any]:
    return st.sampled_from(values)


names = st.from_regex(r"[a-z][a-z0-9-]{0,30}", fullmatch=True)
small_int = st.integers(min_value=0, max_value=64)
# mostly realistic numbers, sometimes extreme ones: overflow must be a finding, not a crash
big_int = st.one_of(
    st.integers(min_value=1, max_value=16), st.integers(min_value=1, max_value=2**70)
)
positive_float = st.one_of(
    st.floats(min_value=0.01, max_value=1e4), st.floats(min_value=1e-300, max_value=1e300)
)
# no control characters here: a raw C1 control (U+0080-U+009F) in a string is its own test case
# (tests/security/test_hostile_inputs.py), not something every generated manifest should trip over
label_text = st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), max_size=20)


def optional(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({}, optional=fields)


models = optional(
    id=st.sampled_from(MODEL_IDS),
    parameters=st.one_of(st.sampled_from(PARAMETERS), positive_float, big_int),
    precision=st.sampled_from(PRECISIONS),
)
serving = optional(
    engine=one_of_values("vllm", "sglang", "tgi", "triton"),
    maxBatchSize=big_int,
    maxContextTokens=st.one_of(st.sampled_from([2048, 4096, 8192, 32768, 131072]), big_int),
    kvCachePrecision=st.sampled_from(PRECISIONS),
    gpuMemoryUtilization=st.floats(min_value=0.01, max_value=1.0),
    tensorParallel=st.integers(min_value=1, max_value=16),
    replicas=small_int,
    latencySensitive=st.booleans(),
    onDemandFallbackReplicas=small_int,
    expectedRequestsPerMinute=positive_float,
    expectedTokensPerMinute=positive_float,
)
fine_tuning = optional(
    method=one_of_values("full", "lora", "qlora"),
    optimizer=one_of_values("adamw", "adamw-8bit", "paged-adamw-8bit", "adamw-bf16", "sgd"),
    microBatchSize=big_int,
    sequenceLength=st.one_of(st.sampled_from([512, 2048, 4096, 8192]), big_int),
    gradientCheckpointing=st.booleans(),
    sharding=one_of_values("none", "zero1", "zero2", "zero3", "fsdp"),
    loraRank=st.integers(min_value=1, max_value=256),
)
resources = optional(
    provider=st.sampled_from(PROVIDERS),
    region=st.sampled_from(REGIONS),
    instanceType=st.sampled_from(INSTANCE_TYPES),
    accelerator=st.fixed_dictionaries(
        {"type": st.sampled_from(GPUS)}, optional={"count": st.integers(min_value=1, max_value=16)}
    ),
    nodes=st.one_of(st.integers(min_value=1, max_value=8), big_int),
    capacity=st.sampled_from(CAPACITY),
    pool=names,
)
lifecycle = optional(
    idleShutdownMinutes=st.integers(min_value=0, max_value=10_000),
    maxRuntimeHours=positive_float,
    scaleToZero=st.booleans(),
    alwaysOn=one_of_values("customer-facing chat with a latency objective", "24/7 SLA"),
    hoursPerMonth=st.floats(min_value=0.5, max_value=744),
)
checkpointing = optional(
    enabled=st.booleans(),
    intervalMinutes=positive_float,
    uri=one_of_values("s3://bucket/ckpt", "gs://bucket/ckpt", "/mnt/ckpt"),
    resumeFromLatest=st.booleans(),
)
data = optional(
    personalData=st.booleans(),
    categories=st.lists(one_of_values("health", "biometric", "contact", "financial"), max_size=3),
    residency=st.lists(st.sampled_from(RESIDENCY), max_size=3),
    lawfulBasis=one_of_values(
        "consent",
        "contract",
        "legal-obligation",
        "vital-interests",
        "public-task",
        "legitimate-interests",
    ),
    transparencyNotice=one_of_values("https://example.com/privacy", "DOC-42"),
    processorAgreement=one_of_values("DPA-2024-07", "https://aws.amazon.com/service-terms/"),
)
endpoints = st.lists(
    st.fixed_dictionaries(
        {"provider": st.sampled_from(ENDPOINT_PROVIDERS)},
        optional={
            "model": st.sampled_from(ENDPOINT_MODELS),
            "region": st.sampled_from(REGIONS),
            "inferenceProfile": one_of_values("us", "eu", "global", "apac"),
            "deploymentType": one_of_values("global", "data-zone", "regional"),
            "expectedRequestsPerMinute": positive_float,
            "expectedTokensPerMinute": positive_float,
        },
    ),
    max_size=3,
)
spec = st.fixed_dictionaries(
    {"profile": st.sampled_from(PROFILES)},
    optional={
        "model": models,
        "serving": serving,
        "fineTuning": fine_tuning,
        "resources": resources,
        "lifecycle": lifecycle,
        "checkpointing": checkpointing,
        "data": data,
        "endpoints": endpoints,
        "justification": optional(
            selfHosting=label_text.filter(bool), trainingFromScratch=label_text.filter(bool)
        ),
        "acceptableUse": optional(
            reviewed=st.booleans(),
            policy=one_of_values("https://www.llama.com/llama3_1/use-policy/"),
        ),
    },
)
metadata = st.fixed_dictionaries(
    {"name": names},
    optional={
        "labels": st.dictionaries(
            one_of_values("team", "env", "owner", "cost-center"), names, max_size=3
        ),
        "annotations": st.dictionaries(names, label_text, max_size=2),
    },
)
workloads = st.fixed_dictionaries(
    {
        "apiVersion": st.just(API_VERSION),
        "kind": st.just("Workload"),
        "metadata": metadata,
        "spec": spec,
    }
)
quota_entries = st.fixed_dictionaries(
    {"provider": st.sampled_from(PROVIDERS + ENDPOINT_PROVIDERS)},
    optional={
        "region": st.sampled_from(REGIONS),
        "quota": one_of_values(
            "L-7212CCBC", "L-DB2E81BA", "L-417A185B", "NVIDIA_H100_GPUS", "GPUS_ALL_REGIONS"
        ),
        "capacity": st.sampled_from(CAPACITY),
        "approved": st.one_of(st.integers(min_value=0, max_value=1024), positive_float),
        "status": one_of_values("approved", "requested", "denied"),
        "reference": names,
        "model": st.sampled_from(ENDPOINT_MODELS),
        "requestsPerMinute": positive_float,
        "tokensPerMinute": positive_float,
    },
)
ledgers = st.fixed_dictionaries(
    {
        "apiVersion": st.just(API_VERSION),
        "kind": st.just("QuotaLedger"),
        "metadata": metadata,
        "spec": st.fixed_dictionaries(
            {}, optional={"entries": st.lists(quota_entries, max_size=4)}
        ),
    }
)
manifests = st.one_of(workloads, workloads, workloads, ledgers)

# -- mutation ---------------------------------------------------------------------------------

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(2**200), max_value=2**200),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(st.characters(codec="utf-8"), max_size=40),
    st.sampled_from(["", "~", "null", "70B", "-1", "H100", "spot", "bf16", "*a", "&a", "!!binary"]),
)
wrong_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(st.characters(codec="utf-8"), max_size=10), inner, max_size=4),
    ),
    max_leaves=12,
)


def _nest(value: Any, depth: int, as_map: bool) -> Any:
    for _ in range(depth):
        value = {"n": value} if as_map else [value]
    return value


@st.composite
def mutated(draw: st.DrawFn, documents: st.SearchStrategy[dict[str, Any]]) -> dict[str, Any]:
    """A generated document with one to five structural mutations."""
    document = draw(documents)
    for _ in range(draw(st.integers(min_value=1, max_value=5))):
        paths = document_paths(document)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent, key = parent_of(document, path), path[-1]
        operation = draw(
            st.sampled_from(["delete", "retype", "retype", "unicode", "nest", "extra"])
        )
        if operation == "delete":
            del parent[key]
        elif operation == "retype":
            parent[key] = draw(wrong_values)
        elif operation == "unicode":
            parent[key] = draw(st.text(st.characters(codec="utf-8"), min_size=1, max_size=60))
        elif operation == "nest":
            depth = draw(st.sampled_from([1, 5, 150, 199, 200, 201, 400]))
            parent[key] = _nest(parent[key], depth, draw(st.booleans()))
        elif isinstance(parent, dict):
            parent[draw(st.text(st.characters(codec="utf-8"), min_size=1, max_size=12))] = draw(
                wrong_values
            )
    return document


def mutated_manifests() -> st.SearchStrategy[dict[str, Any]]:
    return mutated(manifests)


def dump_yaml(documents: list[Any], flow: bool | None = False) -> bytes:
    # the C emitter (libyaml) quotes what the C parser gpulint uses would misread; the pure one
    # writes YAML 1.2 that libyaml rejects (see test_hostile_inputs: colon in a flow scalar)
    yaml = YAML(typ="safe", pure=False)
    yaml.default_flow_style = flow
    yaml.allow_unicode = True
    yaml.width = 4096
    stream = io.StringIO()
    yaml.dump_all(documents, stream)
    return stream.getvalue().encode("utf-8")


def dump_json(document: Any, ascii_only: bool) -> bytes:
    return json.dumps(document, ensure_ascii=ascii_only, indent=2).encode("utf-8")


@st.composite
def serialised(draw: st.DrawFn, documents: st.SearchStrategy[Any]) -> tuple[bytes, str]:
    """One to three documents as YAML (block or flow), or one as JSON."""
    docs = draw(st.lists(documents, min_size=1, max_size=3))
    if draw(st.integers(min_value=0, max_value=4)) == 0:
        try:
            return dump_json(docs[0], draw(st.booleans())), ".json"
        except ValueError:  # nan/inf: JSON cannot say it; YAML can
            pass
    return dump_yaml(docs, draw(st.sampled_from([False, False, None, True]))), ".yaml"


@st.composite
def spliced(draw: st.DrawFn) -> tuple[bytes, str]:
    """A valid manifest with random bytes, YAML tokens or line-break oddities put into its text."""
    raw, suffix = draw(serialised(manifests))
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        at = draw(st.integers(min_value=0, max_value=len(raw)))
        kind = draw(st.sampled_from(["bytes", "token", "token", "text", "delete", "crlf"]))
        if kind == "bytes":
            raw = raw[:at] + draw(st.binary(min_size=1, max_size=12)) + raw[at:]
        elif kind == "token":
            line_start = raw.rfind(b"\n", 0, at) + 1
            at = line_start if draw(st.booleans()) else at
            raw = raw[:at] + draw(st.sampled_from(YAML_TOKENS)).encode("utf-8") + raw[at:]
        elif kind == "text":
            raw = (
                raw[:at]
                + draw(st.text(st.characters(codec="utf-8"), min_size=1, max_size=8)).encode()
                + raw[at:]
            )
        elif kind == "delete":
            raw = raw[:at] + raw[at + draw(st.integers(min_value=1, max_value=20)) :]
        else:
            raw = raw.replace(b"\n", draw(st.sampled_from([b"\r\n", b"\r"])))
    return raw, suffix


def _lint_bytes(raw: bytes, suffix: str, **options: Any) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="gpulint-robust-") as tmp:
        path = Path(tmp) / f"manifest{suffix}"
        path.write_bytes(raw)
        return check([path], **options)


# -- the properties ---------------------------------------------------------------------------


@bounded(30)
@given(serialised(manifests))
def test_generated_manifests_lint_without_crashing(case: tuple[bytes, str]) -> None:
    raw, suffix = case
    report = _lint_bytes(raw, suffix)
    # built from the schema's own vocabulary, these parse: nothing about the file itself
    assert not [f for f in report["findings"] if f["ruleId"] == "GL002"], report["findings"]


@bounded(40)
@given(serialised(mutated_manifests()))
def test_mutated_manifests_lint_without_crashing(case: tuple[bytes, str]) -> None:
    _lint_bytes(*case)


@bounded(40)
@given(spliced())
def test_spliced_bytes_and_tokens_lint_without_crashing(case: tuple[bytes, str]) -> None:
    _lint_bytes(*case)


@bounded(300)
@given(
    st.one_of(st.binary(max_size=300), spliced().map(lambda case: case[0])),
    st.sampled_from([Limits(), Limits(max_depth=3, max_nodes=50)]),
    st.booleans(),
)
def test_loader_never_raises_and_positions_are_in_the_text(
    raw: bytes, limits: Limits, as_json: bool
) -> None:
    loaded = load_bytes(raw, limits, json=as_json)
    lines = line_count(raw)
    for problem in loaded.problems:
        assert problem.message
        assert 1 <= problem.span.line <= lines + 1, (problem, lines)
        assert problem.span.column >= 1, problem
    for document in loaded.documents:
        assert 1 <= document.source_map.document.line <= lines + 1


@bounded(3)
@given(st.lists(workloads, min_size=4, max_size=8), st.lists(ledgers, max_size=2))
def test_jobs_1_and_2_give_identical_reports(
    workload_list: list[Any], ledger_list: list[Any]
) -> None:
    """Above the parallel threshold (200 files) --jobs 2 forks workers; the report must not change."""
    from linter.run.workers import PARALLEL_THRESHOLD

    documents = workload_list + ledger_list
    with tempfile.TemporaryDirectory(prefix="gpulint-jobs-") as tmp:
        root = Path(tmp)
        for index in range(PARALLEL_THRESHOLD + 10):
            document = json.loads(json.dumps(documents[index % len(documents)]))
            document["metadata"]["name"] = f"{document['metadata']['name'][:200]}-{index}"
            folder = root / f"team{index % 7}"
            folder.mkdir(exist_ok=True)
            (folder / f"m{index:03d}.yaml").write_bytes(dump_yaml([document]))
        check([root], jobs=True, twice=False)


def test_a_generated_case_that_fails_is_reported_with_the_file() -> None:
    """The checker itself: a position beyond the file is caught (guards against a vacuous check)."""
    from fuzz_pipeline import InvariantError, check_positions

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "one-line.yaml"
        path.write_text("a: 1\n")
        finding = {
            "ruleId": "GL001",
            "file": str(path),
            "line": 4,
            "column": 1,
            "endLine": 4,
            "endColumn": 2,
            "related": [],
        }
        with pytest.raises(InvariantError, match="outside the file"):
            check_positions([finding], {path})
        with pytest.raises(InvariantError, match="bad rule id"):
            check_positions([{**finding, "ruleId": "gl1", "line": 1}], {path})


# -- configuration, rule files, baselines -------------------------------------------------------

# GL202 and GL201 findings, options that configuration can change, a pool for GL205
SETUP_MANIFEST = b"""\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata: {name: trainer, labels: {team: ml}}
spec:
  profile: training
  resources: {accelerator: {type: H100, count: 8}, capacity: spot, pool: shared}
  lifecycle: {idleShutdownMinutes: 90}
"""
SELECTORS = ["GL001", "GL2", "GL", "GL202", "GL999", "ACME", "ACME001", "g", " G", "gl202", ""]
RULE_CONFIG_IDS = ["GL201", "GL202", "GL105", "GL999", "ACME001", "gl201"]
OPTION_NAMES = ["maxIdleShutdownMinutes", "maxIntervalMinutes", "bogus"]

configs = optional(
    failOn=st.sampled_from(["error", "warning", "note", "never", "fatal"]),
    select=st.lists(st.sampled_from(SELECTORS), max_size=3),
    ignore=st.lists(st.sampled_from(SELECTORS), max_size=3),
    exclude=st.lists(st.sampled_from(["*", "vendor/*", "*.yaml", "[", "../*", ""]), max_size=2),
    rulesDirs=st.lists(st.sampled_from(["policies", "../outside", "/etc", ".", ""]), max_size=2),
    residency=st.lists(st.sampled_from(RESIDENCY), max_size=2),
    maxFileSize=st.one_of(st.integers(min_value=-5, max_value=2**40), st.sampled_from([0, 1, 64])),
    rules=st.dictionaries(
        st.sampled_from(RULE_CONFIG_IDS),
        optional(
            enabled=st.booleans(),
            severity=st.sampled_from(["error", "warning", "note", "fatal"]),
            options=st.dictionaries(st.sampled_from(OPTION_NAMES), wrong_values, max_size=2),
        ),
        max_size=3,
    ),
)
CEL_EXPRESSIONS = [
    'workload.spec.profile == "training"',
    '!("team" in workload.metadata.labels)',
    'facts.memory.status == "checked"',
    "size(workload.metadata.name) > 3",
    "[1, 2, 3].map(x, x * 2).size() > 1",
    "workload.spec.resources.accelerator.count > options.limit",
    "(((",
    "workload.",
    '"a" + 1 == 2',
    "1 / 0 == 1",
]
rule_files = st.fixed_dictionaries(
    {
        "id": st.sampled_from(["ACME001", "ACME002", "acme1", "GL201", "X1"]),
        "name": st.sampled_from(
            ["missing-team-label", "Bad Name", "x", "spot-without-checkpointing"]
        ),
        "severity": st.sampled_from(["error", "warning", "note", "fatal"]),
        "summary": st.sampled_from(["Workloads must say which team owns them", ""]),
        "checks": st.lists(
            st.fixed_dictionaries(
                {
                    "violation": st.sampled_from(CEL_EXPRESSIONS),
                    "path": st.sampled_from(
                        ["metadata", "spec.resources | spec", "spec.x[{1}]", "", "a..b"]
                    ),
                    "message": st.sampled_from(
                        ["workload {workload.metadata.name} has no team", "plain", "{", "{1 +}"]
                    ),
                },
                optional={"severity": st.sampled_from(["error", "note", "loud"])},
            ),
            max_size=2,
        ),
        "docs": st.fixed_dictionaries(
            {key: st.just("x") for key in ("whatItDoes", "whyIsThisBad", "example", "useInstead")}
        ),
    },
    optional={
        "scope": optional(
            kinds=st.lists(st.sampled_from(["Workload", "QuotaLedger", "Other"]), max_size=2),
            profiles=st.lists(st.sampled_from(PROFILES), max_size=2),
        ),
        "tags": st.lists(names, max_size=3),
        "principle": st.integers(min_value=-1, max_value=12),
        "options": st.dictionaries(
            st.sampled_from(["limit", "other"]),
            optional(
                type=st.sampled_from(["integer", "string", "map"]),
                default=wrong_values,
                description=st.just("a threshold"),
            ),
            max_size=1,
        ),
    },
)
baseline_entries = st.fixed_dictionaries(
    {
        "ruleId": st.sampled_from(["GL202", "GL201", "GL999", ""]),
        "file": st.sampled_from(["job.yaml", "../job.yaml", "/etc/passwd", ""]),
        "hash": st.text("0123456789abcdef", max_size=16),
        "path": st.sampled_from(["spec.resources.capacity", "spec", ""]),
        "message": st.text(st.characters(codec="utf-8"), max_size=40),
    }
)
baselines = st.fixed_dictionaries(
    {
        "version": st.one_of(st.just(1), wrong_values),
        "entries": st.lists(baseline_entries, max_size=4),
    },
    optional={"tool": st.just("gpulint")},
)


def _serialised_one(draw: st.DrawFn, document: Any) -> bytes:
    if draw(st.booleans()):
        try:
            return dump_json(document, draw(st.booleans()))
        except ValueError:  # nan/inf: JSON cannot say it
            pass
    return dump_yaml([document], draw(st.sampled_from([False, None, True])))


@st.composite
def setup_inputs(draw: st.DrawFn, documents: st.SearchStrategy[dict[str, Any]]) -> bytes:
    document = draw(st.one_of(documents, mutated(documents)))
    return _serialised_one(draw, document)


def _lint_with(target: str, raw: bytes) -> None:
    with tempfile.TemporaryDirectory(prefix="gpulint-robust-setup-") as tmp:
        run_setup_case(target, raw, Path(tmp), SETUP_MANIFEST, timeout=60)


@bounded(30)
@given(setup_inputs(configs))
def test_generated_configuration_is_used_or_refused_cleanly(raw: bytes) -> None:
    _lint_with("config", raw)


@bounded(30)
@given(setup_inputs(rule_files))
def test_generated_rule_files_are_used_or_refused_cleanly(raw: bytes) -> None:
    _lint_with("rule", raw)


@bounded(30)
@given(setup_inputs(baselines))
def test_generated_baselines_are_used_or_refused_cleanly(raw: bytes) -> None:
    _lint_with("baseline", raw)


@pytest.mark.parametrize(
    ("code", "err", "why"),
    [
        (2, "gpulint: error: one\nand another line\n", "not one error line"),
        (2, "gpulint: internal error: KeyError\n", "internal error"),
        (1, "gpulint: skipped a\x1b[2Kb.yaml\n", "raw control character"),
        (3, "", "exit code 3"),
    ],
)
def test_the_refusal_checker_catches_what_it_should(
    code: int, err: str, why: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checker of configuration, rule and baseline runs (guards against a vacuous check)."""
    import fuzz_pipeline
    from conftest import CliResult

    monkeypatch.setattr(fuzz_pipeline, "run_cli", lambda *args: CliResult(code, "", err))
    with pytest.raises(fuzz_pipeline.InvariantError, match=why):
        fuzz_pipeline.check_refusable(["x.yaml"], [])
