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


def test_a_step_the_data_do_not_take_at_its_date_says_so() -> None:
    """Held-out wool: 'a fall of about 1,140 around October 1971' while the data held at
    about 7,040 through 1972 and fell in 1973-75, other components undoing the step."""
    from abcd_cli.kernels import C, Outside
    from abcd_cli.reporting.switch_text import step_sentences
    from tests.reporting.test_describe import make_facts, prod

    grid = np.linspace(1965.0, 2000.0, 701)
    level = np.where(grid < 1971.75, 1140.0, 0.0)
    facts = make_facts(prod(C((1.0,)), Outside((1985.0, 26.5, 0.02))), level, grid=grid)
    on = [Interval(-math.inf, 1971.75, 0.0, 0.02)]
    late = np.where(QUARTERS < 1973.0, 7040.0, 5100.0)  # the data fall a year later
    text = " ".join(step_sentences(on, facts, YEAR, QUARTERS, late))
    assert "a fall of about 1,140 around" in text
    assert "The data themselves move only by about −388 around October 1971" in text
    prompt = np.where(QUARTERS < 1971.75, 7040.0, 5900.0)  # the data fall with it
    assert "The data themselves" not in " ".join(step_sentences(on, facts, YEAR, QUARTERS, prompt))
