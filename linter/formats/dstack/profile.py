"""dstack's profile parameters that decide capacity, idle time and recovery (dstack
``ProfileParams``; the ``.dstack.yml`` reference), each with dstack's documented default when the
file is silent:

- ``spot_policy``: ``spot``, ``on-demand`` (the default) or ``auto`` (spot when there is some,
  else on-demand: capacity that may be spot, with an on-demand fallback);
- ``retry``: ``true`` (every event), ``false`` (the default) or ``{on_events, duration}``
  (``on_events`` omitted: every event); a run is resubmitted after a spot interruption only when
  ``interruption`` is among its events;
- ``idle_duration``: how long an idle instance is kept (``5m`` for runs, ``3d`` for fleets;
  ``off`` keeps it), ``max_duration`` the longest a run may run (``off`` by default),
  ``inactivity_duration`` how long a dev environment may go without a connection (``off``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.formats.builder import WorkloadBuilder
from linter.formats.cmdline.durations import DurationProblem, seconds
from linter.formats.platforms import DstackVocabulary
from linter.formats.platforms.shared import template_problem
from linter.load.positions import Path
from linter.model.provenance import Origin
from linter.records import datarecord

_OFF = "off"
_UNITS = "smhdw"


@datarecord
class Written:
    """A value as the file gives it (``origin`` at its key), or dstack's default (``note`` says
    so, ``origin`` at the document)."""

    value: Any
    origin: Origin
    default: bool = False


def spot_policy(
    builder: WorkloadBuilder, data: Mapping[str, Any], vocab: DstackVocabulary
) -> Written:
    if "spot_policy" not in data:
        return Written(vocab.spot_policy_default, builder.at(()), default=True)
    value = data["spot_policy"]
    if value not in vocab.spot_policies:
        builder.problem(
            builder.at(("spot_policy",)),
            f"spot_policy is one of {', '.join(vocab.spot_policies)}, got {value!r}",
        )
        return Written(vocab.spot_policy_default, builder.at(()), default=True)
    return Written(value, builder.at(("spot_policy",)))


def retries_interruption(
    builder: WorkloadBuilder, data: Mapping[str, Any], vocab: DstackVocabulary
) -> Written:
    """Whether the run is resubmitted after a spot interruption, and where the file says so."""
    if "retry" not in data:
        return Written(False, builder.at(()), default=True)
    value, path = data["retry"], ("retry",)
    if isinstance(value, bool):
        return Written(value, builder.at(path))
    if not isinstance(value, Mapping):
        builder.problem(
            builder.at(path), f"retry is true, false or {{on_events, duration}}, got {value!r}"
        )
        return Written(False, builder.at(()), default=True)
    events = value.get("on_events")
    if events is None:
        return Written(True, builder.at(path))
    if not isinstance(events, list) or not events:
        builder.problem(builder.at((*path, "on_events")), "on_events is a list of events")
        return Written(False, builder.at(path))
    for index, event in enumerate(events):
        if event not in vocab.retry_events:
            known = ", ".join(vocab.retry_events)
            builder.problem(
                builder.at((*path, "on_events", index)), f"retry events are {known}, got {event!r}"
            )
    if vocab.preemption_event in events:
        index = events.index(vocab.preemption_event)
        return Written(True, builder.at((*path, "on_events", index)))
    return Written(False, builder.at((*path, "on_events")))


def duration_minutes(
    builder: WorkloadBuilder,
    data: Mapping[str, Any],
    key: str,
    default: str | None,
    within: Path = (),
) -> Written | None:
    """A duration setting of ``data`` (the mapping at ``within``) in minutes (None: ``off``);
    dstack's default when absent (``default`` as dstack writes it, None for off), or None when
    there is neither."""
    if key not in data or data[key] is True:
        if default is None:
            return None
        return Written(_minutes(default), builder.at(()), default=True)
    value, path = data[key], (*within, key)
    if value is False or value == _OFF:
        return Written(None, builder.at(path))
    try:
        return Written(_minutes(value), builder.at(path))
    except DurationProblem as err:
        builder.problem(builder.at(path), f"{key}: {err} or off")
        return None


def _minutes(value: object) -> int:
    total = seconds(value, "s", _UNITS)
    return -(-total // 60)


def listed(builder: WorkloadBuilder, data: Mapping[str, Any], key: str) -> list[tuple[str, Path]]:
    """A list of names (``regions``, ``backends``, ``fleets``, ``instance_types``) with each
    one's path; a fleet may be written ``{name: ...}``."""
    if key not in data or data[key] is None:
        return []
    value = data[key]
    if not isinstance(value, list):
        builder.problem(builder.at((key,)), f"{key} is a list")
        return []
    out: list[tuple[str, Path]] = []
    for index, item in enumerate(value):
        if isinstance(item, Mapping):
            item = item.get("name")
        if template_problem(builder, (key, index), key, item):
            continue
        if isinstance(item, str) and item.strip():
            out.append((item.strip(), (key, index)))
        else:
            builder.problem(builder.at((key, index)), f"{key} lists names, got {item!r}")
    return out
