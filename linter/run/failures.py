"""A document gpulint fails on stops that document, never the run.

Every known kind of bad input is a finding of its own (GL001, GL002) made where the input is
read. Input nobody thought of (an integer of hundreds of digits in a field whose arithmetic had
no bound) raised out of an adapter or a fact and ended the whole run with an internal error, so
one committed document hid every other file's findings. The passes run each document's work
through :func:`contained`: a failure becomes one GL002 error at the document, naming the error,
and the run goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from linter.findings import Finding, Location

FAILED_RULE = "GL002"
#: How much of an exception's message a finding shows.
_SHOWN = 200

T = TypeVar("T")


def contained(work: Callable[[], T], where: Callable[[], Location]) -> T | Finding:
    """``work()``, or the finding that says it failed at ``where()``."""
    try:
        return work()
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as err:  # any: see the module docstring
        text = str(err)
        if len(text) > _SHOWN:
            text = text[: _SHOWN - 3] + "..."
        message = (
            f"gpulint failed on this document ({type(err).__name__}: {text}) and did not lint "
            "it; the rest of the run went on (please report it)"
        )
        return Finding(FAILED_RULE, None, message, where())
