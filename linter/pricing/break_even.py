"""Monthly cost of self-hosting versus a per-token managed API (pure arithmetic).

Both sides run for the same hours: the instances cost their hourly price for ``hours_per_month``
hours, and the declared token rate flows for those same hours, so changing the hours scales both
sides and leaves the cheaper one and the break-even rate unchanged.
"""

from typing import Literal, NamedTuple

from linter.catalog.prices import price_book

MINUTES_PER_HOUR = 60
TOKENS_PER_MILLION = 1_000_000

Cheaper = Literal["self-hosted", "api", "equal"]


def assumed_input_share() -> float:
    """Input tokens as a share of a total token rate given without a split (catalogue data)."""
    return price_book().assumed_input_share


class TokenVolume(NamedTuple):
    """A sustained token rate while the workload runs."""

    input_per_minute: float
    output_per_minute: float
    #: True when the split was assumed (``assumed_input_share``) from a total rate.
    split_assumed: bool


def token_volume(
    *,
    tokens_per_minute: float | None = None,
    input_per_minute: float | None = None,
    output_per_minute: float | None = None,
) -> TokenVolume:
    """A volume from both input and output rates, or from a total split by the assumed share."""
    split_given = input_per_minute is not None or output_per_minute is not None
    if split_given == (tokens_per_minute is not None):
        raise ValueError("give input and output tokens per minute, or tokens_per_minute alone")
    if tokens_per_minute is not None:
        input_rate = tokens_per_minute * assumed_input_share()
        volume = TokenVolume(input_rate, tokens_per_minute - input_rate, split_assumed=True)
    elif input_per_minute is None or output_per_minute is None:
        raise ValueError("give both input_per_minute and output_per_minute")
    else:
        volume = TokenVolume(input_per_minute, output_per_minute, split_assumed=False)
    if min(volume.input_per_minute, volume.output_per_minute) < 0:
        raise ValueError("token rates must not be negative")
    return volume


class BreakEven(NamedTuple):
    hours_per_month: float
    self_hosted_monthly: float
    api_monthly: float
    input_tokens_per_month: float
    output_tokens_per_month: float
    #: Input tokens as a share of all tokens (None without traffic).
    input_share: float | None
    cheaper: Cheaper
    #: How much the cheaper option saves per month (0.0 when equal).
    monthly_saving: float
    #: Total tokens per minute, at the same input/output split, where both cost the same.
    break_even_tokens_per_minute: float | None


def break_even(
    self_hosted_per_hour: float,
    input_per_million_tokens: float,
    output_per_million_tokens: float,
    volume: TokenVolume,
    *,
    hours_per_month: float,
) -> BreakEven:
    """Compare ``hours_per_month`` hours of self-hosting (``self_hosted_per_hour`` is the total
    hourly cost of every instance) with the same traffic through a per-token API."""
    if min(self_hosted_per_hour, input_per_million_tokens, output_per_million_tokens) < 0:
        raise ValueError("costs and prices must not be negative")
    if hours_per_month < 0:
        raise ValueError("hours per month must not be negative")
    minutes = hours_per_month * MINUTES_PER_HOUR
    input_tokens = volume.input_per_minute * minutes
    output_tokens = volume.output_per_minute * minutes
    self_hosted = self_hosted_per_hour * hours_per_month
    api = (
        input_tokens * input_per_million_tokens + output_tokens * output_per_million_tokens
    ) / TOKENS_PER_MILLION

    total_rate = volume.input_per_minute + volume.output_per_minute
    input_share = volume.input_per_minute / total_rate if total_rate > 0 else None
    threshold = None
    if input_share is not None:
        per_token = (
            input_share * input_per_million_tokens + (1 - input_share) * output_per_million_tokens
        ) / TOKENS_PER_MILLION
        if per_token > 0:
            threshold = self_hosted_per_hour / (MINUTES_PER_HOUR * per_token)

    cheaper: Cheaper = "equal"
    if self_hosted < api:
        cheaper = "self-hosted"
    elif api < self_hosted:
        cheaper = "api"
    return BreakEven(
        hours_per_month=hours_per_month,
        self_hosted_monthly=self_hosted,
        api_monthly=api,
        input_tokens_per_month=input_tokens,
        output_tokens_per_month=output_tokens,
        input_share=input_share,
        cheaper=cheaper,
        monthly_saving=abs(self_hosted - api),
        break_even_tokens_per_minute=threshold,
    )
