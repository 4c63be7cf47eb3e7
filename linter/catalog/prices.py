"""The price catalogue: hourly prices of GPU instances and per-token prices of managed model APIs.

``data/prices.yaml`` holds what describes the prices (``as_of``, currency, the pricing conventions,
the caveat flags and every source with its commit, licence and processing); the rows are two CSV
tables beside it, ``prices_instances.csv`` and ``prices_managed.csv`` (about 1,900 rows: CSV reads
in a few milliseconds where the same rows as YAML take a quarter of a second, and a refresh still
diffs one line per price). All three are written by ``scripts/refresh_prices.py``.

Lookups compare names through :func:`linter.catalog.spelling.name_key`. Arithmetic and policy over
these records (region fallback, savings, break-even) live in :mod:`linter.pricing`.
"""

import csv
import functools
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

from linter.catalog import CatalogueError
from linter.catalog.base import Catalogue, Citation, Record, validated
from linter.catalog.prevalidated import prevalidated
from linter.catalog.spelling import name_key
from linter.declared import Field, model_validator

DATA = Path(__file__).resolve().parent / "data"
INSTANCES_FILE = "prices_instances.csv"
MANAGED_FILE = "prices_managed.csv"

#: What a caveat flag does to a price: ``warning`` shows it with the flag's description,
#: ``no-spot-saving`` also keeps its spot price out of any saving claim.
Effect = Literal["warning", "no-spot-saving"]


class PriceFlag(Record):
    id: str = Field(min_length=1)
    effect: Effect
    description: str = Field(min_length=1, description="Why a row carries the flag.")


class PriceSource(Citation):
    repository: str = Field(min_length=1)
    path: str = Field(min_length=1, description="The file in the repository that was read.")
    commit: str | None = Field(None, pattern=r"^[0-9a-f]{40}$")
    version: str | None = Field(None, description="Release that shipped the file, when no commit.")
    sha256: str | None = Field(None, pattern=r"^[0-9a-f]{64}$")
    licence: str = Field(min_length=1)
    processing: str = Field(min_length=1, description="How rows were selected and derived.")


class InstancePriceRow(Record):
    """One row of ``prices_instances.csv``: an instance type with an accelerator, in a region."""

    provider: str = Field(min_length=1)
    instance_type: str = Field(min_length=1)
    accelerator: str = Field(min_length=1, description="As the source names it.")
    accelerator_count: float = Field(gt=0, description="As the source states it (see flags).")
    region: str = Field(min_length=1)
    on_demand_per_hour: float | None = Field(None, ge=0)
    spot_per_hour: float | None = Field(None, ge=0, description="Lowest zone, one snapshot.")
    flags: tuple[str, ...] = Field((), description="Ids of caveat flags (space-separated in CSV).")
    source: str = Field(min_length=1)


class ManagedPriceRow(Record):
    """One row of ``prices_managed.csv``: a managed API's per-token price for one model."""

    provider: str = Field(min_length=1, description="bedrock, vertex-ai, azure-openai, azure-ai")
    model: str = Field(min_length=1, description="The provider's model id.")
    region: str | None = Field(
        None,
        description="An AWS region, a Bedrock inference-profile geography (us, eu, global, ...) "
        "or an Azure OpenAI deployment segment (eu, us, global, ...); absent when the price is "
        "the same wherever the provider serves the model.",
    )
    input_per_million_tokens: float = Field(ge=0)
    output_per_million_tokens: float = Field(ge=0)
    hf_id: str | None = Field(None, description="The open-weight checkpoint it serves.")
    source: str = Field(min_length=1)
    source_key: str = Field(min_length=1, description="The entry's key in the source.")


class PriceBook(Catalogue):
    """``prices.yaml`` itself: the conventions, caveat flags and sources of the prices, without
    the rows of its tables (a run reads those when a lookup needs them)."""

    currency: Literal["USD"]
    hours_per_month: float = Field(
        gt=0, le=744, description="Hours in the month monthly costs are computed for."
    )
    assumed_input_share: float = Field(
        gt=0, lt=1, description="Input tokens as a share of a declared total token rate."
    )
    flags: list[PriceFlag]
    sources: list[PriceSource] = Field(min_length=1)  # type: ignore[assignment]


class Prices(PriceBook):
    """``prices.yaml`` with the rows of its two CSV tables (``instances`` and ``managed``)."""

    # The whole catalogue, as the tests validate it and its published schema describes it (a
    # run reads the price book and looks rows up: prices() below).

    instances: list[InstancePriceRow] = Field(description=f"The rows of {INSTANCES_FILE}.")
    managed: list[ManagedPriceRow] = Field(description=f"The rows of {MANAGED_FILE}.")

    @classmethod
    def assemble(cls, document: Any) -> Any:
        if not isinstance(document, dict):
            return document
        return {**document, "instances": _INSTANCES.read(), "managed": _MANAGED.read()}

    @model_validator(mode="after")
    def _references_resolve(self) -> "Prices":
        sources = {source.id for source in self.sources}
        flags = {flag.id for flag in self.flags}
        problems = [
            f"instance row {row.instance_type} {row.region}: {what}"
            for row in self.instances
            for what in _unknown(row.source, sources, row.flags, flags)
        ]
        problems += [
            f"managed row {row.source_key}: {what}"
            for row in self.managed
            for what in _unknown(row.source, sources, (), flags)
        ]
        keys = [_instance_identity(row) for row in self.instances]
        if len(keys) != len(set(keys)):
            problems.append("an instance type, accelerator and region is priced twice")
        if problems:
            raise ValueError("; ".join(problems))
        return self


def _unknown(
    source: str, sources: set[str], row_flags: Iterable[str], flags: set[str]
) -> list[str]:
    found = [] if source in sources else [f"undeclared source {source!r}"]
    return found + [f"undeclared flag {flag!r}" for flag in row_flags if flag not in flags]


def _instance_identity(row: InstancePriceRow) -> tuple[str, str, str, float, str]:
    return (
        row.provider,
        name_key(row.instance_type),
        name_key(row.accelerator),
        row.accelerator_count,
        name_key(row.region),
    )


# ------------------------------------------------------------------------------ CSV tables


R = TypeVar("R", bound=Record)


class _Table(Generic[R]):
    """A CSV table, read once per process on first use; each row is built into its model only
    when a lookup returns it (a one-file run returns a few of 1,900: building every row, and
    reading the table a run never looks at, was some 15 ms of its start-up, issue 31). Its rows
    are packaged data the tests validate (``checked("prices", Prices)``), built as
    :func:`~linter.catalog.base.validated` builds packaged data, without checking them again."""

    def __init__(
        self, file: str, convert: Callable[[dict[str, str]], dict[str, Any]], model: type[R]
    ) -> None:
        self._file, self._convert, self._model = file, convert, model
        self._built: dict[int, R] = {}

    def read(self) -> list[dict[str, Any]]:
        """Every row's typed values, in file order, read from the file now."""
        return _table(DATA / self._file, self._convert)

    @functools.cached_property
    def cells(self) -> tuple[dict[str, Any], ...]:
        """:meth:`read`, once per process."""
        return tuple(self.read())

    def rows(self, indexes: Sequence[int]) -> tuple[R, ...]:
        """The rows at ``indexes`` (positions in :attr:`cells`), each built once."""
        built, cells = self._built, self.cells
        for index in indexes:
            if index not in built:
                built[index] = prevalidated(self._model, cells[index])
        return tuple(built[index] for index in indexes)


def _table(path: Path, convert: Callable[[dict[str, str]], dict[str, Any]]) -> list[Any]:
    """The rows of a CSV table, each converted to the typed values its model validates."""
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        rows = []
        for row in reader:
            try:
                rows.append(convert(row))
            except (KeyError, ValueError) as err:
                raise CatalogueError(f"catalogue {path.name}:{reader.line_num}: {err}") from None
        return rows


def _number(text: str) -> float | None:
    return None if text == "" else float(text)


def _required_number(text: str) -> float:
    value = _number(text)
    if value is None:
        raise ValueError("a required number is empty")
    return value


def _instance_cells(row: dict[str, str]) -> dict[str, Any]:
    return {
        **row,
        "accelerator_count": _required_number(row["accelerator_count"]),
        "on_demand_per_hour": _number(row["on_demand_per_hour"]),
        "spot_per_hour": _number(row["spot_per_hour"]),
        "flags": tuple(row["flags"].split()),
    }


def _managed_cells(row: dict[str, str]) -> dict[str, Any]:
    return {
        **row,
        "region": row["region"] or None,
        "input_per_million_tokens": _required_number(row["input_per_million_tokens"]),
        "output_per_million_tokens": _required_number(row["output_per_million_tokens"]),
        "hf_id": row["hf_id"] or None,
    }


# --------------------------------------------------------------------------------- lookups


_INSTANCES = _Table(INSTANCES_FILE, _instance_cells, InstancePriceRow)
_MANAGED = _Table(MANAGED_FILE, _managed_cells, ManagedPriceRow)


def prices() -> Prices:
    """The whole price catalogue, every row built (read once per process, on first use): for
    the tests and benchmarks; a run asks :func:`price_book` and the lookups below."""
    return validated("prices", Prices)


def price_book() -> PriceBook:
    """The price catalogue's conventions, caveat flags and sources, its tables left unread."""
    return validated("prices", PriceBook)


def instance_table() -> tuple[InstancePriceRow, ...]:
    """Every row of ``prices_instances.csv``, in file order."""
    return _INSTANCES.rows(range(len(_INSTANCES.cells)))


def type_keys(provider: str, instance_type: str) -> tuple[str, ...]:
    """The keys an instance type is found under: Azure sizes also without ``Standard_``."""
    key = name_key(instance_type)
    if name_key(provider) == "azure" and key.startswith("standard"):
        return (key, key.removeprefix("standard"))
    return (key,)


@functools.cache
def _instances_by_type() -> dict[tuple[str, str], tuple[int, ...]]:
    index: dict[tuple[str, str], list[int]] = {}
    for position, cells in enumerate(_INSTANCES.cells):
        for key in type_keys(cells["provider"], cells["instance_type"]):
            index.setdefault((name_key(cells["provider"]), key), []).append(position)
    return {key: tuple(positions) for key, positions in index.items()}


def instance_rows(provider: str, instance_type: str) -> tuple[InstancePriceRow, ...]:
    """Every priced region (and accelerator, for hosts GPUs attach to) of an instance type."""
    keys = type_keys(provider, instance_type)
    return _INSTANCES.rows(_instances_by_type().get((name_key(provider), keys[-1]), ()))


@functools.cache
def _managed_by_model() -> dict[str, tuple[int, ...]]:
    index: dict[str, list[int]] = {}
    for position, cells in enumerate(_MANAGED.cells):
        if cells["hf_id"] is not None:
            index.setdefault(name_key(cells["hf_id"]), []).append(position)
    return {key: tuple(positions) for key, positions in index.items()}


def managed_rows(hf_id: str) -> tuple[ManagedPriceRow, ...]:
    """The managed offerings priced for exactly this Hugging Face id (compared by name key)."""
    return _MANAGED.rows(_managed_by_model().get(name_key(hf_id), ()))


def mapped_models() -> tuple[str, ...]:
    """Every Hugging Face id some managed offering is mapped to, in catalogue order."""
    return tuple(dict.fromkeys(cells["hf_id"] for cells in _MANAGED.cells if cells["hf_id"]))


@functools.cache
def flag(flag_id: str) -> PriceFlag:
    """A caveat flag's definition (every row's flags are checked to be defined at load)."""
    return next(entry for entry in price_book().flags if entry.id == flag_id)
