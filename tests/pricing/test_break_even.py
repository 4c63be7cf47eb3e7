"""Self-hosting versus API: exact monthly arithmetic over a given number of hours."""

from __future__ import annotations

import pytest

from linter.pricing import TokenVolume, assumed_input_share, break_even, token_volume


def test_assumed_split_comes_from_the_catalogue() -> None:
    assert assumed_input_share() == 0.75
    assert token_volume(tokens_per_minute=100_000) == TokenVolume(75_000, 25_000, True)
    assert token_volume(input_per_minute=10, output_per_minute=30) == TokenVolume(10, 30, False)


def test_explicit_split_api_cheaper() -> None:
    # $2/h for 730 h -> $1,460. 1,000 in + 1,000 out tokens/min -> 43.8M each over 43,800 min.
    # API at $1 in / $2 out per M: 43.8 + 87.6 = $131.40.
    volume = token_volume(input_per_minute=1000, output_per_minute=1000)
    result = break_even(2.0, 1.0, 2.0, volume, hours_per_month=730)
    assert result.self_hosted_monthly == 1460.0
    assert (result.input_tokens_per_month, result.output_tokens_per_month) == (43.8e6, 43.8e6)
    assert result.api_monthly == pytest.approx(131.4, abs=1e-9)
    assert result.cheaper == "api"
    assert result.monthly_saving == pytest.approx(1328.6, abs=1e-9)
    assert result.input_share == 0.5
    # Break-even: $2/h / (60 min x $1.5 per M) = 22,222.2... tokens/min at a 1:1 split.
    assert result.break_even_tokens_per_minute == pytest.approx(2 / (60 * 1.5e-6), abs=1e-6)


def test_total_rate_uses_the_assumed_split() -> None:
    # 100,000 tokens/min -> 75,000 in, 25,000 out -> 3,285M in, 1,095M out over 730 h.
    # API at $0.5 in / $1.5 out: 1,642.5 + 1,642.5 = $3,285. Self-hosted $4/h = $2,920.
    result = break_even(4.0, 0.5, 1.5, token_volume(tokens_per_minute=100_000), hours_per_month=730)
    assert result.input_share == 0.75
    assert (result.input_tokens_per_month, result.output_tokens_per_month) == (3285e6, 1095e6)
    assert result.api_monthly == pytest.approx(3285.0, abs=1e-9)
    assert result.self_hosted_monthly == 2920.0
    assert (result.cheaper, result.monthly_saving) == ("self-hosted", pytest.approx(365.0))
    assert result.break_even_tokens_per_minute == pytest.approx(4 / (60 * 0.75e-6), abs=1e-6)


def test_hours_scale_both_sides_and_not_the_verdict() -> None:
    volume = token_volume(tokens_per_minute=100_000)
    full = break_even(4.0, 0.5, 1.5, volume, hours_per_month=730)
    part = break_even(4.0, 0.5, 1.5, volume, hours_per_month=100)
    assert part.self_hosted_monthly == 400.0
    assert part.api_monthly == pytest.approx(450.0, abs=1e-9)  # 6M tokens/h x $0.75 per M
    assert part.cheaper == full.cheaper == "self-hosted"
    assert part.break_even_tokens_per_minute == full.break_even_tokens_per_minute


def test_no_traffic() -> None:
    volume = token_volume(input_per_minute=0, output_per_minute=0)
    result = break_even(0.0, 1.0, 1.0, volume, hours_per_month=730)
    assert (result.self_hosted_monthly, result.api_monthly, result.cheaper) == (0, 0, "equal")
    assert (result.input_share, result.break_even_tokens_per_minute) == (None, None)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"input_per_minute": 1},
        {"tokens_per_minute": 1, "input_per_minute": 1, "output_per_minute": 1},
        {"tokens_per_minute": -1},
    ],
)
def test_rejects_bad_rates(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        token_volume(**kwargs)


def test_rejects_negative_prices_and_hours() -> None:
    volume = token_volume(tokens_per_minute=1)
    with pytest.raises(ValueError):
        break_even(-1.0, 1.0, 1.0, volume, hours_per_month=730)
    with pytest.raises(ValueError):
        break_even(1.0, 1.0, 1.0, volume, hours_per_month=-1)
