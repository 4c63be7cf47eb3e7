"""The one way catalogue names are compared.

Providers and tools spell one thing several ways: ``H100-80GB``, ``h100_80gb`` and ``H100 80GB``;
``Standard_NC24ads_A100_v4`` and ``standard-nc24ads-a100-v4``; ``GlobalStandard`` and
``global-standard``. Every catalogue index is keyed by :func:`name_key` of each name and alias, and
every lookup goes through it, so no module keeps a normaliser of its own.
"""

from __future__ import annotations


def name_key(text: str) -> str:
    """``text`` case-folded with everything but letters and digits removed."""
    return "".join(filter(str.isalnum, text.casefold()))  # called for every catalogue name
