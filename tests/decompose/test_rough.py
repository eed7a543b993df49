"""A yearly cycle carrying a rough term (decompose/rough.py): its words and figures read its
smooth shape, and its rough part is said as short-term irregular variation (temperature,
elnino: C·Per + SE(1.3 days)·Per read as 'amplitude varies between 4.66 and 8.31 ... as a
smooth factor changing over about 1.3 days modulates it', beside half a year of wiggles)."""

from __future__ import annotations

import re

import matplotlib.pyplot as plt
import numpy as np
import pytest

from abcd_cli.data.scaling import Scaling
from abcd_cli.decompose.components import Decomposition, decompose
from abcd_cli.decompose.rough import split_rough
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model
from abcd_cli.reporting.component_sections import series_drawings, series_figures
from abcd_cli.reporting.curves import amplitude_trend
from abcd_cli.reporting.density import WINDOW_CYCLES
from abcd_cli.reporting.describe import component_paragraph, noun_phrase
from abcd_cli.reporting.sections import frame_of
from tests.axes import YEAR

AMPLITUDE = 4.0
KERNEL = (
    "C(sd=4.0) * Per(lengthscale=3.0, period=1.0, sd=1.0)"
    " + SE(lengthscale=0.01, sd=3.0) * Per(lengthscale=3.0, period=1.0, sd=1.0) + WN(sd=0.3)"
)


@pytest.fixture(scope="module")
def made() -> tuple[Decomposition, np.ndarray]:
    """Eight years every three days: a yearly sine of amplitude 4 plus a rough term (a moving
    sum of white noise over 15 days, sd 3) and a little noise, under the model that holds
    them."""
    rng = np.random.default_rng(0)
    x = 1980.0 + np.arange(0.0, 8.0, 1.0 / 120.0)
    rough = np.convolve(rng.standard_normal(x.size + 4), np.ones(5) / np.sqrt(5), "valid")
    y = 10.0 + AMPLITUDE * np.sin(2 * np.pi * x) + 3.0 * rough + 0.3 * rng.standard_normal(x.size)
    scaling = Scaling.from_data(x, y)
    model = Model(scaling.kernel_in(parse_kernel(KERNEL)), scaling, x, y, 0.0)
    return decompose(model, (YEAR,)), x


def test_only_terms_shorter_than_the_period_are_rough() -> None:
    shape, rough = split_rough(parse_kernel(KERNEL.rsplit(" + WN", 1)[0]))  # type: ignore[misc]
    assert "SE" not in str(shape) and "SE" in str(rough)
    slow = "C(sd=1.0) * Per(lengthscale=3.0, period=1.0, sd=1.0) + SE(lengthscale=5.0, sd=1.0)"
    assert split_rough(parse_kernel(slow + " * Per(lengthscale=3.0, period=1.0, sd=1.0)")) is None


def test_a_cycle_with_a_rough_term_is_worded_by_its_smooth_shape(made) -> None:
    """Its amplitude is the smooth shape's (steady, about 4), not the wiggles' (which vary
    period by period); the rough part is said as short-term irregular variation, not as a
    factor that modulates the amplitude."""
    dec, x = made
    cycle = dec.components[0]
    text = component_paragraph(cycle, YEAR, x_data=x)
    assert "varies between" not in text and "modulates" not in text
    steady = re.findall(r"stays about ([\d.]+) across the data", text)
    assert steady and abs(float(steady[0]) - AMPLITUDE) < 0.1 * AMPLITUDE
    assert "short-term irregular variation" in text
    size = float(re.findall(r"off the shape by about ([\d.]+)", text)[0])
    assert size == pytest.approx(
        float(np.std(cycle.data_mean - np.interp(x, cycle.x_grid, cycle.shape_mean))), rel=0.1
    )
    phrase = noun_phrase(cycle.kernel, YEAR, x_data=x, amplitude=amplitude_trend(cycle, x))
    assert phrase == "a periodic function with a period of 1.0 year"


def test_a_cycle_with_a_rough_term_is_drawn_over_whole_periods(made) -> None:
    """The component alone is its smooth shape (eight cycles: readable over the whole span,
    one panel); the sum with the data, too dense to read whole, is windowed over four whole
    years, not over four of its wiggles (about two months)."""
    dec, _ = made
    alone, so_far = series_drawings(dec, dec.components[0], frame_of(dec))
    drawn = alone()
    assert len(drawn.axes) == 1
    assert float(np.ptp(drawn.axes[0].lines[0].get_ydata())) < 2.2 * AMPLITUDE
    window = so_far().axes[0]
    low, high = window.get_xlim()
    assert high - low >= 0.99 * WINDOW_CYCLES
    plt.close("all")
    captions = series_figures(dec, dec.components[0], "a cycle", frame_of(dec, figures=False))
    assert "smooth shape" in captions["envelope_note"]


def test_a_rough_part_too_small_to_see_goes_unsaid() -> None:
    """Mauna Loa's yearly cycle carried a rough term moving its fitted values by 0.00127 about
    an amplitude of 3.03, and the report said so as 'short-term irregular variation'. A rough
    term of sd 0.01 beside a sine of amplitude 4 is said nowhere; the cycle is still worded by
    its smooth shape."""
    rng = np.random.default_rng(1)
    x = 1980.0 + np.arange(0.0, 8.0, 1.0 / 120.0)
    y = 10.0 + AMPLITUDE * np.sin(2 * np.pi * x) + 0.3 * rng.standard_normal(x.size)
    faint = KERNEL.replace("SE(lengthscale=0.01, sd=3.0)", "SE(lengthscale=0.01, sd=0.01)")
    scaling = Scaling.from_data(x, y)
    model = Model(scaling.kernel_in(parse_kernel(faint)), scaling, x, y, 0.0)
    cycle = decompose(model, (YEAR,)).components[0]
    assert cycle.rough_sd is not None and cycle.rough_sd < 0.05 * np.std(cycle.data_mean)
    text = component_paragraph(cycle, YEAR, x_data=x)
    assert "irregular variation" not in text and "rougher" not in text
    assert re.findall(r"stays about ([\d.]+) across the data", text)


def test_a_cycle_whose_rough_part_carries_it_is_measured_whole() -> None:
    """Held-out sunspots: a line times a 10.8-year cycle (zero in 1815) plus the cycle times a
    smooth factor of 8.3 years, which carries it; the amplitude was read from the first alone,
    'between about 1.35 and 61.6 ..., largest around 2004', while the cycle's largest swings
    are the 1950s'. A cycle whose rough part moves more than its shape is measured whole."""
    rng = np.random.default_rng(2)
    x = 1700.0 + np.arange(0.0, 300.0)
    size = 40.0 + 30.0 * np.sin(2 * np.pi * x / 90.0)
    y = size * np.sin(2 * np.pi * x / 10.8) + 3.0 * rng.standard_normal(x.size)
    kernel = (
        "Lin(sd=0.05, location=1815.0) * Per(lengthscale=1.6, period=10.8, sd=1.0)"
        " + Per(lengthscale=1.6, period=10.8, sd=30.0) * SE(lengthscale=8.3, sd=1.0)"
        " + WN(sd=3.0)"
    )
    scaling = Scaling.from_data(x, y)
    model = Model(scaling.kernel_in(parse_kernel(kernel)), scaling, x, y, 0.0)
    cycle = next(c for c in decompose(model, (YEAR,)).components if not c.is_noise)
    assert cycle.shape_mean.size == 0 and cycle.rough_sd is None
    text = component_paragraph(cycle, YEAR, x_data=x)
    low, high = (
        float(v) for v in re.findall(r"varies between about ([\d.]+) and ([\d.]+)", text)[0]
    )
    assert low > 5.0 and high > 50.0  # the whole cycle's swings, not the line's
