"""The files a manifest's facts read besides the manifest itself.

A workload's ``model.config`` is read when its memory is sized (``memory_sizing``), and so is the
local Hugging Face cache for a model id the catalogue does not hold as such
(``linter/memory/by_name.py``); a launcher's or DeepSpeed's configuration file the adapter read
(``Manifest.reads``) belongs here too. A result depends on those bytes as
much as on the manifest's, but they are not among the files linted, so nothing that keeps a
result under the linted files' hashes may be reused after one of them changed: the result cache
does not keep such a file's result, and a kept report records each file read with the digest of
its bytes and is used only while every one is unchanged (``linter/commands/kept_report.py``).
This function is the one list of them.
"""

from __future__ import annotations

from linter.catalog.models import find_model
from linter.facts.memory_sizing import model_config_read
from linter.load.sources import FileRead
from linter.model import Workload
from linter.model.manifest import Manifest


def files_read(manifest: Manifest) -> list[FileRead]:
    """Every file besides its own that the facts of ``manifest`` may read."""
    workload = manifest.model
    if not isinstance(workload, Workload):
        return []
    model = workload.spec.model
    read = list(manifest.reads)
    if model.config:
        read.append(model_config_read(manifest, model.config))
    if model.id and find_model(model.id) is None:
        from linter.catalog.hf_cache import CONFIG_MAX_BYTES, decisive_files

        read += [
            FileRead(str(path), str(root), CONFIG_MAX_BYTES)
            for path, root in decisive_files(model.id)
        ]
    return read
