"""Content-hash cache of whole runs: a second run over unchanged files is answered from disk.

The key covers everything a result depends on: gpulint's version, every rule file, the
configuration and selection, and the path and content hash of every candidate file. Any change
misses and re-lints (cross-file rules make a per-file result unsafe to reuse). Entries are JSON,
never pickle: the cache directory sits in a repository that others may write to.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from linter import __version__
from linter.discover import Candidate
from linter.findings import Finding
from linter.report.serialise import finding_from_dict, finding_to_dict

CACHE_DIR_NAME = ".gpulint_cache"
KEEP_ENTRIES = 8
FORMAT = 1


def default_directory(base: Path) -> Path | None:
    """``$GPULINT_CACHE_DIR``, else ``.gpulint_cache`` in ``base``; None when disabled
    (``GPULINT_NO_CACHE=1``)."""
    if os.environ.get("GPULINT_NO_CACHE"):
        return None
    configured = os.environ.get("GPULINT_CACHE_DIR")
    return Path(configured) if configured else base / CACHE_DIR_NAME


def _code_stamp() -> str:
    """Size and modification time of every file of the installed package, so that a changed
    gpulint (a development checkout, a reinstall of the same version) never reuses old results."""
    package = Path(__file__).resolve().parent
    stamps = []
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".yaml", ".json"):
            stat = path.stat()
            stamps.append(f"{path.relative_to(package)}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(stamps).encode()).hexdigest()


def run_key(
    candidates: Sequence[Candidate], inputs: Iterable[str], rule_files: Iterable[Path]
) -> str | None:
    """Hash of everything the run's result depends on; None if a file cannot be read (such a
    run is never cached: its result reports the read error)."""
    digest = hashlib.sha256()
    for part in (f"format {FORMAT}", __version__, sys.version.split()[0], _code_stamp(), *inputs):
        digest.update(part.encode() + b"\0")
    try:
        for path in rule_files:
            digest.update(str(path).encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
        for candidate in candidates:
            if not stat.S_ISREG(candidate.path.stat().st_mode):
                return None  # a pipe or device: reading it could block, and it is never cached
            content = hashlib.sha256(candidate.path.read_bytes()).digest()
            digest.update(f"{candidate.display}\0{candidate.explicit}\0".encode() + content)
    except OSError:
        return None
    return digest.hexdigest()


def load(directory: Path, key: str) -> dict[str, Any] | None:
    """The cached run for ``key``: findings, files checked, skipped files and the texts of files
    with findings (for fingerprints); None on a miss or an unreadable entry."""
    try:
        data = json.loads((directory / f"run-{key}.json").read_text(encoding="utf-8"))
        data["findings"] = [finding_from_dict(item) for item in data["findings"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return data  # type: ignore[no-any-return]


def store(
    directory: Path,
    key: str,
    findings: list[Finding],
    files_checked: int,
    skipped: list[str],
    texts: dict[str, str],
) -> None:
    """Write the entry (atomically) and drop the oldest beyond KEEP_ENTRIES; a cache that cannot
    be written is skipped silently, it only costs speed."""
    needed = {finding.location.file for finding in findings}
    entry = {
        "findings": [finding_to_dict(f, None) for f in findings],
        "filesChecked": files_checked,
        "skipped": skipped,
        "texts": {file: text for file, text in texts.items() if file in needed},
    }
    try:
        directory.mkdir(parents=True, exist_ok=True)
        gitignore = directory / ".gitignore"
        if not gitignore.exists():
            gitignore.write_text("*\n", encoding="utf-8")
        temporary = directory / f".run-{key}.{os.getpid()}.tmp"
        temporary.write_text(json.dumps(entry), encoding="utf-8")
        temporary.replace(directory / f"run-{key}.json")
        entries = sorted(
            directory.glob("run-*.json"), key=lambda p: p.stat().st_mtime, reverse=True
        )
        for old in entries[KEEP_ENTRIES:]:
            old.unlink(missing_ok=True)
    except OSError:
        return
