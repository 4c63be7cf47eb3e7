"""The ``QuotaLedger`` kind: the quotas an organisation has been granted (or asked for)."""

from typing import Literal

from linter.declared import CamelRecord, Field, empty_list
from linter.model.base import API_VERSION, Metadata


class QuotaEntry(CamelRecord):
    provider: str = Field(min_length=1)
    region: str | None = Field(None, description="Omit for global quotas such as GPUS_ALL_REGIONS.")
    quota: str | None = Field(None, description="Quota code (L-417A185B) or name.")
    capacity: Literal["on-demand", "spot", "reserved"] | None = None
    approved: float | None = Field(None, ge=0, description="Approved amount, in the quota's unit.")
    status: Literal["approved", "requested", "denied"] = "approved"
    reference: str | None = Field(None, description="Ticket or case id of the request.")
    model: str | None = Field(None, description="Managed-API entries: the model the quota is for.")
    requests_per_minute: float | None = Field(None, ge=0)
    tokens_per_minute: float | None = Field(None, ge=0)


class QuotaLedgerSpec(CamelRecord):
    entries: list[QuotaEntry] = Field(default_factory=empty_list)


class QuotaLedger(CamelRecord):
    """Approved (or requested) accelerator and managed-API quotas."""

    api_version: Literal[API_VERSION]  # type: ignore[valid-type]
    kind: Literal["QuotaLedger"]
    metadata: Metadata
    spec: QuotaLedgerSpec
