"""The pooled-width study's factors and rules, on splits made by hand."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.calibration import Z95
from benchmarks.studies.calibration import coverage
from benchmarks.studies.pooled_width import RULES, needed, one_factor, pooled_factor


def split(name: str, z: list[float], y: list[float]) -> dict:
    """A split whose test band is ±1 about 0 at horizons 0.5 and 1.5; its backtest's errors z
    at alternating horizons 0.5 and 1.5 of a horizon 2 from 4 origins."""
    h = [0.5 if i % 2 == 0 else 1.5 for i in range(len(z))]
    return {
        "name": name,
        "backtest": {"horizon": 2.0, "origins": 4, "h": h, "z": z},
        "test": {
            "h": [0.5 if i % 2 == 0 else 1.5 for i in range(len(y))],
            "y": y,
            "mean": [0.0] * len(y),
            "low": [-1.0] * len(y),
            "high": [1.0] * len(y),
        },
    }


def test_one_factor_puts_95_percent_of_the_errors_inside() -> None:
    z = np.linspace(-3, 3, 201)
    f = one_factor(z)
    assert np.mean(np.abs(z) <= f * Z95) == pytest.approx(0.95, abs=0.01)


def test_needed_is_the_test_points_95_percent_quantile_in_half_widths() -> None:
    assert needed(split("a", [1.0], [0.5] * 19 + [3.0])) == pytest.approx(0.5 + 0.05 * 2.5)


def test_the_pooled_factor_leaves_the_series_out() -> None:
    """A series with huge errors raises the others' pooled factor, never its own."""
    raws = [split("calm", [0.1] * 20, [0.5]), split("wild", [10.0] * 20, [0.5])]
    assert pooled_factor(raws, "calm") == pytest.approx(10 / Z95)
    assert pooled_factor(raws, "wild") == pytest.approx(0.1 / Z95)


def test_a_pooled_rule_widens_a_series_its_own_past_calls_honest() -> None:
    """Own errors as the band said (factor 1) leave the test point at 1.5 outside; a pooled
    factor of 2 brings it in."""
    raw = split("s", [0.5, -0.5] * 10, [1.5, 0.2])
    own = RULES["own, one band (scale)"](raw["backtest"], 2.0)
    pooled = RULES["own one band (conformal) or pooled"](raw["backtest"], 2.0)
    assert coverage(raw, own) == (1, 2)
    assert coverage(raw, pooled) == (2, 2)
