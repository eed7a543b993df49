"""The report's extrapolation section: past the data along the time input. For a series, the
full model's forecast, or the posterior's after ``--method posterior``, and, after a search
with several seeds, their averaged forecast (both computed by
:mod:`abcd_cli.decompose.averaged`); for several inputs, what is drawn there and what a forecast
needs."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from matplotlib.figure import Figure

from abcd_cli.decompose.averaged import (
    AveragedForecast,
    PosteriorForecast,
    averaged_forecast,
    posterior_forecast,
)
from abcd_cli.decompose.components import Decomposition
from abcd_cli.reporting import figures as plots
from abcd_cli.reporting.component_text import column
from abcd_cli.reporting.numbers import format_number
from abcd_cli.reporting.sections import Frame
from abcd_cli.reporting.trends import ends_precision
from abcd_cli.reporting.wording import format_position, format_span


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
        "figure": frame.embed(
            forecast_drawing(dec, frame, averaged, posterior),
            "Forecast of the full model" if posterior is None else "Forecast of the posterior",
        ),
        "component_sentences": sentences,
    }


def mixed_forecasts(
    dec: Decomposition, search: Mapping[str, Any]
) -> tuple[AveragedForecast | None, PosteriorForecast | None]:
    """A series' forecasts mixed from ``search`` (its document) on its grid: the seeds'
    average and the posterior's mixture, each None without one; (None, None) for a model of
    several inputs."""
    if dec.series is None:
        return None, None
    grid = dec.series.x_grid
    return averaged_forecast(search, grid), posterior_forecast(dec.model, search, grid)


def forecast_drawing(
    dec: Decomposition,
    frame: Frame,
    averaged: AveragedForecast | None,
    posterior: PosteriorForecast | None = None,
) -> Callable[[], Figure]:
    """What draws a series' forecast figure: the data, the full model's mean ± 2 sd, or the
    ``posterior``'s mean within its central 95%, and the seeds' ``averaged`` forecast."""
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
    )


def forecast_text(dec: Decomposition, posterior: PosteriorForecast | None = None) -> str:
    """How far a series' forecast reaches past the data, and what its band shows: the full
    model's two standard deviations, or the central 95% of the ``posterior``'s mixture."""
    assert dec.series is not None
    x = column(dec, 0)
    end, last = float(dec.series.x_grid[-1]), float(x.max())
    precision = ends_precision(x) if dec.axis.is_time else None
    reach = (
        f"extends {format_span(end - last, dec.axis)} past the last observation, to"
        f" {format_position(end, dec.axis, precision)}"
    )
    if posterior is None:
        return (
            f"The full model's forecast {reach}; the band shows two standard deviations of a"
            " new observation, noise included."
        )
    return (
        f"The forecast {reach}. It mixes the forecasts of the {posterior.structure_count}"
        " structures of lowest BIC the search fitted, each weighted by its evidence and with its"
        " parameters drawn from their posterior; the band holds the central 95% of a new"
        " observation, noise included. The components above describe the most probable"
        f" structure, of weight {format_number(posterior.top_weight, decimals=2)}."
    )


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
