"""When a component switches, and a switch that too few observations lie beyond."""

from __future__ import annotations

import math

import numpy as np

from abcd_cli.reporting.factors import Interval
from abcd_cli.reporting.switch_text import interval_sentences
from tests.axes import YEAR

QUARTERS = 1965.0 + np.arange(0.0, 29.75, 0.25)  # wool: quarterly to mid-1994


def test_a_switch_near_the_end_of_the_data_says_how_few_observations_show_it() -> None:
    """Held-out wool: a yearly cycle 'switches off around January 1994' on the last two
    quarters, which still rose and fell as before; the report stated it as a dated event."""
    on = [Interval(1971.75, 1994.05, 0.02, 0.02)]
    text = " ".join(interval_sentences(on, YEAR, QUARTERS))
    assert "switches off around" in text
    assert "Only the last 2 observations lie after the switch" in text
    assert "Only the first" not in text  # 27 quarters lie before the first switch


def test_a_switch_well_inside_the_data_says_nothing_more() -> None:
    on = [Interval(1971.75, math.inf, 0.02, 0.0)]
    assert len(interval_sentences(on, YEAR, QUARTERS)) == 1
    early = [Interval(1965.6, math.inf, 0.02, 0.0)]  # the one switch: only its scarcer side
    (_, few) = interval_sentences(early, YEAR, QUARTERS)
    assert few.startswith("Only the first 3 observations lie before the switch")
