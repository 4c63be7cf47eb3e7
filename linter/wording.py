"""Small helpers for the words messages are made of, shared by facts and reports."""

from __future__ import annotations


def plural(count: float, noun: str) -> str:
    """``1 GPU``, ``16 GPUs``, ``0.5 GPUs`` (fractions as a catalogue gives them)."""
    shown = int(count) if float(count).is_integer() else count
    return f"{shown} {noun}{'' if shown == 1 else 's'}"
