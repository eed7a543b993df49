"""Claims of a fitted curve checked against the data: a bend the data do not show."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from abcd_cli.kernels import Lin
from abcd_cli.reporting.data_checks import unshown_bend, unshown_bend_sentences
from abcd_cli.reporting.describe import component_paragraph
from tests.axes import YEAR
from tests.reporting.test_describe import GRID, X_DATA, make_facts


def _trend(partial: np.ndarray):
    """A linear component whose fitted curve rises ever faster (slope 19 then 32 a year, as
    call centre's), with ``partial`` as what the data less the other components show."""
    convex = 19.0 * (GRID - 1949.0) + 0.6 * (GRID - 1949.0) ** 2
    facts = make_facts(Lin((1.0, 1940.0)), convex)
    return replace(facts, partial=partial)


def test_a_bend_the_data_do_not_show_is_said_to_come_from_the_model() -> None:
    straight = 22.0 * (X_DATA - 1949.0)
    facts = _trend(straight)
    slopes = unshown_bend(facts, X_DATA)
    assert slopes is not None and abs(slopes[0] - 22.0) < 0.5 and abs(slopes[1] - 22.0) < 0.5
    text = component_paragraph(facts, YEAR, x_data=X_DATA)
    assert "so it rises ever faster. The data where it applies do not bear that bend out" in text
    assert "about 22.0 per year over the first third and 22.0 per year over the last" in text


def test_a_bend_the_data_show_is_not_questioned() -> None:
    bending = 19.0 * (X_DATA - 1949.0) + 0.6 * (X_DATA - 1949.0) ** 2
    facts = _trend(bending)
    assert unshown_bend(facts, X_DATA) is None
    assert unshown_bend_sentences(facts, YEAR, X_DATA) == []
