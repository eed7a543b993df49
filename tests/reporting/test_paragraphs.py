"""A component's paragraph checked against its own fitted curve (reporting/paragraphs.py over
reporting/curves.py): a cycle's amplitude as the curve shows it, modulated by the cycle that
multiplies it; a trend's shape where it applies."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from abcd_cli.kernels import SE, After, Before, C, Lin, Per, Sum
from abcd_cli.reporting.curves import amplitude_trend
from abcd_cli.reporting.describe import component_paragraph, mean_trend, noun_phrase
from abcd_cli.reporting.extrapolation import describe_extrapolation
from tests.axes import YEAR
from tests.reporting.test_describe import GRID, X_DATA, make_facts, prod

YEARLY = Per((1.0, 1.0, 1.0))
DECADE = Per((1.0, 10.0, 1.0))


def _modulated_curve(grid: np.ndarray) -> np.ndarray:
    """A yearly cycle whose size swings between 1 and 3 with a 10-year cycle."""
    return np.sin(2 * np.pi * grid) * (2.0 + np.cos(2 * np.pi * grid / 10.0))


def test_a_modulated_cycle_is_not_said_to_keep_a_steady_amplitude() -> None:
    """Radio's yearly cycle read 'Its amplitude stays about 1.40 across the data' while its
    figure swung between 1 and 3 with the 10-year cycle."""
    kernel = Sum((prod(YEARLY, C((1.0,))), prod(YEARLY, DECADE)))
    facts = make_facts(kernel, _modulated_curve(GRID))
    text = component_paragraph(facts, YEAR, x_data=X_DATA)
    assert "stays about" not in text
    low, high = (
        float(v) for v in re.findall(r"varies between about ([\d.]+) and ([\d.]+)", text)[0]
    )
    assert 0.9 < low < 1.2 and 2.8 < high < 3.1  # the curve's sizes: 2 ± 1
    assert "as a periodic function with a period of 10.0 years modulates it" in text
    phrase = noun_phrase(kernel, YEAR, x_data=X_DATA)
    assert "modulated by a periodic function with a period of 10.0 years" in phrase


def test_a_modulated_cycles_heading_reads_as_one_phrase() -> None:
    """Radio's heading read 'a periodic function with a period of 1.0 year and modulated by
    a periodic function with a period of 10.0 years whose amplitude changes across the data':
    a dangling 'and', and a 'whose' that seemed to speak of the 10-year cycle."""
    kernel = Sum((prod(YEARLY, C((1.0,))), prod(YEARLY, DECADE)))
    phrase = noun_phrase(kernel, YEAR, x_data=X_DATA, amplitude="changing")
    assert phrase == (
        "a periodic function with a period of 1.0 year, modulated by a periodic function"
        " with a period of 10.0 years"
    )
    growing = noun_phrase(kernel, YEAR, x_data=X_DATA, amplitude="increasing")
    assert growing == (
        "a periodic function with a period of 1.0 year and increasing amplitude, modulated by"
        " a periodic function with a period of 10.0 years"
    )


def test_a_steady_cycle_states_its_amplitude_in_the_data_units() -> None:
    facts = make_facts(prod(YEARLY, SE((20.0, 1.0))), 1.5 * np.sin(2 * np.pi * GRID))
    text = component_paragraph(facts, YEAR, x_data=X_DATA)
    assert "stays about 1.50 across the data" in text


def test_a_growing_amplitude_is_measured_from_the_curve_not_from_a_zero_before_the_data() -> None:
    """'in proportion to the distance from 1940' of data that begin in 1949 placed nothing a
    reader could see; the curve's sizes at both ends do."""
    lin = Lin((1.0, 1940.0))
    curve = 0.2 * (GRID - 1940.0) * np.sin(2 * np.pi * GRID)
    text = component_paragraph(make_facts(prod(YEARLY, lin), curve), YEAR, x_data=X_DATA)
    assert "1940" not in text
    assert "grows linearly across the data" in text and "in the last" in text


def _step_facts():
    """A linear factor, nearly flat at 177 over the data, switched off from 1955: a step."""
    kernel = prod(Lin((0.01, 1800.0)), Before((1955.0, 0.05)))
    curve = np.where(GRID < 1955.0, 177.0 + 0.05 * (GRID - 1949.0), 0.0)
    return kernel, make_facts(kernel, curve)


def test_a_flat_trend_that_switches_off_is_a_step_not_a_linear_trend() -> None:
    """'A linear trend' and 'linearly decreasing from 177 to 0' were said of a component flat
    at 177 that then switches off."""
    kernel, facts = _step_facts()
    direction = mean_trend(facts, X_DATA)
    assert direction == "flat"
    phrase = noun_phrase(kernel, YEAR, x_data=X_DATA, direction=direction)
    assert "linear" not in phrase and phrase.startswith("a constant level which applies until")
    text = component_paragraph(facts, YEAR, x_data=X_DATA)
    assert "linearly" not in text and "decreases" not in text
    assert "stays flat, at about 177" in text and "step" in text


def test_a_swing_about_a_level_that_switches_off_is_not_a_flat_step() -> None:
    """Solar's 11-year cycle, a smooth term switched on for part of the data, read 'Where it
    applies it stays flat, at about −0.0329: switching it acts as a step' while its figure
    swung between −0.45 and 0.6: its straight-line change was small, its swing was not."""
    kernel = prod(SE((1.5, 0.5)), Before((1957.0, 0.05)))
    curve = np.where(GRID < 1957.0, 0.5 * np.sin(2 * np.pi * (GRID - 1949.0) / 4.0), 0.0)
    facts = make_facts(kernel, curve)
    assert mean_trend(facts, X_DATA) == "not monotonic"
    text = component_paragraph(facts, YEAR, x_data=X_DATA)
    assert "stays flat" not in text and "step" not in text


def test_a_switched_levels_size_is_the_one_its_steps_give() -> None:
    """Solar's level read 'its level is about −0.501' and then 'a fall of about 0.464 ...
    then a rise of about 0.464': two sizes for one level."""
    curve = np.where((GRID > 1951) & (GRID < 1955), -0.464, 0.0)
    curve[np.argmin(np.abs(GRID - 1953.0))] = -0.501  # one grid point further out
    kernel = prod(C((0.5,)), After((1951.0, 0.05)), Before((1955.0, 0.05)))
    text = component_paragraph(make_facts(kernel, curve), YEAR, x_data=X_DATA)
    assert "level is about −0.464" in text and "a fall of about 0.464" in text
    assert "0.501" not in text


def test_a_level_switched_off_gives_the_size_and_direction_of_its_step() -> None:
    """A level drop was never given in the data's units."""
    facts = make_facts(prod(C((60.0,)), Before((1955.0, 0.05))), np.where(GRID < 1955, -66.1, 0.0))
    text = component_paragraph(facts, YEAR, x_data=X_DATA)
    assert "a rise of about 66.1 around" in text  # switching off a level of −66.1 raises y
    up = make_facts(prod(C((60.0,)), After((1955.0, 0.05))), np.where(GRID > 1955, 40.0, 0.0))
    assert "a rise of about 40.0 around" in component_paragraph(up, YEAR, x_data=X_DATA)


def test_a_large_r2_gain_with_a_small_cv_gain_is_explained() -> None:
    """17.5% of R² and 1.6% off the cross-validated error, without a word on why."""
    facts = make_facts(SE((1.0, 1.0)), delta_r2=0.175, cv_before=10.0, cv_after=9.84)
    text = component_paragraph(facts, YEAR, x_data=X_DATA)
    assert (
        "adds 17.5% to the variance explained but lowers the cross-validated error by only" in text
    )
    assert "left out" in text


def test_a_phrase_on_amplitude_follows_the_curve_not_the_factors_alone() -> None:
    """The linear factor (zero in 1940, before the data) would have the amplitude grow; the
    fitted curve's shrinks, so the heading must not say it increases."""
    kernel = prod(YEARLY, Lin((1.0, 1940.0)))
    curve = (3.0 - 0.2 * (GRID - 1949.0)) * np.sin(2 * np.pi * GRID)
    facts = make_facts(kernel, curve)
    text = component_paragraph(facts, YEAR, x_data=X_DATA)
    assert "increasing amplitude" not in text and "grows" not in text
    assert "decreasing amplitude" in text


def test_a_cycle_steady_over_the_data_is_not_said_to_vary_or_to_keep_growing() -> None:
    """Airline's 4.4-year cycle (Per × Lin) read 'and varying amplitude' in its heading,
    'stays about 11.8 across the data' in its paragraph and 'its amplitude still growing
    linearly' beyond the data: three claims on one curve whose amplitude is steady over the
    data and grows only past it."""
    kernel = prod(Per((1.0, 4.4, 1.0)), Lin((1.0, 1938.0)))
    beyond = np.clip(GRID - 1961.0, 0.0, None)
    curve = 12.0 * (1.0 + 0.3 * beyond) * np.sin(2 * np.pi * GRID / 4.4)
    facts = make_facts(kernel, curve)
    trend = amplitude_trend(facts, X_DATA)
    assert trend == "flat"
    phrase = noun_phrase(kernel, YEAR, x_data=X_DATA, amplitude=trend)
    assert phrase == "a periodic function with a period of 4.4 years"
    assert "stays about 12.0 across the data" in component_paragraph(facts, YEAR, x_data=X_DATA)
    beyond_text = describe_extrapolation(facts, YEAR, x_data=X_DATA)
    assert "with its amplitude growing linearly" in beyond_text and "still" not in beyond_text


def test_a_cycle_with_a_term_rougher_than_a_period_is_not_only_smooth() -> None:
    """Temperature's yearly cycle, gathered with a copy multiplied by a smooth factor of 1.3
    days, read only 'very smooth, close to a pure sinusoid' beside a jagged curve."""
    smooth_yearly = Per((5.0, 1.0, 1.0))
    kernel = Sum((smooth_yearly, prod(Per((5.0, 1.0, 1.0)), SE((0.0036, 1.0)))))
    text = component_paragraph(make_facts(kernel, np.sin(2 * np.pi * GRID)), YEAR, x_data=X_DATA)
    assert "rougher than that shape" in text and "1.3 days" in text
    plain = component_paragraph(
        make_facts(Sum((smooth_yearly, prod(Per((5.0, 1.0, 1.0)), SE((30.0, 1.0))))), None),
        YEAR,
        x_data=X_DATA,
    )
    assert "rougher" not in plain


def test_a_smooth_curve_that_goes_up_and_down_gives_its_range_in_units() -> None:
    """Nile and unemployment: 'It is not monotonic: over the data it goes both up and down',
    with no number a reader could place. It now follows the curve through its turns."""
    mean = 150.0 * np.exp(-(((GRID - 1952.0) / 1.5) ** 2)) - 80.0 * np.exp(
        -(((GRID - 1958.0) / 1.5) ** 2)
    )
    paragraph = component_paragraph(make_facts(SE((1.0, 1.0)), mean), YEAR, x_data=X_DATA)
    assert (
        "Over the data it rises from about 2.75 at the start of the data to about 150 around"
        " 1952, falls to about −80.0 around 1958 and then rises to about −1.83 at the end of"
        " the data." in paragraph
    )


def test_a_switched_level_with_no_plateau_is_not_said_as_a_level_with_steps() -> None:
    """Internet's posterior report: 'Where it applies, its level is about −23,400 ... a fall of
    about 23,400 around 25 December 2004 and then a rise' beside a curve that dips to about
    −27,000 in a V, its switches taking 1.3 weeks each on a ten-day window. It now says how
    far the level reaches and when; a level with a plateau keeps its steps."""
    from abcd_cli.kernels import Inside

    kernel = prod(C((1.0,)), Inside((1955.0, 4.0, 0.5)))
    dip = -27000.0 * np.exp(-(((GRID - 1955.0) / 1.6) ** 2))
    paragraph = component_paragraph(make_facts(kernel, dip), YEAR, x_data=X_DATA)
    assert "so it has no flat stretch there: it reaches about −27,000 around 1955" in paragraph
    assert "a fall of about" not in paragraph and "level is about" not in paragraph
    plateau = np.where((GRID > 1953.0) & (GRID < 1957.0), -27000.0, 0.0)
    paragraph = component_paragraph(make_facts(kernel, plateau), YEAR, x_data=X_DATA)
    assert "Where it applies, its level is about −27,000" in paragraph
    assert "a fall of about 27,000 around 1953" in paragraph


def test_a_smooth_part_shorter_than_the_spacing_is_said_to_jump_at_the_data() -> None:
    """Wheat's yearly prices: 'It varies smoothly over about 10.9 months' for a part whose
    values at the yearly data jump from one year to the next. The paragraph says the length is
    below the spacing and gives the fitted values' neighbour correlation; a part longer than
    the spacing gets no such sentence."""
    x = np.arange(1800.0, 1870.0)
    values = np.random.default_rng(0).standard_normal(x.size)
    grid = np.linspace(1800.0, 1880.0, 401)
    short = replace(make_facts(SE((0.9, 1.0)), grid=grid), data_mean=values)
    text = component_paragraph(short, YEAR, x_data=x)
    assert "shorter than the spacing of the data (1.0 year)" in text
    assert "jumps from one observation to the next" in text
    (r,) = re.findall(r"neighbouring observations correlate at (-?[\d.]+)", text)
    assert float(r) == pytest.approx(np.corrcoef(values[:-1], values[1:])[0, 1], abs=0.006)
    long = replace(make_facts(SE((5.0, 1.0)), grid=grid), data_mean=values)
    assert "spacing of the data" not in component_paragraph(long, YEAR, x_data=x)


def test_a_gradually_scaled_smooth_function_never_says_where_it_applies() -> None:
    """Unemployment's third component, a smooth function scaled by a window whose edges take
    11 years: 'where it applies it goes both up and down', though its text says only that its
    change factors do not switch it on or off."""
    from abcd_cli.kernels import Outside

    span = float(X_DATA[-1] - X_DATA[0])
    soft = Outside((float(X_DATA[0]) + span / 2, span / 2, span / 6))
    facts = make_facts(prod(SE((span / 20, 1.0)), soft), np.sin(GRID / (span / 20)))
    text = component_paragraph(facts, YEAR, x_data=X_DATA)
    assert "do not switch it on or off" in text
    assert "where it applies" not in text.lower()
    assert "over the data it goes both up and down" in text


def test_a_switched_level_whose_bottom_is_a_bell_is_called_a_level_not_a_constant() -> None:
    """Internet's greedy report: 'a constant which applies between 24 December 2004 and
    5 January 2005. Where it applies, its level is about −6,720', a bell that reaches −7,380
    around 30 December: its median where it applies is within a tenth of its extreme, but it
    stays that close over only half of the window. A plateau over the window keeps its words."""
    from abcd_cli.kernels import Inside

    kernel = prod(C((1.0,)), Inside((1955.0, 4.0, 0.5)))
    inside = (GRID > 1953.0) & (GRID < 1957.0)  # median 0.925 of the bottom, near it 58%
    bell = np.where(inside, -7380.0 * (1.0 - 0.3 * ((GRID - 1955.0) / 2.0) ** 2), 0.0)
    paragraph = component_paragraph(make_facts(kernel, bell), YEAR, x_data=X_DATA)
    assert paragraph.startswith("This component is a level which applies between")
    assert "no flat stretch there: it reaches about −7,380 around 1955" in paragraph
    flat = np.where(inside, -7380.0, 0.0)
    paragraph = component_paragraph(make_facts(kernel, flat), YEAR, x_data=X_DATA)
    assert paragraph.startswith("This component is a constant which applies between")
    assert "Where it applies, its level is about −7,380" in paragraph


def test_a_level_whose_band_holds_zero_says_so() -> None:
    """Radio's 'a constant. Its level is about 0.00386' and births' 'about 11.1' were stated as
    findings with bands of −0.125 to 0.133 and −10.3 to 32.5; a level that the data pin down
    keeps its plain sentence."""
    loose = make_facts(C((1.0,)), np.full(GRID.size, 11.1))
    loose = replace(loose, sd=np.full(GRID.size, 10.7))
    text = component_paragraph(loose, YEAR, x_data=X_DATA)
    assert "Its level is about 11.1. Its band of two standard deviations, from about −10.3" in text
    assert "to 32.5, includes zero: the data are consistent with no such level" in text
    tight = replace(loose, sd=np.full(GRID.size, 1.0))
    text = component_paragraph(tight, YEAR, x_data=X_DATA)
    assert "Its level is about 11.1." in text and "includes zero" not in text
    assert "is wide" not in text
    # internet's level of 14,000 with a band of 2,740 to 25,200
    wide = replace(loose, sd=np.full(GRID.size, 4.0))
    text = component_paragraph(wide, YEAR, x_data=X_DATA)
    assert "from about 3.10 to 19.1, is wide: the data pin its size down only loosely" in text


def test_a_curve_with_only_a_small_dip_is_said_to_go_one_way() -> None:
    """Unemployment: 'It is not monotonic: over the data it goes both up and down, between
    about −264 (around 1952) and 415 (around 1981)' of a level that triples after a dip of 4%
    of its range; lynx: the same of a curve falling the whole way but for a small uptick."""
    rising = np.where(
        GRID < 1952.0, -240.0 - 8.0 * (GRID - 1949.0), -264.0 + 70.0 * (GRID - 1952.0)
    )
    text = component_paragraph(make_facts(SE((1.0, 1.0)), rising), YEAR, x_data=X_DATA)
    assert "Over the data it mostly increases, from about −240 to about" in text
    assert "not monotonic" not in text
