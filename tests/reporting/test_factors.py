"""Cycles multiplied together that repeat together read as one cycle of their common period."""

from __future__ import annotations

import pytest

from abcd_cli.kernels import Per
from abcd_cli.reporting.factors import common_cycle, common_period, factors_of
from tests.reporting.test_describe import prod


@pytest.mark.parametrize(
    ("periods", "common"),
    [
        ((0.249996, 1.0 / 3.0), 1.0),  # wine sales: 3 and 4 months repeat together yearly
        ((1.0, 2.0), 2.0),
        ((1.0, 10.0), None),  # a yearly cycle and its ten-year modulation
        ((1.0, 1.37), None),  # no whole multiples
    ],
)
def test_common_period(periods: tuple[float, ...], common: float | None) -> None:
    found = common_period(periods)
    assert found == pytest.approx(common, rel=1e-3) if common else found is None


def test_the_common_cycle_keeps_the_narrowest_feature() -> None:
    quarter, third = Per((0.01, 0.25, 2.0)), Per((0.02, 1.0 / 3.0, 3.0))
    cycle = common_cycle([quarter, third])
    assert cycle is not None
    assert cycle.param("period") == pytest.approx(1.0)
    assert cycle.feature_length() == pytest.approx(quarter.feature_length())
    assert cycle.param("sd") == pytest.approx(6.0)
    parts = factors_of(prod(quarter, third))
    assert parts is not None and len(parts.periodic) == 1
    for longer in (2.0, 5.0, 10.0):  # the longer modulates the yearly one: no common cycle
        modulated = factors_of(prod(Per((1.0, 1.0, 1.0)), Per((1.0, longer, 1.0))))
        assert modulated is not None and len(modulated.periodic) == 2
