"""A component gathered from terms of one kind is worded as one (reporting/gathered.py through
phrases.noun_phrase, paragraphs.component_paragraph, extrapolation.describe_extrapolation), and
an end of a window beyond the data is not stated."""

from __future__ import annotations

from dataclasses import replace

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


# ---------------------------------------------- smooth sides of a change window (issue 63)

SHARP = "(location=1935, width=30, steepness=0.5)"
SIDES = (
    f"SE(lengthscale=10, sd=1) * Inside{SHARP}"
    f" + SE(lengthscale=10, sd=3) * Lin(sd=0.1, location=1850) * Outside{SHARP}"
)


def _stepped_curve(grid: np.ndarray) -> np.ndarray:
    """A slow curve that steps up by 8 where the window begins (1920) and down by 8 where it
    ends (1950): two separate smooth functions joined at the window's edges."""
    inside = (grid >= 1920.0) & (grid < 1950.0)
    return np.sin((grid - 1900.0) / 10.0) + 8.0 * inside


def test_smooth_sides_of_a_window_say_where_they_switch_and_the_curves_steps() -> None:
    """Wheat: 'a smooth function whose amplitude changes across the data ... between about
    2.07 and 43.7' (the prior sd of its two sides) beside a curve reaching 77.1 and stepping
    at 1715 and 1794, where a change window no sentence named begins and ends."""
    from abcd_cli.reporting.paragraphs import component_paragraph

    kernel = parse_kernel(SIDES)
    facts = make_facts(kernel, _stepped_curve(X), grid=X)
    phrase = noun_phrase(kernel, AXIS, x_data=X)
    assert phrase == "a smooth function which changes character around 1920 and 1950"
    text = component_paragraph(facts, AXIS, 0.5, x_data=X)
    assert "amplitude" not in text
    assert "a window in time, which begins around 1920 and then ends around 1950" in text
    assert "inside the window and outside it alike it varies over about 10.0 years" in text
    assert text.count("10.0 years") == 1  # not again as 'It varies smoothly over about ...'
    # measured on the curve one switch width (1 year) either side: up by 8 into the window
    assert (
        "its curve steps, in the units of y: from about 0.946 to 8.86 around 1920 and from"
        " about 7.02 to −0.926 around 1950" in text
    )
    assert "where it applies" not in text.lower()
    assert (
        "Over the data it rises from about 0 at the start of the data to about 8.91 around" in text
    )


def test_a_soft_window_among_smooth_terms_is_named_and_said_to_blend() -> None:
    """Sulphuric: a 0.64-year window at 1974 whose edges take 5 years lets one smooth term
    swell there (its curve notches, its band widens); no sentence named it, and its prior sd
    was called the amplitude, 'between about 17.4 and 124'."""
    from abcd_cli.reporting.paragraphs import component_paragraph

    soft = "(location=1935, width=0.6, steepness=2.5)"
    kernel = parse_kernel(f"SE(lengthscale=10, sd=1) + SE(lengthscale=10, sd=20) * Inside{soft}")
    facts = make_facts(kernel, np.sin((X - 1900.0) / 10.0), grid=X)
    swollen = 1.0 + 9.0 * np.exp(-0.5 * ((X - 1935.0) / 1.5) ** 2)  # sd 1, 10 at 1935
    facts = replace(facts, sd=swollen)
    phrase = noun_phrase(kernel, AXIS, x_data=X)
    assert phrase == "a smooth function"
    text = component_paragraph(facts, AXIS, 0.5, x_data=X)
    assert "amplitude" not in text
    # jargon no more: 'a change window of the model (about 7.2 months wide) ... its edges are
    # soft (each spread over about 5.0 years)' read as a contradiction
    assert "Around 1935 the model passes gradually from one of its terms to another, over" in text
    assert "about 5.0 years either way" in text and "change window" not in text
    band = "(two standard deviations) is wider than elsewhere: up to about ±19.9, against about"
    assert band in text and "±2.00 over the rest of the data" in text
    assert "where it applies" not in text.lower()


def test_a_polynomial_split_at_a_changepoint_says_where_its_sides_switch() -> None:
    """A trend gathered from the two sides of a changepoint: the lead side's gate once read
    'where it applies' of a component that applies everywhere."""
    from abcd_cli.reporting.paragraphs import component_paragraph

    gate = "(location=1940, steepness=0.5)"
    kernel = parse_kernel(
        f"Lin(sd=1, location=1900) * Before{gate} + Lin(sd=1, location=1900) * After{gate}"
    )
    mean = np.where(X < 1940.0, X - 1900.0, 100.0 - (X - 1940.0))
    text = component_paragraph(make_facts(kernel, mean, grid=X), AXIS, 0.5, x_data=X)
    assert "a change point in time, which lies around 1940" in text
    assert "it follows a separate trend on each side" in text
    assert "its curve steps, in the units of y: from about 39.0 to 99.0 around 1940" in text
    assert "where it applies" not in text.lower()


def test_two_gathered_smooth_components_that_read_alike_name_their_scales() -> None:
    """Wheat's components 2 and 3 (the sides of one window, varying over 19.5 years and 10.9
    months) had the same heading: twins are told apart by scale, which a gathered component's
    sum of terms, having no factors of its own, never got."""
    from abcd_cli.decompose.components import decompose
    from abcd_cli.model import Model
    from abcd_cli.reporting.component_text import component_phrases
    from tests.reporting.test_report import fixed_model

    first = fixed_model()
    window = "location=2004, width=2, steepness=0.05"
    text = (
        f"CW(SE(lengthscale=3.0, sd=5.0), SE(lengthscale=3.0, sd=5.0), {window})"
        f" + CW(SE(lengthscale=0.2, sd=2.0), SE(lengthscale=0.2, sd=2.0), {window}) + WN(sd=1.0)"
    )
    kernel = first.scaling.kernel_in(parse_kernel(text))
    model = Model(kernel, first.scaling, first.x, first.y, first.nll)
    dec = decompose(model, (Axis("year", "date", "sales"),), extrapolate=0.2, seed=0)
    phrases = [
        p for c, p in zip(dec.components, component_phrases(dec), strict=True) if not c.is_noise
    ]
    assert len(phrases) == 2 and len(set(phrases)) == 2, phrases
    assert any("on a scale of about 3.0 years" in p for p in phrases)
    assert not any("amplitude" in p for p in phrases)


def test_a_negligible_term_does_not_modulate_a_gathered_cycle() -> None:
    """Airline: a yearly cycle gathered from a large term and one of 0.02% of its variance
    whose second factor is a 4.4-year cycle read 'modulated by a periodic function with a
    period of 4.4 years', which its figure does not show; a term of a fair share still does."""
    big = "Per(lengthscale=1, period=1.0, sd=3) * SE(lengthscale=30, sd=1)"
    faint = "Per(lengthscale=1, period=1.0, sd=1) * Per(lengthscale=1, period=4.4, sd=0.04)"
    phrase = noun_phrase(parse_kernel(f"{big} + {faint}"), AXIS, x_data=X)
    assert phrase.startswith("an approximately periodic function with a period of 1.0 year")
    assert "4.4" not in phrase, phrase
    fair = faint.replace("sd=0.04", "sd=2")
    assert "modulated by a periodic function with a period of 4.4 years" in noun_phrase(
        parse_kernel(f"{big} + {fair}"), AXIS, x_data=X
    )
