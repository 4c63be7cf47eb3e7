"""Durations as launchers write them: a number with a unit (``30m``, ``10h``, ``3d``, ``1w``) or a
bare number in the launcher's own unit.

SkyPilot's ``autostop`` takes whole minutes or ``<n><unit>`` with m, h, d or w (the SkyPilot YAML
reference, ``resources.autostop``); dstack's durations take seconds or ``<n><unit>`` with s, m,
h, d or w, and ``off`` for none (dstack ``core/models/duration.py``, ``Duration.parse``). The
units are the calendar's; which of them a launcher accepts is the caller's table.
"""

from __future__ import annotations

import re

from linter.model.values import LARGEST_WHOLE, out_of_range

UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}
# Applied to the stripped value, bounded: blanks on both sides of an optional unit
# (``\s*([a-z]?)\s*``) cost a long run of blanks its square in backtracking.
_WRITTEN = re.compile(r"(\d+)(?:\s*([a-z]))?")
#: The longest duration read: the expression sees at most this much of a value.
MAX_DURATION_TEXT = 32


class DurationProblem(ValueError):
    """A value that is not a duration the launcher reads; the message says what it expects."""


def seconds(value: object, bare_unit: str, units: str) -> int:
    """``value`` in seconds: an integer counts ``bare_unit``s, a string is ``<n>`` or ``<n><unit>``
    with one of ``units``. Raises DurationProblem (booleans are not durations here: callers read
    ``true``/``false`` with the launcher's own meaning first)."""
    expected = f"a whole number of {_name(bare_unit)} or <n><unit> with unit {', '.join(units)}"
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise DurationProblem(f"expected {expected}, got {value!r}")
    if isinstance(value, int):
        if value < 0:
            raise DurationProblem(f"expected {expected}, got {value!r}")
        return _bounded(value * UNIT_SECONDS[bare_unit])
    written = value.strip().lower()
    match = _WRITTEN.fullmatch(written) if len(written) <= MAX_DURATION_TEXT else None
    if match is None or (match.group(2) and match.group(2) not in units):
        raise DurationProblem(f"expected {expected}, got {value!r}")
    return _bounded(int(match.group(1)) * UNIT_SECONDS[match.group(2) or bare_unit])


def _bounded(total_seconds: int) -> int:
    if total_seconds > LARGEST_WHOLE:
        raise DurationProblem(str(out_of_range(f"{total_seconds} seconds")))
    return total_seconds


def minutes(total_seconds: int) -> int:
    """Whole minutes, rounded up: an idle limit of 30 seconds still stops within a minute."""
    return -(-total_seconds // 60)


def _name(unit: str) -> str:
    return {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}[unit]
