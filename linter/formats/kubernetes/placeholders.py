"""Template placeholders left in a value: a file that was meant to be rendered first.

``{{ .Values.gpuType }}`` and ``{{HF_TOKEN}}`` (Helm, Jinja, Go templates) and ``${GPU_TYPE}``
(envsubst, Terraform, shell) are never expanded by Kubernetes, which only expands ``$(VAR)`` in a
container's command, args and env. A value that still holds one cannot be judged; the adapter
says so at its place and treats the value as unknown.
"""

from __future__ import annotations

from linter.load.scanning import first_placeholder


def unrendered(what: str, text: str) -> str | None:
    """The message for a value holding a placeholder, or None when it holds none."""
    found = first_placeholder(text)
    if found is None:
        return None
    return (
        f"{what} {text!r} holds the template placeholder {found.text}, which Kubernetes does "
        "not expand: lint the rendered manifest (helm template ... | gpulint check -)"
    )
