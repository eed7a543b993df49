"""What a component is said to do past the data, checked against its own fitted curve there
(reporting/extrapolation.py over reporting/curves.py)."""

from __future__ import annotations

import re

import numpy as np

from abcd_cli.kernels import SE, Before, C, Per
from abcd_cli.reporting.describe import describe_extrapolation
from tests.axes import YEAR
from tests.reporting.test_describe import GRID, X_DATA, make_facts, prod

CYCLE = prod(Per((1.0, 1.0, 1.0)), SE((2.0, 1.0)))
LAST = float(X_DATA[-1])


def test_a_cycle_that_fades_past_the_data_is_not_said_to_keep_repeating() -> None:
    """Its fitted curve dies away within a year or two of the data's end."""
    fade = np.where(GRID > LAST, np.exp(-(((GRID - LAST) / 1.0) ** 2)), 1.0)
    facts = make_facts(CYCLE, np.sin(2 * np.pi * GRID) * fade)
    text = describe_extrapolation(facts, YEAR, x_data=X_DATA)
    assert "keep repeating" not in text
    assert "fades" in text


def test_a_cycle_that_keeps_its_size_past_the_data_keeps_repeating() -> None:
    facts = make_facts(CYCLE, np.sin(2 * np.pi * GRID))
    text = describe_extrapolation(facts, YEAR, x_data=X_DATA)
    assert "keep repeating every 1.0 year" in text


def test_a_cycle_that_swells_past_the_data_says_by_how_much() -> None:
    """Wages' 104-year cycle, which change factors keep scaling up: its forecast swings three
    times as far as over the data's last period, which 'keeps repeating' alone would hide."""
    swell = np.where(GRID > LAST, 1.0 + (GRID - LAST), 1.0)  # 4 times by the grid's end
    facts = make_facts(CYCLE, np.sin(2 * np.pi * GRID) * swell)
    text = describe_extrapolation(facts, YEAR, x_data=X_DATA)
    assert text.startswith("Beyond the data it is assumed to keep repeating every 1.0 year")
    grown = re.findall(
        r"its swings grow past the data, from about ([\d.]+) over the data's last"
        r" period to about ([\d.]+) by 1964",
        text,
    )
    assert grown, text
    before, after = (float(v) for v in grown[0])
    assert abs(before - 1.0) < 0.02 and after > 3.0 * before
    # solar: 'to about 0.900 by 2091' beside swings of at most 0.478 in the data
    assert "times the largest the data show (1.00): that growth is the model's form" in text
    steady = describe_extrapolation(
        make_facts(CYCLE, np.sin(2 * np.pi * GRID)), YEAR, x_data=X_DATA
    )
    assert "swings grow" not in steady


def test_a_smooth_component_past_the_data_is_said_without_jargon() -> None:
    """'its mean returns to zero (its prior mean)' where a reader needs the forecast's
    return to the long-run trend."""
    text = describe_extrapolation(make_facts(SE((2.0, 1.0))), YEAR, x_data=X_DATA)
    assert "prior" not in text
    assert "the forecast returns to the long-run trend" in text


def test_a_level_scaled_gradually_past_the_data_is_not_said_to_stay_the_same() -> None:
    """Gas production's level, scaled by a soft change across the data, read 'The constant
    level is assumed to stay the same beyond the data' beside a curve still rising past it
    towards the series' mean. The sentence now gives where the curve goes."""
    level = prod(C((1.0,)), Before((1955.0, 3.0)))
    curve = -10.0 * np.exp(-(GRID - 1949.0) / 5.0)
    text = describe_extrapolation(make_facts(level, curve), YEAR, x_data=X_DATA)
    assert "stay the same" not in text
    at_end, far = (float(v.replace("−", "-")) for v in re.findall(r"about ([−\d.]+)", text)[:2])
    assert abs(at_end - float(np.interp(LAST, GRID, curve))) < 0.01
    assert abs(far - curve[-1]) < 0.01
