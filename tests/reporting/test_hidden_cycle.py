"""A component whose covariance holds no period but whose fitted curve repeats
(reporting/hidden_cycle.py): said so, in its paragraph and in its finding, instead of
"a smooth, non-periodic component" beside a figure that rises and falls every year."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.data.scaling import Scaling
from abcd_cli.decompose.components import decompose
from abcd_cli.decompose.facts import ComponentFacts
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model
from abcd_cli.reporting.describe import component_paragraph
from abcd_cli.reporting.hidden_cycle import curve_repeats, lagged_correlation
from tests.axes import YEAR

X = 1949.0 + np.arange(144) / 12.0  # monthly, twelve years, as airline


def _component(y: np.ndarray, kernel: str) -> ComponentFacts:
    scaling = Scaling.from_data(X, y)
    model = Model(scaling.kernel_in(parse_kernel(kernel)), scaling, X, y, 0.0)
    return next(c for c in decompose(model, (YEAR,)).components if not c.is_noise)


def _seasonal() -> np.ndarray:
    rng = np.random.default_rng(3)
    return 0.5 * (X - 1949.0) + np.sin(2 * np.pi * X) + 0.1 * rng.standard_normal(X.size)


def test_a_smooth_component_fitting_a_season_says_its_curve_repeats() -> None:
    """Airline by the sampler: an RQ of 5.8 months fitting the yearly season was 'a smooth,
    non-periodic component (probability 1.00)'."""
    c = _component(_seasonal(), "SE(lengthscale=0.2, sd=3.0) + WN(sd=0.1)")
    found = curve_repeats(c, X)
    assert found is not None
    period, r = found
    assert period == pytest.approx(1.0, rel=0.03) and r > 0.9
    text = component_paragraph(c, YEAR, x_data=X)
    assert (
        "Its covariance holds no period, yet its fitted curve rises and falls about every" in text
    )
    assert "1.0 year apart correlate at" in text


def test_a_smooth_trend_or_a_cycle_is_not_said_to_repeat() -> None:
    rng = np.random.default_rng(4)
    trend = 0.5 * (X - 1949.0) + 0.1 * rng.standard_normal(X.size)
    smooth = _component(trend, "SE(lengthscale=3.0, sd=3.0) + WN(sd=0.1)")
    assert curve_repeats(smooth, X) is None
    assert "covariance holds no period" not in component_paragraph(smooth, YEAR, x_data=X)
    cycle = _component(_seasonal(), "Per(lengthscale=1.0, period=1.0, sd=1.0) + WN(sd=0.1)")
    assert curve_repeats(cycle, X) is None  # a cycle's period is said by its own words


def test_the_lagged_correlation_of_a_sine_a_period_later_is_one() -> None:
    values = np.sin(2 * np.pi * X)
    assert lagged_correlation(X, values, 1.0) == pytest.approx(1.0, abs=1e-6)
    assert lagged_correlation(X, values, 0.5) == pytest.approx(-1.0, abs=0.02)
    assert np.isnan(lagged_correlation(X, values, 20.0))  # no point a lag inside the data


def test_the_smooth_finding_of_a_repeating_curve_is_not_called_non_periodic() -> None:
    from abcd_cli.model import posterior_of
    from abcd_cli.reporting.context import build_context
    from tests.reporting.test_posterior_report import _structure
    from tests.reporting.test_report import _search_doc

    c = _component(_seasonal(), "SE(lengthscale=0.2, sd=3.0) + WN(sd=0.1)")
    scaling = Scaling.from_data(X, _seasonal())
    kernel = scaling.kernel_in(parse_kernel("SE(lengthscale=0.2, sd=3.0) + WN(sd=0.1)"))
    model = Model(kernel, scaling, X, _seasonal(), 0.0)
    dec = decompose(model, (YEAR,))
    doc = _search_doc(model)
    doc["settings"].update({"method": "posterior", "pool": 1, "draws": 3})
    doc["posterior"] = {
        "prior": {"structures": "uniform over the pool", "parameters": "normal"},
        "draws": 3,
        "structures": [_structure(model.kernel, 1.0, 0.0)],
    }
    context = build_context(dec, "Y", "y.csv", doc, figures=False, record=posterior_of(doc, model))
    (smooth,) = [f for f in context["json"]["summary"]["findings"] if f["kind"] == "smooth"]
    assert "non-periodic" not in smooth["text"]
    assert smooth["text"].startswith(
        "a smooth component whose covariance holds no period, though its fitted curve rises"
        " and falls about every 1.0 year"
    )
    assert curve_repeats(c, X) is not None


def test_a_lag_is_read_at_pairs_of_observations_one_lag_apart() -> None:
    """Births: a weekly pattern (five days up, two down) on a thousand scattered days of
    fourteen years. Interpolating across the gaps blurred it (r = 0.26, read 'Nor do its
    values recur a period later'); at the pairs of observations a week apart it is exact."""
    rng = np.random.default_rng(0)
    days = np.sort(rng.choice(np.arange(5000), size=1000, replace=False))
    weekly = np.where(days % 7 < 5, 25.0, -50.0) + rng.standard_normal(days.size)
    x = 1977.0 + days / 365.0
    assert lagged_correlation(x, weekly, 7.0 / 365.0) > 0.99
    # too few exact pairs (every other day dropped, an odd lag): interpolation as before
    assert np.isfinite(lagged_correlation(x[::3], weekly[::3], 7.5 / 365.0))
