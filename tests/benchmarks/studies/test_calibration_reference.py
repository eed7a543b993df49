"""The reference study's rules (a band widened only beyond what the model's own series show),
its band mean squares and its simulated series."""

from __future__ import annotations

import math

import numpy as np
import pytest

from abcd_cli.data.scaling import Scaling
from abcd_cli.kernels.text import parse_kernel
from benchmarks.studies.calibration_reference import (
    band_mean_squares,
    rule_calibration,
    rule_factors,
    simulated,
)

#: Ten simulated series' band mean squares: the first band's 1.0 to 2.5 in steps of 1/6
#: (median 1.75), the second band's all 1, the third without errors.
REF = [[1.0 + i / 6, 1.0, math.nan] for i in range(10)]


def test_the_median_rule_divides_by_the_references_median_and_never_narrows() -> None:
    assert rule_factors([7.0, 4.0, math.nan], REF, "median") == pytest.approx((2.0, 2.0, 1.0))
    assert rule_factors([0.5, 0.5, 1.0], REF, "median") == (1.0, 1.0, 1.0)


def test_beyond_q90_leaves_an_excess_the_model_shows_by_chance() -> None:
    upper = float(np.quantile([r[0] for r in REF], 0.9))
    below, above = upper - 0.01, upper + 0.01
    assert rule_factors([below, 1.0, 1.0], REF, "beyond q90")[0] == 1.0
    assert rule_factors([above, 1.0, 1.0], REF, "beyond q90")[0] == pytest.approx(
        math.sqrt(above / 1.75)
    )
    assert rule_factors([4 * upper, 1.0, 1.0], REF, "to q90")[0] == pytest.approx(2.0)
    with pytest.raises(ValueError, match="unknown rule"):
        rule_factors([1.0, 1.0, 1.0], REF, "mean")


def test_band_mean_squares_cut_the_horizon_into_the_calibrations_bands() -> None:
    h = np.array([0.5, 0.6, 1.5, 2.5, 3.5])  # horizon 3: bands (0, 1], (1, 2], (2, 3] and past
    z = np.array([1.0, 3.0, 2.0, 1.0, 3.0])
    assert band_mean_squares(h, z, 3.0) == pytest.approx([5.0, 4.0, 5.0])
    assert math.isnan(band_mean_squares(h[:2], z[:2], 3.0)[2])
    backtest = {"h": h.tolist(), "z": z.tolist(), "horizon": 3.0, "origins": 4}
    c = rule_calibration(backtest, [[1.25, 1.0, 1.25]] * 3, "median")
    assert c.factors == pytest.approx((2.0, 2.0, 2.0)) and c.edges == (1.0, 2.0, 3.0)


def test_simulated_series_follow_the_kernel_and_the_seed() -> None:
    scaling = Scaling(0.0, 1.0, 10.0, 2.0)
    kernel = parse_kernel("WN(sd=1.0)")
    x = np.arange(400.0)
    series = simulated(kernel, scaling, x, 3, seed=4)
    again = simulated(kernel, scaling, x, 3, seed=4)
    assert all(np.array_equal(a, b) for a, b in zip(series, again, strict=True))
    y = np.concatenate(series)  # y = 10 + 2·ε
    assert abs(y.mean() - 10.0) < 0.2 and abs(y.std() - 2.0) < 0.2
