"""JUnit XML, the format CI systems show test results in: for ``gpulint test``, one testsuite
per rules folder, one testcase per fixture or docs section, a failure element per mismatch;
``check --format junit`` builds its suites in :mod:`linter.report.junit_report`."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from linter.printable import xml_text


class Failure(Protocol):
    """A mismatch, at a place in a file."""

    @property
    def file(self) -> Path: ...
    @property
    def line(self) -> int: ...
    @property
    def message(self) -> str: ...


class Case(Protocol):
    """One test and how it failed (``linter.run.fixtures.Case`` is one)."""

    @property
    def rule_id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def failures(self) -> Sequence[Failure]: ...
    @property
    def passed(self) -> bool: ...


def render(suites: Mapping[str, Sequence[Case]], name: str = "gpulint test") -> str:
    """The suites as a JUnit document. Folder, rule, fixture and file names and messages come
    from the repository: each goes through :func:`~linter.printable.xml_text`, so that a control
    character or a file name that is not UTF-8 cannot make the document ill-formed."""
    root = ElementTree.Element("testsuites", name=name)
    for suite_name, cases in suites.items():
        failed = sum(1 for case in cases if not case.passed)
        suite = ElementTree.SubElement(
            root,
            "testsuite",
            name=xml_text(suite_name),
            tests=str(len(cases)),
            failures=str(failed),
            errors="0",
        )
        for case in cases:
            element = ElementTree.SubElement(
                suite, "testcase", classname=xml_text(case.rule_id), name=xml_text(case.name)
            )
            for failure in case.failures:
                message = xml_text(failure.message)
                node = ElementTree.SubElement(element, "failure", message=message)
                node.text = f"{xml_text(str(failure.file))}:{failure.line}: {message}"
    root.set("tests", str(sum(len(cases) for cases in suites.values())))
    root.set("failures", str(sum(not c.passed for cases in suites.values() for c in cases)))
    root.set("errors", "0")
    return ElementTree.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
