"""Template placeholders left in a value: a file that was meant to be rendered first.

``{{ .Values.gpuType }}`` and ``{{HF_TOKEN}}`` (Helm, Jinja, Go templates) and ``${GPU_TYPE}``
or ``$NUM_NODES`` (envsubst) are never expanded by Kubernetes, which only expands ``$(VAR)`` in a
container's command, args and env. A value gpulint reads that still holds one cannot be judged:
the value is unknown and the file is said to be a template, once. An env value is not read here:
``${LD_LIBRARY_PATH}:/usr/local/nvidia/lib64`` is passed on as written and read by the image's
shell or loader.
"""

from __future__ import annotations

from linter.formats.builder import Unrendered
from linter.load.scanning import first_placeholder


def unrendered(what: str, text: str, bare_names: bool = True) -> Unrendered | None:
    """The placeholder ``text`` holds, as a problem of the field ``what``; None when it holds
    none. A bare ``$NAME`` counts where Kubernetes passes the text on unexpanded (counts, label
    values, flag values): only envsubst-style rendering gives it meaning there."""
    found = first_placeholder(text, bare_names=bare_names)
    return None if found is None else Unrendered(what, found.text)
