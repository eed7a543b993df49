"""Which curve a component's figure draws over the end of the data."""

from __future__ import annotations

import numpy as np

from abcd_cli.decompose.window import Window
from abcd_cli.kernels import SE, Per
from abcd_cli.reporting.component_sections import window_curve
from tests.reporting.test_describe import make_facts

WEEK = 7.0 / 365.25
X = np.linspace(1990.9, 1990.9 + 4 * WEEK, 161)
WEEKLY_WINDOW = Window(
    x=X,
    period=WEEK,
    mean=[np.sin(2 * np.pi * X / WEEK), np.full(X.size, -18.0)],
    sd=[np.ones(X.size), np.ones(X.size)],
    cumulative_mean=[np.zeros(X.size)] * 2,
    cumulative_sd=[np.ones(X.size)] * 2,
)


def test_a_yearly_cycle_is_not_drawn_on_four_weeks_of_the_weekly_one() -> None:
    """Births: component 2's 'end of the data' showed four weeks of a yearly cycle, a
    straight line; it now reads its whole span's grid (a few of its own periods)."""
    yearly = make_facts(Per((1.0, 1.0, 1.0)), index=2)
    assert window_curve(yearly, WEEKLY_WINDOW) is None


def test_the_weekly_cycle_and_a_curve_with_no_period_keep_the_window() -> None:
    weekly = make_facts(Per((1.0, WEEK, 1.0)), index=1)
    x, mean, _ = window_curve(weekly, WEEKLY_WINDOW)
    assert np.array_equal(x, X) and np.array_equal(mean, WEEKLY_WINDOW.mean[0])
    wiggle = make_facts(SE((1.0, 0.01)), index=2)
    assert window_curve(wiggle, WEEKLY_WINDOW) is not None
    assert window_curve(weekly, None) is None
