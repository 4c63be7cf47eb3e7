"""Monthly cost of self-hosting versus a per-token managed API (pure arithmetic)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: Hours in the billing month used for comparisons (8,760 h / 12).
HOURS_PER_MONTH = 730
#: Share of input tokens assumed when only a total rate is given: 3 input tokens per output token.
ASSUMED_INPUT_SHARE = 0.75

Cheaper = Literal["self-hosted", "api", "equal"]


@dataclass(frozen=True)
class BreakEven:
    hours_per_month: float
    self_hosted_monthly: float
    api_monthly: float
    input_tokens_per_month: float
    output_tokens_per_month: float
    #: True when the input/output split was assumed (3:1) from a total tokens-per-minute rate.
    split_assumed: bool
    #: Input tokens as a share of all tokens (0.75 when assumed).
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
    *,
    input_tokens_per_minute: float | None = None,
    output_tokens_per_minute: float | None = None,
    tokens_per_minute: float | None = None,
    hours_per_month: float = HOURS_PER_MONTH,
) -> BreakEven:
    """Compare a month of self-hosting with the same traffic through a per-token API.

    ``self_hosted_per_hour`` is the total hourly cost of all replicas. Give either both
    ``input_tokens_per_minute`` and ``output_tokens_per_minute``, or ``tokens_per_minute`` alone:
    a total is split 3:1 input:output (75% input, 25% output) and the result records
    ``split_assumed=True``. Traffic flows while the service runs: ``hours_per_month`` (the
    workload's, so both sides of the comparison cover the same hours).
    """
    split_given = input_tokens_per_minute is not None or output_tokens_per_minute is not None
    if split_given == (tokens_per_minute is not None):
        raise ValueError("give input and output tokens per minute, or tokens_per_minute alone")
    if tokens_per_minute is not None:
        input_rate = tokens_per_minute * ASSUMED_INPUT_SHARE
        output_rate = tokens_per_minute - input_rate
    else:
        if input_tokens_per_minute is None or output_tokens_per_minute is None:
            raise ValueError("give both input_tokens_per_minute and output_tokens_per_minute")
        input_rate, output_rate = input_tokens_per_minute, output_tokens_per_minute
    values = (
        self_hosted_per_hour,
        input_per_million_tokens,
        output_per_million_tokens,
        input_rate,
        output_rate,
    )
    if min(values) < 0:
        raise ValueError("costs, prices and token rates must not be negative")

    minutes = hours_per_month * 60
    input_tokens = input_rate * minutes
    output_tokens = output_rate * minutes
    self_hosted = self_hosted_per_hour * hours_per_month
    api = (
        input_tokens * input_per_million_tokens + output_tokens * output_per_million_tokens
    ) / 1_000_000

    total_rate = input_rate + output_rate
    input_share = None
    if tokens_per_minute is not None:
        input_share = ASSUMED_INPUT_SHARE
    elif total_rate > 0:
        input_share = input_rate / total_rate
    threshold = None
    if input_share is not None:
        per_token = (
            input_share * input_per_million_tokens + (1 - input_share) * output_per_million_tokens
        ) / 1_000_000
        if per_token > 0:
            threshold = self_hosted / (minutes * per_token) if minutes else None

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
        split_assumed=tokens_per_minute is not None,
        input_share=input_share,
        cheaper=cheaper,
        monthly_saving=abs(self_hosted - api),
        break_even_tokens_per_minute=threshold,
    )
