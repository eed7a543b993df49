"""Curves on the data's own lattice when the model is noise-like between the data."""

from __future__ import annotations

import numpy as np

from abcd_cli.data.scaling import Scaling
from abcd_cli.decompose.components import decompose
from abcd_cli.decompose.lattice import lattice_grid, regular_spacing
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model
from tests.axes import YEAR

X = 1980.0 + np.arange(0.0, 15.0, 1.0 / 12.0)  # monthly, as wine sales
MONTHS = np.array([3.0, -1.0, 0.5, 2.0, -2.5, 1.0, -0.5, 0.0, -1.5, 2.5, 4.0, -7.5])
Y = MONTHS[np.round((X % 1.0) * 12).astype(int) % 12] + 0.3 * np.random.default_rng(5).normal(
    size=X.size
)
SPIKY = (
    "Per(lengthscale=0.01, period=0.25, sd=2.0) * Per(lengthscale=0.01, period=0.333333, sd=1.5)"
)


def _model(kernel: str) -> Model:
    scaling = Scaling.from_data(X, Y)
    return Model(scaling.kernel_in(parse_kernel(kernel + " + WN(sd=0.3)")), scaling, X, Y, 0.0)


def test_regular_spacing() -> None:
    assert regular_spacing(X) == np.float64(1.0 / 12.0) or abs(regular_spacing(X) - 1 / 12) < 1e-9
    assert regular_spacing(np.array([0.0, 1.0, 2.5, 3.0])) is None


def test_a_spiky_cycle_is_drawn_on_the_months_not_between_them() -> None:
    """Wine sales: an even grid of 400 points drew the yearly pattern as a flat line with
    spikes where it passed near a month; on the months, the curve is the pattern."""
    model = _model(SPIKY)
    grid = lattice_grid(model, 0, 0.2)
    assert grid is not None and np.allclose(grid[: X.size], X)
    assert grid[-1] <= X.max() + 0.2 * np.ptp(X) + 1e-9
    dec = decompose(model, (YEAR,), extrapolate=0.2)
    cycle = next(c for c in dec.components if not c.is_noise)
    assert np.allclose(cycle.x_grid, grid)
    assert np.ptp(cycle.mean) > 0.8 * np.ptp(MONTHS)  # every month's level, not a flat line
    assert dec.series is not None and dec.series.window is None


def test_a_smooth_cycle_keeps_the_even_grid() -> None:
    model = _model("Per(lengthscale=1.0, period=1.0, sd=2.0)")
    assert lattice_grid(model, 0, 0.2) is None
