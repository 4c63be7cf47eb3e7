"""Model architectures: Hugging Face config values of the models gpulint sizes without a
config.json, the size of their published checkpoints, and how a written name finds one.

A name resolves in this order, and to nothing rather than to a guess:

1. the same weights: an id or alias (case and separators aside), optionally after a mirror
   organisation (``NousResearch/``) and with a variant ending (``-Instruct``) removed;
2. a quantised release of those weights: a precision ending (``-FP8``, ``-AWQ``) removed, the
   architecture sized at that precision;
3. a distilled model catalogued as having its base model's architecture.

A storage location (``s3://bucket/models/deepseek-r1-distill-llama-8b``, ``/models/ORG/NAME``,
a download's ``tos://.../deepseek-ai/deepseek-coder-6.7b-instruct/``) resolves as the name it
ends in (``ORG/NAME``, then ``NAME``), by the same rules: a folder named after the checkpoint it
holds is how teams copy weights into buckets and volumes.

The rules (endings, mirrors, distills) are data in ``data/model_names.yaml``; which of them a
name used is kept in the :class:`Resolution`, so messages can say how a model was sized.
"""

import functools
from typing import Any, NamedTuple

from linter.catalog import model_names
from linter.catalog.base import Catalogue, Record, validated
from linter.catalog.spelling import model_key
from linter.declared import Field, empty_list

#: Names offered when a model is not catalogued.
NEAREST = 3
#: How alike (difflib ratio of the keys) a name must be to be offered.
NEAREST_CUTOFF = 0.6


class ModelRecord(Record):
    """One model: its config.json values and what its published checkpoint holds."""

    id: str = Field(min_length=1, description="Hugging Face id, e.g. meta-llama/Llama-3.1-8B.")
    aliases: list[str] = Field(default_factory=empty_list)
    checkpoint_bytes: int | None = Field(
        None, gt=0, description="Published model.safetensors.index.json metadata.total_size."
    )
    checkpoint_dtype: str | None = Field(
        None, description="Precision the published weights are stored in (precisions.yaml)."
    )
    config: dict[str, Any] = Field(description="Hugging Face config.json values, unchanged.")
    source: str = Field(min_length=1)


class ModelCatalogue(Catalogue):
    """gpulint model architecture catalogue."""

    models: list[ModelRecord] = Field(min_length=1)


class Resolution(NamedTuple):
    """A catalogue record a name resolved to, and how.

    ``precision`` is the precision a quantised-release ending names (the record's own weights
    otherwise); ``steps`` say, in words, each rule the name needed beyond an id or alias.
    """

    record: ModelRecord
    precision: str | None = None
    distilled: bool = False
    steps: tuple[str, ...] = ()

    @property
    def same_weights(self) -> bool:
        """The name is the record's own weights (an id, alias, variant or mirror of them)."""
        return self.precision is None and not self.distilled

    def note(self, name: str) -> str | None:
        """How ``name`` was sized, for a message; None for the record's own weights."""
        if self.same_weights:
            return None
        at = f" at {self.precision}" if self.precision else ""
        return f"model {name!r} sized as {self.record.id}{at} ({'; '.join(self.steps)})"


def catalogue() -> ModelCatalogue:
    return validated("models", ModelCatalogue)


def _split(name: str) -> tuple[str, str] | None:
    """(organisation key, repository key) of ``ORG/NAME`` or ``NAME``; None for other shapes."""
    org, _, repo = name.strip().rpartition("/")
    if "/" in org or not model_key(repo):
        return None
    return model_key(org), model_key(repo)


class _Index(NamedTuple):
    #: (organisation key, repository key) of ids and aliases -> record
    full: dict[tuple[str, str], ModelRecord]
    #: repository key of ids and aliases -> record (names written without an organisation)
    bare: dict[str, ModelRecord]
    #: (suffix key, suffix as catalogued)
    variants: tuple[tuple[str, str], ...]
    mirrors: dict[str, str]
    #: (suffix key, suffix as written, precision), longest first
    precisions: tuple[tuple[str, str, str], ...]
    distills: dict[tuple[str, str], ModelRecord]
    distills_bare: dict[str, ModelRecord]


@functools.cache
def _index() -> _Index:
    records = catalogue().models
    by_id = {record.id: record for record in records}
    full: dict[tuple[str, str], ModelRecord] = {}
    bare: dict[str, ModelRecord] = {}
    for record in records:
        own_org = _split(record.id) or ("", "")
        for name in (record.id, *record.aliases):
            parts = _split(name)
            if parts is None:
                continue
            org, repo = parts
            full.setdefault((org or own_org[0], repo), record)
            bare.setdefault(repo, record)
    rules = model_names.catalogue()
    distills: dict[tuple[str, str], ModelRecord] = {}
    distills_bare: dict[str, ModelRecord] = {}
    for distill in rules.distills:
        parts = _split(distill.id)
        if parts is not None and distill.base in by_id:
            distills.setdefault(parts, by_id[distill.base])
            distills_bare.setdefault(parts[1], by_id[distill.base])
    suffixes = sorted(
        ((model_key(s.suffix), s.suffix, s.precision) for s in rules.precision_suffixes),
        key=lambda item: -len(item[0]),
    )
    return _Index(
        full=full,
        bare=bare,
        variants=tuple((model_key(v.suffix), v.suffix) for v in rules.variant_suffixes),
        mirrors={model_key(m.org): m.org for m in rules.mirrors},
        precisions=tuple(suffixes),
        distills=distills,
        distills_bare=distills_bare,
    )


def _strip(repo: str, suffix: str) -> str | None:
    """``repo`` without the ending ``suffix`` (both keys), or None when it does not end so."""
    tail = "-" + suffix
    return repo[: -len(tail)] if repo.endswith(tail) and len(repo) > len(tail) else None


def _lookup(index: _Index, org: str, repo: str) -> ModelRecord | None:
    return index.full.get((org, repo)) if org else index.bare.get(repo)


def _same_weights(index: _Index, org: str, repo: str) -> tuple[ModelRecord, str | None] | None:
    """The record named by ``repo`` (under ``org`` when given), and the variant ending that was
    removed to find it, if one was."""
    found = _lookup(index, org, repo)
    if found is not None:
        return found, None
    for suffix, written in index.variants:
        base = _strip(repo, suffix)
        found = None if base is None else _lookup(index, org, base)
        if found is not None:
            return found, written
    return None


def _quantised(index: _Index, repo: str) -> tuple[str, str, str] | None:
    """(``repo`` without its precision ending, the ending as catalogued, its precision)."""
    for suffix, written, precision in index.precisions:
        base = _strip(repo, suffix)
        if base is not None:
            return base, written, precision
    return None


@functools.lru_cache(maxsize=4096)
def resolve_model(name: str) -> Resolution | None:
    """The catalogue record ``name`` resolves to (module docstring), or None."""
    parts = _split(name)
    if parts is None:
        return _stored(name)
    index = _index()
    org, repo = parts
    steps: list[str] = []
    if org in index.mirrors:
        steps.append(f"{index.mirrors[org]}/ republishes other organisations' models")
        org = ""
    precision = None
    found = _same_weights(index, org, repo)
    quantised = _quantised(index, repo) if found is None else None
    if quantised is not None:
        repo, written, precision = quantised
        steps.append(f"the ending {written} names a quantised release stored in {precision}")
        found = _same_weights(index, org, repo)
    if found is not None:
        record, variant = found
        if variant is not None:
            steps.append(f"the ending {variant} names a tuned variant of the same architecture")
        return Resolution(record, precision=precision, steps=tuple(steps))
    distilled = index.distills.get((org, repo)) if org else index.distills_bare.get(repo)
    if distilled is None:
        return None
    steps.append(f"a distill with the architecture of {distilled.id}")
    return Resolution(distilled, precision=precision, distilled=True, steps=tuple(steps))


def _stored(location: str) -> Resolution | None:
    """A storage location resolved as the ``ORG/NAME`` or ``NAME`` it ends in, or None."""
    path = location.strip().split("://", 1)[-1].rstrip("/")
    segments = [segment for segment in path.split("/") if segment]
    for tail in ("/".join(segments[-2:]), segments[-1] if segments else ""):
        if tail and tail != location and _split(tail) is not None:
            found = resolve_model(tail)
            if found is not None:
                return found
    return None


def find_model(model_id: str) -> ModelRecord | None:
    """The record of the same weights as ``model_id``: an id or alias, case and separators
    aside, optionally under a mirror organisation or with a variant ending (-Instruct, -Chat,
    -it); quantised releases and distills are not the same weights (:func:`resolve_model`)."""
    resolution = resolve_model(model_id)
    return resolution.record if resolution is not None and resolution.same_weights else None


def catalogue_key(model_id: str) -> str:
    """The model key of ``model_id`` without a variant ending (``-Instruct``, ``-it``, ...)."""
    key = model_key(model_id)
    for variant, _ in _index().variants:
        base = _strip(key, variant)
        if base is not None:
            return base
    return key


def nearest_models(name: str) -> list[str]:
    """Catalogued ids whose names are most like ``name`` (at most :data:`NEAREST`, best first):
    what a message offers for a name that resolves to nothing. Each leading part of the name
    (``Qwen2.5-7B-Instruct`` of ``Qwen2.5-7B-Instruct-1M``) is compared too, so an unknown
    ending does not hide the model it extends."""
    import difflib  # on the way to a message only: not every run pays for importing it

    parts = _split(name)
    if parts is None:
        return []
    tokens = parts[1].split("-")
    forms = {"-".join(tokens[:end]) for end in range(min(2, len(tokens)), len(tokens) + 1)}
    scores: dict[str, float] = {}
    for key, record in _index().bare.items():
        matcher = difflib.SequenceMatcher(None, b=key)
        score = 0.0
        for form in forms:
            matcher.set_seq1(form)
            if matcher.real_quick_ratio() > score and matcher.quick_ratio() > score:
                score = max(score, matcher.ratio())
        if score >= NEAREST_CUTOFF:
            scores[record.id] = max(scores.get(record.id, 0.0), score)
    ranked = sorted(scores, key=lambda model_id: -scores[model_id])  # stable: catalogue order
    return ranked[:NEAREST]
