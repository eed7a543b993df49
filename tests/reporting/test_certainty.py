"""The words of certainty (reporting/certainty.py): how probabilities are written and which
tier a finding falls in."""

from __future__ import annotations

import pytest

from abcd_cli.reporting.certainty import (
    FACT,
    FLOOR,
    LIKELY,
    probability_range,
    probability_text,
    wording,
)


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (1.0, "1.00"),
        (0.999, "> 0.99"),
        (0.98, "0.98"),
        (0.654, "0.65"),
        (0.001, "< 0.01"),
        (0.0, "0.00"),
    ],
)
def test_a_probability_is_never_rounded_to_a_certainty(p: float, text: str) -> None:
    assert probability_text(p) == text


def test_the_tiers_follow_the_stated_bars() -> None:
    assert wording(FACT) == "fact" and wording(FACT - 1e-9) == "likely"
    assert wording(LIKELY) == "likely" and wording(LIKELY - 1e-9) == "uncertain"
    assert wording(FLOOR) == "uncertain" and wording(FLOOR - 1e-9) is None


@pytest.mark.parametrize(
    ("low", "high", "text"),
    [
        (0.96, 0.999, "0.96 to over 0.99"),
        (0.001, 0.03, "under 0.01 to 0.03"),
        (0.6, 0.7, "0.60 to 0.70"),
        (1.0, 1.0, "1.00"),
    ],
)
def test_a_probability_range_reads_without_garble(low: float, high: float, text: str) -> None:
    """'0.96–> 0.99' was printed for a range whose upper end is above 0.99."""
    assert probability_range(low, high) == text
