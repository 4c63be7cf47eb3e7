"""Compact JSON text (no spaces) from one encoder made once.

``json.dumps`` with any option set builds a new encoder on every call, about a quarter of the
cost of encoding a small value; the run encodes such values by the ten thousand (rule memo keys,
result cache entries).
"""

from __future__ import annotations

import json
from typing import Any

_ENCODER = json.JSONEncoder(separators=(",", ":"))


def compact_json(value: Any) -> str:
    """``value`` as ``json.dumps(value, separators=(",", ":"))`` writes it; raises TypeError
    or ValueError as it does for a value that is not JSON data."""
    return _ENCODER.encode(value)
