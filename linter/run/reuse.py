"""What a run reuses from the result cache (linter/run/result_cache.py), and what it leaves there.

Under the run's key (linter/run/result_key.py) one entry holds each cacheable file's own result by
file key (display path, whether it was named, hash of the bytes linted), compactly
(linter/run/file_result.py), and the run-wide findings of the run that wrote it with the digest of
that run's file keys: a run over exactly those files, every one unchanged, reuses them and
never runs the second pass. What the run-wide rules need of each file (records, deferred
parts) is a second entry, read only when they must run again. Everything read is
authenticated by the store and still checked like input: anything doubtful is a miss.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from linter.cache.compact_json import compact_json
from linter.findings import Finding
from linter.load.sources import file_key
from linter.run.file_result import (
    FileResult,
    Strings,
    check_findings,
    decode_finding,
    encode_finding,
)
from linter.run.result_cache import ResultCache

#: Appended to the run's key for the entry of the files' parts in the run-wide rules.
_WIDE = "wide"


def files_digest(names: Iterable[str]) -> str:
    """The digest of a run's file keys, in run order."""
    digest = hashlib.sha256()
    for name in names:
        digest.update(name.encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()


class RunCache:
    """The entries of one run's key; with no cache, a cache that never hits."""

    def __init__(self, cache: ResultCache | None, key: str) -> None:
        self._cache = cache
        self._key = key
        self.files: Mapping[str, Any] = {}
        self.strings = Strings()
        self._wide: Any = None
        entry = cache.get(key) if cache is not None else None
        if entry is not None:
            try:
                strings, files = Strings(entry["strings"]), entry["files"]
            except (KeyError, TypeError):
                return
            if isinstance(files, dict):
                self.files, self.strings, self._wide = files, strings, entry.get("wide")

    def restore(
        self, display: str, explicit: bool, digest: bytes, line_count: int
    ) -> FileResult | None:
        """The stored result of the file as read now (``digest``: the hash of its bytes), if
        there is one that fits it."""
        entry = self.files.get(file_key(display, explicit, digest))
        if not isinstance(entry, dict):
            return None
        try:
            result = FileResult.from_json(entry, self.strings, display, explicit, line_count)
        except (KeyError, TypeError, ValueError):
            return None
        result.digest = digest
        return result

    def run_wide(self, digest: str, results: Sequence[FileResult]) -> list[Finding] | None:
        """The stored run-wide findings, when they were found over the files of ``digest``
        and fit ``results``."""
        wide = self._wide
        if not isinstance(wide, dict) or wide.get("files") != digest:
            return None
        line_counts = {result.display: result.line_count for result in results}
        try:
            findings = [decode_finding(item, self.strings) for item in wide["findings"]]
            check_findings(findings, line_counts)
        except (KeyError, TypeError, ValueError):
            return None
        return findings

    def restore_wide(self, results: Sequence[FileResult]) -> list[int]:
        """Fill in the records and wide parts of the results restored from the cache; the
        positions (in ``results``) of those whose parts are missing or doubtful."""
        cached = [index for index, result in enumerate(results) if result.cached]
        if not cached:
            return []
        entry = self._cache.get(self._wide_key()) if self._cache is not None else None
        files = entry.get("files") if entry is not None else None
        missing = []
        for index in cached:
            result = results[index]
            data = files.get(result.key) if isinstance(files, dict) else None
            try:
                if not isinstance(data, dict):
                    raise ValueError("not stored")
                result.restore_wide(data)
            except (KeyError, TypeError, ValueError):
                missing.append(index)
        return missing

    def store(
        self,
        results: Sequence[FileResult],
        run_wide: Sequence[Finding] | None,
        digest: str,
    ) -> None:
        """Leave this run's results: the cacheable files' own parts and, when given, the
        run-wide findings over the files of ``digest``; then the files' run-wide parts."""
        if self._cache is None:
            return
        strings = Strings()
        kept = [result for result in results if result.cacheable]
        # Both entries are written one file at a time, as pieces never joined: built as one
        # object and one string they were the largest peak of a run that writes the cache.
        pieces = _members((result.key, result.to_json(strings)) for result in kept)
        if run_wide is not None:
            findings = [encode_finding(finding, strings) for finding in run_wide]
            pieces.append(b',"wide":' + _compact({"files": digest, "findings": findings}))
        pieces.append(b',"strings":' + _compact(strings.texts) + b"}")
        self._cache.put(self._key, pieces)
        wide = _members((result.key, result.wide_to_json()) for result in kept)
        self._cache.put(self._wide_key(), [*wide, b"}"])

    def _wide_key(self) -> str:
        return hashlib.sha256(f"{self._key}\0{_WIDE}".encode()).hexdigest()


def _members(files: Iterable[tuple[str, Any]]) -> list[bytes]:
    """The pieces of ``{"files":{key: value, ...}`` (the object left open for more members)."""
    pieces = [b'{"files":{']
    for number, (key, value) in enumerate(files):
        pieces.append((b"," if number else b"") + _compact(key) + b":" + _compact(value))
    pieces.append(b"}")
    return pieces


def _compact(value: Any) -> bytes:
    """``value`` as compact JSON."""
    return compact_json(value).encode()
