"""Project configuration: ``.gpulint.yaml`` (or ``[tool.gpulint]`` in pyproject.toml), the nearest
one above each file, up to the repository root and never above it. Validated; every error names
the file and, for YAML, the line.

The run's configuration is the one found from the working directory (or named with
``--config``); it alone holds the run-wide keys (``RUN_WIDE_KEYS``: the exit threshold, budgets,
the cluster inventory, rule folders, the size limit, exclusions). A file's configuration, the
nearest above it, decides the rest for that file: which rules run, their severities and
options, assumptions and the residency default. A configuration may ``extend`` another (a path
relative to its folder, inside the repository, at most ``MAX_EXTEND_DEPTH`` deep, no cycles): it
starts from that one's values and the keys it sets replace them (``rules`` per rule id; both
files' ``assume`` blocks apply, each relative to its own folder, the extending file's winning
for the same field).

A configuration found in the repository is the repository's: it may not reach outside it
(symbolic links out of the repository are not read, ``rulesDirs`` and ``extend`` must stay
inside). A file named with ``--config`` is the user's own choice and is read wherever it is.
"""

import hashlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from linter.declared import (
    CamelRecord,
    Field,
    Record,
    camel_case,
    data_of,
    empty_list,
    field_validator,
    model_validator,
)
from linter.declared.checking import errors_of
from linter.errors import UserError
from linter.load import Refusal, read, read_bounded
from linter.load.positions import SourceMap
from linter.load.repository import inside, repository_root
from linter.model.inventory import ClusterInventory
from linter.model.validation import describe_error, error_path

if TYPE_CHECKING:
    from linter.model.assumptions import AssumeBlock, Assumption

CONFIG_NAMES = (".gpulint.yaml", ".gpulint.yml")
CONFIG_MAX_BYTES = 1024 * 1024
DEFAULT_FAIL_ON = "error"
#: How many configurations one may ``extend`` in a chain.
MAX_EXTEND_DEPTH = 8
#: Keys read from the run's configuration only: they decide the run, not one file.
RUN_WIDE_KEYS = ("fail_on", "budgets", "cluster", "rules_dirs", "max_file_size", "exclude")
FailOn = Literal["error", "warning", "note", "never"]


class ConfigError(UserError):
    """Configuration that cannot be used; the message names the file (and line where known)."""


class RuleConfig(CamelRecord):
    enabled: bool | None = None
    severity: Literal["error", "warning", "note"] | None = None
    options: dict[str, Any] = Field(default_factory=dict)


class AssumeEntry(CamelRecord):
    """Values for what the files under some paths do not say (see linter/model/assumptions.py)."""

    paths: list[str] = Field(
        min_length=1,
        description="Glob patterns, relative to the config file's folder, of the files it applies "
        "to (deploy/eu/** or charts/*/values.yaml).",
    )
    set: dict[str, Any] = Field(
        min_length=1,
        description="Field -> value, fields named as in the gpulint.dev/ annotations' camelCase "
        "form: provider, region, instanceType, accelerator, capacity, pool, personalData, "
        "residency, ...",
    )


class Budget(CamelRecord):
    """A cost limit for the workloads a path glob or label picks (all of them together)."""

    name: str = Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9 ._/-]{0,99}$",
        description="Shown in findings and reports, e.g. team-a.",
    )
    paths: list[str] = Field(
        default_factory=empty_list,
        description="Globs matched like exclude, against the paths reports show; empty: any.",
    )
    labels: dict[str, str] = Field(
        default_factory=dict,
        description="metadata.labels a workload must carry (all of them); empty: any.",
    )
    monthly: float | None = Field(
        None, gt=0, allow_inf_nan=False, description="USD a month the workloads may cost together."
    )
    increase: float | None = Field(
        None,
        ge=0,
        allow_inf_nan=False,
        description="USD a month one change may add to them (needs a cost base: "
        "gpulint check --cost-base REF).",
    )

    @model_validator(mode="after")
    def _has_a_limit(self) -> "Budget":
        if self.monthly is None and self.increase is None:
            raise ValueError("give a monthly limit, an increase limit, or both")
        return self


class Config(CamelRecord):
    """The schema of ``.gpulint.yaml`` (and of ``[tool.gpulint]``)."""

    extend: str | None = Field(
        None,
        description="Another configuration this one starts from (a path relative to this "
        "file's folder, inside the repository): the keys set here replace its values.",
    )
    fail_on: FailOn | None = None
    select: list[str] = Field(
        default_factory=empty_list, description="Rule ids or prefixes to run (default: all)."
    )
    ignore: list[str] = Field(
        default_factory=empty_list, description="Rule ids or prefixes to skip."
    )
    rules: dict[str, RuleConfig] = Field(default_factory=dict)
    rules_dirs: list[str] = Field(
        default_factory=empty_list,
        description="Folders of organisation rules, relative to the config file.",
    )
    exclude: list[str] = Field(
        default_factory=empty_list, description="Glob patterns of paths not to lint."
    )
    residency: list[str] = Field(
        default_factory=empty_list, description="Organisation default for data.residency."
    )
    max_file_size: int | None = Field(None, ge=1, description="Bytes; larger files are refused.")
    assume: list[AssumeEntry] = Field(
        default_factory=empty_list,
        description="What the files do not say (cloud, region, data classification), per path; "
        "an assumption never overrides the file, and findings relying on one name it.",
    )
    budgets: list[Budget] = Field(
        default_factory=empty_list,
        description="Cost limits per path glob or label, checked by GL212 (see docs/cost.md).",
    )
    cluster: ClusterInventory | None = Field(
        None,
        description="The GPU types of the cluster and its pools: a workload that does not pin a "
        "GPU type is sized on each it may land on (GL110).",
    )

    @field_validator("budgets")
    @classmethod
    def _budget_names_are_unique(cls, budgets: list[Budget]) -> list[Budget]:
        names = [budget.name for budget in budgets]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"budget names must be unique: {', '.join(repeated)}")
        return budgets


class LoadedConfig:
    """A validated config plus where it came from (to resolve relative paths and to point at
    keys when a rule id or option in it is wrong)."""

    def __init__(
        self,
        config: Config,
        path: Path | None,
        source_map: SourceMap | None,
        digest: str = "",
        parent: "LoadedConfig | None" = None,
        own_keys: frozenset[str] | None = None,
    ) -> None:
        self.config = config
        # the keys this file itself sets (not those it takes from the configuration it extends)
        self.own_keys = frozenset(config.model_fields_set) if own_keys is None else own_keys
        self.path = path
        self.source_map = source_map
        # of the file's bytes: messages name its lines ("assumed from .gpulint.yaml:12"), so a
        # result kept for one layout of the same settings is not another's
        self.digest = digest
        self.parent = parent  # the configuration it extends; its assume blocks apply too
        self.assume = self._assume_blocks()

    def _assume_blocks(self) -> tuple["AssumeBlock", ...]:
        """The ``assume:`` entries with every field and value checked (ConfigError at its line).
        Without any, the formats are not imported: a run answered from the cache needs none."""
        if not self.config.assume:
            return ()
        from linter.model.assumptions import AssumeBlock, Assumption, check_assumed
        from linter.model.values import ValueProblem

        blocks = []
        for number, entry in enumerate(self.config.assume):
            values = []
            for name, value in entry.set.items():
                where = ("assume", number, "set", name)
                try:
                    path, checked = check_assumed(name, value)
                except ValueProblem as err:
                    raise self.error(where, f"assume[{number}].set.{name}: {err}") from None
                values.append(Assumption(path, checked, self.position(where)))
            blocks.append(AssumeBlock(tuple(entry.paths), tuple(values)))
        return tuple(blocks)

    def check_run_wide_keys(self, run: "LoadedConfig") -> None:
        """A file's configuration below the run's may repeat the run-wide keys (``failOn:
        error`` in a starter), never change them: the run reads them from its own
        configuration, and a value here that says otherwise would be silently ignored."""
        for name in RUN_WIDE_KEYS:
            if name not in self.own_keys:
                continue
            mine, theirs = _run_wide_value(self.config, name), _run_wide_value(run.config, name)
            if mine != theirs:
                key = camel_case(name)
                where = run.path if run.path is not None else "no configuration: the defaults"
                raise self.error(
                    (key,),
                    f"{key} applies to the whole run and is read from the run's configuration "
                    f"({where}), which gives {theirs!r}: remove it here, or set it there",
                )

    def assumptions(self, named: str, display: str) -> tuple["Assumption", ...]:
        """The assumptions for a file (``named``: where it is; ``display``: its name in reports,
        used when it lies outside this configuration's folder): the extended configuration's
        first, then this one's, a later one winning for the same field."""
        inherited = self.parent.assumptions(named, display) if self.parent else ()
        own: tuple[Assumption, ...] = ()
        if self.assume:  # else the module (and its value checks) is not imported: issue 31
            from linter.model.assumptions import assumptions_for

            own = assumptions_for(self._relative(named, display), self.assume)
        if not inherited:
            return own
        return tuple({a.path: a for a in (*inherited, *own)}.values())

    def _relative(self, named: str, display: str) -> str:
        """A file's path as ``assume:`` globs match it: relative to this configuration's
        folder."""
        try:
            absolute = Path(os.path.abspath(named))
            return absolute.relative_to(self.base.absolute()).as_posix()
        except ValueError:
            return display

    def position(self, where: tuple[Any, ...]) -> str:
        """``.gpulint.yaml:12`` for a key of this config, as messages name it."""
        if self.path is None:
            return "the command line"
        if self.source_map is None:
            return f"{self.path.name} [tool.gpulint]"
        return f"{self.path.name}:{self.source_map.locate(where).line}"

    @property
    def base(self) -> Path:
        return self.path.parent if self.path else Path.cwd()

    def error(self, where: tuple[Any, ...], message: str) -> ConfigError:
        if self.path is None:
            return ConfigError(message)
        if self.source_map is None:
            return ConfigError(f"{self.path}: [tool.gpulint] {message}")
        span = self.source_map.locate(where)
        return ConfigError(f"{self.path}:{span.line}:{span.column}: {message}")

    def rules_directories(self) -> list[Path]:
        """The ``rulesDirs`` folders; one that resolves outside the repository holding the
        config is an error (trusted folders are given with ``--rules-dir``)."""
        root = repository_root(self.base)
        out = []
        for index, entry in enumerate(self.config.rules_dirs):
            directory = self.base / entry
            if not inside(directory, root):
                raise self.error(
                    ("rulesDirs", index),
                    f"rulesDirs: {entry!r} is outside the repository ({root}); "
                    "pass a folder you trust with --rules-dir instead",
                )
            out.append(directory)
        return out


def find_config(start: Path) -> Path | None:
    """The nearest .gpulint.yaml, or pyproject.toml with a [tool.gpulint] table, from ``start``
    up to the root of the repository holding it (outside a repository: ``start`` only)."""
    start = start.absolute()
    root = repository_root(start)
    for directory in (start, *start.parents):
        found = _config_in(directory, root)
        if found is not None:
            return found
        if directory == root:
            break
    return None


class ConfigFinder:
    """The nearest configuration above each folder, up to the repository root; each folder is
    looked at once and each configuration loaded once, however many files share it."""

    def __init__(self) -> None:
        self._nearest: dict[Path, Path | None] = {}
        self._loaded: dict[Path, LoadedConfig] = {}
        #: By a file's folder as written and its root: most files share a folder with others.
        self._by_folder: dict[tuple[str, Path], LoadedConfig | None] = {}

    def for_file(self, location: str, root: Path) -> LoadedConfig | None:
        """The configuration that applies to the file at ``location`` in the repository at
        ``root``; None when there is none up to the root. Asked once per file of a run (10,000
        of them), so a folder seen before is one dictionary look-up."""
        key = (os.path.dirname(location), root)
        if key not in self._by_folder:
            self._by_folder[key] = self._for_folder(key[0], root)
        return self._by_folder[key]

    def _for_folder(self, folder: str, root: Path) -> LoadedConfig | None:
        found = self._find(Path(os.path.abspath(folder)), root.absolute())
        if found is None:
            return None
        if found not in self._loaded:
            self._loaded[found] = load_config(found, root)
        return self._loaded[found]

    def _find(self, directory: Path, root: Path) -> Path | None:
        walked = []
        found: Path | None = None
        for folder in (directory, *directory.parents):
            if folder in self._nearest:
                found = self._nearest[folder]
                break
            walked.append(folder)
            found = _config_in(folder, root)
            if found is not None or folder == root or not folder.is_relative_to(root):
                break
        for folder in walked:
            self._nearest[folder] = found
        return found


def _config_in(directory: Path, root: Path | None) -> Path | None:
    """``directory``'s own configuration file, if it has one."""
    for name in CONFIG_NAMES:
        if (directory / name).is_file():
            return directory / name
    pyproject = directory / "pyproject.toml"
    if pyproject.is_file() and _pyproject_table(pyproject, root)[0] is not None:
        return pyproject
    return None


def load_config(
    path: Path | None, root: Path | None = None, extending: tuple[Path, ...] = ()
) -> LoadedConfig:
    """Read and validate the config at ``path``, and what it extends. With ``root`` (a config
    found in a repository), the file must lie inside it, links resolved; ``extending`` are the
    configurations that extend this one, innermost first (to refuse a cycle)."""
    if path is None:
        # the defaults need no validation: building Config's validator is a tenth of a
        # one-file run's start-up (issue 31)
        return LoadedConfig(Config.model_construct(), None, None)
    if path.name == "pyproject.toml":
        table, text = _pyproject_table(path, root)
        data = table or {}
        source_map = None
    else:
        loaded = read(path, max_bytes=CONFIG_MAX_BYTES, root=root)
        if loaded.problems:
            p = loaded.problems[0]
            raise ConfigError(f"{path}:{p.span.line}:{p.span.column}: {p.message}")
        document = loaded.documents[0] if loaded.documents else None
        data = document.data if document is not None and document.data is not None else {}
        source_map = document.source_map if document is not None else None
        text = loaded.text
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    try:
        config = Config.model_validate(data)
    except ValueError as err:
        error = errors_of(err)[0]
        where = error_path(error, data)
        raise LoadedConfig(Config(), path, source_map).error(
            where, describe_error(error, where)
        ) from None
    own = LoadedConfig(config, path, source_map, digest)
    if config.extend is None:
        return own
    parent = _extended(own, root, (path, *extending))
    merged = _merged(parent.config, config)
    digest = hashlib.sha256(f"{digest} {parent.digest}".encode()).hexdigest()
    return LoadedConfig(
        merged, path, source_map, digest, parent, frozenset(config.model_fields_set)
    )


def _run_wide_value(config: Config, name: str) -> Any:
    """A run-wide key's value, the default spelled out (no ``failOn`` is ``failOn: error``)."""
    value = getattr(config, name)
    if name == "fail_on" and value is None:
        return DEFAULT_FAIL_ON
    if isinstance(value, list):
        return [data_of(v) if isinstance(v, Record) else v for v in value]
    return value


def _extended(child: LoadedConfig, root: Path | None, chain: tuple[Path, ...]) -> LoadedConfig:
    """The configuration ``child`` extends: inside the repository, not already in the chain,
    at most MAX_EXTEND_DEPTH deep."""
    assert child.path is not None and child.config.extend is not None
    entry = child.config.extend
    target = child.base / entry
    boundary = root or repository_root(child.base)
    if not inside(target, boundary):
        raise child.error(("extend",), f"extend: {entry!r} is outside the repository ({boundary})")
    if not target.is_file():
        raise child.error(("extend",), f"extend: {entry!r} is not a file")
    if any(os.path.realpath(target) == os.path.realpath(seen) for seen in chain):
        cycle = " -> ".join(str(p) for p in (*reversed(chain), target))
        raise child.error(("extend",), f"extend: a cycle ({cycle})")
    if len(chain) > MAX_EXTEND_DEPTH:
        raise child.error(
            ("extend",), f"extend: more than {MAX_EXTEND_DEPTH} configurations in a chain"
        )
    return load_config(target, boundary, chain)


def _merged(parent: Config, child: Config) -> Config:
    """``parent`` with the keys ``child`` sets replacing its values (``rules`` per rule id);
    ``assume`` stays the child's own (LoadedConfig.assumptions applies the parent's too)."""
    update: dict[str, Any] = {"extend": child.extend, "assume": child.assume}
    for name in child.model_fields_set - {"extend", "assume"}:
        update[name] = getattr(child, name)
    if "rules" in child.model_fields_set:
        update["rules"] = {**parent.rules, **child.rules}
    return parent.model_copy(update=update)


def _pyproject_table(path: Path, root: Path | None) -> tuple[dict[str, Any] | None, str]:
    """The ``[tool.gpulint]`` table, and the file's text."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    content = read_bounded(path, CONFIG_MAX_BYTES, root)
    if isinstance(content, Refusal):
        raise ConfigError(f"{path}: {content.message()}")
    try:
        text = content.decode("utf-8")
        tool = tomllib.loads(text).get("tool")
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise ConfigError(f"{path}: cannot read: {err}") from None
    table = tool.get("gpulint") if isinstance(tool, dict) else None
    return (table if isinstance(table, dict) else None), text
