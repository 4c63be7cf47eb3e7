"""Self-hosting versus API: exact monthly arithmetic (730 h, 43,800 min)."""

from __future__ import annotations

import pytest

from linter.pricing import ASSUMED_INPUT_SHARE, HOURS_PER_MONTH, break_even


def test_constants() -> None:
    assert (HOURS_PER_MONTH, ASSUMED_INPUT_SHARE) == (730, 0.75)


def test_explicit_split_api_cheaper() -> None:
    # $2/h -> $1,460/month. 1,000 in + 1,000 out tokens/min -> 43.8M each per month.
    # API at $1 in / $2 out per M: 43.8 + 87.6 = $131.40.
    result = break_even(2.0, 1.0, 2.0, input_tokens_per_minute=1000, output_tokens_per_minute=1000)
    assert result.self_hosted_monthly == 1460.0
    assert result.input_tokens_per_month == 43_800_000
    assert result.output_tokens_per_month == 43_800_000
    assert result.api_monthly == pytest.approx(131.4, abs=1e-9)
    assert result.cheaper == "api"
    assert result.monthly_saving == pytest.approx(1328.6, abs=1e-9)
    assert result.split_assumed is False
    assert result.input_share == 0.5
    # Break-even: 1460 / (43,800 * 1.5e-6) = 22,222.2... tokens/min at a 1:1 split.
    assert result.break_even_tokens_per_minute == pytest.approx(1460 / (43_800 * 1.5e-6))


def test_total_rate_uses_assumed_three_to_one_split() -> None:
    # 100,000 tokens/min -> 75,000 in, 25,000 out -> 3,285M in, 1,095M out per month.
    # API at $0.5 in / $1.5 out: 1,642.5 + 1,642.5 = $3,285. Self-hosted $4/h = $2,920.
    result = break_even(4.0, 0.5, 1.5, tokens_per_minute=100_000)
    assert result.split_assumed is True
    assert result.input_share == 0.75
    assert result.input_tokens_per_month == 3_285_000_000
    assert result.output_tokens_per_month == 1_095_000_000
    assert result.api_monthly == pytest.approx(3285.0, abs=1e-9)
    assert result.self_hosted_monthly == 2920.0
    assert result.cheaper == "self-hosted"
    assert result.monthly_saving == pytest.approx(365.0, abs=1e-9)
    # Blended $0.75/M: 2,920 / (43,800 * 0.75e-6) = 88,888.8... tokens/min.
    assert result.break_even_tokens_per_minute == pytest.approx(2920 / (43_800 * 0.75e-6))


def test_equal_costs() -> None:
    # Nothing self-hosted and no traffic: both cost nothing; no split, so no threshold.
    result = break_even(0.0, 1.0, 1.0, input_tokens_per_minute=0, output_tokens_per_minute=0)
    assert (result.self_hosted_monthly, result.api_monthly) == (0.0, 0.0)
    assert result.cheaper == "equal"
    assert result.monthly_saving == 0.0
    assert result.input_share is None
    assert result.break_even_tokens_per_minute is None


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"input_tokens_per_minute": 1},
        {"tokens_per_minute": 1, "input_tokens_per_minute": 1, "output_tokens_per_minute": 1},
        {"tokens_per_minute": -1},
    ],
)
def test_rejects_bad_rates(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        break_even(1.0, 1.0, 1.0, **kwargs)
