"""Rule outcomes remembered under a fingerprint of the values a rule read, not the values.

A rule's outcome depends only on the values it reads (linter/policy/evaluator.py), each given as
a token: its ``repr``, or compact JSON for a map or list. Kept as keys, those tokens were most of
the memory a run holds besides its results: about 1 KiB an outcome (a fact of a few dozen fields
is one long token), 17 MiB once the memo was full at 16,384, which a run over 20,000 finding-free
manifests reached in each worker of its second pass. An entry now holds Python's hash
of the tokens, to find it, and a BLAKE2b digest of them, to be sure it is theirs: the hash is
computed for any lookup anyway, the digest only when the hash matches (a likely hit) or an
outcome is remembered (after a rule ran, which costs a hundred times more). Two different
token lists share a hash now and then (then the newer outcome replaces the older), but not a
128-bit digest: an outcome is never given to values it was not computed on.
"""

from __future__ import annotations

import hashlib
from typing import Generic, TypeVar

T = TypeVar("T")

#: Between tokens in what is digested: a token never holds it (``repr`` escapes control
#: characters, JSON too), so no two token lists digest the same bytes.
_SEPARATOR = "\x00"


def fingerprint(tokens: tuple[str, ...]) -> bytes:
    """128 bits of BLAKE2b over ``tokens``."""
    return hashlib.blake2b(_SEPARATOR.join(tokens).encode(), digest_size=16).digest()


class Memo(Generic[T]):
    """At most ``size`` outcomes, each under a key (here: a rule) and the tokens it read; the
    oldest remembered are forgotten first."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: dict[tuple[object, int], tuple[bytes, T]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: object, tokens: tuple[str, ...]) -> T | None:
        entry = self._entries.get((key, hash(tokens)))
        if entry is None or entry[0] != fingerprint(tokens):
            return None
        return entry[1]

    def put(self, key: object, tokens: tuple[str, ...], outcome: T) -> None:
        entries = self._entries
        slot = (key, hash(tokens))
        if slot not in entries and len(entries) >= self._size:
            del entries[next(iter(entries))]
        entries[slot] = (fingerprint(tokens), outcome)
