"""A component gathered from terms of one kind is worded as one (reporting/gathered.py through
phrases.noun_phrase, paragraphs.component_paragraph, extrapolation.describe_extrapolation), and
an end of a window beyond the data is not stated."""

from __future__ import annotations

import numpy as np

from abcd_cli.decompose.facts import Axis
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.reporting.extrapolation import describe_extrapolation
from abcd_cli.reporting.phrases import noun_phrase
from tests.reporting.test_describe import make_facts

AXIS = Axis("year", "year", "y")
X = np.linspace(1900.0, 1970.0, 200)
PER = "Per(lengthscale=1, period={}, sd=1)"


def test_one_cycle_with_growing_amplitude_reads_as_one_periodic_function() -> None:
    lin = "Lin(sd=0.1, location=1890)"
    kernel = parse_kernel(f"{PER.format(1.0)} * {lin} + {PER.format(1.01)} * {lin} * {lin}")
    phrase = noun_phrase(kernel, AXIS, x_data=X)
    assert phrase == "a periodic function with a period of 1.0 year and increasing amplitude"


def test_a_cycle_split_over_windows_reads_as_one_with_where_it_applies() -> None:
    early = f"{PER.format(11.0)} * Before(location=1920, steepness=0.5)"
    late = f"{PER.format(11.2)} * After(location=1940, steepness=0.5)"
    phrase = noun_phrase(parse_kernel(f"{early} + {late}"), AXIS, x_data=X)
    assert phrase.startswith("a periodic function with a period of 11.2 years")  # the larger
    assert "whose amplitude changes across the data" in phrase
    assert phrase.endswith("applies before 1920 and after 1940")


def test_polynomial_terms_read_as_the_largest_degree() -> None:
    lin = "Lin(sd=1, location=1890)"
    phrase = noun_phrase(parse_kernel(f"{lin} + {lin} * {lin}"), AXIS, x_data=X)
    assert phrase == "a quadratic function"


def test_a_window_closing_after_the_data_end_is_stated_as_open() -> None:
    kernel = parse_kernel(
        "SE(lengthscale=5, sd=1) * After(location=1920, steepness=0.5)"
        " * Before(location=1989, steepness=0.5)"
    )
    phrase = noun_phrase(kernel, AXIS, x_data=X)
    assert phrase.endswith("applies from 1920 onwards"), phrase
    assert "1989" not in phrase


def test_a_switch_as_slow_as_the_data_scales_and_does_not_switch_the_component_off() -> None:
    """A soft changepoint (its switch as long as the data) beside a sharp one: the sharp one
    says where the component applies; their exact intervals do not overlap, which once read
    'switched off everywhere' of a component explaining 60% of the data."""
    x = np.linspace(1962.0, 1977.0, 180)
    kernel = parse_kernel(
        "After(location=1976, steepness=14) * Before(location=1974.1, steepness=0.008)"
        " * SE(lengthscale=1.5, sd=1)"
    )
    phrase = noun_phrase(kernel, AXIS, x_data=x)
    assert phrase.startswith("a smooth function which applies until") and "1974" in phrase


def test_gathered_periods_that_differ_are_both_said_with_why_they_are_one() -> None:
    """Internet: periods of 24.0 and 24.4 hours gathered and said as 'two terms of the model
    with this period', as if they were one."""
    from abcd_cli.reporting.gathered import gathered, gathered_sentence

    hours = Axis("number", "hours", "traffic")
    x = np.arange(1000.0)  # 1000 hours
    kernel = parse_kernel(
        "Per(lengthscale=0.5, period=24.0, sd=1.0) + Per(lengthscale=0.7, period=24.4, sd=1.0)"
    )
    together = gathered(kernel, x)
    assert together is not None
    text = gathered_sentence(together, hours, x)
    assert "periods of 24.0 and 24.4 hours" in text
    assert "with this period" not in text
    drift = 1000.0 * abs(1 / 24.0 - 1 / 24.4)  # 0.68 of a cycle over the data
    assert f"drift apart by only {drift:.2f} of a cycle" in text


def test_a_cycle_is_carried_on_at_the_period_of_the_term_on_at_the_datas_end() -> None:
    """Call centre: a 62.1-month cycle until 1974 (the larger over the data) and a 59.9-month
    one throughout; past the data only the second repeats, so the forecast's period is its."""
    early = "Per(lengthscale=1, period=5.17, sd=3) * Before(location=1960, steepness=0.5)"
    kernel = parse_kernel(f"{early} + {PER.format(4.99)}")
    facts = make_facts(kernel, grid=X)
    text = describe_extrapolation(facts, AXIS, x_data=X)
    assert "keep repeating every 5.0 years" in text
    assert noun_phrase(kernel, AXIS, x_data=X).startswith(
        "a periodic function with a period of 5.2"
    )
    # the heading's 5.2 years and the forecast's 5.0 are told apart, not left to contradict
    assert "(the 5.2 years of its heading is that of the term holding most of it" in text, text
    one = describe_extrapolation(make_facts(parse_kernel(PER.format(4.99)), grid=X), AXIS, x_data=X)
    assert "its heading" not in one


def test_a_modulated_cycle_is_carried_on_still_following_its_modulating_cycle() -> None:
    """Radio: 'keep repeating every 1.0 year' for a yearly cycle whose size the 10-year cycle
    sets in its figure; past the data the model keeps that modulation, and now says so."""
    decade = "Per(lengthscale=2, period=10.0, sd=0.5)"
    kernel = parse_kernel(f"{PER.format(1.0)} + {PER.format(1.0)} * {decade}")
    text = describe_extrapolation(make_facts(kernel, grid=X), AXIS, x_data=X)
    assert text.startswith("Beyond the data it is assumed to keep repeating every 1.0 year")
    assert text.endswith(
        "its amplitude still following a periodic function with a period of 10.0 years."
    )


def test_a_growing_modulated_cycle_says_its_amplitude_once() -> None:
    """Airline: 'its amplitude still growing, its amplitude still following a periodic
    function with a period of 4.4 years' now reads '... still growing and following ...'."""
    lin = "Lin(sd=0.1, location=1890)"
    cycle = f"{PER.format(1.0)} * {lin}"
    kernel = parse_kernel(f"{cycle} + {cycle} * Per(lengthscale=2, period=4.4, sd=0.5)")
    text = describe_extrapolation(make_facts(kernel, grid=X), AXIS, x_data=X)
    assert text.count("its amplitude") == 1
    assert "its amplitude still growing and following a periodic function" in text
