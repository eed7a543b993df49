"""The forecast section after ``--method posterior``: what the band averages over, whether the
structures agree past the data (in words, and in the figure by their means), on posteriors
built by hand (``tests/decompose/test_averaged.py``)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from matplotlib.lines import Line2D

from abcd_cli.decompose.averaged import (
    DISAGREEMENT_SHARE,
    PosteriorForecast,
    posterior_forecast,
)
from abcd_cli.decompose.components import Decomposition, decompose
from abcd_cli.decompose.facts import Axis
from abcd_cli.model import posterior_of
from abcd_cli.reporting import figures as plots
from abcd_cli.reporting.forecast import forecast_drawing, forecast_section, forecast_text
from abcd_cli.reporting.numbers import format_number, format_percent
from abcd_cli.reporting.sections import frame_of
from abcd_cli.reporting.wording import format_amount, percent
from tests.decompose.test_averaged import DRAWS, FLAT, TREND, WIGGLY_TREND, posterior_model

AXIS = (Axis("year", "date", "sales"),)


def _decomposed(structures: list[tuple[str, float]]) -> tuple[Decomposition, PosteriorForecast]:
    """The first structure decomposed (four years past the data), and the posterior's
    forecast on its grid."""
    model, doc = posterior_model(structures)
    dec = decompose(model, AXIS, extrapolate=0.35, seed=0)
    assert dec.series is not None
    forecast = posterior_forecast(dec.model, posterior_of(doc, dec.model), doc, dec.series.x_grid)
    assert forecast is not None
    return dec, forecast


@pytest.fixture(scope="module")
def parting() -> tuple[Decomposition, PosteriorForecast]:
    return _decomposed([(TREND, 0.6), (FLAT, 0.37), (WIGGLY_TREND, 0.03)])


@pytest.fixture(scope="module")
def agreeing() -> tuple[Decomposition, PosteriorForecast]:
    return _decomposed([(TREND, 0.55), (WIGGLY_TREND, 0.45)])


def _structure_lines(fig) -> dict[str, Line2D]:
    ax = fig.axes[0]
    return {line.get_label(): line for line in ax.lines if line.get_label().startswith("weight")}


def test_the_band_is_said_to_average_structures_and_their_parameters(agreeing) -> None:
    dec, forecast = agreeing
    text = forecast_text(dec, forecast)
    assert "It averages over structures and their parameters" in text
    assert "mixes the forecasts of the 2 best-scoring structures" in text
    assert f"those of {DRAWS} draws of its parameters from their posterior" in text


def test_agreeing_structures_are_said_to_agree_in_one_sentence(agreeing) -> None:
    dec, forecast = agreeing
    text = forecast_text(dec, forecast)
    assert not forecast.disagree
    assert text.endswith(
        " Past the data the structures agree: their means spread less than each structure's"
        " own forecast does."
    )
    assert "disagree" not in text and "thin line" not in text
    # what the sentence says: past the data, the means' spread is below the structures' own
    past = dec.series.x_grid > forecast.data_end
    between = forecast.share[past] * forecast.sd[past] ** 2
    assert np.all(between < forecast.sd[past] ** 2 - between)


def test_disagreeing_structures_are_said_to_part_from_where_and_how_far(parting) -> None:
    dec, forecast = parting
    assert forecast.disagree and forecast.parting is not None
    text = forecast_text(dec, forecast)
    threshold = format_percent(DISAGREEMENT_SHARE, decimals=0)
    said = "The structures disagree about the future: from 2012 on, the spread of their means"
    assert f"{said} makes up {threshold} or more of the band's variance" in text
    assert "Past the data the structures agree" not in text
    assert f"{percent(forecast.peak_share)} around {math.floor(forecast.peak_x)}" in text
    (low, low_value), (high, high_value) = forecast.at_peak()
    # lowest first, in y's units, each with its weight; the decomposed one named
    lowest = f"about {format_amount(low_value, dec.axis)} (weight 0.37)"
    highest = f"about {format_amount(high_value, dec.axis)} (weight 0.60, the structure described"
    assert text.index(lowest) < text.index(highest)
    assert high_value - low_value > 5  # the trend's mean well above the smooth one's
    assert "the others hold 0.03 of the weight together" in text
    assert "The thin lines past the data in the figure follow them, labelled by weight" in text


def test_the_figure_draws_the_structures_means_past_the_data_only_when_they_disagree(
    parting, agreeing
) -> None:
    dec, forecast = parting
    lines = _structure_lines(forecast_drawing(dec, frame_of(dec), None, forecast)())
    assert list(lines) == [
        f"weight {format_number(s.weight, decimals=2)}" for s in forecast.structures
    ]
    assert dec.series is not None
    grid, data_end = dec.series.x_grid, float(dec.model.x.max())
    for shown in forecast.structures:
        x, y = (np.asarray(v) for v in lines[f"weight {shown.weight:.2f}"].get_data())
        assert x[0] <= data_end < x[1] and x[-1] == grid[-1]  # from the data's end on
        np.testing.assert_allclose(y, shown.mean[grid >= x[0]])
    labels = [t.get_text() for t in lines["weight 0.60"].axes.get_legend().get_texts()]
    assert "weight 0.60" in labels and "weight 0.37" in labels

    dec, forecast = agreeing
    assert _structure_lines(forecast_drawing(dec, frame_of(dec), None, forecast)()) == {}


def test_the_section_embeds_a_figure_with_the_structures_colours(parting, agreeing) -> None:
    for (dec, forecast), drawn in ((parting, True), (agreeing, False)):
        section = forecast_section(dec, [], None, frame_of(dec), forecast)
        assert section is not None
        svg = section["figure"]["content"]
        assert (plots.STRUCTURE_COLOURS[0] in svg) is drawn
        assert (plots.STRUCTURE_COLOURS[1] in svg) is drawn


def test_the_figure_refuses_a_structures_mean_off_the_grid() -> None:
    grid = np.linspace(0.0, 2.0, 11)
    with pytest.raises(ValueError, match="structure weight 0.50"):
        plots.forecast_figure(
            [0.0, 1.0],
            [1.0, 2.0],
            grid,
            np.zeros(11),
            np.ones(11),
            "t",
            "y",
            structures=[("weight 0.50", np.zeros(5))],
        )


def test_the_forecast_section_says_its_assumptions_from_the_components_records() -> None:
    """No paragraph said what the forecast assumes: what carries on, what returns to the
    long-run trend, what is held constant."""
    from abcd_cli.decompose.components import decompose
    from abcd_cli.decompose.facts import Axis
    from abcd_cli.reporting.component_text import column
    from abcd_cli.reporting.context import build_context
    from abcd_cli.reporting.extrapolation import extrapolation_record
    from tests.reporting.test_report import _search_doc, fixed_model

    model = fixed_model()
    dec = decompose(model, (Axis("year", "date", "sales"),), extrapolate=0.2, seed=0)
    context = build_context(dec, "Sales", "sales.csv", _search_doc(model), figures=False)
    text = context["forecast"]["assumptions"]
    assert text == context["json"]["forecast"]["assumptions"]
    kinds = {
        c.index: extrapolation_record(c, dec.axis, x_data=column(dec, 0)).kind
        for c in dec.components
    }
    for index, kind in kinds.items():
        wanted = {
            "repeats": "keeps repeating",
            "continues": "carries on",
            "returns": "eases back",
            "noise": "is not forecast",
        }[kind]
        assert f"component {index} {wanted}" in text or f"of component {index}" in text
    assert (
        "returns to the long-run trend and the cycles that keep repeating: the series' mean" in text
    )
    assert "Held constant throughout" in text and "--" not in text


def test_a_weight_just_under_one_is_not_printed_as_one() -> None:
    """Call-centre's posterior report: 'the most probable structure (weight > 0.99)' in the
    summary beside 'of weight 1.00' in the forecast section, one number said two ways."""
    dec, forecast = _decomposed([(TREND, 0.996), (WIGGLY_TREND, 0.004)])
    text = forecast_text(dec, forecast)
    assert "the most probable structure, of weight > 0.99." in text
    assert "weight 1.00" not in text


def test_the_samplers_forecast_mixes_its_particles_not_a_searchs_structures() -> None:
    """A report made by the sampler (--method smc) names no search it did not run: its
    structures are those its particles hold, weighted by their particles' weights."""
    import abcd_cli
    from abcd_cli.reports import report_context

    x = np.linspace(2000.0, 2010.0, 40)
    y = np.sin(2.0 * x) + 0.1 * (x - 2000.0)
    sampled = abcd_cli.search(
        x=x, y=y, method="smc", particles=4, data_steps=2, first_points=20,
        structure_moves=1, parameter_moves=1,
    )  # fmt: skip
    context = report_context(sampled, figures=False)
    text = context["forecast"]["text"]
    assert "structures the sampler's particles hold" in text
    for greedy in ("best-scoring", "the search fitted", "weighted by its evidence"):
        assert greedy not in text
    certainty = context["summary"]["certainty"]
    assert "no particle holds" in certainty and "the search did not keep" not in certainty
    assert context["posterior"]["sampler"] is True  # its page prints no empty BIC column


def _falling(offset: float, zero_at_start: bool = False) -> Decomposition:
    """A series falling by 0.9 a year from 10 (+ ``offset``) over 1990-2000, every value above
    zero, modelled as a line: its forecast to 2003.5 falls below zero without an offset."""
    from abcd_cli.data.scaling import Scaling
    from abcd_cli.engines import get_engine
    from abcd_cli.kernels.text import parse_kernel
    from abcd_cli.model import Model

    x = np.linspace(1990.0, 2000.0, 41)
    y = offset + 10.0 - 0.9 * (x - 1990.0) + 0.2 * np.sin(7.0 * x)
    if zero_at_start:  # sunspots: counts that reach zero but never go below it
        y[0] = 0.0
    scaling = Scaling.from_data(x, y)
    kernel = scaling.kernel_in(parse_kernel("Lin(sd=1.0, location=1995.0) + WN(sd=0.2)"))
    model = Model(kernel, scaling, x, y, 0.0, engine=get_engine("exact"))
    return decompose(model, AXIS, extrapolate=0.35, seed=0)


def test_a_band_crossing_zero_past_positive_data_is_said() -> None:
    """Gas production: every observation above zero, the band's lower edge below zero from
    about 2000 on, and not a word on it; sunspots, whose counts reach zero, neither."""
    text = forecast_text(_falling(0.0))
    assert (
        "its band reaches below zero, and its mean itself from about 2001 (as low as about −2.15)"
        in text
    )
    assert "though no observation lies below it" in text
    assert "zero" not in forecast_text(_falling(100.0))
    assert "though no observation lies below it" in forecast_text(_falling(0.0, True))
