"""The one-line description of a series (``abcd describe-data``)."""

from __future__ import annotations

import numpy as np

from abcd_cli.data.series import Series


def test_the_description_of_many_inputs_names_the_first_and_counts_the_rest() -> None:
    """Before: 2,000 columns made a line of 60 KB."""
    X = np.random.default_rng(1).normal(size=(30, 2000))
    names = tuple(f"column_{i}" for i in range(2000))
    series = Series(X, X[:, 0] + 1.0, "x", "y", "number", x_names=names, x_kinds=("number",) * 2000)
    line = series.description()
    assert "'column_7' from" in line and "'column_8'" not in line
    assert ", ... and 1,992 more, y 'y' from" in line
    assert len(line) < 600
