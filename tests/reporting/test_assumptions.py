"""The forecast's assumptions (reporting/assumptions.py): a level that change factors keep
scaling past the data is said by what its curve does there, not in a smooth term's or a
cycle's words (gas production: 'components 1 and 2 ease back to nothing a few of their own
lengths past the data', component 1 being a level)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from abcd_cli.data.scaling import Scaling
from abcd_cli.decompose.components import Decomposition, decompose
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model
from abcd_cli.reporting.assumptions import assumptions_paragraph
from abcd_cli.reporting.extrapolation import level_move
from tests.axes import YEAR

GATE = "(location=1960.0, width=40.0, steepness=10.0)"
KERNEL = f"C(sd=1.0) * Inside{GATE} + Outside{GATE} * SE(lengthscale=4.0, sd=1.0) + WN(sd=0.05)"


@pytest.fixture(scope="module")
def made() -> Decomposition:
    """Forty years of monthly data rising ever faster (as gas production does), under a
    model whose first term is a level that a soft window scales, gas production's structure."""
    rng = np.random.default_rng(0)
    x = 1956.0 + np.arange(0.0, 40.0, 1.0 / 12.0)
    y = 4.0 * np.exp((x - 1996.0) / 8.0) + 0.05 * rng.standard_normal(x.size)
    scaling = Scaling.from_data(x, y)
    model = Model(scaling.kernel_in(parse_kernel(KERNEL)), scaling, x, y, 0.0)
    return decompose(model, (YEAR,))


def test_a_scaled_level_is_said_by_where_its_curve_goes(made) -> None:
    text = assumptions_paragraph(made)
    assert "component 2 eases back to nothing a few of its own lengths" in text  # a smooth term
    assert "components 1 and 2 ease back" not in text and "component 1 eases" not in text
    level = made.components[0]
    x, mean = level.x_grid, level.mean
    last = float(made.model.X[:, 0].max())
    start, end = float(np.interp(last, x, mean)), float(mean[-1])
    said = re.findall(
        r"the level of component 1 (\w+ \w+) the series' mean, from about ([−\d.]+)"
        r" at the end of the data to about ([−\d.]+) by",
        text,
    )
    assert said, text
    way, a, b = said[0]
    assert way == level_move(start, end) == ("rises towards" if start < 0 else "falls towards")
    assert float(a.replace("−", "-")) == pytest.approx(start, rel=0.02)
    assert float(b.replace("−", "-")) == pytest.approx(end, rel=0.02)


def test_a_level_moving_away_from_its_reference_says_so() -> None:
    assert level_move(-5.0, -1.0) == "rises towards"
    assert level_move(5.0, 1.0) == "falls towards"
    assert level_move(1.0, 5.0) == "rises further above"
    assert level_move(-1.0, -5.0) == "falls further below"


def test_noise_whose_size_changes_is_not_said_to_be_held_constant() -> None:
    """Noise that a linear factor scales keeps changing past the data, as its own sentence
    says; the assumptions hold constant how it changes, not its size (seven of the 13 series'
    reports read 'Held constant throughout: ... the noise's size' beside it)."""
    x = 1956.0 + np.arange(0.0, 20.0, 1.0 / 12.0)
    rng = np.random.default_rng(1)
    y = np.sin(x) + 0.05 * (x - 1950.0) * rng.standard_normal(x.size)
    scaling = Scaling.from_data(x, y)
    for text, changing in (
        ("SE(lengthscale=1.0, sd=1.0) + Lin(sd=0.05, location=1950.0) * WN(sd=1.0)", True),
        ("SE(lengthscale=1.0, sd=1.0) + WN(sd=0.5)", False),
    ):
        model = Model(scaling.kernel_in(parse_kernel(text)), scaling, x, y, 0.0)
        words = assumptions_paragraph(decompose(model, (YEAR,)))
        said = "the noise's size and how it changes with year" in words
        assert said == changing, words
        assert "the noise's size" in words


def test_components_easing_back_that_move_the_forecast_far_say_so(made) -> None:
    """Gas production: the forecast's mean falls by about 25,600 by 2003 only because smooth
    components ease back past the data, which the assumptions named without saying how much."""
    text = assumptions_paragraph(made)
    assert re.search(
        r"By 2003 the return of components 1 and 2 towards the series' mean lowers the forecast"
        r" by about 1\.81,"
        r" about 45% of the data's range: that is this assumption at work, not a fall the"
        r" data show\.",
        text,
    ), text
    assert "Far from the data the forecast therefore returns to the series' mean (0.79)." in text
