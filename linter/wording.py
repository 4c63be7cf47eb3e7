"""Small helpers for the words messages are made of, shared by facts and reports."""

from __future__ import annotations

from collections.abc import Sequence

#: The most items a listing names before "and N more".
MAX_LISTED = 5


def plural(count: float, noun: str) -> str:
    """``1 GPU``, ``16 GPUs``, ``0.5 GPUs`` (fractions as a catalogue gives them)."""
    shown = int(count) if float(count).is_integer() else count
    return f"{shown} {noun}{'' if shown == 1 else 's'}"


def money(amount: float, *, signed: bool = False) -> str:
    """``$1,468.76``; with ``signed``, ``+$1,468.76`` and ``-$12.00`` (zero: ``$0.00``)."""
    text = f"${abs(amount):,.2f}"
    if round(amount, 2) == 0:
        return "$0.00"
    if amount < 0:
        return f"-{text}"
    return f"+{text}" if signed else text


def money_per_hour(amount: float) -> str:
    """An hourly price to four decimals, trailing zeros dropped down to cents: ``$1.006``,
    ``$0.0627``, ``$43.0662``, ``$2.50``."""
    text = f"{amount:,.4f}".rstrip("0")
    whole, _, cents = text.partition(".")
    return f"${whole}.{cents.ljust(2, '0')}"


def listing(items: Sequence[str], total: int | None = None) -> str:
    """``a, b and c``, or ``a, b, c, d, e and 3 more`` when there are more than MAX_LISTED;
    ``total`` is the full count when ``items`` is already a sample."""
    total = len(items) if total is None else total
    shown = list(items[:MAX_LISTED])
    if not shown:
        return "none"
    rest = total - len(shown)
    if rest > 0:
        return f"{', '.join(shown)} and {rest} more"
    if len(shown) == 1:
        return shown[0]
    return f"{', '.join(shown[:-1])} and {shown[-1]}"
