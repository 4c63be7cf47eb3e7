"""The ways catalogue names are compared.

Providers and tools spell one thing several ways: ``H100-80GB``, ``h100_80gb`` and ``H100 80GB``;
``Standard_NC24ads_A100_v4`` and ``standard-nc24ads-a100-v4``; ``GlobalStandard`` and
``global-standard``. Every catalogue index is keyed by :func:`name_key` of each name and alias, and
every lookup goes through it, so no module keeps a normaliser of its own.

Model names are the exception: their numbers carry versions and sizes whose boundaries matter
(``Llama-3.1-8B`` and ``Llama-3-18B`` have one :func:`name_key`), so the model catalogue keys them
by :func:`model_key`, which keeps one separator wherever the name had any.
"""

import re

_SEPARATORS = re.compile(r"[^0-9a-z]+")


def name_key(text: str) -> str:
    """``text`` case-folded with everything but letters and digits removed."""
    return "".join(filter(str.isalnum, text.casefold()))  # called for every catalogue name


def model_key(text: str) -> str:
    """``text`` case-folded, each run of characters other than ASCII letters and digits made one
    ``-`` (none at either end): ``Meta-Llama-3.1-8B_Instruct`` -> ``meta-llama-3-1-8b-instruct``."""
    return _SEPARATORS.sub("-", text.casefold()).strip("-")
