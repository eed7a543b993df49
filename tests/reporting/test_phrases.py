"""The words of a component's heading (reporting/phrases.py)."""

from __future__ import annotations

import numpy as np

from abcd_cli.reporting.phrases import gradual_clause
from tests.axes import YEAR


def test_a_curve_crossing_the_mean_is_not_said_weakest_where_it_crosses() -> None:
    """Airline by the sampler: a smooth function from −175 to 352 about the series' mean was
    headed 'which is weakest around 1955', where its |m| passes through zero."""
    x = np.linspace(1949.0, 1961.0, 144)
    centres = np.linspace(1949.5, 1960.5, 12)
    sizes = np.abs(np.linspace(-175.0, 352.0, 12))  # |m| per window: least where m crosses 0
    profile = (centres, sizes)
    assert gradual_clause(profile, YEAR, x, side=0, from_curve=True) == ""
    assert gradual_clause(profile, YEAR, x, side=0).startswith("which is weakest around 195")
    above = (centres, np.abs(sizes - 100.0) + 1.0)  # a curve that keeps one side: said
    assert gradual_clause(above, YEAR, x, side=1, from_curve=True).startswith("which is weakest")
