"""Whether a report is coloured: the conventions terminals and CI logs share.

``NO_COLOR`` (no-color.org) set to anything but the empty string turns colour off;
``FORCE_COLOR`` set to anything but the empty string or ``0`` turns it on where it would be off
(a CI log is no terminal but shows colour); otherwise colour only on a terminal. A report
written to a file (``--output``) is never coloured.
"""

from __future__ import annotations

from collections.abc import Mapping


def wants_colour(environ: Mapping[str, str], *, terminal: bool, to_file: bool) -> bool:
    if to_file or environ.get("NO_COLOR", ""):
        return False
    if environ.get("FORCE_COLOR", "") not in ("", "0"):
        return True
    return terminal
