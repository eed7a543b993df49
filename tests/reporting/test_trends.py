"""Curves restricted to the data (reporting/trends.py)."""

from __future__ import annotations

import numpy as np

from abcd_cli.kernels import C
from abcd_cli.reporting.trends import in_data_range
from tests.reporting.test_describe import make_facts


def test_the_data_range_holds_the_datas_own_ends() -> None:
    """A grid of 4-year steps misses data that end in 1994: the curve there is interpolated,
    so that a level's largest over the data and its value at the data's end agree (wages:
    'at its strongest, about 33.3' beside 'about 33.6 at the end of the data')."""
    grid = np.arange(1260.0, 2141.0, 4.0)
    facts = make_facts(C((1.0,)), np.exp((grid - 2000.0) / 50.0), grid=grid)
    x_data = np.arange(1261.0, 1995.0)
    x, mean = in_data_range(facts, x_data)
    assert x[0] == 1261.0 and x[-1] == 1994.0
    assert mean[-1] == np.interp(1994.0, grid, facts.mean) == mean.max()
    assert np.all(np.diff(x) > 0)
    on_grid = np.arange(1264.0, 1993.0)  # ends on grid points (1264, 1992): nothing added
    x, _ = in_data_range(facts, np.append(on_grid, 1992.0))
    assert x[0] == 1264.0 and x[-1] == 1992.0 and np.all(np.isin(x, grid))
