"""Spot reclamation notice per cloud (``data/spot.yaml``)."""

import functools

from linter.catalog.base import Catalogue, Record, validated
from linter.catalog.spelling import name_key
from linter.declared import Field


class SpotNotice(Record):
    provider: str
    seconds: int = Field(gt=0, description="Documented minimum warning before reclamation.")
    source: str


class SpotCatalogue(Catalogue):
    notices: list[SpotNotice] = Field(min_length=1)


@functools.cache
def notices() -> tuple[SpotNotice, ...]:
    return tuple(validated("spot", SpotCatalogue).notices)


def notice(provider: str) -> SpotNotice | None:
    wanted = name_key(provider)
    return next((n for n in notices() if name_key(n.provider) == wanted), None)
