"""What files cannot say, supplied from outside: ``gpulint.dev/<field>`` annotations on an object,
and ``assume:`` blocks in ``.gpulint.yaml``.

A Deployment rarely says its cloud, region or data classification; an annotation on the object
or an assumption for the files under a folder says it instead. Both are validated where they
are written. An assumption never overrides what a file says (the format's own fields or its
annotations), and every finding that relies on one names it (linter/policy/evaluator.py).

```yaml
assume:
  - paths: ["deploy/eu/**"]
    set: {provider: aws, region: eu-west-1, personalData: true, residency: [EU]}
```
"""

import fnmatch
from collections.abc import Mapping, Sequence
from typing import Any

from linter.load import load_text
from linter.load.positions import Path
from linter.model.fields import FIELDS
from linter.model.values import ValueProblem, check_value, is_list, plain
from linter.records import datarecord

ANNOTATION_PREFIX = "gpulint.dev/"


def settable() -> dict[str, str]:
    """Field names that annotations and assumptions may set -> their annotation suffix."""
    return {name: field.annotation for name, field in FIELDS.items() if field.annotation}


def by_annotation() -> dict[str, str]:
    """Annotation suffix (``region``) -> field name (``region``)."""
    return {annotation: name for name, annotation in settable().items()}


@datarecord
class Assumption:
    """One field's value for the files some ``assume:`` entry matches."""

    path: Path  # normalised path of the field
    value: Any
    where: str  # ".gpulint.yaml:12", for messages


@datarecord
class AssumeBlock:
    patterns: tuple[str, ...]
    values: tuple[Assumption, ...]

    def matches(self, relative: str) -> bool:
        return any(
            fnmatch.fnmatch(relative, pattern)
            or fnmatch.fnmatch(relative, pattern.rstrip("/") + "/*")
            for pattern in self.patterns
        )


def check_assumed(name: str, value: Any) -> tuple[Path, Any]:
    """An ``assume:`` field and value, validated: the normalised path and the plain value;
    raises ValueProblem naming what is wrong."""
    if name not in settable():
        known = ", ".join(sorted(settable()))
        raise ValueProblem(f"{name!r} cannot be assumed (fields: {known})")
    path = FIELDS[name].path
    return path, plain(check_value(path, value))


def read_annotation(suffix: str, text: str) -> tuple[Path, Any]:
    """A ``gpulint.dev/<suffix>`` annotation's value, typed for its field: annotation values are
    strings, so ``"true"``, ``"30"`` and ``"[EU, UK]"`` are read as YAML scalars and flow lists,
    and a list field also takes ``"EU, UK"``. Raises ValueProblem."""
    name = by_annotation().get(suffix)
    if name is None:
        known = ", ".join(sorted(by_annotation()))
        raise ValueProblem(f"unknown annotation {ANNOTATION_PREFIX}{suffix} (known: {known})")
    path = FIELDS[name].path
    loaded = load_text(text)
    value: Any = loaded.documents[0].data if loaded.documents and not loaded.problems else text
    if is_list(path) and isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    return path, plain(check_value(path, value))


def assumptions_for(relative: str, blocks: Sequence[AssumeBlock]) -> tuple[Assumption, ...]:
    """The assumptions that apply to a file (path relative to the config's folder); a later
    block wins over an earlier one for the same field."""
    chosen: dict[Path, Assumption] = {}
    for block in blocks:
        if block.matches(relative):
            for assumption in block.values:
                chosen[assumption.path] = assumption
    return tuple(chosen.values())


def annotations_of(data: Mapping[str, Any]) -> dict[str, str]:
    """The ``gpulint.dev/`` annotations of an object's metadata (suffix -> value)."""
    metadata = data.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, Mapping) else None
    if not isinstance(annotations, Mapping):
        return {}
    return {
        key[len(ANNOTATION_PREFIX) :]: value
        for key, value in annotations.items()
        if isinstance(key, str) and key.startswith(ANNOTATION_PREFIX) and isinstance(value, str)
    }
