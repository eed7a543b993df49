"""The fine window of a cycle's last few periods (decompose/window.py) wherever a cycle is
drawn over a window: elnino's yearly shape, drawn apart from its rough term, was windowed on
the whole span's grid (about eleven points a year here), its peaks angular."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from abcd_cli.data.scaling import Scaling
from abcd_cli.decompose.components import Decomposition, decompose
from abcd_cli.decompose.window import POINTS_PER_PERIOD, WINDOW_CYCLES, cycle_window
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model
from abcd_cli.reporting.component_sections import series_drawings
from abcd_cli.reporting.sections import frame_of
from tests.axes import YEAR

KERNEL = (
    "C(sd=3.0) * Per(lengthscale=3.0, period=1.0, sd=1.0)"
    " + SE(lengthscale=0.1, sd=1.0) * Per(lengthscale=3.0, period=1.0, sd=1.0) + WN(sd=0.2)"
)


@pytest.fixture(scope="module")
def made() -> Decomposition:
    """Thirty years of monthly data (as elnino's sixty): a yearly sine of amplitude 3, a rough
    term (a moving sum of white noise over three months) and a little noise, under the model
    that holds them, whose yearly shape is drawn apart from its rough term."""
    rng = np.random.default_rng(1)
    x = 1970.0 + np.arange(0.0, 30.0, 1.0 / 12.0)
    rough = np.convolve(rng.standard_normal(x.size + 2), np.ones(3) / np.sqrt(3), "valid")
    y = 25.0 + 3.0 * np.sin(2 * np.pi * x) + rough + 0.2 * rng.standard_normal(x.size)
    scaling = Scaling.from_data(x, y)
    model = Model(scaling.kernel_in(parse_kernel(KERNEL)), scaling, x, y, 0.0)
    return decompose(model, (YEAR,))


def test_a_cycles_own_window_spans_its_last_periods_finely(made) -> None:
    cycle = made.components[0]
    assert cycle.shape_window is not None
    x, mean, sd = cycle.shape_window
    assert x[-1] == pytest.approx(made.model.X[:, 0].max())
    assert x[-1] - x[0] == pytest.approx(WINDOW_CYCLES * 1.0, rel=1e-3)
    assert x.size == WINDOW_CYCLES * POINTS_PER_PERIOD + 1
    assert np.ptp(mean) / 2 == pytest.approx(3.0, rel=0.2) and np.all(sd >= 0)
    shape = parse_kernel(KERNEL.split(" + SE")[0])
    assert cycle_window(made.model, made.model.scaling.kernel_in(shape)) is not None


def test_a_cycles_shape_is_drawn_on_its_fine_window(made) -> None:
    """The component's figure is two panels (its 36 cycles to the grid's end are too dense to
    read whole); the upper one draws the shape at ``POINTS_PER_PERIOD`` points a period."""
    alone, _ = series_drawings(made, made.components[0], frame_of(made))
    top = alone().axes[0]
    line = top.lines[0]
    x = np.asarray(line.get_xdata(), dtype=float)
    shown = x[(x >= top.get_xlim()[0]) & (x <= top.get_xlim()[1])]
    per_period = (shown.size - 1) / (float(shown.max() - shown.min()) / 1.0)
    assert per_period >= POINTS_PER_PERIOD - 1, per_period
    plt.close("all")
