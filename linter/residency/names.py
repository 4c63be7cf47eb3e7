"""Name handling shared by the residency and quota libraries."""

from __future__ import annotations

from linter import catalog


def squash(text: str) -> str:
    """Lower-case ``text`` and keep only letters and digits.

    Providers spell one name several ways ("Standard NCADS_A100_v4 Family vCPUs" in one tool,
    "Standard NCADSA100v4 Family vCPUs" in another; "GlobalStandard" vs "global-standard"), so
    names are compared in this form.
    """
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def cloud_of(provider: str) -> str | None:
    """The cloud (``aws``, ``gcp``, ``azure``) behind a provider or managed-service name such as
    ``bedrock`` or ``vertex-ai``; None when the catalogue does not know it (on-prem, others)."""
    services: dict[str, str] = catalog.load("managed_endpoints")["services"]
    return services.get(provider.strip().lower())
