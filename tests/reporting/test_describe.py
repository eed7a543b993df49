"""English descriptions: units, dates, head nouns, change factors, trends, statistics, summary."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from abcd_cli.data.dates import calendar_year
from abcd_cli.decompose.facts import Axis, ComponentFacts, ModelCheck
from abcd_cli.kernels import (
    RQ,
    SE,
    WN,
    After,
    Before,
    C,
    Cos,
    Inside,
    Kernel,
    Lin,
    Outside,
    Per,
    Product,
    Sum,
)
from abcd_cli.reporting.describe import (
    CV_WARNING,
    component_paragraph,
    describe_checks,
    describe_extrapolation,
    mean_trend,
    noun_phrase,
    summary_sentences,
)
from abcd_cli.reporting.summary import _explained_sentence
from tests.axes import NUMBER, YEAR

X_DATA = np.arange(1949.0, 1961.0, 1.0 / 12.0)  # monthly, 1949-1960
GRID = np.linspace(1949.0, 1964.0, 301)
CW_PARAMS = (1680.0, 70.0, 1.5)  # window 1645-1715


def prod(*factors: Kernel) -> Product:
    return Product(tuple(factors))


def make_facts(
    kernel: Kernel,
    mean: np.ndarray | None = None,
    *,
    index: int = 1,
    cum_r2: float = 0.9,
    delta_r2: float = 0.4,
    residual_r2: float = 0.8,
    cv_before: float = 10.0,
    cv_after: float = 5.0,
    is_noise: bool = False,
    grid: np.ndarray = GRID,
) -> ComponentFacts:
    mean = np.zeros_like(grid) if mean is None else mean
    return ComponentFacts(
        index=index,
        kernel=kernel,
        x_grid=grid,
        mean=mean,
        sd=np.ones_like(grid),
        data_mean=mean[:10],
        cum_r2=cum_r2,
        delta_r2=delta_r2,
        residual_r2=residual_r2,
        cv_mae_before=cv_before,
        cv_mae=cv_after,
        is_noise=is_noise,
    )


# ------------------------------------------------------------------------------ head nouns


def test_base_kernel_heads() -> None:
    assert noun_phrase(SE((1.0, 1.0)), YEAR) == "a smooth function"
    assert noun_phrase(C((1.0,)), YEAR) == "a constant"
    assert noun_phrase(WN((1.0,)), YEAR) == "uncorrelated noise"
    assert noun_phrase(Lin((1.0, 1900.0)), YEAR) == "a linear trend"
    assert noun_phrase(Per((1.0, 1.0, 1.0)), YEAR).startswith("a periodic function")
    assert noun_phrase(Cos((1.0, 1.0)), YEAR).startswith("a sinusoid")
    rq = noun_phrase(RQ((1.0, 1.0, 0.5)), YEAR)
    assert rq.startswith("a smooth function") and "scales" in rq


def test_periodic_phrase_gives_the_period() -> None:
    assert "a period of 1.0 year" in noun_phrase(Per((1.0, 1.0, 1.0)), YEAR)
    assert "a period of 10.8 years" in noun_phrase(Per((1.0, 10.8, 1.0)), YEAR)
    assert "a period of 3.2 units of t" in noun_phrase(Per((1.0, 3.2, 1.0)), NUMBER)


def test_per_wins_over_se() -> None:
    phrase = noun_phrase(prod(SE((4.0, 1.0)), Per((1.0, 1.0, 1.0))), YEAR)
    assert phrase.startswith("an approximately periodic function")
    assert "smooth" not in phrase


def test_per_wins_over_lin() -> None:
    phrase = noun_phrase(prod(Lin((1.0, 1940.0)), Per((1.0, 1.0, 1.0))), YEAR, x_data=X_DATA)
    assert phrase.startswith("a periodic function")
    assert "linearly increasing amplitude" in phrase


def test_wn_wins_over_lin_and_direction_of_noise() -> None:
    rising = noun_phrase(prod(WN((1.0,)), Lin((1.0, 1940.0))), YEAR, x_data=X_DATA)
    falling = noun_phrase(prod(WN((1.0,)), Lin((1.0, 1970.0))), YEAR, x_data=X_DATA)
    inside = noun_phrase(prod(WN((1.0,)), Lin((1.0, 1955.0))), YEAR, x_data=X_DATA)
    assert rising == "uncorrelated noise with linearly increasing standard deviation"
    assert falling == "uncorrelated noise with linearly decreasing standard deviation"
    # lynx: a noise whose sd falls to 0.475 around 1876 and rises again, 'varying linearly'
    assert (
        inside
        == "uncorrelated noise whose standard deviation shrinks to nearly zero and grows again"
    )


def test_wn_times_stationary_is_still_noise() -> None:
    assert noun_phrase(prod(WN((1.0,)), SE((1.0, 1.0))), YEAR) == "uncorrelated noise"
    assert noun_phrase(prod(WN((1.0,)), Per((1.0, 1.0, 1.0))), YEAR) == "uncorrelated noise"


def test_lin_products() -> None:
    assert noun_phrase(prod(Lin((1.0, 0.0)), Lin((1.0, 2.0))), YEAR) == "a quadratic function"
    se_lin = noun_phrase(prod(SE((1.0, 1.0)), Lin((1.0, 1955.0))), YEAR, x_data=X_DATA)
    assert se_lin == "a smooth function whose amplitude shrinks to nearly zero and grows again"
    assert noun_phrase(Lin((1.0, 0.0)), YEAR, direction="increasing") == (
        "a linearly increasing function"
    )
    assert noun_phrase(Lin((1.0, 0.0)), YEAR, direction="decreasing") == (
        "a linearly decreasing function"
    )


def test_constant_factor_only_rescales() -> None:
    assert noun_phrase(prod(C((2.0,)), SE((1.0, 1.0))), YEAR) == "a smooth function"
    assert noun_phrase(prod(C((2.0,)), Lin((1.0, 0.0))), YEAR) == "a linear trend"


def test_airline_second_component() -> None:
    kernel = prod(SE((4.3, 1.0)), Per((0.7, 1.0, 0.4)), Lin((3.0, 1946.0)))
    phrase = noun_phrase(kernel, YEAR, x_data=X_DATA)
    assert phrase == (
        "an approximately periodic function with a period of 1.0 year and linearly increasing "
        "amplitude"
    )


def test_second_periodic_factor_modulates() -> None:
    phrase = noun_phrase(prod(Per((1.0, 1.0, 1.0)), Per((1.0, 7.0, 1.0))), YEAR)
    assert phrase.startswith("a periodic function with a period of 1.0 year")
    assert "modulated by a periodic function with a period of 7.0 years" in phrase


def test_sum_is_not_a_single_phrase() -> None:
    assert "covariance" in noun_phrase(Sum((SE((1.0, 1.0)), C((1.0,)))), YEAR)


# ------------------------------------------------------------------------------ change factors


def test_before_after_phrases() -> None:
    until = noun_phrase(prod(SE((1.0, 1.0)), Before((1643.0, 1.0))), YEAR)
    since = noun_phrase(prod(SE((1.0, 1.0)), After((1716.0, 1.0))), YEAR)
    assert until == "a smooth function which applies until 1643"
    assert since == "a smooth function which applies from 1716 onwards"


def test_window_phrases() -> None:
    inside = noun_phrase(prod(C((1.0,)), Inside(CW_PARAMS)), YEAR)
    outside = noun_phrase(prod(SE((1.0, 1.0)), Outside(CW_PARAMS)), YEAR)
    assert inside == "a constant which applies between 1645 and 1715"
    assert outside == "a smooth function which applies before 1645 and after 1715"


def test_change_factors_alone_are_a_constant() -> None:
    assert noun_phrase(Before((1643.0, 1.0)), YEAR) == "a constant which applies until 1643"


def test_several_change_factors_combine() -> None:
    kernel = prod(SE((1.0, 1.0)), After((1716.0, 1.0)), Before((1850.0, 1.0)))
    assert noun_phrase(kernel, YEAR).endswith("which applies between 1716 and 1850")
    never = prod(SE((1.0, 1.0)), After((1900.0, 1.0)), Before((1850.0, 1.0)))
    assert "switched off" in noun_phrase(never, YEAR)


def test_change_dates_use_the_switch_width_and_data_spacing() -> None:
    kernel = prod(SE((1.0, 1.0)), After((calendar_year(1955, 3, 14), 0.01)))  # a YEAR axis
    assert "from March 1955 onwards" in noun_phrase(kernel, YEAR, x_data=X_DATA)
    assert "from 14 March 1955 onwards" in noun_phrase(kernel, YEAR)
    on_numbers = noun_phrase(prod(SE((1.0, 1.0)), Before((4.25, 0.01))), NUMBER)
    assert on_numbers.endswith("which applies until t = 4.25")


def test_gates_from_a_changewindow_split() -> None:
    """A solar-like CW(SE × Per, C) gives SE × Per × Outside and C × Inside."""
    periodic = prod(Per((3.0, 10.8, 0.3)), SE((36.9, 1.0)), Outside(CW_PARAMS))
    phrase = noun_phrase(periodic, YEAR)
    assert phrase == (
        "an approximately periodic function with a period of 10.8 years which applies before "
        "1645 and after 1715"
    )


def test_change_factors_that_do_not_switch_within_the_data_are_not_described() -> None:
    """A window far softer than the data's span only rescales the component there, as a
    changepoint beyond the data's end does: no 'applies' clause and no switch sentences; the
    extrapolation still says where the changepoint switches it off."""
    year = np.arange(2010.0, 2011.0, 1.0 / 365.0)
    soft = (2010.49, 0.04, 1.0)  # steepness 1 year on a 1-year span: a factor 0.74-0.79
    for gate in (Outside(soft), Inside(soft)):
        kernel = prod(SE((0.2, 1.0)), gate)
        assert noun_phrase(kernel, YEAR, x_data=year) == "a smooth function"
        paragraph = component_paragraph(make_facts(kernel, grid=year), YEAR, x_data=year)
        assert "switch" not in paragraph and "applies" not in paragraph
    later = prod(SE((0.2, 1.0)), Before((2012.0, 0.01)))
    assert noun_phrase(later, YEAR, x_data=year) == "a smooth function"
    assert "switched off from 1 January 2012" in describe_extrapolation(make_facts(later), YEAR)
    # a sharp window inside the data still switches it, and says so
    sharp = prod(SE((0.2, 1.0)), Outside((2010.5, 0.2, 0.001)))
    assert "which applies before" in noun_phrase(sharp, YEAR, x_data=year)


def test_a_side_of_a_window_beyond_the_data_is_not_described() -> None:
    """A window from 2005 to mid-2010 on data of 2010: off at the data's start, on from mid-2010;
    its start five years before the data is not a switch the data show."""
    year = np.arange(2010.0, 2011.0, 1.0 / 365.0)
    kernel = prod(SE((0.2, 1.0)), Outside((2007.75, 5.5, 0.01)))
    assert noun_phrase(kernel, YEAR, x_data=year) == (
        "a smooth function which applies from 2 July 2010 onwards"
    )
    paragraph = component_paragraph(make_facts(kernel, grid=year), YEAR, x_data=year)
    assert "It switches on around 2 July 2010" in paragraph and "2005" not in paragraph
    assert "applies before 1 January 2005 and after" in noun_phrase(kernel, YEAR)  # no data: all


def test_change_factors_too_soft_to_switch_are_a_gradual_scaling() -> None:
    """A four-week window whose sides take a year on a one-year series (as on the San Francisco
    temperatures): not 'applies between 2010 and 2010' but where it is strongest, and how
    much it is scaled at the start and the end."""
    year = np.arange(2010.0, 2011.0, 1.0 / 365.0)
    soft = Inside((2010.64, 0.075, 0.535))
    kernel = prod(SE((0.05, 1.0)), soft)
    phrase = noun_phrase(kernel, YEAR, x_data=year)
    assert phrase == "a smooth function which is strongest around August 2010"
    paragraph = component_paragraph(make_facts(kernel, grid=year), YEAR, x_data=year)
    assert "scale it gradually" in paragraph and "largest around August 2010" in paragraph
    assert "switches on" not in paragraph
    assert "of that at the start of the data" in paragraph
    extrapolation = describe_extrapolation(make_facts(kernel, grid=year), YEAR, x_data=year)
    assert "switched off" not in extrapolation and "gradually" in extrapolation
    # a soft changepoint across the data, no curve to read: its size grows or shrinks
    rising = prod(SE((0.05, 1.0)), After((2010.5, 0.3)))
    assert noun_phrase(rising, YEAR, x_data=year).endswith("whose size grows across the data")
    falling = prod(SE((0.05, 1.0)), Before((2010.5, 0.3)))
    assert noun_phrase(falling, YEAR, x_data=year).endswith("whose size shrinks across the data")
    # a sharp window of the same place is still a window
    sharp = prod(SE((0.05, 1.0)), Inside((2010.64, 0.075, 0.002)))
    assert "which applies between" in noun_phrase(sharp, YEAR, x_data=year)


# ------------------------------------------------------------------------------ paragraphs


def test_paragraph_periodic_numbers_and_sinusoid() -> None:
    smooth_shape = make_facts(prod(SE((36.9, 1.0)), Per((3.0, 10.8, 0.3))))
    text = component_paragraph(smooth_shape, YEAR)
    assert "10.8 years" in text
    assert "sinusoid" in text
    assert "36.9 years" in text  # how the shape changes across periods
    spiky = component_paragraph(make_facts(Per((0.2, 1.0, 1.0))), YEAR)
    assert "spiky" in spiky
    assert "sinusoid" not in spiky


def test_paragraph_smooth_lengthscale() -> None:
    text = component_paragraph(make_facts(SE((2.3, 1.0)), np.sin(GRID)), YEAR)
    assert "varies smoothly over about 2.3 years" in text


@pytest.mark.parametrize(
    ("mean", "word"),
    [
        (GRID - 1950.0, "only increases"),
        (1950.0 - GRID, "only decreases"),
        (np.sin(GRID), "rises to about 1.00 around 1955, falls to about −1.00 around 1958"),
    ],
)
def test_paragraph_monotonic_trend(mean: np.ndarray, word: str) -> None:
    text = component_paragraph(make_facts(SE((5.0, 1.0)), mean), YEAR, x_data=X_DATA)
    assert word in text


def test_monotonic_judged_inside_the_data_range_only() -> None:
    mean = -np.abs(GRID - 1961.0)  # rises over the data, falls in the extrapolation
    facts = make_facts(SE((5.0, 1.0)), mean)
    assert mean_trend(facts, X_DATA) == "increasing"
    assert mean_trend(facts) == "not monotonic"
    assert mean_trend(make_facts(SE((5.0, 1.0)), 1e-3 * np.sin(40 * GRID) + GRID)) == "increasing"


def test_paragraph_linear_trend_slope_and_bullet_direction() -> None:
    facts = make_facts(Lin((30.0, 1944.0)), 30.0 * (GRID - 1944.0))
    text = component_paragraph(facts, YEAR, x_data=X_DATA)
    assert "a linearly increasing function" in text
    assert "30.0 per year" in text


def test_paragraph_amplitude_and_noise_direction() -> None:
    per_lin = make_facts(prod(Per((1.0, 1.0, 1.0)), Lin((1.0, 1940.0))))
    assert "grows linearly" in component_paragraph(per_lin, YEAR, x_data=X_DATA)
    noise = make_facts(prod(WN((1.0,)), Lin((1.0, 1970.0))), is_noise=True)
    assert "standard deviation shrinks linearly" in component_paragraph(noise, YEAR, x_data=X_DATA)


def test_paragraph_noise_level() -> None:
    text = component_paragraph(make_facts(WN((0.25,)), is_noise=True), YEAR)
    assert "standard deviation of about 0.250" in text


def test_paragraph_heteroscedastic_noise_numbers() -> None:
    kernel = prod(WN((1.0,)), Lin((2.0, 1944.0)))  # sd = 2 |x - 1944|
    text = component_paragraph(make_facts(kernel, is_noise=True), YEAR, x_data=X_DATA)
    assert "grows linearly, from about 10.0 to about 33.8" in text


def test_merged_noise_terms_read_as_one_noise() -> None:
    """decompose merges every noise term into one component, a sum of noise products."""
    kernel = Sum((WN((1.0,)), prod(WN((1.0,)), Lin((2.0, 1944.0)))))
    assert noun_phrase(kernel, YEAR) == "uncorrelated noise with varying standard deviation"
    phrase = noun_phrase(kernel, YEAR, x_data=X_DATA)
    assert phrase == "uncorrelated noise with increasing standard deviation"
    facts = make_facts(kernel, is_noise=True)
    assert "standard deviation grows" in component_paragraph(facts, YEAR, x_data=X_DATA)
    assert "uncorrelated" in describe_extrapolation(facts, YEAR)
    plain = Sum((WN((1.0,)), prod(WN((1.0,)), C((2.0,)))))
    assert noun_phrase(plain, YEAR) == "uncorrelated noise"
    assert "2.24" in component_paragraph(make_facts(plain, is_noise=True), YEAR)


def test_paragraph_change_dates() -> None:
    facts = make_facts(prod(SE((23.1, 1.0)), Outside(CW_PARAMS)), np.cos(GRID))
    text = component_paragraph(facts, YEAR, x_data=np.arange(1610.0, 2012.0))
    assert "switches off around 1645" in text
    assert "switches on around 1715" in text
    assert "3.0 years" in text  # each switch takes about 2 × steepness


def test_paragraph_statistics() -> None:
    facts = make_facts(
        SE((1.0, 1.0)),
        cum_r2=0.985,
        delta_r2=0.131,
        residual_r2=0.899,
        cv_before=34.03,
        cv_after=12.44,
    )
    text = component_paragraph(facts, YEAR, previous_r2=0.854)
    for number in ("89.9%", "85.4%", "98.5%", "63.4%", "34.0", "12.4"):
        assert number in text
    close = make_facts(SE((1.0, 1.0)), cum_r2=0.99312, delta_r2=0.0003)
    assert "99.28%" in component_paragraph(close, YEAR)
    assert "99.31%" in component_paragraph(close, YEAR)
    same = make_facts(SE((1.0, 1.0)), cum_r2=1.0, delta_r2=0.0)
    assert "unchanged at 100.0%" in component_paragraph(same, YEAR)


@pytest.mark.parametrize("index", [1, 2, 3, 4, 5])
def test_cv_warning_exactly_when_no_improvement(index: int) -> None:
    helps = make_facts(SE((1.0, 1.0)), index=index, cv_before=10.0, cv_after=9.0)
    idle = make_facts(SE((1.0, 1.0)), index=index, cv_before=10.0, cv_after=9.995)
    worse = make_facts(SE((1.0, 1.0)), index=index, cv_before=10.0, cv_after=10.5)
    assert CV_WARNING not in component_paragraph(helps, YEAR)
    assert CV_WARNING in component_paragraph(idle, YEAR)
    assert CV_WARNING in component_paragraph(worse, YEAR)
    assert "rises" in component_paragraph(worse, YEAR)
    slightly = make_facts(SE((1.0, 1.0)), index=index, cv_before=0.48760, cv_after=0.48809)
    assert "rises by 0.10%, from 0.4876 to 0.4881." in component_paragraph(slightly, YEAR)


def test_paragraph_openings_vary_with_index() -> None:
    openings = {
        component_paragraph(make_facts(SE((1.0, 1.0)), index=i), YEAR).split(" a smooth")[0]
        for i in range(1, 5)
    }
    assert len(openings) == 4
    again = component_paragraph(make_facts(SE((1.0, 1.0)), index=3), YEAR)
    assert again == component_paragraph(make_facts(SE((1.0, 1.0)), index=3), YEAR)


# ------------------------------------------------------------------------------ summary


def airline_components() -> list[ComponentFacts]:
    rows = [
        (Lin((30.0, 1944.0)), 0.854, 0.854, 0.854, 280.3, 34.03),
        (
            prod(SE((4.3, 1.0)), Per((0.7, 1.0, 0.4)), Lin((3.0, 1946.0))),
            0.985,
            0.131,
            0.899,
            34.03,
            12.44,
        ),
        (SE((0.9, 8.0)), 0.998, 0.013, 0.851, 12.44, 9.10),
        (prod(WN((0.4,)), Lin((1.0, 1947.0))), 1.0, 0.002, 1.0, 9.10, 9.10),
    ]
    return [
        make_facts(
            k,
            30.0 * (GRID - 1944.0) if i == 0 else np.sin(GRID),
            index=i + 1,
            cum_r2=cum,
            delta_r2=d,
            residual_r2=r,
            cv_before=b,
            cv_after=a,
            is_noise=i == 3,
        )
        for i, (k, cum, d, r, b, a) in enumerate(rows)
    ]


def test_summary_counts_and_stop_point() -> None:
    summary = summary_sentences(airline_components(), YEAR, x_data=X_DATA)
    assert "four" in summary["intro"]
    assert "The first 2 components explain 98.5%" in summary["explained"]
    assert "first 3 components" in summary["stops_improving"]
    bullets = summary["bullets"]
    assert len(bullets) == 4
    assert bullets[0] == "A linearly increasing function."
    assert bullets[1].startswith("An approximately periodic function with a period of 1.0 year")
    assert bullets[3] == "Uncorrelated noise with linearly increasing standard deviation."
    assert all(b[0].isupper() and b.endswith(".") for b in bullets)


def test_summary_does_not_repeat_the_same_share() -> None:
    comps = airline_components()
    comps[2] = make_facts(SE((1.0, 1.0)), index=3, cum_r2=0.9999, delta_r2=0.014)
    text = summary_sentences(comps, YEAR)["explained"]
    assert text.count("100.0%") == 1


def test_summary_every_component_helps() -> None:
    comps = airline_components()[:3]
    summary = summary_sentences(comps, YEAR)
    assert "three" in summary["intro"]
    assert "Every component" in summary["stops_improving"]


def test_summary_single_component() -> None:
    facts = make_facts(SE((1.0, 1.0)), cum_r2=0.7, delta_r2=0.7)
    summary = summary_sentences([facts], YEAR)
    assert "one additive component" in summary["intro"]
    assert "70.0%" in summary["explained"]


def test_summary_lists_components_that_do_not_help() -> None:
    comps = airline_components()
    comps[1] = make_facts(SE((1.0, 1.0)), index=2, cv_before=34.0, cv_after=34.0)
    text = summary_sentences(comps[:3], YEAR)["stops_improving"]
    assert "except component 2" in text


# ------------------------------------------------------------------------------ extrapolation


def test_extrapolation_by_kind() -> None:
    periodic = describe_extrapolation(make_facts(Per((1.0, 10.8, 1.0))), YEAR)
    assert "repeating" in periodic and "10.8 years" in periodic
    smooth = describe_extrapolation(make_facts(SE((2.3, 1.0))), YEAR)
    assert "eases back to nothing" in smooth and "a few times 2.3 years" in smooth
    assert "continue" in describe_extrapolation(make_facts(Lin((1.0, 0.0))), YEAR)
    noise = describe_extrapolation(make_facts(WN((1.0,)), is_noise=True), YEAR)
    assert "uncorrelated" in noise
    assert "same" in describe_extrapolation(make_facts(C((1.0,))), YEAR)


def test_extrapolation_switched_off_stays_off() -> None:
    off = describe_extrapolation(make_facts(prod(SE((1.0, 1.0)), Before((1850.0, 1.0)))), YEAR)
    assert "switched off from 1850" in off
    on = describe_extrapolation(make_facts(prod(Per((1.0, 10.8, 1.0)), Outside(CW_PARAMS))), YEAR)
    assert "repeating" in on


# ------------------------------------------------------------------------------ model checks


def test_checks_none_significant() -> None:
    text = describe_checks([ModelCheck("autocorrelation", "lag-1", 0.4)])
    assert text.startswith("None")
    # the body says what the checks do in a reader's words; the jargon is the appendix's
    assert "posterior predictive" not in text and "series simulated from the fitted model" in text
    assert "posterior predictive" not in describe_checks([])


def test_checks_significant_named() -> None:
    checks = [
        ModelCheck("autocorrelation", "largest autocorrelation", 0.01),
        ModelCheck("periodogram", "largest peak", 0.5),
        ModelCheck("quantile-quantile", "largest deviation", 0.002),
    ]
    text = describe_checks(checks)
    assert "autocorrelation check is significant" in text
    assert "p = 0.01" in text
    assert "quantile-quantile check is significant" in text
    assert "periodogram check shows nothing unusual" in text


def test_a_significant_check_says_where_the_residuals_depart() -> None:
    """Call centre: 'the residuals are still correlated from point to point' beside a panel
    whose lag 1 lies inside its band and whose lags 12 and 24 do not (a missed yearly
    pattern); the figures' pointwise bands left by a check that is not significant are
    explained rather than contradicted."""
    lags = np.arange(1.0, 31.0)
    acf = np.where(lags == 24.0, 0.28, np.where(lags == 12.0, 0.22, 0.02))
    band = np.full(lags.size, 0.1)
    seasonal = ModelCheck(
        "autocorrelation", "largest autocorrelation", 0.006, acf, -band, band, lags
    )
    freqs = np.linspace(0.01, 0.5, 50)
    power = np.where(np.isclose(freqs, freqs[11]), 6.9, 1.0)
    peaked = ModelCheck(
        "periodogram", "largest peak", 0.2, power, 0 * freqs, 4.0 + 0 * freqs, freqs
    )
    text = describe_checks([seasonal, peaked])
    assert "still correlated 12 and 24 observations apart (at 0.22 and 0.28)" in text
    assert "from point to point" not in text
    assert (
        "Points outside the 95% bands of the periodogram figure are no sign by themselves" in text
    )
    calm = describe_checks([peaked])
    assert calm.startswith("None") and "are no sign by themselves" in calm


def test_noise_that_mostly_grows_is_called_increasing():
    from abcd_cli.kernels import WN as _WN
    from abcd_cli.kernels import Lin as _Lin

    axis = Axis("year", "x", "y")
    x = np.linspace(2000.0, 2010.0, 121)
    near_edge = _WN((1.0,)) * _Lin((1.0, 2000.5))  # a small dip before the rise
    assert "increasing standard deviation" in noun_phrase(near_edge, axis, x_data=x)
    inside = _WN((1.0,)) * _Lin((1.0, 2003.0))  # falls for 3 years, then rises for 7
    assert "standard deviation shrinks to nearly zero and grows again" in noun_phrase(
        inside, axis, x_data=x
    )


def test_noise_that_falls_below_its_start_is_not_increasing_overall():
    """A standard deviation that rises, falls to nearly zero, then rises far higher was
    'increasing overall'; below its start on the way, it is varying, and its paragraph
    follows each turn (``noise_text``)."""
    from abcd_cli.kernels import WN as _WN
    from abcd_cli.kernels import Lin as _Lin

    axis = Axis("year", "x", "y")
    x = np.linspace(2000.0, 2010.0, 121)
    # sd ∝ |x - 2000.1|·|x - 2006|: rises, falls to zero at 2006, then rises far higher
    dips = _WN((1.0,)) * _Lin((1.0, 2000.1)) * _Lin((1.0, 2006.0)) + _WN((0.01,))
    assert noun_phrase(dips, axis, x_data=x).endswith("with varying standard deviation")
    rising = _WN((1.0,)) * _Lin((1.0, 1999.0)) + _WN((0.01,))
    assert "increasing standard deviation" in noun_phrase(rising, axis, x_data=x)


# ------------------------------------------------------------------ units x counts time in


def test_a_trend_on_an_hours_axis_is_given_per_the_span_unit() -> None:
    hours = Axis("number", "hours", "load")
    grid = np.linspace(0.0, 240.0, 241)
    facts = make_facts(Lin((1.0, 0.0)), 0.5 * grid, grid=grid)
    text = component_paragraph(facts, hours, x_data=np.arange(0.0, 200.0))
    assert "about 84.0 per week" in text  # 0.5 an hour over a span of 1.2 weeks
    plain = component_paragraph(facts, Axis("number", "x", "y"), x_data=np.arange(0.0, 200.0))
    assert "about 0.500 per unit of x" in plain


def test_a_periodic_component_on_a_seconds_axis_states_its_shape_in_seconds() -> None:
    axis = Axis("number", "t_s", "ppg")
    grid = np.linspace(0.0, 3.6, 361)
    facts = make_facts(prod(Per((0.3, 0.8, 1.0)), SE((30.0, 1.0))), grid=grid)
    text = component_paragraph(facts, axis, x_data=np.arange(0.0, 3.0, 0.01))
    assert text.startswith(
        "This component is an approximately periodic function with a period of 0.8 seconds."
    )
    assert "0.038 seconds wide" in text and "over about 30.0 seconds (some 38 periods)" in text
    assert "every 0.8 seconds" in describe_extrapolation(facts, axis, x_data=grid)
    assert "unit" not in text


def test_a_component_adding_no_variance_is_not_said_to_explain_variance() -> None:
    """Radio's last smooth term (ΔR² +0.0%, residual R² 0.0%) read 'Since it explains
    variance without improving the cross-validated error'."""
    idle = make_facts(SE((1.0, 1.0)), delta_r2=0.0002, residual_r2=0.0, cv_after=10.2)
    text = component_paragraph(idle, YEAR)
    assert "explains variance" not in text
    assert "adds almost nothing to the variance explained" in text


def test_the_summary_says_both_of_two_components() -> None:
    """'All two together explain 100.0%.' (temperature) reads 'Both together ...'."""
    for first in (0.5, 0.95):
        two = [make_facts(SE((1.0, 1.0)), cum_r2=first), make_facts(SE((1.0, 1.0)), cum_r2=1.0)]
        text = _explained_sentence(two)
        assert "All two" not in text and "Both" in text


def test_a_constant_its_change_factors_halve_is_a_level_that_changes() -> None:
    """A constant times a soft changepoint at the data's end (as wages' second component): its
    curve c·σ(x) halves over the data, so it is no 'constant' of one level but a level rising
    towards the mean, said with its size at the data's true end (50%, not the last window's
    largest)."""
    gate = Before((float(X_DATA[-1]), 1.5))
    kernel = prod(C((3.0,)), gate)
    mean = -3.84 * gate.modulator(GRID) / gate.modulator(GRID).max()
    facts = make_facts(kernel, mean)
    assert noun_phrase(kernel, YEAR, x_data=X_DATA).startswith("a level ")
    paragraph = component_paragraph(facts, YEAR, x_data=X_DATA)
    assert "Its level is about" not in paragraph
    share = np.interp(X_DATA[-1], GRID, mean) / mean[0]  # 0.50: the curve at the data's end
    assert f"{round(100 * share)}% of that at the end of the data" in paragraph, paragraph


def test_a_gap_narrower_than_its_switches_is_a_dip_not_a_switch_off() -> None:
    """A change window's sides that take longer than the gap between them (gas production's
    '... applies before 1958 and after 1962; each switch takes about 6.5 years') never switch
    the component off: they dip it, a gradual scaling."""
    dip = Outside((1955.0, 2.0, 1.2))  # off 1954-1956, each side 2.4 years wide: down to 0.29
    phrase = noun_phrase(prod(SE((0.5, 1.0)), dip), YEAR, x_data=X_DATA)
    assert "applies" not in phrase and "weakest around 1954" in phrase, phrase
    wide = Outside((1955.0, 8.0, 0.5))  # off 1951-1959, each side 1 year: switched off, on
    assert "applies before 1951 and after 1959" in noun_phrase(
        prod(SE((0.5, 1.0)), wide), YEAR, x_data=X_DATA
    )


def test_a_component_that_predicts_only_with_later_ones_is_not_called_noise() -> None:
    """Internet's 2.9-week trough raised the error where it was added (9,540 to 11,300) while
    the whole model's error is 4,280 with it and 11,700 without: not 'short-lived fluctuations'."""
    worse = make_facts(SE((1.0, 1.0)), index=7, cv_before=9540.0, cv_after=11300.0)
    joint = dataclasses.replace(worse, cv_mae_whole=4280.0, cv_mae_without=11700.0)
    idle = dataclasses.replace(worse, cv_mae_whole=4280.0, cv_mae_without=4300.0)
    text = component_paragraph(joint, YEAR)
    assert "short-lived" not in text
    assert "11,700 without it rather than 4,280" in text
    assert "short-lived" in component_paragraph(idle, YEAR)
    comps = airline_components()[:2] + [joint]
    stops = summary_sentences(comps, YEAR)["stops_improving"]
    assert "most likely capture" not in stops
    assert "Yet without component 7 the whole model would predict worse" in stops
    assert (
        "most likely capture"
        in summary_sentences(airline_components()[:2] + [idle], YEAR)["stops_improving"]
    )


def test_a_hundred_percent_reached_with_the_noise_is_said_to_be_by_construction() -> None:
    """Nile and every report: 'All ... together explain 100.0%' on the first page, a perfect
    fit to a reader, while the noise's fitted values make up whatever the rest leave."""
    text = summary_sentences(airline_components(), YEAR)["explained"]
    # not 'the noise takes up whatever the others leave': where it is ranked early, the later
    # components take up the rest (held-out US unemployment, wheat)
    assert "That 100% holds by construction: with the noise (component 4) in" in text
    signal = summary_sentences(airline_components()[:3], YEAR)["explained"]
    assert "100%" not in signal
    # held-out US unemployment, wheat: 100.0% reached by components 1-3, the noise after them
    early = airline_components()
    early[2] = make_facts(SE((0.9, 8.0)), index=3, cum_r2=1.0, delta_r2=0.015)
    text = summary_sentences(early, YEAR)["explained"]
    assert "That 100% is reached before any noise: components 1-3 follow the data" in text
    assert "by construction" not in text
