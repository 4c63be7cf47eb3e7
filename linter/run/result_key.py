"""The key the result cache keeps a run's file results under.

It covers everything a file's first-pass result depends on besides the file itself: gpulint's
build, the configuration and selection, and every rule as loaded. Under it, each file's result
is stored by the file's display path, whether it was named, and the hash of the exact bytes
that were linted (linter/run/runner.py); what depends on other files is recomputed every run. An
entry comes back authenticated (linter/cache/store.py) and is still checked like input before
it is believed (linter/run/file_result.py): anything doubtful is a miss.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from linter.bundled import package_stamp

FORMAT = 3


def run_key(inputs: Iterable[str], rules: Iterable[str]) -> str:
    """Hash of a run's inputs: ``inputs`` are the configuration and selection, ``rules`` each
    rule as loaded (its source and parsed definition)."""
    digest = hashlib.sha256()
    for part in (f"format {FORMAT}", package_stamp(), *inputs, *rules):
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()
