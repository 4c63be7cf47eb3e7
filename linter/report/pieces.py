"""Reports as pieces of text, made while they are written: a large report is never held whole
(at 10,000 manifests the JSON is about 40 MB, and its text and UTF-8 bytes held together were
most of a run's peak memory).

A piece joins many findings' texts, so that writing it is one call and each is given back to the
system once written.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

#: Texts (findings, lines) joined into one piece.
PIECE_ITEMS = 512


def joined(texts: Iterable[str], separator: str = "") -> Iterator[str]:
    """``separator.join(texts)``, in pieces of at most PIECE_ITEMS texts (nothing for none)."""
    batch: list[str] = []
    lead = ""
    for text in texts:
        batch.append(text)
        if len(batch) == PIECE_ITEMS:
            yield lead + separator.join(batch)
            batch, lead = [], separator
    if batch:
        yield lead + separator.join(batch)


def lines(texts: Iterable[str]) -> Iterator[str]:
    """Each text as a line (ended by a newline), in pieces."""
    return joined(f"{text}\n" for text in texts)
