"""How many hours a month a workload runs, and what that figure assumes.

One rule for every workload, whatever format it was read from (facts see only the normalised
model): a declared ``lifecycle.hoursPerMonth`` wins; a service or a development machine that
never stops runs the whole month; one that can stop itself (scale to zero, idle shutdown)
runs at most the whole month; a job runs at most its ``maxRuntimeHours`` (capped at the month);
a job with neither has no hours gpulint could state, so it has no monthly cost.
"""

from typing import Literal, NamedTuple

from linter.model.workload import Lifecycle, Profile
from linter.pricing.monthly import default_hours_per_month

#: What the hours rest on: declared, the whole month (never stops), at most the whole month
#: (stops itself, hours not declared), at most the job's maximum runtime, or unknown.
HoursBasis = Literal[
    "declared", "always-on", "scale-to-zero", "idle-shutdown", "max-runtime", "unknown"
]


class RunningHours(NamedTuple):
    per_month: float | None
    basis: HoursBasis
    #: The workload may well run fewer hours: the monthly figures are a ceiling.
    upper_bound: bool


def running_hours(profile: Profile, lifecycle: Lifecycle) -> RunningHours:
    """The hours per month ``profile`` and ``lifecycle`` imply (see the module doc)."""
    month = default_hours_per_month()
    if lifecycle.hours_per_month is not None:
        return RunningHours(lifecycle.hours_per_month, "declared", upper_bound=False)
    if profile in ("inference", "dev"):
        if profile == "inference" and lifecycle.scale_to_zero:
            return RunningHours(month, "scale-to-zero", upper_bound=True)
        if lifecycle.idle_shutdown_minutes is not None:
            return RunningHours(month, "idle-shutdown", upper_bound=True)
        return RunningHours(month, "always-on", upper_bound=False)
    if lifecycle.max_runtime_hours is not None:
        hours = min(lifecycle.max_runtime_hours, month)
        return RunningHours(hours, "max-runtime", upper_bound=True)
    return RunningHours(None, "unknown", upper_bound=False)
