"""The report's extrapolation section: past the data along the time input. For a series, the
full model's forecast, or the posterior's after ``--method posterior`` (with whether its
structures agree past the data), and, after a search with several seeds, their averaged
forecast (both computed by :mod:`abcd_cli.decompose.averaged`); for several inputs, what is
drawn there and what a forecast needs."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
from matplotlib.figure import Figure

from abcd_cli.decompose.averaged import (
    DISAGREEMENT_SHARE,
    AveragedForecast,
    PosteriorForecast,
    averaged_forecast,
    posterior_forecast,
)
from abcd_cli.decompose.components import Decomposition
from abcd_cli.reporting import figures as plots
from abcd_cli.reporting.assumptions import assumptions_paragraph
from abcd_cli.reporting.calibration_text import calibration_part
from abcd_cli.reporting.certainty import probability_text
from abcd_cli.reporting.component_text import column
from abcd_cli.reporting.numbers import format_number, format_percent
from abcd_cli.reporting.sections import Frame
from abcd_cli.reporting.trends import data_spacing, ends_precision
from abcd_cli.reporting.wording import (
    format_amount,
    format_position,
    format_span,
    join_words,
    number_word,
    percent,
)

if TYPE_CHECKING:
    from abcd_cli.kernel_search.posterior import StructurePosterior
    from abcd_cli.model import Particles


def forecast_section(
    dec: Decomposition,
    components: list[dict[str, Any]],
    averaged: AveragedForecast | None,
    frame: Frame,
    posterior: PosteriorForecast | None = None,
) -> dict[str, Any] | None:
    """The section on what lies past the data along the time input: for a series, the full
    model's forecast, or the ``posterior``'s (sentences and figure); for several inputs, which
    components are drawn past the data and what a forecast needs. Both end with each
    component's sentence on extrapolation. None when no input is time (the report then has no
    such section)."""
    if dec.time_dim is None:
        return None
    sentences = [f"Component {c['index']}: {c['extrapolation']}" for c in components]
    if dec.series is None:
        return {"text": inputs_forecast_text(dec), "component_sentences": sentences}
    text = forecast_text(dec, posterior)
    return {
        "text": text + ("" if averaged is None else averaged_sentence(averaged)),
        "assumptions": assumptions_paragraph(
            dec, [c["index"] for c in components if c["phrase"].startswith("possibly")]
        ),
        "figure": frame.embed(
            forecast_drawing(dec, frame, averaged, posterior),
            "Forecast of the full model" if posterior is None else "Forecast of the posterior",
        ),
        "component_sentences": sentences,
        **calibration_part(dec, posterior, frame),
    }


def mixed_forecasts(
    dec: Decomposition,
    search: Mapping[str, Any],
    record: StructurePosterior,
    particles: Particles | None = None,
) -> tuple[AveragedForecast | None, PosteriorForecast | None]:
    """A series' forecasts mixed on its grid: the seeds' average (from ``search``, its
    document) and the mixture of the method's weighted particles (``record``), each None
    without one (the model alone has no mixture); (None, None) for a model of several
    inputs. A posterior over several seeds' structures has no seeds' average beside it: its
    mixture holds every seed's model's structure already, weighed by its evidence.
    ``particles``: the record's conditioned particles when the caller holds them."""
    if dec.series is None:
        return None, None
    grid = dec.series.x_grid
    posterior = posterior_forecast(dec.model, record, search, grid, particles)
    return (averaged_forecast(search, grid) if posterior is None else None), posterior


def forecast_drawing(
    dec: Decomposition,
    frame: Frame,
    averaged: AveragedForecast | None,
    posterior: PosteriorForecast | None = None,
) -> Callable[[], Figure]:
    """What draws a series' forecast figure: the data, the full model's mean ± 2 sd, or the
    ``posterior``'s mean within its central 95% and, when its structures disagree past the
    data, the most probable structures' own means there, and the seeds' ``averaged``
    forecast."""
    assert dec.series is not None
    curves = dec.series
    mean, sd = curves.forecast_mean, curves.forecast_sd
    if posterior is not None:
        mean, sd = posterior.mean, posterior.sd
    return partial(
        plots.forecast_figure,
        frame.x,
        frame.y,
        curves.x_grid,
        mean,
        sd,
        frame.x_label,
        frame.y_label,
        averaged=None if averaged is None else (averaged.mean, averaged.low, averaged.high),
        band=None if posterior is None else (posterior.low, posterior.high),
        structures=structure_lines(posterior),
    )


def structure_lines(posterior: PosteriorForecast | None) -> list[tuple[str, Any]] | None:
    """The structures' means the forecast figure draws past the data, each labelled by its
    weight ("weight 0.41"): those of the posterior's record when its structures disagree,
    else None (agreeing, they would lie on the mixture's mean and only hide it)."""
    if posterior is None or not posterior.disagree:
        return None
    return [(f"weight {probability_text(s.weight)}", s.mean) for s in posterior.structures]


def forecast_text(dec: Decomposition, posterior: PosteriorForecast | None = None) -> str:
    """How far a series' forecast reaches past the data, and what its band shows: the full
    model's two standard deviations, or the central 95% of the ``posterior``'s mixture, what
    that mixture averages over and whether its structures agree past the data."""
    assert dec.series is not None
    x = column(dec, 0)
    end, last = float(dec.series.x_grid[-1]), float(x.max())
    precision = ends_precision(x) if dec.axis.is_time else None
    reach = (
        f"extends {format_span(end - last, dec.axis)} past the last observation, to"
        f" {format_position(end, dec.axis, precision)}"
    )
    if posterior is None:
        curves = dec.series
        low = curves.forecast_mean - 2.0 * curves.forecast_sd
        high = curves.forecast_mean + 2.0 * curves.forecast_sd
        return (
            f"The full model's forecast {reach}; the band shows two standard deviations of a"
            " new observation, noise included."
            + sign_sentence(dec, low, high, curves.forecast_mean)
        )
    fitted = (
        "the search"
        if posterior.searches == 1
        else f"{number_word(posterior.searches)} searches with different seeds"
    )
    mixed = (
        f"the {posterior.structure_count} structures the sampler's particles hold, each"
        " weighted by its particles' weights, and within each structure those of its particles"
        " at their own parameters"
        if posterior.sampled
        else f"the {posterior.structure_count} best-scoring structures {fitted} fitted, each"
        f" weighted by its evidence, {parameters_clause(posterior.draws)}"
    )
    return (
        f"The forecast {reach}. It averages over structures and their parameters: it mixes the"
        f" forecasts of {mixed}; the"
        " band holds the central 95% of a new observation, noise included. The components"
        " above describe the most probable structure, of weight"
        f" {probability_text(posterior.top_weight)}."
        + sign_sentence(dec, posterior.low, posterior.high, posterior.mean)
        + agreement_text(dec, posterior)
    )


def sign_sentence(dec: Decomposition, low: np.ndarray, high: np.ndarray, mean: np.ndarray) -> str:
    """' From about 2001 its band reaches below zero, though no observation lies below it:
    ...' when no observation lies on one side of zero and the band (``low``, ``high`` on the
    series' grid) crosses it past the data, with where its ``mean`` itself crosses (held-out
    sunspots: −11.4 by 2061); '' otherwise (a Gaussian model knows no sign)."""
    assert dec.series is not None
    x, y = column(dec, 0), np.asarray(dec.model.y, dtype=float)
    grid = dec.series.x_grid
    past = grid > float(x.max())
    if bool(np.all(y >= 0)) and bool(np.any(y > 0)):
        crossing, centre, way, side = past & (low < 0), past & (mean < 0), "below", "below it"
    elif bool(np.all(y <= 0)) and bool(np.any(y < 0)):
        crossing, centre, way, side = past & (high > 0), past & (mean > 0), "above", "above it"
    else:
        return ""
    if not crossing.any():
        return ""
    precision = ends_precision(x)
    when = format_position(float(grid[crossing][0]), dec.axis, precision)
    text = f" From about {when} its band reaches {way} zero"
    if centre.any():
        peak = int(np.argmax(np.abs(np.where(centre, mean, 0.0))))
        text += (
            f", and its mean itself from about"
            f" {format_position(float(grid[centre][0]), dec.axis, precision)} (as"
            f" {'low' if way == 'below' else 'high'} as about"
            f" {format_amount(float(mean[peak]), dec.axis)})"
        )
    return (
        f"{text}, though no observation lies {side}: the model does not know whether values"
        f" {way} zero can occur."
    )


def parameters_clause(draws: int) -> str:
    """How each structure's parameters enter the mixture: drawn from their posterior, or at
    their fitted values when no structure has more than one particle (no chain ran)."""
    if draws > 1:
        return (
            f"and within each structure those of {draws} draws of its parameters from their"
            " posterior"
        )
    return "each at its fitted parameters"


def agreement_text(dec: Decomposition, posterior: PosteriorForecast) -> str:
    """Whether the posterior's structures agree past the data: a sentence when they do (the
    spread of their means below their own, the threshold of one half in words); when their
    means' share of the variance reaches the threshold, from where, how large it grows, the
    most probable structures' means where they differ most (lowest first, with their
    weights), and what the figure draws. "" when the grid stops at the data."""
    if posterior.peak_index is None:
        return ""
    if not posterior.disagree:
        # true for a threshold up to one half: share < 1/2 ⇔ Σ w_s (m_s − m̄)² < Σ w_s v_s
        return (
            " Past the data the structures agree: their means spread less than each"
            " structure's own forecast does."
        )
    share = percent(posterior.peak_share)
    assert dec.series is not None and posterior.parting is not None
    precision = horizon_precision(column(dec, 0), float(dec.series.x_grid[-1]))
    parting = format_position(posterior.parting, dec.axis, precision)
    peak = format_position(posterior.peak_x, dec.axis, precision)
    values = [
        f"about {format_amount(value, dec.axis)} (weight {probability_text(s.weight)}"
        + (", the structure described above)" if s.rank == 0 else ")")
        for s, value in posterior.at_peak()
    ]
    if len(values) == 1:
        means = f"the most probable structure's mean is {values[0]}"
    else:
        means = (
            f"the means of the {number_word(len(values))} most probable structures are, lowest"
            f" first, {join_words(values)}"
        )
    others = posterior.others_weight
    if others >= 0.005:  # shown with two decimals, less is 0.00
        means += f"; the others hold {format_number(others, decimals=2)} of the weight together"
    drawn = (
        "The thin line past the data in the figure follows it"
        if len(values) == 1
        else "The thin lines past the data in the figure follow them, labelled by weight"
    )
    return (
        f" The structures disagree about the future: from {parting} on, the spread of their"
        f" means makes up {format_percent(DISAGREEMENT_SHARE, decimals=0)} or more of the band's"
        f" variance, {share} around {peak}. There"
        f" {means}. {drawn}."
    )


def horizon_precision(x: Any, end: float) -> float | None:
    """The detail of positions within the forecast's horizon (from the last observation to
    ``end``): a quarter of it, never finer than the data's spacing."""
    horizon = end - float(max(x))
    return max(data_spacing(x) or 0.0, 0.25 * horizon) or None


def inputs_forecast_text(dec: Decomposition) -> str:
    """With several inputs, one of them time: which components are drawn past the data, and
    what a forecast of y needs."""
    t = dec.time_dim
    assert t is not None
    column_t, time = column(dec, t), dec.names[t]
    span = dec.extrapolate * float(column_t.max() - column_t.min())
    readers = [c for c in dec.components if t in c.dims and not c.is_noise]
    if not readers:
        drawn = f" No component depends on {time}, so the model expects no change with it."
    elif any(c.dims == (t,) for c in readers):
        drawn = (
            f" The components of {time} alone are drawn {format_span(span, dec.axes[t])}"
            " past the last observation."
        )
    else:
        drawn = ""
    return (
        f"{time} is the time input.{drawn} A forecast of {dec.y_name} needs the other inputs'"
        " values at the times to come: give them to 'abcd predict' with the saved model."
    )


def averaged_sentence(averaged: AveragedForecast) -> str:
    """What the dashed line of the forecast figure is, and each search's weight in it."""
    k = len(averaged.seeds)
    return (
        f" The search was run {k} times, with different seeds, and this report describes the"
        f" model with the lowest BIC. The dashed line averages the {k} models' forecasts, each"
        " weighted by its evidence, exp(−BIC/2) over the sum of these"
        f" ({seed_shares(averaged.seeds, averaged.weights)}); the dotted lines bound"
        " the central 95% of that average."
    )


def seed_shares(seeds: Sequence[int], weights: Sequence[float]) -> str:
    """Each seed's share of the average to two decimals: "seed 4 0.62, seed 5 0.38"."""
    return ", ".join(
        f"seed {seed} {format_number(w, decimals=2)}"
        for seed, w in zip(seeds, weights, strict=True)
    )
