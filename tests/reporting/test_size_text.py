"""The size sentence of a component that change factors scale gradually (reporting/size_text.py):
one largest size, stated once (gas production's level read '100% of its largest at the start
of the data, largest around 1960 and 8% at the end')."""

from __future__ import annotations

import re

import numpy as np

from abcd_cli.kernels import Before, C
from abcd_cli.reporting.describe import component_paragraph
from abcd_cli.reporting.size_text import NEAR_LARGEST, gradual_sentences
from tests.axes import YEAR
from tests.reporting.test_describe import GRID, X_DATA, make_facts, prod


def _size_sentence(paragraph: str) -> str:
    return next(s for s in paragraph.split(". ") if "scale it gradually" in s)


def test_a_size_near_its_largest_at_the_start_states_one_largest() -> None:
    """A level (below the mean) at 99.3% of its largest at the data's start, largest a year
    later, then rising towards the mean: its largest is said once, and the start is not given
    a share that rounds to 100%."""
    level = prod(C((1.0,)), Before((1955.0, 3.0)))
    curve = -10.0 * np.exp(-(((GRID - 1950.0) / 12.0) ** 2))  # 0.9931 of its peak at 1949
    text = _size_sentence(component_paragraph(make_facts(level, curve), YEAR, x_data=X_DATA))
    assert text.count("largest") == 1, text
    assert "100%" not in text
    assert "largest around 1950" in text
    assert "about as large at the start of the data" in text
    end = float(re.findall(r"(\d+)% of that at the end", text)[0])
    assert abs(end - 100 * abs(np.interp(X_DATA[-1], GRID, curve)) / 10.0) < 1.0


def test_the_ends_get_a_share_only_below_near_largest() -> None:
    xs = np.array([1.0, 2.0, 3.0, 4.0])
    below = gradual_sentences((xs, np.array([0.5, 1.0, 0.9, 0.2])), YEAR, xs)[0]
    assert "50% of that at the start of the data and 20% of that at the end" in below
    at_end = gradual_sentences((xs, np.array([0.1, 0.4, 0.7, 1.0])), YEAR, xs)[0]
    assert "largest at the end of the data and 10% of that at the start" in at_end
    near = NEAR_LARGEST + 0.01
    flat = gradual_sentences((xs, np.array([near, 1.0, near, near])), YEAR, xs)[0]
    assert "%" not in flat and flat.count("largest") == 1
