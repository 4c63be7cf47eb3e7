"""The checker that lets valid data skip pydantic (linter/declared/checking.py) never accepts what
the twin refuses, builds what the twin would, and dumps what the twin would.

The property tests mutate valid manifests of every kind (a value swapped for one of a pool of
near misses, a key dropped, renamed or added) and hold the checker to the twin: whatever it
accepts, pydantic accepts, and the record built from it dumps as pydantic's model does.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest
from conftest import document_paths, parent_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from linter.declared import CamelRecord, Field, model_validator
from linter.declared.checking import accepts, errors_of, validate, value_accepted
from linter.declared.twins import twin
from linter.model import kind_model
from linter.model.base import ParameterCount
from linter.model.workload import Workload

WORKLOAD: dict[str, Any] = {
    "apiVersion": "gpulint.dev/v1alpha1",
    "kind": "Workload",
    "metadata": {"name": "chat", "namespace": "serving", "labels": {"team": "ml"}},
    "spec": {
        "profile": "inference",
        "model": {"id": "meta-llama/Llama-3.1-8B-Instruct", "parameters": "8B", "cacheGib": 40},
        "serving": {
            "engine": "vllm",
            "engineVersion": "v0.11.0",
            "maxBatchSize": 16,
            "gpuMemoryUtilization": 0.9,
            "replicas": 2,
        },
        "fineTuning": {"method": "lora", "loraTargetModules": ["q_proj", "v_proj"]},
        "resources": {
            "provider": "aws",
            "region": "eu-west-1",
            "accelerator": {"type": "L40S", "count": 1},
            "alternatives": [{"provider": "gcp", "accelerator": {"memoryGib": 48}}],
            "nodes": 1,
        },
        "lifecycle": {"maxRuntimeHours": 12.5, "hoursPerMonth": 200},
        "data": {"residency": ["EU"], "lawfulBasis": "contract"},
        "endpoints": [{"provider": "bedrock", "expectedRequestsPerMinute": 30}],
    },
}
QUOTA_LEDGER: dict[str, Any] = {
    "apiVersion": "gpulint.dev/v1alpha1",
    "kind": "QuotaLedger",
    "metadata": {"name": "quotas"},
    "spec": {"entries": [{"provider": "aws", "region": "us-east-1", "approved": 8}]},
}
CAPACITY_LIMIT: dict[str, Any] = {
    "apiVersion": "gpulint.dev/v1alpha1",
    "kind": "CapacityLimit",
    "metadata": {"name": "team-a"},
    "spec": {
        "scope": "queue",
        "cohort": "research",
        "limits": [{"vendor": "nvidia", "gpus": 8, "borrowingLimit": 4}],
    },
}
AUTOSCALER: dict[str, Any] = {
    "apiVersion": "gpulint.dev/v1alpha1",
    "kind": "Autoscaler",
    "metadata": {"name": "chat"},
    "spec": {"target": {"kind": "Deployment", "name": "chat"}, "minReplicas": 0, "maxReplicas": 4},
}
DOCUMENTS = [WORKLOAD, QUOTA_LEDGER, CAPACITY_LIMIT, AUTOSCALER]

#: Near misses: each is valid somewhere and wrong somewhere else.
VALUES: list[Any] = [
    None, True, False, 0, 1, -1, 16, 2**53 + 1, 2**70, 0.0, 0.5, 1.0, 1.5, -0.5, 1e308,
    math.inf, -math.inf, math.nan, "", "1", "16", "8B", "1.5T", "70 b", " 7e9 ", "0", "x" * 300,
    "aws", "AWS", "gcp-1", "spot", "inference", "Workload", "lora", "EU", "chat", "chat\n",
    "Chat", "chat-", "v0.11", "0.11\n", "ünïcode", "tab\there", "a\x1cb", "\u00a0", [], [1],
    ["EU"], ["q_proj", 1], {}, {"type": "H100"}, {"memoryGib": 0}, {"a": "b"}, {"a": 1},
    {"count": 2}, (1,), {1: "a"},
]  # fmt: skip


@st.composite
def mutated(draw: Any) -> dict[str, Any]:
    """A valid document of some kind with one to three changes."""
    document = copy.deepcopy(draw(st.sampled_from(DOCUMENTS)))
    for _ in range(draw(st.integers(1, 3))):
        paths = document_paths(document)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent, last = parent_of(document, path), path[-1]
        change = draw(st.sampled_from(["value", "value", "value", "drop", "snake", "add"]))
        if change == "value":
            parent[last] = copy.deepcopy(draw(st.sampled_from(VALUES)))
        elif isinstance(parent, dict) and change == "drop":
            del parent[last]
        elif isinstance(parent, dict) and change == "snake":
            snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in str(last))
            parent[snake] = parent[last]
            if draw(st.booleans()):  # both spellings, or the name alone
                del parent[last]
        elif isinstance(parent, dict):
            parent[draw(st.sampled_from(["extra", "Count", "memory_gib", "kind"]))] = 1
    return document


def _dumps(instance: Any) -> list[Any]:
    """The dumps rules and facts ask for (linter/policy/evaluator.py, linter/facts/memory.py,
    linter/model/values.py), and the plain one."""
    return [
        instance.model_dump(mode="json", by_alias=True),
        instance.model_dump(mode="json", by_alias=True, exclude_none=True),
        instance.model_dump(mode="json", by_alias=True, exclude_unset=True),
        instance.model_dump(),
    ]


@settings(
    max_examples=3000,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(mutated())
def test_what_the_checker_accepts_the_twin_accepts_and_builds_alike(document: Any) -> None:
    kind = document.get("kind")
    record = kind_model(kind) if kind in ("Workload", "QuotaLedger", "CapacityLimit") else None
    record = record or kind_model("Autoscaler")
    if not accepts(record, document):
        return
    model = twin(record).model_validate(document)  # raises if the checker was wrong
    assert _dumps(validate(record, document)) == _dumps(model)


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda d: d["kind"])
def test_valid_documents_of_every_kind_are_accepted_without_pydantic(document: Any) -> None:
    record = kind_model(document["kind"])
    assert accepts(record, document) is True
    assert _dumps(validate(record, document)) == _dumps(twin(record).model_validate(document))


def _with(path: tuple[str, ...], value: Any) -> dict[str, Any]:
    document = copy.deepcopy(WORKLOAD)
    parent_of(document, path)[path[-1]] = value
    return document


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("spec", "serving", "maxBatchSize"), "16"),  # strict: a string is not an integer
        (("spec", "serving", "maxBatchSize"), True),  # nor a boolean
        (("spec", "serving", "maxBatchSize"), 0),  # ge=1
        (("spec", "serving", "gpuMemoryUtilization"), 1.5),  # le=1
        (("spec", "lifecycle", "maxRuntimeHours"), math.inf),  # not finite: the twin decides
        (("spec", "model", "parameters"), "70 apples"),  # parse_count leaves it, a string
        (("spec", "model", "parameters"), 0),  # gt=0
        (("metadata", "name"), "chat\n"),  # Python's $ matches before the newline, Rust's not
        (("metadata", "name"), "çhat"),  # not plain ASCII against a pattern: the twin decides
        (("spec", "profile"), "Inference"),  # a literal
        (("spec", "resources", "accelerator"), {"count": 2}),  # the model validator
        (("spec", "data", "residency"), ("EU",)),  # strict: a tuple is not a list
        (("spec", "serving", "extra"), 1),  # no unknown keys
    ],
)
def test_the_checker_declines_each_near_miss(path: tuple[str, ...], value: Any) -> None:
    document = _with(path, value)
    assert accepts(Workload, document) is False


def test_a_count_with_a_suffix_is_read_as_pydantic_reads_it() -> None:
    document = _with(("spec", "model", "parameters"), " 1.5T ")
    assert validate(Workload, document).spec.model.parameters == 1.5e12
    assert value_accepted(ParameterCount, "70B") is True
    assert value_accepted(ParameterCount, "-70B") is False


def test_a_key_given_by_name_and_alias_goes_to_the_twin() -> None:
    document = copy.deepcopy(WORKLOAD)
    document["spec"]["serving"]["max_batch_size"] = 16
    assert accepts(Workload, document) is False


def test_an_invalid_document_raises_pydantics_errors() -> None:
    document = _with(("spec", "serving", "maxBatchSize"), "16")
    with pytest.raises(ValidationError) as raised:
        validate(Workload, document)
    assert [(e["loc"], e["type"]) for e in errors_of(raised.value)] == [
        (("spec", "serving", "maxBatchSize"), "int_type")
    ]


def test_errors_of_passes_on_what_is_not_a_validation_error() -> None:
    with pytest.raises(ValueError, match=r"^other$"):
        errors_of(ValueError("other"))


class _Bounded(CamelRecord):
    """A record the checker cannot judge: a constraint it does not know."""

    share: float = Field(0.5, multiple_of=0.25)


class _Ordered(CamelRecord):
    low: int = 0
    high: int = 0

    @model_validator(mode="after")
    def _ordered(self) -> _Ordered:
        if self.high < self.low:
            raise ValueError("high is below low")
        return self


def test_a_record_with_a_constraint_it_cannot_judge_always_goes_to_the_twin() -> None:
    assert accepts(_Bounded, {"share": 0.5}) is False
    assert validate(_Bounded, {"share": 0.5}).share == 0.5


def test_a_model_validator_is_run_before_the_checker_accepts() -> None:
    assert accepts(_Ordered, {"low": 1, "high": 2}) is True
    assert accepts(_Ordered, {"low": 2, "high": 1}) is False
    with pytest.raises(ValidationError, match="high is below low"):
        validate(_Ordered, {"low": 2, "high": 1})


class _Tree(CamelRecord):
    """A record that holds records of its own class."""

    name: str
    children: list[_Tree] = Field(default_factory=list)


def test_a_record_that_holds_its_own_class_is_checked_to_any_depth() -> None:
    data = {"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}
    assert accepts(_Tree, data) is True
    assert validate(_Tree, data).children[0].children[0].name == "c"
    assert accepts(_Tree, {"name": "a", "children": [{"name": 1}]}) is False
