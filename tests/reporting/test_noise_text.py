"""How the noise's standard deviation is said to move across the data."""

from __future__ import annotations

import numpy as np

from abcd_cli.kernels import WN, After, Before, Inside, Lin, Outside, Sum
from abcd_cli.reporting.describe import component_paragraph, noun_phrase
from tests.axes import YEAR
from tests.reporting.test_describe import make_facts, prod

X = np.arange(1500.0, 1870.0)
GRID = np.linspace(1500.0, 1900.0, 401)


def test_a_noise_that_halves_before_it_quadruples_is_not_increasing_overall() -> None:
    """Wages: 'uncorrelated noise with standard deviation increasing overall ... rising overall
    from about 0.344 ... though not steadily' while it falls to 0.165 by 1800 first."""
    kernel = Sum(
        (
            prod(Before((1800.0, 20.0)), Lin((0.0008, 2230.0)), WN((1.0,))),
            prod(After((1800.0, 20.0)), Lin((0.012, 1790.0)), WN((1.0,))),
        )
    )
    phrase = noun_phrase(kernel, YEAR, x_data=X)
    assert "overall" not in phrase and phrase.endswith("with varying standard deviation")
    text = component_paragraph(make_facts(kernel, grid=GRID, is_noise=True), YEAR, x_data=X)
    assert (
        "its standard deviation falls from about 0.584 at the start of the data to about 0.170"
        " around 1804 and then rises to about 0.947 at the end of the data." in text
    )


def test_a_noise_that_steps_and_stays_says_so() -> None:
    """Wheat: rising to 1714, about 0.0044 between 1714 and 1794, rising after: 'ranges ...
    rising overall ..., though not steadily' named none of it."""
    window = (1754.0, 80.0, 0.05)
    kernel = Sum(
        (
            prod(Inside(window), WN((0.0044,))),
            prod(Lin((0.0000363, 1483.0)), Outside(window), WN((1.0,))),
        )
    )
    text = component_paragraph(make_facts(kernel, grid=GRID, is_noise=True), YEAR, x_data=X)
    assert (
        "rises from about 0.000617 at the start of the data to about 0.00832 around 1712, falls"
        " to about 0.00440 around 1714, stays there until 1793 and then rises to about 0.0140"
        " at the end of the data." in text
    )


def test_a_noise_pinched_by_a_line_crossing_zero_says_so() -> None:
    """Lynx: 'its standard deviation falls from about 334 ... to about 0.475 around 1876' was
    stated as a quiet spell of the data; it is where the line scaling it crosses zero."""
    kernel = prod(Lin((1.0, 1700.0)), WN((1.0,)))
    facts = make_facts(kernel, grid=GRID, is_noise=True)
    text = component_paragraph(facts, YEAR, x_data=X)
    assert "is where the straight line that scales it crosses zero" in text
    assert "about 0.740 around 1699" in text  # the grid point nearest the zero
    steady = prod(Lin((1.0, 1400.0)), WN((1.0,)))  # its zero lies before the data
    text = component_paragraph(make_facts(steady, grid=GRID, is_noise=True), YEAR, x_data=X)
    assert "crosses zero" not in text


def test_a_noise_negligible_beside_the_data_says_so() -> None:
    """Wheat: 'uncorrelated noise with standard deviation increasing overall ... from about
    0.000621 ... to about 0.0131' on prices whose standard deviation is 67.1, the scatter from
    year to year taken up by another component."""
    kernel = prod(Lin((0.00004, 1483.0)), WN((1.0,)))
    facts = make_facts(kernel, grid=GRID, is_noise=True)
    prices = 100.0 + 67.1 * np.sin(np.arange(X.size))
    text = component_paragraph(facts, YEAR, x_data=X, y_data=prices)
    assert "It is negligible beside the data's own spread (a standard deviation of" in text
    small = 0.1 * np.sin(np.arange(X.size))
    assert "negligible" not in component_paragraph(facts, YEAR, x_data=X, y_data=small)
