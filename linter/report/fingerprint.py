"""``primaryLocationLineHash``: the line fingerprint GitHub code scanning matches alerts by.

Computed the way github/codeql-action (``src/fingerprints.ts``) computes it when a SARIF file
arrives without one, so that a result keeps its alert when lines are added above it:

- The text is read as UTF-16 code units (JavaScript strings). Spaces and tabs are dropped; CR
  becomes LF, and an LF directly after a CR is dropped (so CRLF counts once). A sentinel 65535
  marks the end of the text, followed by zeros.
- A line starts at its first kept character (its first non-blank, or its newline when blank).
  Its hash is the polynomial ``sum(c[i] * 37 ** (99 - i))`` over the 100 kept characters from
  there, modulo 2**64, written in lower-case hex without leading zeros.
- Lines with the same hash are numbered in file order: ``"<hex>:<n>"``.

A text ending with a newline has one more line, holding only the sentinel; it is hashed too, as
codeql-action does, because it takes part in the occurrence counts.
"""

from __future__ import annotations

from collections.abc import Iterator

BLOCK_SIZE = 100
BASE = 37
END = 0xFFFF
_MASK = (1 << 64) - 1
_TOP = pow(BASE, BLOCK_SIZE, 1 << 64)
_LF, _CR = ord("\n"), ord("\r")
_BLANKS = (ord(" "), ord("\t"))


def _code_units(text: str) -> Iterator[int]:
    data = text.encode("utf-16-le", "surrogatepass")
    for index in range(0, len(data), 2):
        yield data[index] | data[index + 1] << 8


def _kept(text: str) -> list[int]:
    """The characters the hash sees, with the end sentinel."""
    out: list[int] = []
    after_cr = False
    for unit in _code_units(text):
        if unit in _BLANKS or (after_cr and unit == _LF):
            after_cr = False
            continue
        after_cr = unit == _CR
        out.append(_LF if after_cr else unit)
    out.append(END)
    return out


def line_hashes(text: str) -> list[str]:
    """The fingerprint of every line, first line first (index 0 is line 1)."""
    kept = _kept(text)
    starts = [0] + [index + 1 for index, unit in enumerate(kept[:-1]) if unit == _LF]
    # prefix[k] is the hash of kept[:k]; a window's hash is a difference of two prefixes.
    prefix = [0]
    for unit in [*kept, *[0] * BLOCK_SIZE]:
        prefix.append((prefix[-1] * BASE + unit) & _MASK)
    seen: dict[str, int] = {}
    out = []
    for start in starts:
        value = format((prefix[start + BLOCK_SIZE] - _TOP * prefix[start]) & _MASK, "x")
        seen[value] = seen.get(value, 0) + 1
        out.append(f"{value}:{seen[value]}")
    return out
