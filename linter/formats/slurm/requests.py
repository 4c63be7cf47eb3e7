"""What a batch script's directives ask for (sbatch man page, ``data/slurm.yaml``): GPUs per
node, nodes, the time limit, the partition, requeue and the warning signal, each with the
directive that says it. A value sbatch would refuse is a problem at its directive."""

from __future__ import annotations

import re
from dataclasses import field

from linter.formats.slurm.options import Directive, Directives, vocabulary
from linter.load.positions import Span
from linter.records import datarecord

_COUNT = re.compile(r"(\d{1,9})([kKmMgGtTpP]?)\Z")
_SUFFIX = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4, "p": 1024**5}
_TIME = re.compile(
    r"(?:(?P<days>\d{1,6})-(?P<dh>\d{1,6})(?::(?P<dm>\d{1,6})(?::(?P<ds>\d{1,6}))?)?"
    r"|(?P<a>\d{1,9})(?::(?P<b>\d{1,6})(?::(?P<c>\d{1,6}))?)?)\Z"
)
_SIGNAL = re.compile(r"(?:(?P<flags>[RB]+):)?(?P<sig>[A-Za-z0-9]+)(?:@(?P<time>\d{1,9}))?\Z")
_NODES = re.compile(r"(\d{1,9})(?:-(\d{1,9}))?(?::\d{1,9})?\Z")
_NO_LIMIT = ("INFINITE", "UNLIMITED")


@datarecord
class GpusPerNode:
    type: str | None  # as the site names it (a100, h100); None: any
    count: int
    directive: Directive


@datarecord(frozen=False)
class Requests:
    gpus: GpusPerNode | None = None
    gpus_directive: Directive | None = None  # a GPU request whose per-node count is not known
    nodes: int | None = None  # the least (a range's first)
    nodes_range: bool = False
    nodes_directive: Directive | None = None
    time_minutes: int | None = None  # 0: no limit; None: not declared (the partition's)
    time_directive: Directive | None = None
    partition: Directive | None = None
    requeue: Directive | None = None  # the last of --requeue and --no-requeue
    signal: Directive | None = None
    job_name: Directive | None = None
    tasks_per_node: int | None = None
    problems: list[tuple[Span, str]] = field(default_factory=list)


def _count(text: str) -> int | None:
    match = _COUNT.match(text)
    return int(match.group(1)) * _SUFFIX[match.group(2).lower()] if match else None


def minutes(text: str) -> int | None:
    """A Slurm time in minutes (seconds round up); 0 for no limit; None when not one."""
    if text.upper() in _NO_LIMIT or text in ("0", "-1"):
        return 0
    match = _TIME.match(text)
    if match is None:
        return None
    if match.group("days") is not None:
        days, hours = int(match.group("days")), int(match.group("dh"))
        mins, seconds = int(match.group("dm") or 0), int(match.group("ds") or 0)
        return days * 1440 + hours * 60 + mins + (1 if seconds else 0)
    a, b, c = match.group("a"), match.group("b"), match.group("c")
    if c is not None:  # hours:minutes:seconds
        return int(a) * 60 + int(b) + (1 if int(c) else 0)
    if b is not None:  # minutes:seconds
        return int(a) + (1 if int(b) else 0)
    return int(a)


def _typed(item: str) -> tuple[str | None, int] | None:
    """``[type:]count`` (``--gpus``, ``--gpus-per-node``, ``--gpus-per-task``)."""
    kind, _, count = item.rpartition(":")
    number = _count(count)
    return None if number is None else (kind or None, number)


def _gres(value: str) -> tuple[str | None, int] | None:
    """The GPUs of a ``--gres`` list: ``gpu``, ``gpu:8``, ``gpu:a100:4``, ``gres/gpu:a100:4``."""
    for item in value.split(","):
        parts = item.split(":")
        if parts[0].removeprefix("gres/") != "gpu":
            continue
        if len(parts) == 1:
            return None, 1
        number = _count(parts[-1])
        if number is not None:
            return ":".join(parts[1:-1]) or None, number
        return (parts[1], 1) if len(parts) == 2 else None
    return None


def requests(directives: Directives) -> Requests:
    out = Requests(problems=list(directives.problems))
    last = directives.last
    for option in ("job-name", "partition", "signal"):
        attribute = option.replace("-", "_")
        setattr(out, attribute, last(option))
    out.requeue = next(
        (d for d in reversed(directives.found) if d.option in ("requeue", "no-requeue")), None
    )
    _nodes(out, last("nodes"))
    tasks, total = last("ntasks-per-node"), last("ntasks")
    if tasks is not None and tasks.value and tasks.value.isdigit():
        out.tasks_per_node = int(tasks.value)
    elif total is not None and total.value and total.value.isdigit() and not out.nodes_range:
        spread, left = divmod(int(total.value), out.nodes or 1)
        out.tasks_per_node = spread if spread and not left else None
    _gpus(out, directives)
    time = last("time")
    if time is not None:
        out.time_directive = time
        out.time_minutes = minutes(time.value or "")
        if out.time_minutes is None:
            what = "minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS"
            out.problems.append((time.span, f"{time.written}: not a Slurm time ({what})"))
    return out


def _nodes(out: Requests, nodes: Directive | None) -> None:
    if nodes is None or not nodes.value:
        return
    match = _NODES.match(nodes.value)
    if match is None:
        out.problems.append((nodes.span, f"{nodes.written}: not a node count or range"))
        return
    out.nodes, out.nodes_directive = int(match.group(1)), nodes
    out.nodes_range = match.group(2) is not None and match.group(2) != match.group(1)


def _gpus(out: Requests, directives: Directives) -> None:
    """GPUs on each node: ``--gres=gpu`` and ``--gpus-per-node`` say it; ``--gpus-per-task``
    with ``--ntasks-per-node`` (or ``--ntasks`` spread evenly over the nodes), or ``--gpus`` over
    a fixed number of nodes, give it."""
    gres, per_node = directives.last("gres"), directives.last("gpus-per-node")
    if gres is not None and per_node is not None and _gres(gres.value or ""):
        message = "--gres=gpu and --gpus-per-node are mutually exclusive: sbatch rejects the job"
        out.problems.append((gres.span, message))
    for directive, read in ((per_node, _typed), (gres, _gres)):
        found = read(directive.value or "") if directive is not None else None
        if directive is not None and found is not None:
            out.gpus = GpusPerNode(found[0], found[1], directive)
            return
    per_task, total = directives.last("gpus-per-task"), directives.last("gpus")
    task = _typed(per_task.value or "") if per_task is not None else None
    if per_task is not None and task is not None and out.tasks_per_node:
        out.gpus = GpusPerNode(task[0], task[1] * out.tasks_per_node, per_task)
        return
    job = _typed(total.value or "") if total is not None else None
    nodes = out.nodes or 1
    if total is not None and job is not None and job[1] % nodes == 0:
        out.gpus = GpusPerNode(job[0], job[1] // nodes, total)
        return
    out.gpus_directive = per_task or total


def signal_seconds(directive: Directive) -> int | None:
    """How long before the time limit ``--signal`` warns, or None when it is not one."""
    match = _SIGNAL.match(directive.value or "")
    if match is None:
        return None
    given = match.group("time")
    return int(given) if given else vocabulary().signal_default_seconds
