"""Run rule fixtures: the good and bad example manifests that pin what a rule reports.

A rules folder ``DIR`` keeps its fixtures in ``DIR/tests/<RULE_ID>/good/`` and
``.../bad/``; gpulint's own rules keep theirs in the repository's ``tests/rules/<RULE_ID>/``.
Each fixture is linted with only its rule and the input rules (GL001, GL002) selected, with the
configuration in ``<RULE_ID>/config.yaml`` when there is one (for a rule that reads configuration,
such as GL212's budgets) and none otherwise, and what is
reported must be exactly the lines marked ``# expect: <RULE_ID>``: none in good/, every marked
line and only those in bad/. A rule's docs example must trigger it and its "use instead" must
not. ``gpulint test`` and gpulint's own test suite run the same code.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import field
from pathlib import Path

from linter.config import LoadedConfig, load_config
from linter.load import DEFAULT_MAX_BYTES, Refusal, read_bounded
from linter.policy.loader import CompiledRule, Rulebook, RuleError, load_rule, rule_files
from linter.policy.selection import Selection
from linter.records import datarecord

EXPECT = re.compile(r"#\s*expect:\s*([A-Z]+[0-9]{3}(?:\s*,\s*[A-Z]+[0-9]{3})*)")
INPUT_RULES = ("GL001", "GL002")
FIXTURE_SUFFIXES = (".yaml", ".yml", ".json")
CONFIG_FILE = "config.yaml"


@datarecord
class Failure:
    """One way a case failed, at a position in a file."""

    file: Path
    line: int
    message: str


@datarecord(frozen=False)
class Case:
    """One test: a fixture file, a docs section, or a rule file that must load."""

    rule_id: str
    name: str
    failures: list[Failure] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures


def expected_markers(path: Path) -> set[tuple[str, int]]:
    """``# expect: GL202`` (or ``GL202, GL201``) on a line: that rule reports that line. A file
    that cannot be read (a FIFO, a device, too large) expects nothing: linting it reports why."""
    content = read_bounded(path, DEFAULT_MAX_BYTES)
    if isinstance(content, Refusal):
        return set()
    out = set()
    text = content.decode("utf-8", errors="replace")
    for number, line in enumerate(text.splitlines(), start=1):
        match = EXPECT.search(line)
        if match:
            out |= {(rule_id.strip(), number) for rule_id in match.group(1).split(",")}
    return out


def load_rules(directories: Sequence[Path]) -> tuple[list[CompiledRule], list[Case]]:
    """Every rule file of ``directories``, loaded one by one: a rule file that does not load is
    a failed case with its position, and the others are still tested."""
    rules, cases = [], []
    for path in rule_files(directories):
        try:
            rules.append(load_rule(path))
        except RuleError as err:
            failure = _failure(str(err), path)
            cases.append(Case(path.stem, f"{path.name} loads", [failure]))
    return rules, cases


def _failure(message: str, path: Path) -> Failure:
    """A rule-file error (``file:line:col: what``) as a failure at that line."""
    match = re.match(r"^(.*?):(\d+):\d+: (.*)$", message, re.S)
    if match is None:
        return Failure(path, 1, message)
    return Failure(Path(match.group(1)), int(match.group(2)), match.group(3))


def run_rule(rule: CompiledRule, rulebook: Rulebook, fixtures: Path) -> Iterator[Case]:
    """The cases of one rule: its fixtures under ``fixtures/<id>/{good,bad}`` and its docs."""
    folder = fixtures / rule.id
    files = {kind: _fixtures(folder / kind) for kind in ("good", "bad")}
    config = load_config(folder / CONFIG_FILE if (folder / CONFIG_FILE).is_file() else None)
    if not rule.meta.engine and not (files["good"] and files["bad"]):
        missing = " and ".join(kind for kind, found in files.items() if not found)
        yield Case(
            rule.id,
            f"{rule.id} has fixtures",
            [Failure(rule.source, 1, f"no {missing} fixtures in {folder}")],
        )
    for kind, paths in files.items():
        for path in paths:
            yield _fixture_case(rule, rulebook, config, path, bad=kind == "bad")
    if not rule.meta.engine:
        yield from _docs_cases(rule, rulebook, config)


def _fixtures(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix in FIXTURE_SUFFIXES and p.is_file())


def _lint(
    rule: CompiledRule, rulebook: Rulebook, config: LoadedConfig, path: Path
) -> list[tuple[str, int, str]]:
    from linter.run.runner import lint_paths

    selection = Selection(config, (rule.id, *INPUT_RULES))
    result = lint_paths([str(path)], rulebook, config, selection)
    return [(f.rule_id, f.location.span.line, f.message) for f in result.findings]


def _fixture_case(
    rule: CompiledRule, rulebook: Rulebook, config: LoadedConfig, path: Path, bad: bool
) -> Case:
    case = Case(rule.id, f"{path.parent.parent.name}/{path.parent.name}/{path.name}")
    expected = expected_markers(path)
    if bad and not expected:
        case.failures.append(
            Failure(path, 1, "a bad fixture marks at least one line with # expect:")
        )
    if not bad and expected:
        line = min(line for _, line in expected)
        case.failures.append(Failure(path, line, "a good fixture carries no # expect: markers"))
    found = _lint(rule, rulebook, config, path)
    reported = {(rule_id, line) for rule_id, line, _ in found}
    for rule_id, line in sorted(expected - reported, key=lambda e: (e[1], e[0])):
        case.failures.append(
            Failure(path, line, f"expected {rule_id} here, but it was not reported")
        )
    for rule_id, line, message in found:
        if (rule_id, line) not in expected:
            case.failures.append(
                Failure(path, line, f"{rule_id} reported but not expected: {message}")
            )
    return case


def _docs_cases(rule: CompiledRule, rulebook: Rulebook, config: LoadedConfig) -> Iterator[Case]:
    docs = rule.meta.docs
    for section, text, should_fire in (
        ("example", docs.example, True),
        ("useInstead", docs.use_instead, False),
    ):
        case = Case(rule.id, f"{rule.id} docs.{section}")
        with tempfile.TemporaryDirectory() as directory:
            manifest = Path(directory) / "example.yaml"
            manifest.write_text(text, encoding="utf-8")
            found = _lint(rule, rulebook, config, manifest)
            fired = any(rule_id == rule.id for rule_id, _, _ in found)
        if fired is not should_fire:
            verb = "does not trigger" if should_fire else "triggers"
            case.failures.append(Failure(rule.source, 1, f"docs.{section} {verb} {rule.id}"))
        yield case
